"""Collector processes beside the learner: the same run when resumed, and no orphan on Ctrl-C or a kill.

The learner (``vint-train``) and its collector process are real processes here: Ctrl-C (SIGINT to the
process group, as a terminal sends it), SIGKILL of the learner and SIGKILL of the collector must each
leave no process behind, and a run resumed from its checkpoint ends with the weights of a run never
stopped.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from vint_env.training.config import load_config
from vint_env.training.trainer import Trainer

ROOT = Path(__file__).resolve().parents[2]
LINUX = sys.platform.startswith("linux")
TINY = ["game=whist_v0", "env_source=vector", "network=sparse", "network_kwargs={hidden_sizes: [16, 16]}",
        "num_envs=6", "num_steps=26", "opponent_mix={self: 0.5, pool: 0.3, rule: 0.2}", "pool_size=2",
        "pool_add_every=1", "update_epochs=2", "num_minibatches=2", "eval_opponents=[]", "anneal_lr=false",
        "collectors=1", "checkpoint_every=1", "max_minutes=0"]


def trained(tmp, steps, resume_from=None, *extra):
    cfg = load_config(None, TINY + [f"total_timesteps={steps}", *extra])
    t = Trainer(cfg, tmp)
    if resume_from is not None:
        t.restore(resume_from)
    t.train()
    return t


def test_an_overlapped_run_resumed_ends_as_one_never_stopped(tmp_path):
    whole = trained(tmp_path / "a", 1200)
    assert whole.state.update >= 4
    half = trained(tmp_path / "b", 600)
    assert 0 < half.state.update < whole.state.update and half.behaviour is not None
    resumed = trained(tmp_path / "c", 1200, tmp_path / "b" / "checkpoints" / "latest.pt")
    assert resumed.state.update == whole.state.update and resumed.state.samples == whole.state.samples
    for (k, a), b in zip(whole.net.state_dict().items(), resumed.net.state_dict().values()):
        assert torch.equal(a, b), k
    # and the lag is real: the overlapped run is not the run that collects in the learner
    inline = trained(tmp_path / "d", 1200, None, "collectors=0")
    assert not all(torch.equal(a, b) for a, b in zip(whole.net.state_dict().values(),
                                                      inline.net.state_dict().values()))


def test_bad_collector_settings_are_refused():
    from vint_env.training.config import ConfigError
    with pytest.raises(ConfigError, match=r"collection.collectors must be in \[0, 256\], got -1"):
        load_config(None, ["collectors=-1"])
    with pytest.raises(ConfigError, match="needs collectors >= 1"):
        load_config(None, ["ray_address=local"])


# ----------------------------------------------------------------------------- real processes
def children(pid):
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def alive(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"    # a zombie has exited


def wait_until(cond, seconds=120.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


def start_run(tmp_path):
    cmd = [sys.executable, "-m", "vint_env.training.cli", "--no-progress", "--config", str(ROOT / "configs" / "smoke.yaml"),
           "--run-dir", str(tmp_path / "run"), *[a for s in TINY + ["total_timesteps=100000000"] for a in ("--set", s)]]
    proc = subprocess.Popen(cmd, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    ok = wait_until(lambda: children(proc.pid) and (tmp_path / "run" / "checkpoints" / "latest.pt").exists())
    if not ok:
        proc.kill()
        pytest.fail(f"the run did not start its collector: {proc.communicate()}")
    return proc, children(proc.pid)


@pytest.mark.signals
@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_ctrl_c_stops_learner_and_collector(tmp_path):
    proc, kids = start_run(tmp_path)
    os.killpg(proc.pid, signal.SIGINT)            # what a terminal's Ctrl-C does
    out, err = proc.communicate(timeout=180)      # a loaded machine: the learner may be mid-update
    assert proc.returncode == 130, err
    assert "vint-train --resume" in err
    assert wait_until(lambda: not any(alive(k) for k in kids), 60), "collector left running"


@pytest.mark.skipif(not LINUX, reason="reads /proc and PR_SET_PDEATHSIG")
def test_a_killed_learner_takes_its_collector_along(tmp_path):
    proc, kids = start_run(tmp_path)
    proc.kill()
    proc.communicate(timeout=60)
    assert wait_until(lambda: not any(alive(k) for k in kids), 60), "orphan collector"


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_a_killed_collector_stops_the_learner_with_its_name(tmp_path):
    proc, kids = start_run(tmp_path)
    os.kill(kids[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0
    assert f"collector 0 (pid {kids[0]}) died" in err
    resumed = subprocess.run([sys.executable, "-m", "vint_env.training.cli", "--no-progress", "--resume",
                              str(tmp_path / "run"), "--set", "max_minutes=0.05"], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stdout
