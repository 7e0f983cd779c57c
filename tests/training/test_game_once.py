"""The game resolved once (issue 41 item 3): one spelling of a game in configs (its name, ``whist``), the env
ids (``whist_v0``) still read as input, and the record passed down from the entry point instead of the game
being looked up by its name on the way down."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import yaml

from vint_env import games
from vint_env.agents.learned.policy import DIGEST_KEY, load_checkpoint, save_checkpoint
from vint_env.training.cli import main
from vint_env.training.config import ConfigError, config_from_checkpoint, load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
SMOKE = str(CONFIGS / "smoke.yaml")
TRAINING = ROOT / "vint_env" / "training"


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_a_config_names_the_game_by_its_name_and_reads_its_env_id_as_that(game):
    by_name = load_config(None, [f"game={game.name}"])
    by_env_id = load_config(None, [f"game={game.env_name}"])
    assert by_name.run.game == by_env_id.run.game == game.name
    assert by_name.to_dict() == by_env_id.to_dict()


def test_an_unknown_game_is_a_named_error_listing_both_spellings():
    with pytest.raises(ConfigError, match=r"game must be one of \('vint', 'whist', 'solo_whist', 'vint2p'\) "
                                          r"\(or their env names .*'whist_v0'.*\), got 'chess'"):
        load_config(None, ["game=chess"])


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_spells_the_game_by_its_name(path):
    text = path.read_text()
    data = yaml.safe_load(text) or {}
    game = (data.get("run") or {}).get("game", data.get("game"))
    assert game is None or game in games.names(), f"{path.name}: game {game!r}"


@pytest.mark.parametrize("name", ["vint_residual", "whist", "solo_whist_residual", "whist_residual"])
def test_a_shipped_baselines_config_with_the_env_id_loads_as_the_games_name(name):
    stored = load_checkpoint(ROOT / "vint_env" / "baselines" / f"{name}.pt")["config"]
    assert stored["game"].endswith("_v0")                    # written before the one spelling
    assert config_from_checkpoint(stored).run.game == games.get(stored["game"]).name


def test_a_run_whose_checkpoint_names_the_env_id_resumes(tmp_path, capsys):
    """A run written with ``game: vint_v0`` (every run before the one spelling) resumes, and its checkpoints
    keep the env id in their ``game`` field, as the checkpoint format always had it."""
    run = tmp_path / "run"
    args = ["--config", SMOKE, "--run-dir", str(run), "--no-progress", "--set", "eval_opponents=[]"]
    assert main(args + ["--set", "total_timesteps=500"]) == 0
    path = run / "checkpoints" / "latest.pt"
    ckpt = load_checkpoint(path)
    assert (ckpt["game"], ckpt["config"]["run"]["game"]) == ("vint_v0", "vint")
    ckpt.pop(DIGEST_KEY)
    ckpt["config"]["run"]["game"] = "vint_v0"                  # as a run of an earlier release wrote it
    save_checkpoint(path, ckpt)
    capsys.readouterr()
    assert main(["--resume", str(run), "--set", "total_timesteps=1200", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "from update 1" in out and "vint-train: vint," in out
    assert load_checkpoint(path)["config"]["run"]["game"] == "vint"


def test_the_trainer_resolves_the_game_once_and_passes_the_record_down(tmp_path, monkeypatch):
    """Building a run, training it and evaluating it looks the game up by a string once per entry point
    (the runner for the evaluator, the trainer for itself), never inside the training modules below them."""
    calls = []
    real_get = games.get

    def counting_get(name):
        if isinstance(name, str):
            caller = Path(inspect.stack()[1].filename).resolve()
            if TRAINING in caller.parents:
                calls.append(f"{caller.name}:{inspect.stack()[1].lineno}")
        return real_get(name)
    monkeypatch.setattr(games, "get", counting_get)
    assert main(["--config", SMOKE, "--run-dir", str(tmp_path / "run"), "--no-progress",
                 "--set", "total_timesteps=500", "--set", "final_eval_deals=2", "--set", "eval_deals=2"]) == 0
    by_module = sorted({c.partition(":")[0] for c in calls})
    # config.py: the config's check; runner.py: the evaluator; trainer.py: the trainer;
    # checkpoints.py: the env id a checkpoint stores (once per checkpoint written)
    assert set(by_module) <= {"config.py", "runner.py", "trainer.py", "checkpoints.py"}, calls
    assert sum(c.startswith("trainer.py") for c in calls) == 1
    assert sum(c.startswith("runner.py") for c in calls) == 1
