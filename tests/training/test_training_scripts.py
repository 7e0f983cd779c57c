"""The repository's training/ folder holds scripts run from a clone (``python -m training.NAME``); the training
library is ``vint_env.training`` alone (no ``training.<module>`` name stands for it)."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p.stem for p in (ROOT / "training").glob("*.py") if p.stem != "__init__")


def test_the_library_is_not_reachable_under_the_scripts_folder():
    assert SCRIPTS and "ppo" not in SCRIPTS
    assert importlib.util.find_spec("vint_env.training.ppo") is not None
    assert importlib.util.find_spec("training.ppo") is None


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_script_runs_as_a_module_of_the_clone(name):
    run = subprocess.run([sys.executable, "-m", f"training.{name}", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("usage:")
