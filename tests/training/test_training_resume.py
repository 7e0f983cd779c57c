"""Trainer on the smoke config: losses finite, checkpoints written, resume equals an uninterrupted run."""

import csv
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.training.config import load_config
from vint_env.training.logs import RunLogger
from vint_env.training.trainer import Trainer
from vint_env.agents.learned.policy import PPOAgent, load_checkpoint

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
TIMING = ("env_steps_per_s", "samples_per_s", "update_seconds", "elapsed_minutes", "process_cpu_minutes")


def fake_eval(agent, update, deals):
    """Deterministic in the weights, so a resumed run must log the same figures."""
    w = sum(float(p.detach().sum()) for p in agent.network.parameters())
    return {"eval/random/mean": w, "eval/random/ci_low": w - 1, "eval/random/ci_high": w + 1}


def smoke_cfg():
    # scripted 'rule' bots come from the agents registry; random is always there
    return load_config(SMOKE, ["opponent_mix={self: 0.4, pool: 0.3, random: 0.3}", "eval_opponents=[random]"])


def rows(run_dir):
    with open(Path(run_dir) / "metrics.csv", newline="") as f:
        return [{k: v for k, v in r.items() if k not in TIMING} for r in csv.DictReader(f)]


def test_smoke_run_and_resume_equivalence(tmp_path):
    cfg = smoke_cfg()
    # uninterrupted
    a = Trainer(cfg, tmp_path / "a", evaluate=fake_eval, logger=RunLogger(tmp_path / "a", tensorboard=False))
    a.train()
    assert a.state.update == 3 and a.state.global_step >= cfg.run.total_timesteps
    for r in rows(tmp_path / "a"):
        for key in ("loss", "policy_loss", "value_loss", "entropy"):
            if r.get(key):
                assert math.isfinite(float(r[key])), key
    assert (tmp_path / "a" / "checkpoints" / "latest.pt").exists()
    assert len(list((tmp_path / "a" / "checkpoints").glob("update_*.pt"))) == 3
    PPOAgent.load(tmp_path / "a" / "checkpoints" / "latest.pt", game="vint_v0")

    # interrupted after update 2 (a later, unsaved update is lost), then resumed in a new Trainer
    b = Trainer(cfg, tmp_path / "b", evaluate=fake_eval, logger=RunLogger(tmp_path / "b", tensorboard=False))
    for _ in range(2):
        b.logger.log(b.state.update + 1, 0, {})  # stand-in rows, as if train() had logged
        b.update_once()
    b.save()
    b.logger.log(99, 99, {"loss": 1.0})  # logged after the checkpoint by the killed run: must go
    ckpt = tmp_path / "b" / "checkpoints" / "latest.pt"
    c = Trainer(cfg, tmp_path / "b", evaluate=fake_eval)
    c.restore(ckpt)
    c.logger = RunLogger(tmp_path / "b", resume_update=c.state.update, resume_step=c.state.global_step,
                         tensorboard=False)
    c.train()
    assert c.state.update == a.state.update and c.state.global_step == a.state.global_step
    for (ka, va), (kc, vc) in zip(a.net.state_dict().items(), c.net.state_dict().items()):
        assert torch.equal(va, vc), ka
    assert len(a.pool_weights) == len(c.pool_weights)
    after = [r for r in rows(tmp_path / "a") if int(r["update"]) == 3]   # update 3 and the final eval
    assert len(after) == 2 and after == [r for r in rows(tmp_path / "b") if int(r["update"]) > 2]


def test_resume_refuses_another_config(tmp_path):
    cfg = smoke_cfg()
    t = Trainer(cfg, tmp_path)
    t.update_once()
    path = t.save()
    other = load_config(SMOKE, ["opponent_mix={self: 0.4, pool: 0.3, random: 0.3}", "learning_rate=0.1"])
    with pytest.raises(ValueError, match="learning_rate"):
        Trainer(other, tmp_path / "x").restore(path)


def test_keep_checkpoints_prunes_old_ones(tmp_path):
    cfg = load_config(SMOKE, ["opponent_mix={self: 1.0}", "keep_checkpoints=1", "num_envs=2", "num_steps=4"])
    t = Trainer(cfg, tmp_path)
    for _ in range(3):
        t.update_once()
        (tmp_path / "checkpoints").mkdir(exist_ok=True)
        (tmp_path / "checkpoints" / ".latest.pt.x1y2.tmp").write_bytes(b"half a checkpoint (killed)")
        t.save()
    names = sorted(p.name for p in (tmp_path / "checkpoints").iterdir())
    assert names == ["latest.pt", "update_000003.pt"]
    assert load_checkpoint(tmp_path / "checkpoints" / "latest.pt")["trainer"]["update"] == 3
    assert np.isfinite(t.state.samples)
