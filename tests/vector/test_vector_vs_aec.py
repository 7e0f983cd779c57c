"""Engine rollouts equal AEC rollouts, action for action, for every game the batched engine plays.

For each game of :func:`vint_env.games.engine_games` (found through its record, as every caller finds
the engine), B deals are dealt by the engine and replayed in B AEC envs (``reset(options=...)`` with
the engine's hands, dealer and turned card); both take the same actions and, after every action,
every agent's observation, the mask of the agent to move, whose turn it is, the rewards, the raw
points and the terminations must be equal.  Finished games are dealt again (engine ``reset`` and env
``reset``), so many deals pass through each env.  Solo Whist's play is steered to reach every call
kind and every way a deal ends (tests/solo_whist_play.py), and the run asserts that it did.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from solo_whist_play import Styles, lopsided_deal, missing, outcome_events, raise_event
from vint_env import games
from vint_env.vector.engine import random_legal_actions

AGENTS = games.AGENTS
#: The four-seat games; two-player Vint's two players have their own differential test (test_vector_vint2p.py).
FOUR_SEAT_GAMES = tuple(g for g in games.engine_games() if games.get(g).format != games.TWO_PLAYER)


def new_env_deal(record, engine, state, env, b):
    options = {"deal": tuple(int(h) for h in state.dealt[b]), "dealer": int(state.dealer[b])}
    if record.turns_card and state.turned[b] >= 0:
        options["turned_card"] = int(state.turned[b])
    env.reset(options=options)


def check_same(record, engine, state, envs, live):
    views = [engine.observe(state, np.full(state.batch_size, seat)) for seat in range(4)]
    for b in np.flatnonzero(live):
        env = envs[b]
        for seat, agent in enumerate(AGENTS):
            o = env.observe(agent)
            assert np.array_equal(views[seat][b], o["observation"]), (record.name, b, agent)
        over = all(env.terminations.values())
        assert bool(state.terminated[b]) == over or not state.terminated[b]
        if over:
            assert state.current_player[b] == -1 and not state.legal_action_mask[b].any()
            continue
        agent = env.agent_selection
        assert agent == AGENTS[state.current_player[b]], (record.name, b)
        assert np.array_equal(state.legal_action_mask[b], env.observe(agent)["action_mask"]), (record.name, b)


def rollouts(game: str, deals: int, batch: int, seed: int, lopsided: float = 0.0) -> Counter:
    record = games.get(game)
    engine = record.engine_class()(auto_reset=False)
    state = engine.init(seed=seed, batch_size=batch)
    envs = [record.raw_env() for _ in range(batch)]
    for b, env in enumerate(envs):
        new_env_deal(record, engine, state, env, b)
    rng = np.random.default_rng(seed)
    solo = record.name == "solo_whist"
    styles = Styles(batch, rng) if solo else None
    must_raise = record.layout.offset.get("must_raise")
    covered: Counter = Counter()
    finished = 0
    live = np.ones(batch, dtype=bool)
    check_same(record, engine, state, envs, live)
    while finished < deals:
        if solo:
            actions = styles.actions(state.legal_action_mask, state.current_player, state.observation[:, must_raise])
        else:
            actions = random_legal_actions(np.maximum(state.legal_action_mask, state.current_player[:, None] < 0),
                                           rng)
        for b, env in enumerate(envs):
            if solo and raise_event(env.deal, int(actions[b])):
                covered[raise_event(env.deal, int(actions[b]))] += 1
            env.step(int(actions[b]))
        state = engine.step(state, actions)
        check_same(record, engine, state, envs, live)
        for b in np.flatnonzero(state.terminated):
            env = envs[b]
            assert all(env.terminations.values()), (game, b)
            assert state.rewards[b].tolist() == [env.rewards[a] for a in AGENTS], (game, b)
            assert state.points[b].tolist() == list(record.deal_result(env.deal).points), (game, b)
            if solo:
                covered.update(outcome_events(env.deal))
            finished += 1
            if solo and rng.random() < lopsided:
                hands, dealer, turned, target, seat = lopsided_deal(rng)
                engine.reset(state, [b], deals=[hands], dealers=[dealer], turned=[turned])
                styles.redraw(b, target, seat)
            else:
                engine.reset(state, [b])
                if solo:
                    styles.redraw(b)
            new_env_deal(record, engine, state, env, b)
        for b in np.flatnonzero(~state.terminated):
            assert not any(envs[b].rewards.values()) and not state.rewards[b].any()
    return covered


@pytest.mark.parametrize("game", FOUR_SEAT_GAMES)
def test_engine_rollouts_equal_aec_rollouts(game):
    solo = game == "solo_whist"
    covered = rollouts(game, deals=500 if solo else 60, batch=32, seed=41, lopsided=0.3)
    if solo:
        assert not missing(covered), (missing(covered), covered)


@pytest.mark.slow
@pytest.mark.parametrize("game", FOUR_SEAT_GAMES)
def test_engine_rollouts_equal_aec_rollouts_many_deals(game):
    covered = rollouts(game, deals=5000 if game == "solo_whist" else 1000, batch=64, seed=42, lopsided=0.3)
    if game == "solo_whist":
        assert not missing(covered), (missing(covered), covered)
