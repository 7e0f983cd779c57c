"""A run killed during an evaluation, or resumed after it finished, logs every evaluation exactly once.

The real kill: ``vint-train`` in a subprocess whose evaluation opponent (a ``py:`` agent) SIGKILLs the
process the first time it is built, i.e. in the middle of the evaluation at update 2.  Resuming must
play that evaluation again and end with the same rows as a run that was never killed.
"""

import csv
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from vint_env.training.config import load_config
from vint_env.training.logs import RunLogger
from vint_env.training.trainer import Trainer

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "smoke.yaml"
TIMING = ("env_steps_per_s", "samples_per_s", "update_seconds", "elapsed_minutes", "process_cpu_minutes")

KILLER = '''
import os, signal
from pathlib import Path
from vint_env.agents.base import RandomAgent

def make(game):
    flag = Path(os.environ["KILL_FLAG"])
    if flag.exists():          # the first evaluation: die in the middle of it, as a kill -9 would
        flag.unlink()
        os.kill(os.getpid(), signal.SIGKILL)
    return RandomAgent(7)
'''


def rows(run_dir):
    with open(Path(run_dir) / "metrics.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k not in TIMING and v != ""} for r in csv.DictReader(f)]


def eval_rows(run_dir):
    return [(r["update"], sorted(r)) for r in rows(run_dir) if any(k.startswith("eval/") for k in r)]


def train_cli(run_dir, env, *extra):
    cmd = [sys.executable, "-m", "vint_env.training.cli", "--no-progress", *extra]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_during_evaluation_then_resumed_loses_no_row(tmp_path):
    (tmp_path / "killer.py").write_text(KILLER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "KILL_FLAG": str(tmp_path / "kill-at-first-eval")}
    settings = ["--set", "eval_opponents=[py:killer:make]", "--set", "opponent_mix={self: 0.5, random: 0.5}"]
    # the run that is never killed (no flag file)
    done = train_cli(tmp_path / "whole", env, "--config", str(SMOKE), "--run-dir", str(tmp_path / "whole"), *settings)
    assert done.returncode == 0, done.stderr[-2000:]
    # the run killed in its first evaluation (update 2 of 3)
    (tmp_path / "kill-at-first-eval").touch()
    killed = train_cli(tmp_path / "run", env, "--config", str(SMOKE), "--run-dir", str(tmp_path / "run"), *settings)
    assert killed.returncode == -signal.SIGKILL
    assert not (tmp_path / "kill-at-first-eval").exists()
    assert eval_rows(tmp_path / "run") == []      # the evaluation at update 2 has no row yet
    # the stored config names code (py:killer:make): a resume imports it only when the user names it too
    refused = train_cli(tmp_path / "run", env, "--resume", str(tmp_path / "run"))
    assert refused.returncode == 2 and "names code to import" in refused.stderr
    resumed = train_cli(tmp_path / "run", env, "--resume", str(tmp_path / "run"), settings[0], settings[1])
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "from update 2" in resumed.stdout
    evals = eval_rows(tmp_path / "run")
    assert [u for u, _ in evals] == ["2", "3"]    # the lost evaluation, then the final one
    assert evals == eval_rows(tmp_path / "whole")
    assert rows(tmp_path / "run") == rows(tmp_path / "whole")
    # resuming the finished run again adds nothing
    again = train_cli(tmp_path / "run", env, "--resume", str(tmp_path / "run"), settings[0], settings[1])
    assert again.returncode == 0, again.stderr[-2000:]
    assert "had finished" in again.stdout and "nothing to do" in again.stdout
    assert rows(tmp_path / "run") == rows(tmp_path / "whole")


# ----------------------------------------------------------------- injected interrupts (in process)
def fake_eval(agent, update, deals):
    w = sum(float(p.detach().sum()) for p in agent.network.parameters())
    return {"eval/random/mean": w + deals, "eval/random/ci_low": w - 1, "eval/random/ci_high": w + 1}


def smoke_cfg(*extra):
    return load_config(SMOKE, ["opponent_mix={self: 0.5, random: 0.5}", "eval_opponents=[random]", *extra])


def trainer(cfg, run_dir, evaluate, logger_cls=RunLogger, resume=False):
    t = Trainer(cfg, run_dir, evaluate=evaluate)
    resume_update = None
    if resume:
        t.restore(Path(run_dir) / "checkpoints" / "latest.pt")
        resume_update = t.state.update
    t.logger = logger_cls(run_dir, resume_update=resume_update, resume_step=t.state.global_step,
                          tensorboard=False)
    return t


class Interrupted(KeyboardInterrupt):
    pass


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    run = tmp_path_factory.mktemp("whole")
    trainer(smoke_cfg(), run, fake_eval).train()
    return rows(run)


@pytest.mark.parametrize("final", [False, True], ids=["periodic", "final"])
def test_interrupt_inside_evaluation(tmp_path, uninterrupted, final):
    target = 3 if final else 2
    calls = []

    def dying_eval(agent, update, deals):
        calls.append(update)
        if update == target and len(calls) == (2 if final else 1):
            raise Interrupted
        return fake_eval(agent, update, deals)

    with pytest.raises(Interrupted):
        trainer(smoke_cfg(), tmp_path, dying_eval).train()
    t = trainer(smoke_cfg(), tmp_path, fake_eval, resume=True)
    assert t.state.update == target and t.state.pending_eval_deals == 8
    t.train()
    assert rows(tmp_path) == uninterrupted


def test_interrupt_after_the_row_is_logged_before_the_checkpoint(tmp_path, uninterrupted):
    class DyingLogger(RunLogger):
        armed = True

        def log(self, update, global_step, scalars):
            super().log(update, global_step, scalars)
            if DyingLogger.armed and any(k.startswith("eval/") for k in scalars):
                DyingLogger.armed = False
                raise Interrupted

    with pytest.raises(Interrupted):
        trainer(smoke_cfg(), tmp_path, fake_eval, logger_cls=DyingLogger).train()
    assert len([r for r in rows(tmp_path) if "eval/random/mean" in r]) == 1
    trainer(smoke_cfg(), tmp_path, fake_eval, resume=True).train()
    assert rows(tmp_path) == uninterrupted      # the evaluation at update 2 once, not twice


def test_resuming_a_finished_run_adds_no_row(tmp_path, uninterrupted):
    trainer(smoke_cfg(), tmp_path, fake_eval).train()
    final = trainer(smoke_cfg(), tmp_path, fake_eval, resume=True).train()
    assert final["already_finished"] and "eval/random/mean" in final
    assert rows(tmp_path) == uninterrupted
    # a larger budget trains on and evaluates the new final update
    t = trainer(smoke_cfg("total_timesteps=3000"), tmp_path, fake_eval, resume=True)
    t.train()
    assert t.state.update == 4
    assert [r["update"] for r in rows(tmp_path) if "eval/random/mean" in r] == ["2", "3", "4"]
