"""Issue 23 item 20: a run killed while plotting leaves a temporary PNG; resuming removes it."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from vint_env.atomic import remove_stale_temporaries


def test_resuming_a_run_removes_what_a_kill_left(tmp_path):
    pytest.importorskip("torch")
    from vint_env.training.logs import RunLogger
    run = tmp_path / "run"
    run.mkdir()
    left = [run / ".learning_curves.tmp.png", run / ".learning_curves.png.k2j3.tmp", run / "metrics.csv.tmp",
            run / ".final_evaluation.html.x1.tmp"]
    for p in left:
        p.write_bytes(b"half")
    (run / "learning_curves.png").write_bytes(b"kept")
    (run / "metrics.csv").write_text("update,global_step\n1,10\n")
    RunLogger(run, resume_update=1, resume_step=10, tensorboard=False).close()
    assert not any(p.exists() for p in left)
    assert (run / "learning_curves.png").read_bytes() == b"kept"


def test_a_kill_in_the_middle_of_plotting_then_a_resume_leaves_no_temporary(tmp_path):
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    code = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib.figure import Figure
        real = Figure.savefig
        def savefig(self, f, *a, **k):
            real(self, f, *a, **k)
            f.flush()
            print("saved", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)     # killed after the bytes, before the rename
        Figure.savefig = savefig
        from vint_env.training.logs import RunLogger, plot_learning_curves
        logger = RunLogger({str(run)!r}, tensorboard=False)
        for u in (1, 2):
            logger.log(u, 10 * u, {{"eval/random/mean": 1.0 * u, "eval/random/ci_low": 0.0,
                                     "eval/random/ci_high": 2.0 * u, "return_vs_random": 0.1}})
        plot_learning_curves(logger, ["random"], Path({str(run)!r}) / "learning_curves.png", "t")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    temps = [p for p in run.iterdir() if p.name.startswith(".")]
    assert temps, "the kill should have left the temporary file"
    from vint_env.training.logs import RunLogger
    RunLogger(run, resume_update=2, resume_step=20, tensorboard=False).close()
    assert not [p for p in run.iterdir() if p.name.startswith(".")]


def test_an_absent_folder_has_nothing_to_remove(tmp_path):
    assert remove_stale_temporaries(tmp_path / "none") == []
