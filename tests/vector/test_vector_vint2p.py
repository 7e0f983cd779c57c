"""Two-player Vint's engine rollouts equal AEC rollouts, action for action, in each of the five ways.

As ``test_vector_vs_aec.py`` for the four-seat games: B deals are dealt by the engine and replayed in B
``vint2p_v0`` envs (``reset(options=...)`` with the engine's hands, dealer, widow and piles,
:meth:`Vint2pEngine.deal_options`); both take the same random legal actions and, after every action, both
players' observations, the mask of the player to decide, who decides, the rewards, the raw points and the
terminations must be equal.  Finished games are dealt again (engine ``reset`` and env ``reset``), so many deals
pass through each env.  The variants (way 1's single auction, pass-outs played, the net honours) have their own
shorter runs.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vint_env import games
from vint_env.rules.tricks import IllegalActionError
from vint_env.rules.vint2p import PASS
from vint_env.vector.engine import Vint2pEngine, random_legal_actions

RECORD = games.get("vint2p")
AGENTS = ("player_0", "player_1")


def new_env_deal(engine, state, env, b):
    env.reset(options=engine.deal_options(state, b))


def check_same(engine, state, envs, live):
    views = [engine.observe(state, np.full(state.batch_size, p)) for p in range(2)]
    deciding = engine.deciding_players(state)
    for b in np.flatnonzero(live):
        env = envs[b]
        for p, agent in enumerate(AGENTS):
            o = env.observe(agent)
            assert np.array_equal(views[p][b], o["observation"]), (engine.way, b, agent,
                                                                  np.flatnonzero(views[p][b] != o["observation"]))
        over = all(env.terminations.values())
        assert bool(state.terminated[b]) == over or not state.terminated[b]
        if over:
            assert state.current_player[b] == -1 and deciding[b] == -1 and not state.legal_action_mask[b].any()
            continue
        agent = env.agent_selection
        assert agent == AGENTS[deciding[b]], (engine.way, b)
        assert state.current_player[b] == env.deal.current_player, (engine.way, b)
        assert np.array_equal(state.legal_action_mask[b], env.observe(agent)["action_mask"]), (engine.way, b)


def rollouts(deals: int, batch: int, seed: int, **options) -> Counter:
    """Play ``deals`` deals in both (random legal actions, half the calls passes); returns how the deals ended
    (contract made / failed, passed out)."""
    engine = Vint2pEngine(auto_reset=False, **options)
    state = engine.init(seed=seed, batch_size=batch)
    envs = [RECORD.raw_env(**options) for _ in range(batch)]
    for b, env in enumerate(envs):
        new_env_deal(engine, state, env, b)
    rng = np.random.default_rng(seed)
    ends: Counter = Counter()
    finished = 0
    live = np.ones(batch, dtype=bool)
    check_same(engine, state, envs, live)
    while finished < deals:
        actions = random_legal_actions(np.maximum(state.legal_action_mask, state.current_player[:, None] < 0), rng)
        # half the calls are passes where a pass is legal: low contracts made, deals passed out
        actions = np.where((state.legal_action_mask[:, PASS] == 1) & (rng.random(batch) < 0.5), PASS, actions)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
        state = engine.step(state, actions)
        check_same(engine, state, envs, live)
        for b in np.flatnonzero(state.terminated):
            env = envs[b]
            assert all(env.terminations.values()), b
            assert state.rewards[b].tolist() == [env.rewards[a] for a in AGENTS], b
            result = RECORD.deal_result(env.deal)
            assert state.points[b].tolist() == list(result.points), b
            ends["passed out" if result.passed_out else ("made" if result.made else "failed")] += 1
            finished += 1
            engine.reset(state, [b])
            new_env_deal(engine, state, env, b)
        for b in np.flatnonzero(~state.terminated):
            assert not any(envs[b].rewards.values()) and not state.rewards[b].any()
    return ends


WAYS = RECORD.parameter("way").allowed


@pytest.mark.parametrize("way", WAYS)
def test_engine_rollouts_equal_aec_rollouts(way):
    ends = rollouts(deals=200, batch=32, seed=41, way=way)
    assert ends["made"] and ends["failed"] and ends["passed out"], ends


@pytest.mark.slow
@pytest.mark.parametrize("way", WAYS)
def test_engine_rollouts_equal_aec_rollouts_many_deals(way):
    ends = rollouts(deals=2000, batch=64, seed=42, way=way)
    assert ends["made"] and ends["failed"] and ends["passed out"], ends


@pytest.mark.parametrize("options", [dict(passout="play"), dict(honours="net"), dict(way=1, auction="single"),
                                     dict(way=1, passout="play"), dict(way=2, passout="play"),
                                     dict(way=3, honours="net")])
def test_engine_rollouts_equal_aec_rollouts_in_the_variants(options):
    rollouts(deals=60, batch=16, seed=43, **options)


def test_an_illegal_action_raises_naming_the_game_seat_and_legal_actions_and_writes_nothing():
    engine = Vint2pEngine()
    state = engine.init(seed=5, batch_size=3)
    legal = [int(np.flatnonzero(state.legal_action_mask[b])[0]) for b in range(3)]
    before = state.copy()
    actions = np.array(legal[:2] + [0])          # a card in the auction
    with pytest.raises(IllegalActionError, match=rf"(?s)illegal actions in {RECORD.title}.*game 2: seat \d may not "
                                                 r"take action 0 \(S2\); legal: 52 \(pass\) 53 \(1S\)"):
        engine.step(state, actions)
    for name, arr in before.__dict__.items():
        assert np.array_equal(getattr(state, name), arr), name


def test_injected_deals_replay_as_the_env_deals_them():
    engine = Vint2pEngine(way=5, auto_reset=False)
    state = engine.init(seed=3, batch_size=2)
    options = [engine.deal_options(state, b) for b in range(2)]
    again = engine.init(seed=99, batch_size=2, deals=[o["deal"] for o in options],
                        dealers=[o["dealer"] for o in options], widows=[o["widow"] for o in options])
    for name in ("small", "words", "observation", "legal_action_mask"):
        assert np.array_equal(getattr(again, name), getattr(state, name)), name


@pytest.mark.parametrize("way", WAYS)
def test_random_actions_from_the_state_are_the_masks_floor_u_n_th_legal_action(way):
    """Drawn from the state's legal actions (as the step judges them), the random actions are those the mask
    gives for the same draws, in every phase of the way."""
    engine = Vint2pEngine(way=way)
    state = engine.init(seed=4, batch_size=32)
    rng = np.random.default_rng(4)
    phases = set()
    for _ in range(80):
        phases.update(state.phase.tolist())
        seed = int(rng.integers(1 << 30))
        acts = engine.random_actions(state, np.random.default_rng(seed))
        np.testing.assert_array_equal(acts, random_legal_actions(state.legal_action_mask,
                                                                 np.random.default_rng(seed)))
        engine.step(state, acts)
    assert len(phases) >= {1: 2, 2: 3, 3: 3, 4: 2, 5: 5}[way], phases
