"""Tianshou: the AEC env through Tianshou's PettingZooEnv, collected with random masked policies."""

import numpy as np
import pytest

pytest.importorskip("tianshou", reason='needs the "wrappers" extra: pip install "torch==2.13.0" -e ".[wrappers]"')

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, ReplayBuffer, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

from vint_env import vint_v0  # noqa: E402
from vint_env.wrappers.aec import ScalarInfoWrapper  # noqa: E402
from vint_env.wrappers.tianshou import tianshou_env  # noqa: E402


def test_pettingzooenv_gives_obs_mask_and_the_final_rewards_of_all_seats():
    env = PettingZooEnv(ScalarInfoWrapper(vint_v0.env(reward_scale=1.0)))
    obs, info = env.reset(seed=3)
    assert set(obs) == {"agent_id", "obs", "mask"}
    assert obs["obs"].shape == (1102,) and len(obs["mask"]) == 88
    rng = np.random.default_rng(0)
    while True:
        legal = np.flatnonzero(obs["mask"])
        assert legal.size >= 1
        # The mask is the acting agent's: exactly what the AEC env allows.
        assert list(legal) == env.env.unwrapped.legal_actions()
        obs, rewards, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            break
    p = info["points"]
    assert rewards == [p, -p, p, -p]


def collect_random_deals(n_envs, buffer):
    env = tianshou_env("vint_v0", reward_scale=1.0)
    # Policies, not Algorithms: building an Algorithm JIT-compiles Tianshou's numba kernels (~10 s).
    policy = MultiAgentPolicy({agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(env.action_space)
                               for agent in env.agents})
    venv = DummyVectorEnv([lambda: tianshou_env("vint_v0", reward_scale=1.0) for _ in range(n_envs)])
    venv.seed(0)
    collector = Collector(policy, venv, buffer)
    collector.reset()
    stats = collector.collect(n_episode=6)
    check_collected(stats, buffer)


def test_collector_runs_random_masked_policies():
    # A plain ReplayBuffer: Tianshou's VectorReplayBuffer JIT-compiles with numba (10-20 s).
    collect_random_deals(1, ReplayBuffer(4000))


@pytest.mark.slow
def test_collector_on_vectorised_envs():
    collect_random_deals(2, VectorReplayBuffer(4000, 2))


def check_collected(stats, buffer):
    assert stats.n_collected_episodes == 6
    returns = np.asarray(stats.returns)
    assert returns.shape == (6, 4)
    # Zero-sum between the sides, partners equal, every deal scored.
    np.testing.assert_allclose(returns[:, 0], returns[:, 2])
    np.testing.assert_allclose(returns[:, 0], -returns[:, 1])
    np.testing.assert_allclose(returns[:, 1], returns[:, 3])
    # Every stored action was legal under the stored mask.
    batch, _ = buffer.sample(0)
    assert batch.obs.mask[np.arange(len(batch)), batch.act].all()
    ends = batch[batch.done]
    np.testing.assert_allclose(ends.info.points, ends.rew[:, 0])


@pytest.mark.parametrize("game", ["whist_v0", "solo_whist_v0"])
def test_other_games_step_to_the_end(game):
    env = tianshou_env(game, reward_scale=1.0)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    while True:
        obs, rewards, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        if term or trunc:
            break
    assert sum(rewards) == 0 and len(rewards) == 4


def test_unknown_game_is_an_error():
    with pytest.raises(ValueError, match="unknown game"):
        tianshou_env("bridge_v0")
