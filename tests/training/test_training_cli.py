"""`vint-train` on the smoke config, end to end: train, evaluate through the harness, plot, resume."""

import csv
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from vint_env.training.cli import main
from vint_env.agents.registry import load_agent

SMOKE = str(Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml")


def test_smoke_train_evaluate_resume(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["--config", SMOKE, "--run-dir", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "final evaluation" in out and "| random | 8 |" in out and "| rule | 8 |" in out and "95% CI" in out
    assert f"learning curves: {run / 'learning_curves.png'}" in out
    assert f"match viewer (open in a browser; replays every board): {run / 'final_evaluation.html'}" in out
    viewer = (run / "final_evaluation.html").read_text()
    assert viewer.count('"agent_b":"random"') == 1 and viewer.count('"agent_b":"rule"') == 1 and '"replay"' in viewer
    assert (run / "learning_curves.png").stat().st_size > 10_000
    assert (run / "config.yaml").exists() and any((run / "tb").iterdir())
    with open(run / "metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    losses = [float(r["loss"]) for r in rows if r.get("loss")]
    assert len(losses) == 3 and all(math.isfinite(x) for x in losses)
    evals = [r for r in rows if r.get("eval/rule/mean")]
    assert len(evals) == 2   # at update 2 and the final one
    for r in evals:          # every learning-curve point carries its interval
        low, mean, high = (float(r[f"eval/rule/{k}"]) for k in ("ci_low", "mean", "ci_high"))
        assert low <= mean <= high and low < high
    # ... and every update its training time: the curves' second axis
    assert all(float(r["elapsed_minutes"]) > 0 for r in rows if r.get("loss"))
    # the checkpoint is an agent for the harness
    agent = load_agent(f"network:{run / 'checkpoints' / 'latest.pt'}", game="vint")
    assert agent.game == "vint_v0"

    # starting again into the same folder is refused; resuming with a larger budget continues
    assert main(["--config", SMOKE, "--run-dir", str(run), "--no-progress"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["--resume", str(run), "--set", "total_timesteps=3500", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "from update 3" in out and "trained 4 updates" in out
    assert main(["--resume", str(run), "--set", "learning_rate=0.1"]) == 2
    assert "cannot change when resuming" in capsys.readouterr().err


def test_cli_reports_bad_config_clearly(tmp_path, capsys):
    assert main(["--config", SMOKE, "--set", "learning_rat=0.1", "--run-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown config key 'learning_rat'" in err and "did you mean 'learning_rate'" in err
    assert main(["--resume", str(tmp_path / "nothing")]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert main([]) == 2
    assert "give --config" in capsys.readouterr().err


def test_default_run_folders_are_numbered_and_resume_finds_the_latest(tmp_path, capsys):
    cfg = tmp_path / "smoke.yaml"
    cfg.write_text(Path(SMOKE).read_text() + f"\nruns_dir: {tmp_path / 'runs'}\n")
    args = ["--config", str(cfg), "--set", "total_timesteps=500", "--set", "eval_opponents=[]", "--no-progress"]
    assert main(args) == 0
    assert main(args) == 0     # a second run never overwrites the first
    assert (tmp_path / "runs" / "smoke" / "checkpoints" / "latest.pt").exists()
    assert (tmp_path / "runs" / "smoke-2" / "checkpoints" / "latest.pt").exists()
    capsys.readouterr()
    # the config's latest run is resumed (with the budget raised so there is more to do)
    assert main(["--config", str(cfg), "--resume", "--set", "total_timesteps=1200", "--set", "eval_opponents=[]",
                 "--no-progress"]) == 0
    assert f"resuming {tmp_path / 'runs' / 'smoke-2'} from update 1" in capsys.readouterr().out
    cfg.write_text(cfg.read_text() + "learning_rate: 0.1\n")
    assert main(["--config", str(cfg), "--resume"]) == 2
    assert "differs from the run being resumed" in capsys.readouterr().err
