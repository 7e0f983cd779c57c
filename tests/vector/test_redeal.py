"""Deals consistent with one seat's view (vint_env/vector/redeal.py): invariants over random games."""

import numpy as np
import pytest

from vint_env import games
from vint_env.vector.redeal import redeal_hidden
from vint_env.vector.state import COL, DEALT, HAND, VOIDS
from vint_env.vector.tables import SOLO_OPEN_MISERE


def _positions(game: str, games_n: int, seed: int):
    """Every position (auction and play) of ``games_n`` random games, one row each, with its seat to move."""
    record = games.get(game)
    engine = record.engine_class()(auto_reset=False)
    state = engine.init(seed=seed, batch_size=games_n)
    rng = np.random.default_rng(seed)
    rows = []
    from vint_env.training.engine_values import take_rows
    live = ~state.terminated
    while live.any():
        rows.append(take_rows(state, np.flatnonzero(live)))
        engine.step(state, np.where(live, engine.random_actions(state, rng), 0))
        live &= ~state.terminated
    from vint_env.vector.state import VintBatchState
    joined = VintBatchState(**{k: np.concatenate([getattr(r, k) for r in rows]) for k in vars(rows[0])})
    return engine, joined


def _bits(x) -> set[int]:
    x = int(x)
    return {c for c in range(52) if (x >> c) & 1}


@pytest.mark.parametrize("game", ["solo_whist", "whist", "vint"])
def test_a_redeal_keeps_all_the_seat_sees_and_moves_what_it_cannot(game):
    engine, before = _positions(game, 60, seed=5)
    seats = before.current_player.astype(np.int64)
    from vint_env.training.engine_values import take_rows
    after = take_rows(before, np.arange(before.batch_size))
    ok = redeal_hidden(engine, after, seats, np.random.default_rng(1))
    assert ok.mean() > 0.99
    moved = 0
    for b in np.flatnonzero(ok):
        me = seats[b]
        w0, w1, small = before.words[b], after.words[b], before.small[b]
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
        for s in range(4):
            if turned >= 0 and turned in _bits(w0[HAND + s]):
                assert turned in _bits(w1[HAND + s])                          # the turned card stays put
        if (game == "solo_whist" and int(small[COL["highest"]]) == SOLO_OPEN_MISERE
                and int(small[COL["tricks_played"]]) >= 1):
            d = int(small[COL["declarer"]])
            assert w1[HAND + d] == w0[HAND + d]                                # the exposed hand
        moved += not np.array_equal(w0, w1)
    assert moved > 0.5 * ok.sum()
    # The engine takes the new deals, and the seat to move sees exactly what it saw.
    np.testing.assert_array_equal(engine.observe(after, seats.astype(np.int8)),
                                  engine.observe(before, seats.astype(np.int8)))
    engine.check_state(after)


def test_an_exposed_open_misere_hand_is_never_dealt_again():
    engine, before = _positions("solo_whist", 400, seed=11)
    small = before.small
    exposed = np.flatnonzero((small[:, COL["highest"]] == SOLO_OPEN_MISERE) & (small[:, COL["tricks_played"]] >= 1)
                             & (small[:, COL["declarer"]] != small[:, COL["current_player"]])
                             & (small[:, COL["current_player"]] >= 0))
    assert exposed.size > 0
    from vint_env.training.engine_values import take_rows
    after = take_rows(before, exposed)
    seats = after.current_player.astype(np.int64)
    ok = redeal_hidden(engine, after, seats, np.random.default_rng(2))
    d = small[exposed, COL["declarer"]].astype(np.int64)
    rows = np.arange(exposed.size)
    assert ok.any()
    np.testing.assert_array_equal(after.words[rows, HAND + d], before.words[exposed, HAND + d])
    # and the two hands it cannot see do change somewhere
    assert not np.array_equal(after.words[:, HAND:HAND + 4], before.words[exposed, HAND:HAND + 4])


def test_only_four_seat_games_are_dealt_again():
    engine = games.get("vint2p").engine_class()()
    state = engine.init(seed=1, batch_size=2)
    with pytest.raises(ValueError, match="four-seat games .* not Vint2pEngine's"):
        redeal_hidden(engine, state, np.zeros(2, dtype=np.int64), np.random.default_rng(0))
