"""`vint-eval` gives each worker process one torch thread (or `--threads N`), whatever the machine's cores."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vint_env

pytest.importorskip("torch")

CHECKPOINT = Path(vint_env.__file__).parent / "baselines" / "whist.pt"


def _match(tmp_path, *extra):
    out = tmp_path / "m.json"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    subprocess.run([sys.executable, "-m", "vint_env.evaluation.cli", "match", "--game", "whist",
                    "--a", f"network:{CHECKPOINT}", "--b", "rule", "--boards", "16", "--workers", "2",
                    "--no-progress", "--out", str(out), *extra],
                   env=env, check=True, capture_output=True, text=True, timeout=300)
    return json.loads(out.read_text())["summary"]


def test_each_worker_of_a_network_match_runs_torch_on_one_thread(tmp_path):
    summary = _match(tmp_path)
    assert summary["workers"] == 2
    # one entry per worker process that played boards with the network loaded
    assert 1 <= len(summary["torch_threads"]) <= 2
    assert summary["torch_threads"] == [1] * len(summary["torch_threads"])


def test_threads_option_sets_each_workers_torch_threads(tmp_path):
    summary = _match(tmp_path, "--threads", "2")
    assert 1 <= len(summary["torch_threads"]) <= 2
    assert summary["torch_threads"] == [2] * len(summary["torch_threads"])
