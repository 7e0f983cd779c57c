"""Every game declares its options once (vint_env.games.params); envs, engines and the CLIs check them there.

Regression tests of issue 23's option items: each bad value is refused with an error naming the option.
"""

import inspect
import re

import numpy as np
import pytest

from vint_env import games
from vint_env.envs import vint2p_v0, vint_v0
from vint_env.evaluation import cli as eval_cli
from vint_env.games.params import MAX_REWARD_SCALE, OptionError, Parameter
from vint_env.vector.engine import VintEngine, WhistEngine


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_the_env_constructor_defaults_are_the_declared_ones(game):
    signature = inspect.signature(game.env_module().raw_env.__init__).parameters
    declared = game.defaults
    assert set(declared) <= set(signature)
    for name, default in declared.items():
        assert signature[name].default == default, name
    assert declared["reward_scale"] == game.reward_scale
    env = game.raw_env()
    for name, default in declared.items():
        assert getattr(env, name) == default, name


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_every_declared_option_is_checked_by_the_env(game):
    for p in game.parameters:
        bad = "not-a-value" if p.type is not str else 12345
        with pytest.raises(ValueError, match=p.name):
            game.raw_env(**{p.name: bad})


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_a_reward_scale_that_overflows_is_refused(game):          # issue 23, item 6
    with pytest.raises(OptionError, match="reward_scale must be a finite positive number"):
        game.raw_env(reward_scale=1e308)
    game.raw_env(reward_scale=MAX_REWARD_SCALE)                   # the largest still accepted
    if game.has_engine:
        with pytest.raises(OptionError, match="reward_scale"):
            game.engine_class()(reward_scale=1e308)


def test_a_largest_scale_gives_finite_float32_rewards():
    env = games.get("vint").raw_env(reward_scale=MAX_REWARD_SCALE)
    env.reset(seed=0)
    while not all(env.terminations.values()):
        env.step(env._legal_actions()[0])
    assert all(np.isfinite(np.float32(r)) for r in env.rewards.values())


@pytest.mark.parametrize("viewer", [2, 3, -1])
def test_vint2p_viewer_is_a_player(viewer):                        # issue 23, item 7
    with pytest.raises(OptionError, match=r"viewer must be one of \(0, 1\) or None"):
        vint2p_v0.raw_env(viewer=viewer)
    assert vint2p_v0.raw_env(viewer=1).viewer == 1


def test_vint2p_way_must_be_an_integer():                          # issue 23, item 8
    with pytest.raises(OptionError, match=r"way must be one of \(1, 2, 3, 4, 5\), got 4.0 \(an integer, not float\)"):
        vint2p_v0.raw_env(way=4.0)
    assert vint2p_v0.raw_env(way=np.int64(2)).way == 2 and type(vint2p_v0.raw_env(way=np.int64(2)).way) is int


@pytest.mark.parametrize("value", ["no", 0, 1, None, "True"])
def test_engine_booleans_must_be_booleans(value):                  # issue 23, item 14
    with pytest.raises(ValueError, match="auto_reset must be True or False"):
        VintEngine(auto_reset=value)
    with pytest.raises(ValueError, match="ten_is_honour must be True or False"):
        WhistEngine(ten_is_honour=value)
    assert VintEngine(auto_reset=np.bool_(False)).auto_reset is False


@pytest.mark.parametrize("make", [vint_v0.raw_env, vint2p_v0.raw_env])
def test_game_bonus_must_be_an_integer(make):                      # issue 23, item 15
    with pytest.raises(OptionError, match=r"game_bonus must be one of \(100, 1000\), got 100.0"):
        make(game_bonus=100.0)


@pytest.mark.parametrize("option, message", [
    ("reward_scale=abc", r"reward_scale must be a finite positive number .*, got 'abc'"),   # issue 23, item 16
    ("reward_scale=0.5", "reward_scale.*the harness scores in points"),
    ("way=1", "vint_v0: unknown env option 'way'; its options: "),                       # issue 23, item 9
    ("episode=rubber", "choose it with --episode"),
    ("game_bonnus=1000", "did you mean 'game_bonus'"),
    ("passout", "expected KEY=VALUE"),
])
def test_vint_eval_env_options_are_checked(option, message, capsys):
    code = eval_cli.main(["match", "--game", "vint", "--a", "random", "--b", "random", "--boards", "1",
                          "--workers", "1", "--no-progress", "--env-option", option])
    assert code == 2
    assert re.search(message, capsys.readouterr().err)


def test_vint_eval_env_options_are_parsed_by_their_type():
    assert games.get("vint2p").parse_options(["way=1", "game_bonus=1000", "viewer=none"]) == \
        {"way": 1, "game_bonus": 1000, "viewer": None}
    assert games.get("whist").parse_options(["no_trump=true"]) == {"no_trump": True}
    assert games.get("vint").parse_options(["reward_scale=0.01"]) == {"reward_scale": 0.01}


@pytest.mark.parametrize("make", [vint_v0.raw_env, vint2p_v0.raw_env])
def test_a_dealer_array_is_refused(make):                          # issue 23, item 19
    env = make()
    with pytest.raises(ValueError, match="reset option 'dealer' must be a"):
        env.reset(seed=0, options={"dealer": np.array([1, 2])})
    env.reset(seed=0, options={"dealer": np.int64(1)})


def test_reset_options_must_be_a_dict():                           # issue 23, item 19
    with pytest.raises(ValueError, match="reset options must be a dict"):
        vint_v0.raw_env().reset(seed=0, options="notadict")


def test_engine_reset_games_must_be_integers_or_a_mask():          # issue 23, item 19
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=3)
    with pytest.raises(ValueError, match="games must be game indices"):
        engine.reset(state, games=[1.7])
    engine.reset(state, games=[1])
    engine.reset(state, games=np.array([True, False, True]))


def test_options_invalid_together_are_refused_with_both_named():
    with pytest.raises(OptionError, match="auction='single' is a variant of way 1 only"):
        vint2p_v0.raw_env(auction="single", way=4)
    with pytest.raises(OptionError, match="way 5 has no passout='play'"):
        vint2p_v0.raw_env(way=5, passout="play")


def test_a_parameter_checks_its_type_strictly():
    flag = Parameter("flag", bool, False, "a flag")
    assert flag.check(np.bool_(True)) is True
    for bad in (1, "yes", None):
        with pytest.raises(OptionError, match="flag must be True or False"):
            flag.check(bad)
    count = Parameter("count", int, 1, "a count", minimum=1)
    assert count.check(np.int8(3)) == 3
    for bad in (0, 2.0, True, "2"):
        with pytest.raises(OptionError, match="count must be a positive integer"):
            count.check(bad)


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_the_docs_options_table_is_generated_from_the_declarations(game):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "hooks"))
    import generate
    table = generate.options_table(game.env_name)
    for p in game.parameters:
        assert f"| `{p.name}` | {p.type.__name__} |" in table
    page = Path(__file__).resolve().parents[2] / "docs" / "envs" / f"{game.name}.md"
    assert f"<!-- generated: options-table {game.env_name} -->" in page.read_text()
