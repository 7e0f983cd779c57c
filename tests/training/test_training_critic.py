"""Centralised critic: it gets the games' state() during training only; the actor never does."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.training.config import load_config
from vint_env.training.evaluation import HarnessEvaluator
from vint_env.training.trainer import Trainer
from vint_env.agents.learned.policy import PPOAgent, load_checkpoint
from vint_env.envs.base import CardGameEnv

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def widths(module):
    seen = []
    module.register_forward_pre_hook(lambda m, args: seen.append(args[0].shape[-1]))
    return seen


def test_critic_sees_state_actor_sees_observation(tmp_path, monkeypatch):
    cfg = load_config(SMOKE, ["game=whist_v0", "central_critic=true", "critic_hidden_sizes=[32]",
                              "opponent_mix={self: 0.5, random: 0.5}", "num_envs=2", "num_steps=30",
                              "eval_opponents=[random]"])
    t = Trainer(cfg, tmp_path)
    actor_in, critic_in = widths(t.net), widths(t.critic)
    before = {k: v.clone() for k, v in t.critic.state_dict().items()}
    scalars = t.update_once()
    assert np.isfinite(scalars["loss"]) and np.isfinite(scalars["value_loss"])
    assert set(actor_in) == {965} and set(critic_in) == {1177}       # observation vs state() widths
    assert any(not torch.equal(before[k], v) for k, v in t.critic.state_dict().items())   # the critic learnt

    # the saved agent is the actor alone: observation-sized input, no critic weights in the policy
    path = t.save()
    ckpt = load_checkpoint(path)
    assert not any(k.startswith(("torso", "head")) for k in ckpt["model"])
    assert ckpt["trainer"]["critic"] is not None
    agent = PPOAgent.load(path, game="whist")
    assert agent.obs_size == 965
    # evaluation never asks for state()
    def no_state(self):
        raise AssertionError("state() called outside training")
    monkeypatch.setattr(CardGameEnv, "state", no_state)
    scores = HarnessEvaluator.from_config(cfg)(path, 1, 2)
    assert "eval/random/mean" in scores

    # resume restores the critic
    u = Trainer(cfg, tmp_path / "other")
    u.restore(path)
    for (k, a), (_, b) in zip(t.critic.state_dict().items(), u.critic.state_dict().items()):
        assert torch.equal(a, b), k


def test_critic_needs_the_aec_source(tmp_path):
    cfg = load_config(SMOKE, ["central_critic=true", "env_source=vector", "opponent_mix={self: 1.0}"])
    with pytest.raises(ValueError, match="central_critic needs the games' state"):
        Trainer(cfg, tmp_path)
