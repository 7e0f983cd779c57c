"""The self-play adapter and the per-seat credit of rewards (vint_env.vector.selfplay)."""

from __future__ import annotations

import numpy as np
import pytest

from vint_env.rules.tricks import IllegalActionError
from vint_env.vector import SelfPlayVecEnv, seat_gae
from vint_env.vector.engine import random_legal_actions



def rollout(env, steps, rng):
    """Random self-play; returns the arrays a trainer would store, plus each step's game deal number."""
    step = env.reset()
    seats, dones, rewards, actor_rewards, deal_no = [], [], [], [], []
    for _ in range(steps):
        seats.append(step.seat.copy())
        deal_no.append(env.state.deal_index.copy())
        step = env.step(random_legal_actions(step.mask, rng))
        dones.append(step.done.copy())
        rewards.append(step.seat_rewards.copy())
        actor_rewards.append(step.reward.copy())
    return (np.array(seats), np.array(dones), np.array(rewards), np.array(actor_rewards), np.array(deal_no))


def test_step_contract():
    env = SelfPlayVecEnv(num_envs=32, seed=1)
    rng = np.random.default_rng(1)
    seats, dones, rewards, actor_rewards, _ = rollout(env, 300, rng)
    assert dones.sum() > 100
    # The actor's reward is its own column of the deal's rewards; zero-sum, partners equal.
    t, b = np.nonzero(dones)
    assert np.array_equal(actor_rewards[t, b], rewards[t, b, seats[t, b]])
    assert np.allclose(rewards[:, :, 0], rewards[:, :, 2]) and np.allclose(rewards[:, :, 0], -rewards[:, :, 1])
    assert not rewards[~dones].any() and not actor_rewards[~dones].any()
    assert rewards.dtype == np.float32 and rewards[dones].any()
    # After a deal ends the first player to move is the new deal's dealer.
    step = env.step(random_legal_actions(env.state.legal_action_mask, rng))
    assert np.array_equal(step.seat[step.done], env.state.dealer[step.done])
    assert np.array_equal(step.seat, env.state.current_player) and step.obs.shape == (32, 1102)
    full = env.global_state()
    assert full.shape == (32, 1314) and (full[np.arange(32), 208 + step.seat.astype(np.int64)] == 1).all()


def test_reset_is_seeded_and_bad_input_fails():
    a, b = SelfPlayVecEnv(4, seed=9), SelfPlayVecEnv(4, seed=9)
    assert np.array_equal(a.reset().obs, b.reset().obs)
    assert not np.array_equal(a.reset(seed=10).obs, b.reset().obs)
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayVecEnv(2).step(np.array([52, 52]))
    with pytest.raises(IllegalActionError, match="game 0"):
        a.step(np.array([0, 52, 52, 52]))
    with pytest.raises(ValueError):
        SelfPlayVecEnv(0)


def test_seat_gae_credits_every_seat_at_the_end_of_the_deal():
    # One game, 4 seats; the deal ends on step 5 (seat 1 acts last); a new deal starts at step 6.
    seats = np.array([[0], [1], [2], [3], [0], [1], [2], [3]])
    dones = np.zeros((8, 1), bool)
    dones[5] = True
    r = np.zeros((8, 1, 4))
    r[5, 0] = [1.5, -1.5, 1.5, -1.5]
    values = np.arange(8, dtype=float)[:, None] / 10
    adv, ret, complete = seat_gae(seats, values, dones, r, gamma=1.0, lam=1.0)
    # Every seat's last decision before the end gets its own reward (seats 2 and 3 acted at steps 2, 3).
    assert ret[:6, 0].tolist() == [1.5, -1.5, 1.5, -1.5, 1.5, -1.5]
    # Steps 6, 7 of the new deal have no successor in the rollout.
    assert complete[:, 0].tolist() == [True] * 6 + [False] * 2
    assert adv[6:, 0].tolist() == [0.0, 0.0]
    # lam = 0: one-step TD to the same seat's next decision (step 0 -> step 4), or the reward at the end.
    adv0, _, _ = seat_gae(seats, values, dones, r, gamma=0.9, lam=0.0)
    assert adv0[0, 0] == pytest.approx(0.9 * 0.4 - 0.0)
    assert adv0[2, 0] == pytest.approx(1.5 - 0.2)
    assert adv0[4, 0] == pytest.approx(1.5 - 0.4)


def test_seat_gae_truncated_seat_bootstraps_from_its_own_next_value():
    seats = np.array([[0], [1], [0]])
    dones = np.zeros((3, 1), bool)
    values = np.array([[0.1], [0.7], [0.3]])
    adv, ret, complete = seat_gae(seats, values, dones, np.zeros((3, 1, 4)), gamma=1.0, lam=0.95)
    assert complete[:, 0].tolist() == [True, False, False]
    assert adv[0, 0] == pytest.approx(0.3 - 0.1)            # seat 0's next decision is step 2
    with pytest.raises(ValueError, match="shape"):
        seat_gae(seats, values[:2], dones, np.zeros((3, 1, 4)))


def test_seat_gae_monte_carlo_returns_are_each_seats_deal_result():
    """With gamma = lam = 1 and zero values, a complete transition's return is its seat's deal reward."""
    env = SelfPlayVecEnv(num_envs=16, seed=2)
    rng = np.random.default_rng(2)
    seats, dones, rewards, _, deal_no = rollout(env, 400, rng)
    adv, ret, complete = seat_gae(seats, np.zeros(seats.shape), dones, rewards, gamma=1.0, lam=1.0)
    checked = 0
    for b in range(16):
        end_rewards = {}                           # deal number -> rewards of its seats
        for t in np.flatnonzero(dones[:, b]):
            end_rewards[deal_no[t, b]] = rewards[t, b]
        for t in range(seats.shape[0]):
            if deal_no[t, b] in end_rewards:
                assert complete[t, b]
                assert ret[t, b] == pytest.approx(end_rewards[deal_no[t, b]][seats[t, b]])
                checked += 1
            else:   # deal unfinished in the rollout: linked to the seat's next decision, if there is one
                later = (seats[t + 1:, b] == seats[t, b]).any()
                assert complete[t, b] == later and ret[t, b] == 0
    assert checked > 4000
    assert (~complete).sum() <= 4 * 16
