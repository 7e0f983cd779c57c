"""Issue 47: the row seal keeps every check in effect at a cost that does not show.

A step kernel seals each row it writes (a private copy of the row, ``state.RowSeal``); a later call takes a row
that is still its sealed copy without the row check, and gives any other row the whole check.  These tests pin
that the seal never changes a verdict: a row edited in place gets the same named error as an unsealed state.
"""

from __future__ import annotations

import numpy as np
import pytest

from vint_env.rules.tricks import IllegalActionError
from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
from vint_env.vector.engine import Vint2pEngine
from vint_env.vector.state import COL, EXCHANGE, admit

ENGINES = [VintEngine, WhistEngine, SoloWhistEngine, Vint2pEngine]


def played(engine, seed=0, batch=4, steps=12):
    state = engine.init(seed=seed, batch_size=batch)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        engine.step(state, engine.random_actions(state, rng))
    return state


@pytest.mark.parametrize("engine_class", ENGINES)
def test_a_step_seals_every_row_and_a_copy_starts_unsealed(engine_class):
    engine = engine_class()
    state = played(engine)
    seal = admit(state, engine.layout)
    assert seal.sealed.all()
    np.testing.assert_array_equal(seal.small, state.small)
    np.testing.assert_array_equal(seal.words, state.words)
    assert not admit(state.copy(), engine.layout).sealed.any()


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("engine_class", ENGINES)
def test_rows_edited_in_place_after_a_step_get_the_verdict_of_the_whole_check(engine_class, parallel):
    """Random in-place edits of sealed rows: ``step`` refuses exactly when the unsealed copy fails the row check,
    with the same message, and writes nothing."""
    engine = engine_class(parallel=parallel)
    rng = np.random.default_rng(5)
    refused = 0
    for trial in range(60):
        state = played(engine, seed=trial, batch=3, steps=int(rng.integers(1, 30)))
        g = int(rng.integers(0, 3))
        if trial % 2:
            state.small[g, int(rng.integers(0, state.small.shape[1]))] += np.int8(rng.integers(1, 4))
        else:
            w = int(rng.integers(0, state.words.shape[1]))
            state.words[g, w] ^= np.uint64(1) << np.uint64(int(rng.integers(0, 64)))
        fresh = state.copy()                           # a new state: unsealed, every row checked
        try:
            engine.check_state(fresh)
            expected = None
        except EngineStateError as e:
            expected = str(e)
        acts = np.zeros(3, dtype=np.int64)
        before = state.copy()
        try:
            engine.step(state, acts)
        except EngineStateError as e:
            assert str(e) == expected
            refused += 1
            for name, arr in vars(before).items():
                np.testing.assert_array_equal(getattr(state, name), arr, err_msg=name)
        except (IllegalActionError, ValueError):
            assert expected is None
        else:
            assert expected is None
    assert refused > 10


def test_a_seal_holds_only_for_the_options_it_was_made_under():
    """Two-player Vint's ways check rows differently: a row sealed by way 2 (its exchange) is checked again by
    way 4, which has no exchange, and refused."""
    way2, way4 = Vint2pEngine(way=2), Vint2pEngine(way=4)
    state = way2.init(seed=0, batch_size=2)
    way2.step(state, way2.random_actions(state, np.random.default_rng(0)))
    assert (state.phase == EXCHANGE).all() and admit(state, way2.layout).sealed.all()
    with pytest.raises(EngineStateError, match="game 0 .*one of this way's"):
        way4.step(state, np.zeros(2, dtype=np.int64))
    with pytest.raises(EngineStateError, match="game 0 .*one of this way's"):
        way4.random_actions(state, np.random.default_rng(0))


def test_a_row_refused_before_is_never_sealed_by_random_actions():
    engine = VintEngine()
    state = played(engine, batch=2, steps=3)
    state.small[1, COL["dealer"]] = 9
    seal = admit(state, engine.layout)
    for _ in range(2):
        with pytest.raises(EngineStateError, match="game 1 .*dealer must be 0..3"):
            engine.random_actions(state, np.random.default_rng(0))
    assert seal.small[1, COL["dealer"]] != 9           # the sealed copy is still the row as last checked


@pytest.mark.parametrize("engine_class", ENGINES)
def test_a_sealed_row_takes_exactly_the_actions_of_its_mask(engine_class):
    """The seal keeps each row's legal actions as the kernel worked them out when it wrote the mask, and a step
    judges a sealed row's action by them: every action of every game is taken exactly when the mask allows it,
    as for an unsealed copy of the state (its legality worked out from the row)."""
    engine = engine_class()
    state = played(engine, seed=3, batch=16, steps=25)
    seal = admit(state, engine.layout)
    assert seal.sealed.all()
    fresh = state.copy()
    fresh_seal = admit(fresh, engine.layout)
    legal = [np.flatnonzero(state.legal_action_mask[b]) for b in range(16)]
    for g in range(16):
        for a in range(-1, engine.num_actions + 1):
            acts = np.array([legal[b][0] if b != g else a for b in range(16)], dtype=np.int64)
            allowed = 0 <= a < engine.num_actions and state.legal_action_mask[g, a] == 1
            assert engine._impl.first_refused(state, acts, engine.spec, seal) == (-1 if allowed else g)
            assert engine._impl.first_refused(fresh, acts, engine.spec, fresh_seal) == (-1 if allowed else g)
            assert not fresh_seal.sealed.any()
