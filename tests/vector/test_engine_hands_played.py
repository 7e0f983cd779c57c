"""Issue 49 item 9: the row check holds every hand to the cards dealt less the cards played.

Before the fix all four engines accepted a state whose hand had lost a card it was dealt and never played
(in play for every engine, in the auction for Vint and Solo Whist): the deal then stuck (``random_actions``
gave -1 for a live game, ``step`` refused every action) or Solo Whist scored a deal of fewer than 52 cards.
Now every method refuses it with an :class:`EngineStateError` naming the game, before any kernel writes.
"""

from __future__ import annotations

import numpy as np
import pytest

from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
from vint_env.vector.engine import Vint2pEngine
from vint_env.vector.state import AUCTION, COL, HAND, PLAY, TRICK

ENGINES = [VintEngine, WhistEngine, SoloWhistEngine, Vint2pEngine]
PLAYED = "game 1 of the state holds values no engine makes: .*less the cards its seat played"


def advance_to(engine, phase, seed=0, batch=2):
    """A state whose game 1 is in ``phase`` with its seat to move holding cards (random legal moves)."""
    state = engine.init(seed=seed, batch_size=batch)
    rng = np.random.default_rng(seed)
    for _ in range(400):
        if state.phase[1] == phase and (phase != PLAY or state.small[1, COL["tricks_played"]] >= 2):
            return state
        engine.step(state, engine.random_actions(state, rng))
    raise AssertionError(f"game 1 never reached phase {phase}")


def drop_a_card(state, seat):
    """Take the lowest card out of ``seat``'s hand in game 1 without playing it."""
    hand = int(state.words[1, HAND + seat])
    state.words[1, HAND + seat] = np.uint64(hand & (hand - 1))


def assert_refused_writing_nothing(engine, state):
    before = state.copy()
    rng = np.random.default_rng(0)
    with pytest.raises(EngineStateError, match=PLAYED):
        engine.random_actions(state, rng)
    with pytest.raises(EngineStateError, match=PLAYED):
        engine.step(state, state.legal_action_mask.argmax(axis=1))
    with pytest.raises(EngineStateError, match=PLAYED):
        engine.observe(state, 0)
    with pytest.raises(EngineStateError, match=PLAYED):
        engine.check_state(state)
    for name, arr in vars(before).items():
        np.testing.assert_array_equal(getattr(state, name), arr, err_msg=name)


@pytest.mark.parametrize("engine_class", ENGINES)
def test_a_hand_that_lost_a_card_in_play_is_refused(engine_class):
    engine = engine_class()
    state = advance_to(engine, PLAY)
    drop_a_card(state, int(state.current_player[1]))
    assert_refused_writing_nothing(engine, state)


@pytest.mark.parametrize("engine_class", [VintEngine, SoloWhistEngine])
def test_a_hand_that_lost_a_card_in_the_auction_is_refused(engine_class):
    engine = engine_class()
    state = advance_to(engine, AUCTION)
    drop_a_card(state, (int(state.current_player[1]) + 1) % 4)     # not the caller's: any seat's hand counts
    assert_refused_writing_nothing(engine, state)


@pytest.mark.parametrize("engine_class", [VintEngine, WhistEngine, SoloWhistEngine])
def test_a_card_on_the_trick_still_in_its_players_hand_is_refused(engine_class):
    """The card a seat played to the trick in progress is gone from its hand: put back, the row is refused."""
    engine = engine_class()
    state = engine.init(seed=3, batch_size=2)
    rng = np.random.default_rng(3)
    for _ in range(400):
        if state.phase[1] == PLAY and state.small[1, COL["trick_len"]] > 0:
            break
        engine.step(state, engine.random_actions(state, rng))
    seat = int(state.small[1, COL["leader"]])
    card = int(state.small[1, TRICK + seat])
    hand = int(state.words[1, HAND + seat])
    other = (hand & -hand).bit_length() - 1                 # the same number of cards: another one goes
    state.words[1, HAND + seat] = np.uint64((hand | 1 << card) & ~(1 << other))
    assert_refused_writing_nothing(engine, state)


def test_solo_whist_no_longer_scores_a_deal_of_fewer_than_52_cards():
    """The reproduction: every hand emptied in the auction.  Before the fix the deal was played out and scored."""
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(seed=0, batch_size=2)
    state.words[1, HAND:HAND + 4] = 0
    with pytest.raises(EngineStateError, match=PLAYED):
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)))


def test_states_the_engines_make_keep_their_hands_to_the_cards_played():
    """Long random games of every engine and variant: no state an engine makes fails the new check."""
    engines = [VintEngine(passout="play"), VintEngine(auto_reset=False), WhistEngine(no_trump=True),
               SoloWhistEngine(auto_reset=False)] + [Vint2pEngine(way=w) for w in range(1, 6)]
    for engine in engines:
        state = engine.init(seed=5, batch_size=32)
        rng = np.random.default_rng(1)
        for _ in range(200):
            engine.check_state(state)
            acts = engine.random_actions(state, rng)
            engine.step(state, np.where(acts < 0, 0, acts))
