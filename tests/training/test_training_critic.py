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
    assert any(not torch.equal(before[k], v) for k, v in t.critic.state_dict().items())   # the critic moved

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
    scores = HarnessEvaluator.from_config(cfg, t.game)(path, 1, 2)
    assert "eval/random/mean" in scores

    # resume restores the critic
    u = Trainer(cfg, tmp_path / "other")
    u.restore(path)
    for (k, a), (_, b) in zip(t.critic.state_dict().items(), u.critic.state_dict().items()):
        assert torch.equal(a, b), k


def test_the_critic_learns_the_returns_of_its_rollout(tmp_path):
    """PPO's value loss trains the centralised critic: on a fixed rollout, its squared error to the GAE
    returns falls (the rollout's values are the critic's, so the first update starts from them)."""
    from vint_env.training import ppo
    from vint_env.training.streams import seeded
    cfg = load_config(SMOKE, ["game=whist_v0", "central_critic=true", "critic_hidden_sizes=[32]",
                              "opponent_mix={self: 1.0}", "num_envs=2", "num_steps=30", "learning_rate=0.003",
                              "env_kwargs={reward_scale: 0.1}"])
    t = Trainer(cfg, tmp_path)
    rng, gen = seeded(0, 0, 0)
    rollout = ppo.critic_values(t.net, t.critic, ppo.collect_rollout(t.collector, t.net, [], rng, gen))
    _, returns = ppo.compute_gae(rollout.rewards, rollout.values.numpy().astype(np.float64), rollout.dones,
                                 rollout.next_index, cfg.ppo.gamma, cfg.ppo.gae_lambda)

    def error() -> float:
        with torch.no_grad():
            values = (t.net(rollout.obs)[1] + t.critic(rollout.states, torch.from_numpy(rollout.seats))).numpy()
        return float(np.mean((values - returns) ** 2))
    start = error()
    assert start > 0
    for _ in range(5):
        ppo.ppo_update(t.net, t.optimizer, rollout, returns - rollout.values.numpy(), returns, cfg.ppo, rng,
                       clip_coef=cfg.ppo.clip_coef, ent_coef=cfg.ppo.ent_coef, critic=t.critic)
    assert error() < 0.5 * start


def test_critic_on_the_batched_engine_values_a_collector_process_rollouts(tmp_path, monkeypatch):
    """The batched engine gives the critic the env's state() too, and a collector process's rollouts carry
    it: the advantages of every update are the learner's values as they are before it (the value head on
    the observations plus the critic on those states, not the collector's one update behind), the critic
    starts adding nothing (a warm-started run starts from its network's values), and it learns."""
    from vint_env.games.solo_whist import STATE_SIZE
    from vint_env.training import ppo
    cfg = load_config(SMOKE, ["game=solo_whist_v0", "env_source=vector", "central_critic=true",
                              "critic_hidden_sizes=[32]", "opponent_mix={rule: 0.5, self: 0.5}", "num_envs=4",
                              "num_steps=30", "collectors=1", "eval_opponents=[]", "total_timesteps=600"])
    t = Trainer(cfg, tmp_path)
    assert t.batch.state_size == STATE_SIZE
    before = {k: v.clone() for k, v in t.critic.state_dict().items()}
    seen = []
    compute_gae = ppo.compute_gae

    def gae_of_the_critic(rewards, values, dones, next_index, gamma, gae_lambda):
        seen.append(values)
        return compute_gae(rewards, values, dones, next_index, gamma, gae_lambda)
    learn = ppo.learn

    def learn_checked(net, optimizer, rollout, params, coefs, rng, reference=None, critic=None):
        assert rollout.states is not None and rollout.states.shape == (len(rollout), STATE_SIZE)
        with torch.no_grad():
            head = net(rollout.obs)[1].numpy()
            correction = critic(rollout.states, torch.from_numpy(rollout.seats)).numpy()
        corrections.append(np.abs(correction).max())
        seen.clear()
        out = learn(net, optimizer, rollout, params, coefs, rng, reference, critic)
        assert np.allclose(seen[0], head + correction, atol=1e-5)
        return out
    corrections = []
    monkeypatch.setattr(ppo, "compute_gae", gae_of_the_critic)
    monkeypatch.setattr(ppo, "learn", learn_checked)
    t.train()
    assert t.state.update >= 3
    assert corrections[0] == 0 and corrections[-1] > 0    # it starts adding nothing, then corrects
    assert any(not torch.equal(before[k], v) for k, v in t.critic.state_dict().items())   # the critic moved
