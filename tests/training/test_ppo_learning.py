"""Tests that fail when learning breaks (issue 41 item 8).

- one PPO update on a made-up batch, checked by hand: the clipped objective, the value loss (clipped and
  not), the entropy term, the total loss, and the direction the gradient moves the policy and the value;
- per-seat GAE through the rollout buffer: interleaved seats of two games, rewards credited to each seat's
  last decision, advantages worked out by hand;
- a masked bandit played through the real collection and update (``ppo.iteration``) that PPO must solve in
  a few seconds: the best legal action is known.

A flipped advantage sign, the clip's ``max`` turned into ``min`` or a GAE that bootstraps from the next
transition of the stream (another seat's) instead of the seat's own next one each fail here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from vint_env import games  # noqa: E402
from vint_env.agents.learned.networks import MaskedCategorical, build_network  # noqa: E402
from vint_env.training import ppo  # noqa: E402
from vint_env.training.config import PPOParams  # noqa: E402
from vint_env.training.selfplay import Rollout, SelfPlayCollector, StreamBuffer  # noqa: E402
from vint_env.training.sources import GameBatch  # noqa: E402
from vint_env.training.streams import seeded  # noqa: E402


# --------------------------------------------------------------------------- one update, by hand
class Table(nn.Module):
    """A policy with no input: the same logits and value for every observation (parameters we can read)."""

    def __init__(self, logits, value: float = 0.0):
        super().__init__()
        self.logits = nn.Parameter(torch.tensor(logits, dtype=torch.float32))
        self.value = nn.Parameter(torch.tensor(float(value)))

    def forward(self, obs):
        n = obs.shape[0]
        return self.logits.expand(n, -1), self.value.expand(n)


def made_up_rollout(net: Table, actions, ratios, old_values, mask=None) -> Rollout:
    """A rollout whose behaviour log-probabilities make ``new / old`` probability ratio ``ratios`` at ``net``."""
    n = len(actions)
    masks = torch.ones(n, net.logits.shape[0], dtype=torch.bool) if mask is None else torch.tensor([mask] * n)
    acts = torch.tensor(actions)
    with torch.no_grad():
        logits, _ = net(torch.zeros(n, 1))
        new_logp = MaskedCategorical(logits, masks).log_prob(acts)
    old_logp = new_logp - torch.log(torch.tensor(ratios, dtype=torch.float32))
    return Rollout(obs=torch.zeros(n, 1), masks=masks, actions=acts, logprobs=old_logp,
                   values=torch.tensor(old_values, dtype=torch.float32), rewards=np.zeros(n),
                   dones=np.ones(n, dtype=bool), next_index=np.full(n, -1), seats=np.zeros(n, dtype=np.int64),
                   deal_ids=np.arange(n))


def one_update(net, rollout, advantages, returns, lr=0.0, **params):
    """One epoch, one minibatch, plain SGD: the figures are the loss at the parameters before the step."""
    hp = PPOParams(update_epochs=1, num_minibatches=1, norm_adv=False, max_grad_norm=1e9,
                   **{"ent_coef": 0.0, "vf_coef": 0.0, "clip_coef": 0.2, **params})
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    return ppo.ppo_update(net, optimizer, rollout, np.asarray(advantages, dtype=np.float64),
                          np.asarray(returns, dtype=np.float64), hp, np.random.default_rng(0),
                          clip_coef=hp.clip_coef, ent_coef=hp.ent_coef)


# Four samples: probability ratios above and below the clip range [0.8, 1.2], with positive and negative
# advantages of different sizes.
RATIOS = [1.5, 0.5, 1.5, 0.5]
ADVANTAGES = [2.0, 1.0, -1.0, -0.5]


def test_the_clipped_objective_matches_a_hand_computation():
    # per sample max(-A r, -A clip(r, 0.8, 1.2)): the pessimistic bound of the two
    #   A=+2,  r=1.5: max(-3.0, -2.4) = -2.4   (clipped: no credit for pushing r beyond 1.2)
    #   A=+1,  r=0.5: max(-0.5, -0.8) = -0.5   (not clipped: the loss of a ratio that fell)
    #   A=-1,  r=1.5: max( 1.5,  1.2) =  1.5
    #   A=-.5, r=0.5: max(0.25,  0.4) =  0.4   (clipped)
    net = Table([0.0, 0.0])
    out = one_update(net, made_up_rollout(net, [0, 1, 0, 1], RATIOS, [0.0] * 4), ADVANTAGES, [0.0] * 4)
    assert out["policy_loss"] == pytest.approx((-2.4 - 0.5 + 1.5 + 0.4) / 4, abs=1e-6)   # -0.25
    assert out["clipfrac"] == 1.0                        # every ratio is outside [0.8, 1.2]
    # with the clip's max turned into min it would be (-3.0 - 0.8 + 1.2 + 0.25) / 4 = -0.5875;
    # with the advantage's sign flipped, (3.0 + 0.8 - 1.2 - 0.25) / 4 = +0.5875


def test_the_value_loss_matches_a_hand_computation():
    # the value head says 1.0 everywhere; the rollout's values and the returns:
    old, ret = [0.0, 0.9, 2.0, 1.0], [3.0, 0.0, 1.5, 1.0]
    # unclipped: 0.5 * mean((1 - ret)^2) = 0.5 * (4 + 1 + 0.25 + 0) / 4
    net = Table([0.0, 0.0], value=1.0)
    rollout = made_up_rollout(net, [0] * 4, [1.0] * 4, old)
    plain = one_update(net, rollout, [0.0] * 4, ret, clip_vloss=False)
    assert plain["value_loss"] == pytest.approx(0.5 * 5.25 / 4, abs=1e-6)
    # clipped around the rollout's values (clip 0.2): v_clip = old + clip(1 - old, -0.2, 0.2)
    #   = 0.2, 1.0, 1.8, 1.0; per sample the larger of (1 - ret)^2 and (v_clip - ret)^2:
    #   max(4, 7.84) = 7.84, max(1, 1) = 1, max(0.25, 0.09) = 0.25, 0
    clipped = one_update(net, rollout, [0.0] * 4, ret, clip_vloss=True)
    assert clipped["value_loss"] == pytest.approx(0.5 * (7.84 + 1 + 0.25) / 4, abs=1e-6)


def test_the_entropy_term_and_the_total_loss_match_a_hand_computation():
    # logits (0, ln 3, 5) with the third action illegal: probabilities 1/4, 3/4, 0
    net = Table([0.0, math.log(3.0), 5.0], value=1.0)
    rollout = made_up_rollout(net, [0, 1], [1.0, 1.0], [1.0, 1.0], mask=[True, True, False])
    out = one_update(net, rollout, [1.0, -1.0], [2.0, 2.0], ent_coef=0.1, vf_coef=0.5, clip_vloss=False)
    entropy = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert out["entropy"] == pytest.approx(entropy, abs=1e-6)
    pg = (-1.0 * 1.0 + 1.0 * 1.0) / 2                    # ratios 1: mean(-A) = 0
    v = 0.5 * (1.0 - 2.0) ** 2
    assert out["policy_loss"] == pytest.approx(pg, abs=1e-6)
    assert out["loss"] == pytest.approx(pg - 0.1 * entropy + 0.5 * v, abs=1e-6)


def test_the_gradient_raises_the_better_action_and_moves_the_value_toward_the_return():
    net = Table([0.0, 0.0], value=0.0)
    # action 0 was better than expected, action 1 worse; the returns are above the value
    rollout = made_up_rollout(net, [0, 1], [1.0, 1.0], [0.0, 0.0])
    one_update(net, rollout, [1.0, -1.0], [1.0, 1.0], lr=0.5, vf_coef=0.5)
    logits = net.logits.detach()
    assert logits[0] > 0 > logits[1]                     # p(action 0) rose
    assert net.value.item() > 0                          # toward the return 1
    # the value gradient by hand: d/dv 0.5 * 0.5 * mean((v - 1)^2) at v = 0 is -0.5, so SGD(lr 0.5) moves v to 0.25
    assert net.value.item() == pytest.approx(0.25, abs=1e-6)


def test_a_ratio_clipped_on_the_side_of_its_advantage_gives_no_gradient():
    # A > 0 and the ratio already above 1 + clip: the objective is flat there, so the policy stays put;
    # the same for A < 0 and a ratio below 1 - clip
    for actions, ratios, adv in (([0], [1.5], [1.0]), ([0], [0.5], [-1.0])):
        net = Table([0.3, -0.2])
        start = net.logits.detach().clone()
        one_update(net, made_up_rollout(net, actions, ratios, [0.0]), adv, [0.0], lr=1.0)
        assert torch.equal(net.logits.detach(), start)
    # inside the range the gradient pushes: the same A > 0 with ratio 1 raises action 0
    net = Table([0.3, -0.2])
    one_update(net, made_up_rollout(net, [0], [1.0], [0.0]), [1.0], [0.0], lr=1.0)
    assert net.logits[0].item() > 0.3


# --------------------------------------------------------------------------- per-seat GAE through the buffer
def test_per_seat_gae_of_interleaved_seats_matches_a_hand_computation():
    """Two games, seats taking turns; each seat's deal result lands on its own last decision, and each
    decision bootstraps from the same seat's next one, never from the next transition of the stream."""
    buf = StreamBuffer(num_envs=2)
    buf.new_deal(0)
    buf.new_deal(1)
    values = []

    def act(games, seats, vals):
        n = len(games)
        values.extend(vals)
        buf.add(np.array(games), np.array(seats), torch.zeros(n, 1), torch.ones(n, 2, dtype=torch.bool),
                torch.zeros(n, dtype=torch.long), torch.zeros(n), torch.tensor(vals, dtype=torch.float32))
    # game 0: seats 0, 1, 0, 1; game 1: seats 2, 3, 2 (seat 3 acts once); one step moves both games
    act([0, 1], [0, 2], [0.5, 0.1])     # transitions 0, 1
    act([0, 1], [1, 3], [-0.2, 0.3])    # 2, 3
    buf.credit(np.array([0]), np.array([[0.25, 0.0, 0.0, 0.0]]))   # a reward to seat 0 between its decisions
    act([0, 1], [0, 2], [0.8, -0.4])    # 4, 5
    act([0], [1], [0.6])                # 6
    buf.credit(np.array([0, 1]), np.array([[2.0, -2.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]]))   # the results
    buf.end_deal(0)
    buf.end_deal(1)
    rollout = buf.build(env_steps=7, stats={})
    assert rollout.next_index.tolist() == [4, 5, 6, -1, -1, -1, -1]
    assert rollout.dones.tolist() == [False, False, False, True, True, True, True]
    assert rollout.rewards.tolist() == [0.25, 0.0, 0.0, -1.0, 2.0, 1.0, -2.0]
    g, lam = 0.9, 0.8
    v = values
    # by hand, each seat's trajectory from its end:
    a4 = 2.0 - v[4]                                       # seat 0, game 0: last decision
    a0 = 0.25 + g * v[4] - v[0] + g * lam * a4            # its first, rewarded 0.25 before its next
    a6 = -2.0 - v[6]                                      # seat 1, game 0
    a2 = 0.0 + g * v[6] - v[2] + g * lam * a6
    a5 = 1.0 - v[5]                                       # seat 2, game 1
    a1 = 0.0 + g * v[5] - v[1] + g * lam * a5
    a3 = -1.0 - v[3]                                      # seat 3, game 1: one decision
    adv, ret = ppo.compute_gae(rollout.rewards, rollout.values.numpy().astype(np.float64), rollout.dones,
                               rollout.next_index, g, lam)
    assert adv.tolist() == pytest.approx([a0, a1, a2, a3, a4, a5, a6], abs=1e-6)
    assert ret.tolist() == pytest.approx((np.array([a0, a1, a2, a3, a4, a5, a6]) + np.array(v)).tolist(), abs=1e-6)


# --------------------------------------------------------------------------- a task PPO must solve
REWARD = np.array([0.0, 1.0, 2.0, 3.0])   # each action's worth: the best legal action is the highest legal one


class MaskedBandit:
    """A :class:`GameBatch` of a made-up game: four seats each decide twice a deal (seats 0, 1, 2, 3, 0, 1,
    2, 3), each time from 2 to 4 legal actions of four; a seat's result, paid when the deal ends, is the
    worth of its two choices (``REWARD``, summed, over 6).  The observation is the mask and which of its two
    decisions the seat is at, so the best play, the highest legal action, is readable from it."""

    num_actions = 4
    obs_size = 6
    state_size = None
    game = games.get("whist")        # its record: seated as the partnership game it stands in for

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self.last_real_credits = np.zeros((0, 4))
        self._step = np.full(num_envs, -1)
        self._masks = np.zeros((num_envs, 8, 4), dtype=bool)
        self._sums = np.zeros((num_envs, 4))

    def start_many(self, ids, seeds):
        for i, seed in zip(ids, seeds):
            rng = np.random.default_rng(seed)
            for t in range(8):
                legal = rng.permutation(4)[:rng.integers(2, 5)]
                self._masks[i, t] = np.isin(np.arange(4), legal)
            self._step[i] = 0
            self._sums[i] = 0.0
        return np.zeros((len(ids), 4))

    def acting_seats(self):
        return np.where(self._step >= 0, self._step % 4, -1)

    def observe(self, ids):
        t = self._step[ids]
        masks = self._masks[ids, t]
        obs = np.concatenate([masks, np.stack([t < 4, t >= 4], axis=1)], axis=1).astype(np.float32)
        return obs, masks.copy()

    def observe_active(self, ids):
        from vint_env.agents.learned.sparse import active_entries
        obs, masks = self.observe(ids)
        return (*active_entries(obs), masks)

    def step(self, ids, actions):
        credits = np.zeros((len(ids), 4))
        done = np.zeros(len(ids), dtype=bool)
        for k, (i, a) in enumerate(zip(ids, actions)):
            t = self._step[i]
            if not self._masks[i, t, a]:
                raise ValueError(f"illegal action {a}")
            self._sums[i, t % 4] += REWARD[a] / 6.0
            self._step[i] += 1
            if self._step[i] == 8:
                credits[k] = self._sums[i]
                done[k] = True
                self._step[i] = -1
        self.last_real_credits = credits
        return credits, done

    def bot_view(self, i):
        raise AssertionError("no scripted bots in self-play")

    def compiled_bot_actions(self, kind, ids):
        raise AssertionError("no scripted bots in self-play")

    def states(self, ids):
        raise ValueError("no states")


def best_play_share(net, batch: MaskedBandit, seed: int) -> float:
    """The share of fresh decisions where the network's most likely action is the best legal one."""
    batch.start_many(range(batch.num_envs), [10_000 + seed * 1000 + i for i in range(batch.num_envs)])
    hits = total = 0
    while (batch.acting_seats() >= 0).any():
        ids = np.flatnonzero(batch.acting_seats() >= 0)
        obs, masks = batch.observe(ids)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs))
        greedy = MaskedCategorical(logits, torch.from_numpy(masks)).mode().numpy()
        best = np.array([np.flatnonzero(m).max() for m in masks])
        hits += int((greedy == best).sum())
        total += len(ids)
        batch.step(ids, greedy)
    return hits / total


def train_bandit(iterations: int = 25, seed: int = 0):
    torch.manual_seed(seed)
    batch = MaskedBandit(num_envs=16)
    assert isinstance(batch, GameBatch)
    net = build_network("mlp", batch.obs_size, batch.num_actions, {"hidden_sizes": [32]})
    params = PPOParams(learning_rate=3e-3, anneal_lr=False, gamma=1.0, gae_lambda=0.95, update_epochs=4,
                       num_minibatches=4, ent_coef=0.0)
    optimizer = torch.optim.Adam(net.parameters(), lr=params.learning_rate, eps=1e-5)
    collector = SelfPlayCollector(batch, {"self": 1.0}, num_steps=8, make_bot=None)
    before = best_play_share(net, MaskedBandit(64), seed)
    returns = []
    for update in range(iterations):
        rng, gen = seeded(seed, update, 0)
        rollout, scalars = ppo.iteration(net, optimizer, collector, [], params, ppo.coefficients(params, 0.0),
                                         rng, gen)
        returns.append(float(rollout.rewards[rollout.dones].mean()))
    return before, best_play_share(net, MaskedBandit(64), seed), returns


def test_ppo_solves_a_masked_bandit_in_seconds():
    """Random play earns a seat 0.5 a deal here, the best play 0.9 (the highest legal action each time).
    After 25 updates of 128 decisions (3 CPU-seconds) PPO must play the best legal action almost always, and
    its seats' returns must have risen.  The advantage's sign flipped, PPO learns the worst action instead
    and this fails."""
    before, after, returns = train_bandit()
    assert after >= 0.9 and after > before, f"greedy play picks the best legal action in {after:.0%} of decisions"
    assert np.mean(returns[-5:]) > np.mean(returns[:5]) + 0.15, returns
