"""The batched engine's Whist (``WhistEngine``) against the reference ``WhistDeal`` and ``whist_v0``.

Same shape as tests/vector/test_vector_engine.py: random deals played by both with
the same cards, compared at every step (masks, observations bit for bit,
rewards, termination), in the three variants of docs/rules_choices.md, "Whist".
"""

from __future__ import annotations

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH
from vint_env.cards import parse_pbn
from vint_env.games.whist import D, encode_observation, encode_state
from vint_env.envs.whist_v0 import raw_env
from vint_env.rules.tricks import IllegalActionError, MalformedActionError
from vint_env.rules.whist import WhistDeal
from vint_env.vector import WhistEngine
from vint_env.vector.engine import random_legal_actions

VARIANTS = [dict(), dict(ten_is_honour=True), dict(no_trump=True)]


def reference(state, b, variant):
    turned = int(state.turned[b]) if not variant.get("no_trump") else None
    return WhistDeal(tuple(int(h) for h in state.dealt[b]), int(state.dealer[b]), turned, **variant)


@pytest.mark.parametrize("variant", VARIANTS, ids=["turned-trump", "ten-is-honour", "no-trump"])
def test_whist_engine_matches_reference_step_by_step(variant):
    engine = WhistEngine(**variant)
    batch = 64
    state = engine.init(seed=21, batch_size=batch)
    refs = [reference(state, b, variant) for b in range(batch)]
    rng = np.random.default_rng(21)
    finished, honours_scored, slams = 0, 0, 0
    step = 0
    while finished < 400:
        for b, ref in enumerate(refs):
            mask = np.zeros(52, dtype=np.int8)
            mask[ref.legal_actions()] = 1
            assert np.array_equal(state.legal_action_mask[b], mask)
            assert np.array_equal(state.observation[b], encode_observation(ref, ref.current_player))
        if step % 9 == 0:
            full = engine.global_state(state)
            for b, ref in enumerate(refs):
                assert np.array_equal(full[b], encode_state(ref)), b
            for seat in range(4):
                seen = engine.observe(state, np.full(batch, seat))
                for b, ref in enumerate(refs):
                    assert np.array_equal(seen[b], encode_observation(ref, seat)), (b, seat)
        actions = random_legal_actions(state.legal_action_mask, rng)
        for b, ref in enumerate(refs):
            ref.apply(int(actions[b]))
        state = engine.step(state, actions)
        step += 1
        for b, ref in enumerate(refs):
            assert bool(state.terminated[b]) == ref.is_over
            if ref.is_over:
                a, c = ref.scores
                diff = a.total - c.total
                assert state.points[b].tolist() == [diff, -diff, diff, -diff], (b, ref)
                assert state.rewards[b].tolist() == [diff * 0.1, -diff * 0.1, diff * 0.1, -diff * 0.1]
                finished += 1
                honours_scored += (a.honours + c.honours) > 0
                slams += (a.slam_taken + c.slam_taken) > 0
                refs[b] = reference(state, b, variant)
    assert honours_scored > 50


def test_whist_engine_matches_whist_v0_env():
    engine = WhistEngine(auto_reset=False)
    batch = 16
    state = engine.init(seed=8, batch_size=batch)
    envs = []
    for b in range(batch):
        env = raw_env()
        env.reset(options={"deal": tuple(int(h) for h in state.dealt[b]), "dealer": int(state.dealer[b]),
                           "turned_card": int(state.turned[b])})
        envs.append(env)
    rng = np.random.default_rng(8)
    for _ in range(52):
        actions = random_legal_actions(state.legal_action_mask, rng)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
        state = engine.step(state, actions)
        for seat in range(4):
            seen = engine.observe(state, np.full(batch, seat))
            for b, env in enumerate(envs):
                o = env.observe(f"player_{seat}")
                assert np.array_equal(seen[b], o["observation"])
                if env.agent_selection == f"player_{seat}" and not env.terminations[f"player_{seat}"]:
                    assert np.array_equal(state.legal_action_mask[b], o["action_mask"])
    assert state.terminated.all()
    for b, env in enumerate(envs):
        assert state.rewards[b].tolist() == [env.rewards[f"player_{s}"] for s in range(4)]


@pytest.mark.parametrize("variant", VARIANTS, ids=["turned-trump", "ten-is-honour", "no-trump"])
def test_whist_serial_and_parallel_kernels_agree_exactly(variant):
    engines = [WhistEngine(**variant), WhistEngine(parallel=True, **variant)]
    states = [e.init(seed=6, batch_size=32) for e in engines]
    rng = np.random.default_rng(6)
    for _ in range(170):                     # three deals and more: auto-reset deals and turned cards too
        a, b = states
        for name in ("small", "words", "deal_index", "observation", "legal_action_mask", "rewards", "terminated"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        actions = random_legal_actions(a.legal_action_mask, rng)
        states = [e.step(s, actions) for e, s in zip(engines, states)]


def test_turned_card_is_a_uniform_card_of_the_dealers_hand():
    state = WhistEngine().init(seed=0, batch_size=20000)
    turned = state.turned.astype(np.int64)
    dealer_hand = state.dealt[np.arange(20000), state.dealer]
    assert ((dealer_hand >> turned.astype(np.uint64)) & np.uint64(1)).all()
    assert (state.trump == turned // 13).all()
    assert (state.current_player == (state.dealer + 1) % 4).all()       # left of the dealer leads
    # the rank of the turned card within the dealer's hand is uniform over 0..12
    below = np.array([bin(int(h) & ((1 << int(t)) - 1)).count("1") for h, t in zip(dealer_hand, turned)])
    assert np.abs(np.bincount(below, minlength=13) / 20000 - 1 / 13).max() < 0.012
    assert (WhistEngine(no_trump=True).init(seed=0, batch_size=50).turned == -1).all()


def test_whist_injection_and_errors():
    pbn = ONE_SUIT_EACH
    engine = WhistEngine(auto_reset=False)
    state = engine.init(seed=0, deals=[pbn], dealers=[3], turned=["C2"])
    assert state.trump.tolist() == [1] and state.current_player.tolist() == [0]
    assert state.observation.shape == (1, D) and state.legal_action_mask.shape == (1, 52)
    ref = WhistDeal(parse_pbn(pbn), 3, 13)
    while not ref.is_over:
        a = ref.legal_actions()[0]
        ref.apply(a)
        state = engine.step(state, np.array([a]))
    diff = ref.scores[0].total - ref.scores[1].total
    assert state.points[0].tolist() == [diff, -diff, diff, -diff]
    with pytest.raises(ValueError, match="not in the dealer's hand"):
        engine.init(seed=0, deals=[pbn], dealers=[0], turned=["C2"])
    with pytest.raises(ValueError, match="no card is turned"):
        WhistEngine(no_trump=True).init(seed=0, deals=[pbn], dealers=[0], turned=[0])
    state = engine.init(seed=0, batch_size=2)
    with pytest.raises(MalformedActionError, match=r"out of range \(action ids are 0..51\): game 0: 52"):
        engine.step(state, np.array([52, 52]))


@pytest.mark.parametrize("batch", [1, 2, 5, 64])
def test_whist_engine_refuses_actions_outside_its_52_at_every_batch_size(batch):
    """Regression: the kernel checked against Vint's 88 actions, so 52..87 went through (a phantom card
    57 played; at B=1 a read past the mask).  Now every out-of-range action gets the same error.
    An action in range but not legal is an IllegalActionError."""
    engine = WhistEngine()
    for bad in (52, 57, 87, 88, 1000, -1):
        state = engine.init(seed=3, batch_size=batch)
        before = state.copy()
        actions = random_legal_actions(state.legal_action_mask, np.random.default_rng(0))
        actions[batch - 1] = bad
        with pytest.raises(MalformedActionError, match=rf"actions out of range \(action ids are 0..51\): "
                                                       rf"game {batch - 1}: {bad}$"):
            engine.step(state, actions)
        assert np.array_equal(state.small, before.small) and np.array_equal(state.words, before.words)
        actions[batch - 1] = np.flatnonzero(state.legal_action_mask[batch - 1] == 0)[0]     # a card not held
        with pytest.raises(IllegalActionError, match=rf"game {batch - 1}: seat \d may not take action"):
            engine.step(state, actions)
        assert np.array_equal(state.small, before.small) and np.array_equal(state.words, before.words)


def test_whist_engine_deals_again_after_52_plays():
    engine = WhistEngine()
    state = engine.init(seed=0, batch_size=8)
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(60):
        state = engine.step(state, random_legal_actions(state.legal_action_mask, rng))
        done += state.terminated.sum()
    assert done == 8 and state.observation.shape == (8, D) and state.legal_action_mask.shape == (8, 52)
