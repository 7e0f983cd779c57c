"""Deals consistent with one seat's view (vint_env/training/redeal.py): invariants over random games."""

import numpy as np
import pytest

from vint_env import games
from vint_env.training.engine_values import take_rows
from vint_env.training.redeal import deals_like
from vint_env.vector.state import COL, DEALT, HAND, VOIDS, VintBatchState
from vint_env.vector.tables import SOLO_OPEN_MISERE


def _positions(game: str, games_n: int, seed: int):
    """Every position (auction and play) of ``games_n`` random games, one row each."""
    engine = games.get(game).engine_class()(auto_reset=False)
    state = engine.init(seed=seed, batch_size=games_n)
    rng = np.random.default_rng(seed)
    rows = []
    live = ~state.terminated
    while live.any():
        rows.append(take_rows(state, np.flatnonzero(live)))
        engine.step(state, np.where(live, engine.random_actions(state, rng), 0))
        live &= ~state.terminated
    return engine, VintBatchState(**{k: np.concatenate([getattr(r, k) for r in rows]) for k in vars(rows[0])})


def _bits(x) -> set[int]:
    return {c for c in range(52) if (int(x) >> c) & 1}


@pytest.mark.parametrize("game", ["solo_whist", "whist", "vint"])
def test_a_deal_like_the_real_one_keeps_all_the_seat_sees_and_moves_what_it_cannot(game):
    engine, before = _positions(game, 40, seed=5)
    seats = before.current_player.astype(np.int64)
    k = 2
    after = deals_like(engine, before, seats, k, np.random.default_rng(1))
    assert after.batch_size == k * before.batch_size
    moved = 0
    for i in range(after.batch_size):
        b = i // k
        me, w0, w1, small = seats[b], before.words[b], after.words[i], before.small[b]
        assert w1[HAND + me] == w0[HAND + me]                                  # its own hand
        assert _bits(np.bitwise_or.reduce(w1[HAND:HAND + 4])) == _bits(np.bitwise_or.reduce(w0[HAND:HAND + 4]))
        for s in range(4):
            held0, held1 = _bits(w0[HAND + s]), _bits(w1[HAND + s])
            assert len(held1) == len(held0)                                    # each seat's number of cards
            assert _bits(w1[DEALT + s]) - held1 == _bits(w0[DEALT + s]) - held0    # the cards it played
            assert held1 <= _bits(w1[DEALT + s])
            for card in held1 - held0:                                         # never a suit it showed out of
                assert not (int(w0[VOIDS]) >> (4 * s + card // 13)) & 1
            turned = int(small[COL["turned"]])
            if turned >= 0 and turned in held0:
                assert turned in held1                                         # the turned card stays put
        assert np.array_equal(np.delete(w1, np.r_[HAND:HAND + 4, DEALT:DEALT + 4]),
                              np.delete(w0, np.r_[HAND:HAND + 4, DEALT:DEALT + 4]))
        moved += not np.array_equal(w0, w1)
    assert moved > 0.5 * after.batch_size
    # The engine takes the new deals, and the seat to move sees exactly what it saw.
    rep = np.repeat(seats, k).astype(np.int8)
    np.testing.assert_array_equal(engine.observe(after, rep), engine.observe(take_rows(before, np.repeat(
        np.arange(before.batch_size), k)), rep))


def test_an_exposed_open_misere_hand_is_never_dealt_again():
    engine, before = _positions("solo_whist", 400, seed=11)
    small = before.small
    exposed = np.flatnonzero((small[:, COL["highest"]] == SOLO_OPEN_MISERE) & (small[:, COL["tricks_played"]] >= 1)
                             & (small[:, COL["declarer"]] != small[:, COL["current_player"]]))
    assert exposed.size > 0
    some = take_rows(before, exposed)
    after = deals_like(engine, some, some.current_player.astype(np.int64), 3, np.random.default_rng(2))
    d = np.repeat(small[exposed, COL["declarer"]].astype(np.int64), 3)
    rows = np.arange(after.batch_size)
    np.testing.assert_array_equal(after.words[rows, HAND + d], np.repeat(some.words, 3, axis=0)[rows, HAND + d])
    assert not np.array_equal(after.words[:, HAND:HAND + 4], np.repeat(some.words, 3, axis=0)[:, HAND:HAND + 4])


def test_only_four_seat_games_are_dealt_again():
    engine = games.get("vint2p").engine_class()()
    state = engine.init(seed=1, batch_size=2)
    with pytest.raises(ValueError, match="four-seat games .* not Vint2pEngine's"):
        deals_like(engine, state, np.zeros(2, dtype=np.int64), 2, np.random.default_rng(0))
