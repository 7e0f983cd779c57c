"""Learning-rate, entropy and clip schedules anneal by the share of the budget actually used."""

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from vint_env.training.config import ConfigError, load_config
from vint_env.training.trainer import Trainer
from vint_env.training.schedule import budget_fraction, budget_spent, linear

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def test_budget_fraction_is_the_larger_share():
    assert budget_fraction(100, 1000, 0.0, 0) == pytest.approx(0.1)
    assert budget_fraction(100, 1000, 1e9, 0) == pytest.approx(0.1)       # no clock without max_minutes
    assert budget_fraction(100, 1000, 45.0, 1.5) == pytest.approx(0.5)    # 45 s of 90 s
    assert budget_fraction(900, 1000, 45.0, 1.5) == pytest.approx(0.9)
    assert budget_fraction(5000, 1000, 0.0, 0) == 1.0
    assert not budget_spent(999, 1000, 59.0, 1.0)
    assert budget_spent(1000, 1000, 0.0, 1.0) and budget_spent(0, 1000, 60.0, 1.0)
    assert linear(1.0, 0.2, 0.5) == pytest.approx(0.6)


def trainer(tmp_path, *overrides):
    cfg = load_config(SMOKE, ["opponent_mix={self: 1.0}", "num_envs=2", "num_steps=4", *overrides])
    return Trainer(cfg, tmp_path)


def test_coefficients_follow_the_clock_when_it_binds(tmp_path):
    t = trainer(tmp_path, "total_timesteps=1000000", "max_minutes=2", "learning_rate=0.001",
                "clip_coef=0.3", "clip_coef_final=0.1", "ent_coef=0.02", "ent_coef_final=0.0")
    t.state.global_step, t.state.train_seconds = 10_000, 90.0      # 1% of the steps, 75% of the minutes
    c = t.coefficients()
    assert c["budget_fraction"] == pytest.approx(0.75)
    assert c["learning_rate"] == pytest.approx(0.00025)
    assert c["clip_coef"] == pytest.approx(0.15)
    assert c["ent_coef"] == pytest.approx(0.005)
    t.update_once()
    assert t.optimizer.param_groups[0]["lr"] == pytest.approx(0.00025)


def test_constant_unless_asked(tmp_path):
    t = trainer(tmp_path, "anneal_lr=false", "total_timesteps=1000")
    t.state.global_step = 500
    c = t.coefficients()
    assert (c["learning_rate"], c["clip_coef"], c["ent_coef"]) == (t.cfg.ppo.learning_rate, t.cfg.ppo.clip_coef,
                                                                   t.cfg.ppo.ent_coef)


def test_ppo_update_uses_the_annealed_clip_and_entropy(tmp_path, monkeypatch):
    import vint_env.training.ppo as ppo
    seen = {}
    real = ppo.ppo_update

    def spy(*args, clip_coef=None, ent_coef=None, **kw):
        seen.update(clip=clip_coef, ent=ent_coef)
        return real(*args, clip_coef=clip_coef, ent_coef=ent_coef, **kw)

    monkeypatch.setattr(ppo, "ppo_update", spy)
    t = trainer(tmp_path, "total_timesteps=1000", "clip_coef=0.4", "clip_coef_final=0.2", "ent_coef=0.1",
                "ent_coef_final=0.0")
    t.state.global_step = 250
    scalars = t.update_once()
    assert seen == {"clip": pytest.approx(0.35), "ent": pytest.approx(0.075)}
    assert scalars["clip_coef"] == pytest.approx(0.35) and scalars["budget_fraction"] == pytest.approx(0.25)


def test_a_run_stopped_by_the_clock_ends_its_schedule(tmp_path):
    t = trainer(tmp_path, "total_timesteps=1000000", "max_minutes=0.5", "eval_opponents=[]")
    t.state.train_seconds = 30.0          # the clock is spent: no update, the final (empty) evaluation only
    final = t.train()
    assert t.state.update == 0 and final["stopped_early"]


def test_schedule_keys_checked():
    with pytest.raises(ConfigError, match=r"ppo.clip_coef_final must be in \(0, 1e\+06\], got 0.0"):
        load_config(None, ["clip_coef_final=0"])
    with pytest.raises(ConfigError, match=r"ppo.ent_coef_final must be in \[0, 1e\+06\], got -1.0"):
        load_config(None, ["ent_coef_final=-1"])
    with pytest.raises(ConfigError, match="'ent_coef_final' must be of type float"):
        load_config(None, ["ent_coef_final=abc"])
    assert load_config(None, ["ent_coef_final=null"]).ppo.ent_coef_final is None
