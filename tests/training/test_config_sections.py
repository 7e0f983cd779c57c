"""The config in sections (issue 41 item 2): declared keys with types and ranges, inheritance between
files, the one conversion of the flat configs of earlier releases (files and checkpoints), and bad
values refused before any run folder is made (issue 41 item 7, issue 49 items 3 to 6)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vint_env import games
from vint_env.agents.learned.policy import load_checkpoint
from vint_env.training.cli import main
from vint_env.training.config import (FIELDS, SECTION_OF, SECTION_TYPES, SECTIONS, ConfigError, PPOConfig,
                                      config_from_checkpoint, config_from_dict, load_config, nest)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
SMOKE = str(CONFIGS / "smoke.yaml")
BASELINES = ROOT / "vint_env" / "baselines"
#: The resolved values of every shipped config on main before the sections (6aca709), key by key.
RESOLVED = json.loads((ROOT / "tests" / "data" / "shipped_configs_resolved.json").read_text())
#: Keys added since, with the default every shipped config keeps (the run trains as before the key existed),
#: unless the fixture holds the value a config sets since (a recipe changed on purpose, with its commit).
ADDED_SINCE = {"device": "auto", "teacher_engine": False}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------ the sections and their declared keys

def test_no_section_has_30_keys_and_every_key_declares_a_range():
    assert len(dataclasses.fields(PPOConfig)) == len(SECTIONS) < 30
    for section, kind in SECTION_TYPES.items():
        assert len(dataclasses.fields(kind)) < 30, section
    for name, f in FIELDS.items():
        assert "range" in f.metadata, name


def test_the_code_reads_keys_through_their_section():
    cfg = load_config(SMOKE)
    assert (cfg.run.name, cfg.collection.num_envs, cfg.ppo.update_epochs, cfg.checkpoints.checkpoint_every) == \
        ("smoke", 8, 2, 1)
    assert not hasattr(cfg, "learning_rate")


def test_the_defaults_are_the_recommended_path():
    cfg = load_config(None)
    assert (cfg.collection.env_source, cfg.model.network) == ("vector", "sparse")


@pytest.mark.parametrize("name", sorted(RESOLVED))
def test_shipped_configs_resolve_to_the_same_values_as_before_the_sections(name):
    extra = ["init_from=vint_env/baselines/whist.pt"] if name == "whist_rl.yaml" else []
    got = load_config(CONFIGS / name, extra).to_flat()
    want = {**ADDED_SINCE, **RESOLVED[name], "game": games.get(RESOLVED[name]["game"]).name}   # its env id then, its name now
    assert sorted(got) == sorted(want)
    for key in want:
        assert (got[key], type(got[key])) == (want[key], type(want[key])), f"{name}: {key}"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_are_25_lines_or_fewer(path):
    assert len(path.read_text().splitlines()) <= 25


# ------------------------------------------------------------------ misplaced, unknown, doubled keys

@pytest.mark.parametrize("text, message", [
    ("ppo: {seed: 1}\n", r"'seed' is not in section 'ppo': it is run.seed"),
    ("evaluation: {checkpoint_every: 3}\n", r"'checkpoint_every' is not in section 'evaluation': it is "
                                            r"checkpoints.checkpoint_every"),
    ("ppo: {learnig_rate: 0.1}\n", r"unknown config key 'ppo.learnig_rate' \(did you mean 'ppo.learning_rate'\?\)"),
    ("colection: {num_envs: 8}\n", r"unknown config key 'colection' \(did you mean 'collection'\?\)"),
    ("seed: 1\nrun: {seed: 2}\n", r"'seed' is given twice \(alone and as run.seed\)"),
    ("run: {seed: 1, seed: 2}\n", r"key 'seed' is given twice \(lines 1 and 1\)"),
    ("warm_start: {teacher: rule}\n", r"section 'warm_start' of earlier releases is split into teacher_data, "
                                      r"cloning, value_targets, residual, init"),
])
def test_misplaced_unknown_and_doubled_keys_name_their_section(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message) as e:
        load_config(write(tmp_path, "c.yaml", text))
    assert str(e.value).count("config file") == 1      # the file is named once


def test_set_takes_a_section_or_a_unique_key_alone():
    cfg = load_config(SMOKE, ["ppo.learning_rate=0.001", "num_envs=4", "seed=7", "torch_threads=2",
                              "opponents.opponent_mix.self=0.6", "opponent_mix.rule=0.0"])
    assert (cfg.ppo.learning_rate, cfg.collection.num_envs, cfg.run.seed, cfg.run.torch_threads) == (0.001, 4, 7, 2)
    assert cfg.opponents.opponent_mix == {"self": 0.6, "pool": 0.2, "random": 0.2, "rule": 0.0}
    with pytest.raises(ConfigError, match=r"'learning_rate' is not in section 'run': it is ppo.learning_rate"):
        load_config(SMOKE, ["run.learning_rate=0.1"])


# ------------------------------------------------------------------ inheritance

def test_a_config_inherits_its_base_and_overrides_it(tmp_path):
    write(tmp_path, "parent.yaml", "run: {name: parent, seed: 5}\nppo: {learning_rate: 0.001, clip_coef: 0.3}\n")
    child = write(tmp_path, "child.yaml", "base: parent.yaml\nrun: {name: child}\nppo: {clip_coef: 0.1}\n")
    cfg = load_config(child)
    assert (cfg.run.name, cfg.run.seed, cfg.ppo.learning_rate, cfg.ppo.clip_coef) == ("child", 5, 0.001, 0.1)
    (tmp_path / "sub").mkdir()
    grandchild = write(tmp_path / "sub", "g.yaml", "base: ../child.yaml\nrun: {seed: 9}\n")
    with pytest.raises(ConfigError, match="lies outside"):        # only inside the given file's folder
        load_config(grandchild)
    write(tmp_path / "sub", "p.yaml", "ppo: {learning_rate: 0.002}\n")
    nested = write(tmp_path, "n.yaml", "base: sub/p.yaml\n")
    assert load_config(nested).ppo.learning_rate == 0.002


def test_a_shipped_config_states_only_what_differs_from_its_base():
    whist = yaml.safe_load((CONFIGS / "whist_ppo.yaml").read_text())
    assert whist["base"] == "vint_ppo.yaml"
    assert load_config(CONFIGS / "whist_ppo.yaml").ppo == load_config(CONFIGS / "vint_ppo.yaml").ppo


@pytest.mark.parametrize("files, message", [
    ({"a.yaml": "base: b.yaml\n", "b.yaml": "base: a.yaml\n"}, r"its bases form a cycle \(a.yaml -> b.yaml -> a.yaml\)"),
    ({"a.yaml": "base: a.yaml\n"}, r"cycle \(a.yaml -> a.yaml\)"),
    ({"a.yaml": "base: missing.yaml\n"}, r"config file '.*a.yaml', base '.*missing.yaml' does not exist"),
    ({"a.yaml": "base: https://example.org/c.yaml\n"}, r"is a URL"),
    ({"a.yaml": "base: /etc/passwd\n"}, r"lies outside"),
    ({"a.yaml": "base: [x]\n"}, r"base must be the path of a config file"),
    ({"a.yaml": "base: b.yaml\n", "b.yaml": "ppo: {sed: 1}\n"}, r"base '.*b.yaml': unknown config key 'ppo.sed'"),
    ({f"{i}.yaml": f"base: {i + 1}.yaml\n" for i in range(12)} | {"12.yaml": "run: {seed: 2}\n"}, "bases deep"),
])
def test_bad_bases_are_named(tmp_path, files, message):
    for name, text in files.items():
        write(tmp_path, name, text)
    first = next(iter(files))
    with pytest.raises(ConfigError, match=message) as e:
        load_config(tmp_path / first)
    assert str(e.value).count(f"config file '{tmp_path / first}'") == 1


# ------------------------------------------------------------------ the flat configs of earlier releases

@pytest.mark.parametrize("game", ["vint_residual", "whist", "solo_whist_residual", "whist_residual"])
def test_a_shipped_baselines_flat_config_converts_to_sections(game):
    stored = load_checkpoint(BASELINES / f"{game}.pt")["config"]
    assert "learning_rate" in stored and "ppo" not in stored      # written before the sections: flat
    cfg = config_from_checkpoint(stored)
    flat = cfg.to_flat()
    assert {k: flat[k] for k in stored} == {k: (float(v) if isinstance(flat[k], float) else v)
                                           for k, v in stored.items() if k != "game"} | {"game": cfg.run.game}
    assert cfg.residual.residual_base == stored["residual_base"] and cfg.run.seed == stored["seed"]
    assert nest(stored) == {s: {k: stored[k] for k in keys if k in stored} for s, keys in SECTIONS.items()
                            if any(k in stored for k in keys)}


def test_a_flat_file_of_an_earlier_release_still_loads(tmp_path):
    flat = write(tmp_path, "old.yaml", "\n".join(f"{k}: {json.dumps(v)}" for k, v in RESOLVED["smoke.yaml"].items()))
    assert load_config(flat).to_dict() == load_config(SMOKE).to_dict()


def test_a_run_of_an_earlier_release_resumes_from_its_flat_checkpoint(tmp_path, capsys):
    """A trainer checkpoint whose config is flat (as every checkpoint before the sections) resumes."""
    run = tmp_path / "run"
    args = ["--config", SMOKE, "--run-dir", str(run), "--no-progress", "--set", "eval_opponents=[]"]
    assert main(args + ["--set", "total_timesteps=500"]) == 0
    from vint_env.agents.learned.policy import DIGEST_KEY, save_checkpoint
    path = run / "checkpoints" / "latest.pt"
    ckpt = load_checkpoint(path)
    ckpt.pop(DIGEST_KEY)
    sectioned = ckpt["config"]
    assert set(sectioned) == set(SECTIONS)
    ckpt["config"] = config_from_dict(sectioned).to_flat()          # as an earlier release wrote it
    save_checkpoint(path, ckpt)
    capsys.readouterr()
    assert main(["--resume", str(run), "--set", "total_timesteps=1200", "--no-progress"]) == 0
    assert "from update 1" in capsys.readouterr().out
    assert set(load_checkpoint(path)["config"]) == set(SECTIONS)   # the new checkpoints store the sections


# ------------------------------------------------------------------ bad values: a named error, no run folder

@pytest.mark.parametrize("override, message", [
    ("seed=-1", r"run.seed must be in \[0, 4294967295\], got -1"),
    ("seed=100000000000000000000", r"run.seed must be in"),
    ("num_envs=100000000", r"collection.num_envs must be in \[1, 65536\], got 100000000"),
    ("num_envs=100000000000", r"collection.num_envs must be in"),
    ("num_steps=0", r"collection.num_steps must be in \[1, 65536\]"),
    ("collection.num_envs=65536|num_steps=128", r"a rollout of num_envs \* num_steps = 65536 \* 128 = 8388608"),
    ("network_kwargs.hidden_sizes=[100000000, 100000000]", r"model.network_kwargs.hidden_sizes must be a list of 1 to "
                                                            r"16 layer widths, each an int in \[1, 65536\]"),
    ("network_kwargs.hidden_sizes=[1e8, 1e8]", r"model.network_kwargs.hidden_sizes must be a list"),
    ("network_kwargs.hidden_sizes=[60000, 60000]", r"the network would have about 3,6\d\d,\d{3},\d{3} weights"),
    ("torch_threads=100000000", r"run.torch_threads must be in \[1, 256\], got 100000000"),
    ("torch_threads=0", r"run.torch_threads must be in \[1, 256\]"),
    ("learning_rate=.inf", r"ppo.learning_rate must be in \(0, 10\], got inf"),
    ("learning_rate=.nan", r"ppo.learning_rate must be in \(0, 10\], got nan"),
    ("ent_coef=-.inf", r"ppo.ent_coef must be in"),
    ("vf_coef=.nan", r"ppo.vf_coef must be in"),
    ("max_minutes=.inf", r"run.max_minutes must be in"),
    ("opponent_mix.self=.nan", r"opponent_mix.self must be a finite number"),
    ("init_from=vint_env/baselines/whist.pt", r"init_from: checkpoint 'vint_env/baselines/whist.pt' was trained on "
                                              r"'whist_v0', not 'vint_v0'"),
    ("init_from=vint_env/baselines/vint_residual.pt",
     r"init_from='vint_env/baselines/vint_residual.pt' holds network 'mlp' with "
     r"\{'hidden_sizes': \[512, 512\]\}; this run trains 'mlp' with"),
    ("env_source=gpu", r"collection.env_source must be one of 'aec', 'vector', got 'gpu'"),
])
def test_a_bad_value_is_a_named_error_and_makes_no_run_folder(tmp_path, capsys, override, message):
    run = tmp_path / "run"
    sets = [arg for text in override.split("|") for arg in ("--set", text)]
    assert main(["--config", SMOKE, "--run-dir", str(run), "--no-progress", *sets]) == 2
    err = capsys.readouterr().err
    assert pytest.importorskip("re").search(message, err), err
    assert err.count("config file") == 1 and "Traceback" not in err
    assert not run.exists()


def test_overwrite_refuses_to_delete_an_input_of_the_run(tmp_path, capsys):
    """issue 49 item 4: --overwrite deleted the init_from checkpoint it was about to read."""
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    latest = run / "checkpoints" / "latest.pt"
    shutil.copy(BASELINES / "vint_residual.pt", latest)          # a Vint checkpoint: the run reads it
    inside = str(latest)
    for override, label in [(f"init_from={inside}|network_kwargs.hidden_sizes=[512, 512]", "init_from"),
                            (f"eval_opponents=[random, 'ppo:{inside}']", "agent network:"),
                            (f"teacher=ppo:{inside}", "agent network:")]:
        extra = ["--set", "total_timesteps=0", "--set", "bc_epochs=1"] if override.startswith("teacher") else []
        sets = [arg for text in override.split("|") for arg in ("--set", text)]
        code = main(["--config", SMOKE, "--run-dir", str(run), "--overwrite", "--no-progress", *sets, *extra])
        err = capsys.readouterr().err
        assert code == 2, err
        assert label in err and "lies inside the run folder --overwrite deletes" in err, err
        assert latest.is_file()
    config = write(run, "c.yaml", Path(SMOKE).read_text())
    assert main(["--config", str(config), "--run-dir", str(run), "--overwrite", "--no-progress"]) == 2
    assert "--config" in capsys.readouterr().err and latest.is_file()
    child = write(tmp_path, "child.yaml", "base: run/c.yaml\n")           # a base of the config is an input too
    assert main(["--config", str(child), "--run-dir", str(run), "--overwrite", "--no-progress"]) == 2
    assert f"base {config}" in capsys.readouterr().err and config.is_file()
    config.unlink()
    assert main(["--config", SMOKE, "--run-dir", str(run), "--overwrite", "--no-progress",
                 "--set", "total_timesteps=1", "--set", "eval_opponents=[]"]) == 0    # no input inside: replaced
    assert load_checkpoint(latest)["config"]["run"]["total_timesteps"] == 1


# ------------------------------------------------------------------ fuzz: a config or a ConfigError, nothing else

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12) | st.sampled_from(["rule", "random", "aec", "vector", "mlp", "sparse", "dd", "whist_v0",
                                               "network:/nonexistent.pt", "py:this:x", "program:/bin/x", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8) | st.sampled_from(list(FIELDS)),
                                                                  inner, max_size=4),
    max_leaves=8)
KEYS = st.sampled_from(list(FIELDS)) | st.sampled_from(list(SECTIONS)) | st.text(max_size=10)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.dictionaries(KEYS, VALUES, max_size=6),
       sectioned=st.dictionaries(st.sampled_from(list(SECTION_OF)), VALUES, max_size=4))
def test_fuzz_any_mapping_gives_a_config_or_a_config_error(data, sectioned):
    for mapping in (data, {**data, **{SECTION_OF[k]: {k: v} for k, v in sectioned.items() if SECTION_OF[k] not in data}}):
        try:
            cfg = config_from_dict(mapping)
        except ConfigError:
            continue
        assert isinstance(cfg, PPOConfig)
        for part in cfg.to_dict().values():
            assert all(not isinstance(v, float) or math.isfinite(v) for v in part.values())
