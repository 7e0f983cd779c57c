"""Self-play collection: each seat's rewards land on that seat's own transitions."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from gymnasium import spaces
from pettingzoo import AECEnv

from vint_env import games
from vint_env.training.selfplay import SelfPlayCollector
from vint_env.training.sources import AECGameBatch
from vint_env.agents import RandomAgent
from vint_env.agents.learned.networks import build_network

AGENTS = [f"player_{i}" for i in range(4)]


class ScriptedRewardEnv(AECEnv):
    """Four agents act in the order ``order``; step ``t`` (1-based) pays ``pay[t]`` (seat -> reward);
    the deal ends after the last step, paying ``final`` to every seat (the last mover need not be seat 3)."""

    metadata = {"name": "scripted_reward"}
    GAME = games.get("whist")          # its record: seated as the partnership game it stands in for

    def __init__(self, order, pay, final):
        super().__init__()
        self.order, self.pay, self.final = order, pay, final
        self.possible_agents = list(AGENTS)
        sp = spaces.Dict({"observation": spaces.Box(0, 1, (3,), np.float32),
                          "action_mask": spaces.Box(0, 1, (2,), np.int8)})
        self.observation_spaces = {a: sp for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(2) for a in AGENTS}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.t = 0
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.order[0]]

    def observe(self, agent):
        live = agent == self.agent_selection and not self.terminations[agent]
        return {"observation": np.array([self.t / 10, AGENTS.index(agent) / 3, 1.0], np.float32),
                "action_mask": np.array([1, 1] if live else [0, 0], np.int8)}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.t += 1
        self.rewards = {a: float(self.pay.get(self.t, {}).get(i, 0.0)) for i, a in enumerate(AGENTS)}
        if self.t == len(self.order):
            for i, a in enumerate(AGENTS):
                self.rewards[a] += self.final[i]
                self.terminations[a] = True
        else:
            self.agent_selection = AGENTS[self.order[self.t]]
        self._accumulate_rewards()


ORDER = [1, 2, 3, 0, 1, 1, 2, 0, 3, 2]          # seat 2 moves last; seat 1 moves twice in a row
PAY = {2: {0: 0.5}, 5: {1: -1.0, 3: 2.0}, 6: {1: 0.25}, 9: {2: 4.0}}
FINAL = [10.0, -10.0, 10.0, -10.0]


def expected_rewards():
    """Per seat, each of its transitions' reward by hand: the rewards paid to that seat from
    the step of its action up to (not including) its next action; the last one keeps the rest."""
    out = {s: [] for s in range(4)}
    for t, seat in enumerate(ORDER, start=1):
        out[seat].append(0.0)
        for s in range(4):
            if out[s]:
                out[s][-1] += PAY.get(t, {}).get(s, 0.0)
    for s in range(4):
        out[s][-1] += FINAL[s]
    return out


def test_expected_by_hand():
    # Written out: seat 0 acts at t=4, 8 (the 0.5 paid at t=2 comes before its first action: no
    # transition to credit); seat 1 at t=1, 5, 6 (t=5's -1 is its own action's); seat 2 at t=2, 7, 10
    # (t=9's +4 goes to its t=7 transition, the final +10 to t=10); seat 3 at t=3, 9.
    assert expected_rewards() == {0: [0.0, 10.0], 1: [0.0, -1.0, 0.25 - 10.0], 2: [0.0, 4.0, 10.0],
                                  3: [2.0, -10.0]}


def collect(envs, mix, num_steps=1, seed=0):
    batch = AECGameBatch(envs)
    torch.manual_seed(0)
    net = build_network("mlp", batch.obs_size, batch.num_actions, {"hidden_sizes": [4]})
    col = SelfPlayCollector(batch, mix, num_steps, lambda kind: RandomAgent())
    return col.collect(net, [], np.random.default_rng(seed), torch.Generator().manual_seed(seed))


def test_each_seat_gets_its_own_rewards_all_learner():
    roll = collect([ScriptedRewardEnv(ORDER, PAY, FINAL) for _ in range(2)], {"self": 1.0})
    assert len(roll) == 2 * len(ORDER) and roll.env_steps == 2 * len(ORDER)
    want = expected_rewards()
    for deal in np.unique(roll.deal_ids):
        for s in range(4):
            idx = np.flatnonzero((roll.deal_ids == deal) & (roll.seats == s))
            assert roll.rewards[idx].tolist() == pytest.approx(want[s]), f"seat {s}"
            # linked in order, and only the seat's last transition is done
            assert roll.next_index[idx[:-1]].tolist() == idx[1:].tolist()
            assert roll.dones[idx].tolist() == [False] * (len(idx) - 1) + [True]
            assert roll.next_index[idx[-1]] == -1


def test_learner_side_only_against_bots():
    roll = collect([ScriptedRewardEnv(ORDER, PAY, FINAL) for _ in range(4)], {"random": 1.0}, seed=3)
    want = expected_rewards()
    for deal in np.unique(roll.deal_ids):
        seats = set(roll.seats[roll.deal_ids == deal].tolist())
        assert seats in ({0, 2}, {1, 3})   # one partnership is the learner
        for s in seats:
            idx = np.flatnonzero((roll.deal_ids == deal) & (roll.seats == s))
            assert roll.rewards[idx].tolist() == pytest.approx(want[s])
    assert roll.stats["deals_vs_random"] == 4


def test_vint_final_reward_lands_on_every_seats_last_transition():
    from vint_env import vint_v0
    envs = [vint_v0.raw_env() for _ in range(3)]
    roll = collect(envs, {"self": 1.0}, num_steps=100, seed=1)
    deals = np.unique(roll.deal_ids)
    assert len(deals) >= 3
    for deal in deals:
        sel = roll.deal_ids == deal
        assert sorted(set(roll.seats[sel].tolist())) == [0, 1, 2, 3]
        finals = {}
        for s in range(4):
            idx = np.flatnonzero(sel & (roll.seats == s))
            assert np.all(roll.rewards[idx[:-1]] == 0.0)   # Vint pays only when the deal ends
            assert roll.dones[idx[-1]]
            finals[s] = roll.rewards[idx[-1]]
        # zero-sum between partnerships, partners equal, and not all zero (a deal always scores)
        assert finals[0] == finals[2] == -finals[1] == -finals[3] != 0.0


def test_rollout_replays_exactly_for_the_same_seed():
    from vint_env import vint_v0
    a = collect([vint_v0.raw_env() for _ in range(2)], {"self": 0.5, "random": 0.5}, num_steps=30, seed=9)
    b = collect([vint_v0.raw_env() for _ in range(2)], {"self": 0.5, "random": 0.5}, num_steps=30, seed=9)
    assert torch.equal(a.actions, b.actions) and np.array_equal(a.rewards, b.rewards)
