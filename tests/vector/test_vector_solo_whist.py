"""The batched engine's Solo Whist (``SoloWhistEngine``) against the reference ``SoloWhistDeal``.

Same shape as tests/vector/test_vector_engine.py: random deals played by both with the same actions, compared
at every step (legal masks, observations bit for bit, whose turn, rewards and points, termination).
The play is steered (tests/solo_whist_play.py) so that every contract is made and lost, the misères
and déclarée end early both ways and before the first card, the auction's special turns happen
(eldest hand accepting after passing, an unaccepted proposal sent back, a deal thrown in), and each
run counts what it covered and fails if something was not reached.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from solo_whist_play import Styles, lopsided_deal, missing, outcome_events, raise_event
from card_game_checks import LOWEST_EAST, ONE_SUIT_EACH
from vint_env import games
from vint_env.games.solo_whist import D, SOLO_WHIST_LAYOUT, encode_observation, encode_state
from vint_env.rules.solo_whist import SoloWhistDeal
from vint_env.rules.solo_whist_calls import DECLAREE, MISERE, NUM_ACTIONS, PASS, SOLO
from vint_env.rules.tricks import IllegalActionError, MalformedActionError
from vint_env.vector import SoloWhistEngine
from vint_env.vector.engine import random_legal_actions

SCALE = 0.25
MUST_RAISE = SOLO_WHIST_LAYOUT.offset["must_raise"]


def reference(state, b, payments):
    return SoloWhistDeal(tuple(int(h) for h in state.dealt[b]), int(state.dealer[b]), int(state.turned[b]), payments)


def check_views(engine, state, refs, all_seats):
    for b, ref in enumerate(refs):
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[ref.legal_actions()] = 1
        assert np.array_equal(state.legal_action_mask[b], mask), (b, ref)
        assert state.current_player[b] == ref.current_player, (b, ref)
        expected = encode_observation(ref, ref.current_player)
        got = state.observation[b]
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (b, ref, np.flatnonzero(got != expected))
    if all_seats:
        full = engine.global_state(state)
        for b, ref in enumerate(refs):
            assert np.array_equal(full[b], encode_state(ref)), (b, ref)
        for seat in range(4):
            seen = engine.observe(state, np.full(len(refs), seat))
            for b, ref in enumerate(refs):
                assert np.array_equal(seen[b], encode_observation(ref, seat)), (b, seat, ref)


def play_against_reference(deals: int, batch: int = 64, seed: int = 0, payments: str = "symmetric",
                           lopsided: float = 0.3, all_seats_every: int = 7) -> Counter:
    """Play until ``deals`` deals have ended in both; a share ``lopsided`` of the new deals are injected."""
    engine = SoloWhistEngine(payments=payments, reward_scale=SCALE)
    state = engine.init(seed=seed, batch_size=batch)
    rng = np.random.default_rng(seed)
    styles = Styles(batch, rng)
    refs = [reference(state, b, payments) for b in range(batch)]
    covered: Counter = Counter()
    finished = steps = 0
    while finished < deals:
        check_views(engine, state, refs, all_seats=steps % all_seats_every == 0)
        actions = styles.actions(state.legal_action_mask, state.current_player, state.observation[:, MUST_RAISE])
        for b, ref in enumerate(refs):
            event = raise_event(ref, int(actions[b]))
            if event:
                covered[event] += 1
            ref.apply(int(actions[b]))
        state = engine.step(state, actions)
        steps += 1
        for b, ref in enumerate(refs):
            assert bool(state.terminated[b]) == ref.is_over, (b, ref)
            if not ref.is_over:
                assert not state.rewards[b].any() and not state.points[b].any()
                continue
            assert state.points[b].tolist() == ref.payments, (b, ref)
            assert state.rewards[b].tolist() == [p * SCALE for p in ref.payments]
            covered.update(outcome_events(ref))
            finished += 1
            if rng.random() < lopsided:          # replace the deal dealt by auto-reset with a lopsided one
                hands, dealer, turned, target, seat = lopsided_deal(rng)
                engine.reset(state, [b], deals=[hands], dealers=[dealer], turned=[turned])
                styles.redraw(b, target, seat)
            else:
                styles.redraw(b)
            refs[b] = reference(state, b, payments)
    return covered


def test_solo_whist_engine_matches_reference_action_by_action():
    covered = play_against_reference(deals=800, seed=31)
    assert not missing(covered), (missing(covered), covered)


def test_literal_payments_match_reference():
    covered = play_against_reference(deals=600, seed=32, payments="literal", all_seats_every=50)
    assert covered["solo lost"] and covered["proposal lost"] and covered["abondance lost"], covered


@pytest.mark.slow
@pytest.mark.parametrize("payments", ["symmetric", "literal"])
def test_solo_whist_engine_matches_reference_many_deals(payments):
    """The same check on 20,000 deals each (opt-in: ``pytest -m slow``)."""
    covered = play_against_reference(deals=20000, batch=256, seed=301, payments=payments, all_seats_every=40)
    assert not missing(covered), (missing(covered), covered)
    assert min(covered[e] for e in ("misère certain before the first card", "abondance déclarée made early",
                                    "eldest accepts after passing", "must raise: passes")) >= 5, covered


def test_misere_certain_before_the_first_card_ends_at_the_last_call():
    """East holds the lowest cards of every suit and North leads: three passes end the deal, made."""
    pbn = LOWEST_EAST
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(deals=[pbn], dealers=[3], turned=["HA"])
    assert state.current_player.tolist() == [0]           # eldest hand, left of the dealer
    ref = SoloWhistDeal(tuple(int(h) for h in state.dealt[0]), 3, int(state.turned[0]))
    for a in (PASS, MISERE, PASS, PASS):
        assert state.legal_action_mask[0, a] == 1
        ref.apply(a)
        state = engine.step(state, np.array([a]))
    assert ref.is_over and ref.ended_early and ref.play.tricks_played == 0 and ref.made
    assert state.terminated.tolist() == [True] and state.current_player.tolist() == [-1]
    assert state.points[0].tolist() == ref.payments == [-8, 24, -8, -8]
    assert state.rewards[0].tolist() == [-2.0, 6.0, -2.0, -2.0]
    assert np.array_equal(state.observation[0], encode_observation(ref, 3))   # the last caller's view


def test_declaree_with_every_top_card_is_made_before_the_first_card():
    pbn = ONE_SUIT_EACH
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(deals=[pbn], dealers=[3], turned=["C2"])
    for a in (DECLAREE, PASS, PASS, PASS):
        state = engine.step(state, np.array([a]))
    assert state.terminated.tolist() == [True]
    assert state.points[0].tolist() == [72, -24, -24, -24]     # the rules' docstring example


def test_thrown_in_deal_pays_nothing_and_auto_reset_deals_again():
    engine = SoloWhistEngine()
    state = engine.init(seed=4, batch_size=3)
    first = state.dealt.copy()
    for _ in range(4):
        state = engine.step(state, np.full(3, PASS))
    assert state.terminated.all() and not state.points.any() and not state.rewards.any()
    assert not np.array_equal(state.dealt, first) and (state.deal_index == 2).all()
    assert (state.phase == 0).all() and (state.current_player == (state.dealer + 1) % 4).all()


def test_solo_whist_serial_and_parallel_kernels_agree_exactly():
    engines = [SoloWhistEngine(), SoloWhistEngine(parallel=True)]
    states = [e.init(seed=6, batch_size=32) for e in engines]
    rng = np.random.default_rng(6)
    styles = Styles(32, rng)
    for _ in range(200):
        a, b = states
        for name in ("small", "words", "deal_index", "observation", "legal_action_mask", "rewards", "points",
                     "terminated", "observer"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        actions = styles.actions(a.legal_action_mask, a.current_player, a.observation[:, MUST_RAISE])
        states = [e.step(s, actions) for e, s in zip(engines, states)]
    assert states[0].deal_index.min() >= 3


def test_turned_card_is_a_card_of_the_dealers_hand_and_eldest_calls_first():
    state = SoloWhistEngine().init(seed=0, batch_size=4000)
    turned = state.turned.astype(np.int64)
    dealer_hand = state.dealt[np.arange(4000), state.dealer]
    assert ((dealer_hand >> turned.astype(np.uint64)) & np.uint64(1)).all()
    below = np.array([bin(int(h) & ((1 << int(t)) - 1)).count("1") for h, t in zip(dealer_hand, turned)])
    assert np.abs(np.bincount(below, minlength=13) / 4000 - 1 / 13).max() < 0.03
    assert (state.current_player == (state.dealer + 1) % 4).all() and (state.trump == -1).all()


def test_solo_whist_engine_is_found_through_its_record_and_checks_its_options():
    record = games.get("solo_whist")
    assert record.engine_class() is SoloWhistEngine and "solo_whist" in games.engine_games()
    engine = record.engine_class()()
    state = engine.init(seed=0, batch_size=2)
    assert state.observation.shape == (2, D) and state.legal_action_mask.shape == (2, NUM_ACTIONS)
    assert engine.reward_scale == record.reward_scale == 0.25
    with pytest.raises(ValueError, match="payments must be one of"):
        SoloWhistEngine(payments="book")
    with pytest.raises(MalformedActionError, match=r"out of range \(action ids are 0..64\): game 1: 65"):
        engine.step(state, np.array([PASS, 65]))
    with pytest.raises(IllegalActionError, match=r"game 0: seat \d may not take action 61 \(trump S\)"):
        engine.step(state, np.array([61, PASS]))
    with pytest.raises(ValueError, match="not in the dealer's hand"):
        engine.init(deals=[ONE_SUIT_EACH],
                    dealers=[0], turned=["C2"])
    state = engine.init(seed=0, batch_size=2)
    state = engine.step(state, np.array([SOLO, PASS]))
    assert state.legal_action_mask[0, SOLO] == 0 and state.legal_action_mask[1, SOLO] == 1


def test_uint8_observations_equal_float32():
    engines = [SoloWhistEngine(obs_dtype=t) for t in (np.float32, np.uint8)]
    states = [e.init(seed=4, batch_size=16) for e in engines]
    rng = np.random.default_rng(4)
    for _ in range(80):
        assert np.array_equal(states[0].observation, states[1].observation.astype(np.float32))
        a = random_legal_actions(states[0].legal_action_mask, rng)
        states = [e.step(s, a) for e, s in zip(engines, states)]


def test_solo_whist_engine_pays_each_seat_at_the_end_of_a_deal():
    engine = SoloWhistEngine()
    state = engine.init(seed=0, batch_size=8)
    assert state.observation.shape == (8, D) and state.legal_action_mask.shape == (8, NUM_ACTIONS)
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(300):
        state = engine.step(state, random_legal_actions(state.legal_action_mask, rng))
        done += int(state.terminated.sum())
        assert np.allclose(state.rewards.sum(axis=1), 0)       # payments are zero-sum
        assert not state.rewards[~state.terminated].any()
    assert done >= 8
