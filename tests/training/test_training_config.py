"""Config loading: every key checked, overrides typed, shipped configs valid."""

from pathlib import Path

import pytest
import yaml

pytest.importorskip("yaml")

from vint_env.training.config import ConfigError, PPOConfig, load_config, parse_override

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def write(tmp_path, text):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    return p


#: configs that start from a checkpoint the user names on the command line (--set init_from=...)
STARTS_FROM_A_CHECKPOINT = {"whist_rl.yaml"}


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_load(path, tmp_path):
    extra = []
    if path.name in STARTS_FROM_A_CHECKPOINT:
        with pytest.raises(ConfigError, match="needs a teacher and bc_epochs >= 1 \\(or init_from"):
            load_config(path)                     # without its start, it says what it needs
        extra = ["init_from=vint_env/baselines/whist.pt"]     # a Whist checkpoint (its game is checked)
    cfg = load_config(path, extra)
    assert isinstance(cfg, PPOConfig)
    assert cfg.run.name == path.stem


def test_unknown_key_is_named_with_a_suggestion(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown config key 'learning_rat'.*did you mean 'learning_rate'"):
        load_config(write(tmp_path, "learning_rat: 0.001\n"))


def test_wrong_type_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"'num_envs' must be of type int, got '8x'"):
        load_config(write(tmp_path, "num_envs: 8x\n"))
    with pytest.raises(ConfigError, match=r"'anneal_lr' must be of type bool"):
        load_config(write(tmp_path, "anneal_lr: 1\n"))
    with pytest.raises(ConfigError, match=r"'num_envs' must be of type int"):
        load_config(write(tmp_path, "num_envs: 8.5\n"))


def test_bad_values_rejected(tmp_path):
    with pytest.raises(ConfigError, match="game must be one of"):
        load_config(write(tmp_path, "game: chess_v0\n"))
    with pytest.raises(ConfigError, match="opponent_mix must sum to 1"):
        load_config(write(tmp_path, "opponent_mix: {self: 0.5, rule: 0.2}\n"))
    with pytest.raises(ConfigError, match="unknown kind"):
        load_config(write(tmp_path, "opponent_mix: {self: 0.5, dd: 0.5}\n"))
    with pytest.raises(ConfigError, match="gamma must be in"):
        load_config(write(tmp_path, "gamma: 1.5\n"))
    with pytest.raises(ConfigError, match=r"collection.num_envs must be in \[1, 65536\], got 0"):
        load_config(write(tmp_path, "num_envs: 0\n"))


def test_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "a: [1, 2\n"))
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_config(write(tmp_path, "- 1\n- 2\n"))


def test_overrides(tmp_path):
    cfg = load_config(write(tmp_path, "num_envs: 4\n"),
                      ["num_envs=16", "learning_rate=3e-4", "anneal_lr=false", "opponent_mix.self=0.7",
                       "opponent_mix.pool=0.1", "network_kwargs={hidden_sizes: [32, 32]}", "max_minutes=2"])
    assert cfg.collection.num_envs == 16
    assert cfg.ppo.learning_rate == 3e-4
    assert cfg.ppo.anneal_lr is False
    assert cfg.opponents.opponent_mix == {"self": 0.7, "pool": 0.1, "random": 0.1, "rule": 0.1}
    assert cfg.model.network_kwargs == {"hidden_sizes": [32, 32]}
    assert cfg.run.max_minutes == 2.0
    with pytest.raises(ConfigError, match="unknown config key 'num_env'"):
        load_config(None, ["num_env=3"])
    with pytest.raises(ConfigError, match="key=value"):
        load_config(None, ["num_envs"])
    with pytest.raises(ConfigError, match="is not a mapping"):
        load_config(None, ["num_envs.x=3"])
    assert parse_override("name=a=b") == ("name", "a=b")


def test_sections_nest_the_keys_and_flat_files_still_load(tmp_path):
    nested = load_config(write(tmp_path, "run: {game: whist_v0, seed: 3}\nppo: {learning_rate: 0.001}\n"
                                         "opponents: {opponent_mix: {self: 1.0}}\n"))
    flat = load_config(write(tmp_path, "game: whist_v0\nseed: 3\nlearning_rate: 0.001\n"
                                       "opponent_mix: {self: 1.0}\n"))
    assert nested.to_dict() == flat.to_dict()
    # the env id whist_v0 is read as the game's name
    assert (nested.run.game, nested.run.seed, nested.ppo.learning_rate) == ("whist", 3, 0.001)
    # the sectioned form a run writes reads back to the same config
    assert load_config(write(tmp_path, yaml.safe_dump(nested.to_dict()))).to_dict() == nested.to_dict()


def test_nested_unknown_keys_get_the_nearest_key(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.learnig_rate'.*did you mean 'ppo.learning_rate'"):
        load_config(write(tmp_path, "ppo: {learnig_rate: 0.001}\n"))
    with pytest.raises(ConfigError, match=r"'num_envs' is not in section 'ppo': it is collection.num_envs"):
        load_config(write(tmp_path, "ppo: {num_envs: 8}\n"))
    with pytest.raises(ConfigError, match=r"unknown config key 'colection'.*did you mean 'collection'"):
        load_config(write(tmp_path, "colection: {num_envs: 8}\n"))
    with pytest.raises(ConfigError, match=r"section 'ppo' must be a mapping"):
        load_config(write(tmp_path, "ppo: 3\n"))
    with pytest.raises(ConfigError, match=r"'seed' is given twice"):
        load_config(write(tmp_path, "seed: 1\nrun: {seed: 2}\n"))
    with pytest.raises(ConfigError, match=r"'num_envs' must be of type int"):
        load_config(write(tmp_path, "collection: {num_envs: 8x}\n"))


def test_overrides_may_name_their_section(tmp_path):
    cfg = load_config(None, ["ppo.learning_rate=1e-4", "opponents.opponent_mix.self=0.7",
                             "opponents.opponent_mix.pool=0.1", "collection.num_envs=5"])
    assert (cfg.ppo.learning_rate, cfg.collection.num_envs, cfg.opponents.opponent_mix["self"]) == (1e-4, 5, 0.7)
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.lr'"):
        load_config(None, ["ppo.lr=1e-4"])
    with pytest.raises(ConfigError, match=r"'seed' is not in section 'ppo'"):
        load_config(None, ["ppo.seed=3"])
