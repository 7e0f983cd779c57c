"""Issue 23 item 1: an engine refuses a state it did not make, or with values out of range, before any kernel runs.

The reproductions run in a subprocess: before the fix they aborted the
interpreter ("double free or corruption"), which must fail the test, not kill pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vint_env.vector import EngineStateError, VintEngine, WhistEngine
from vint_env.vector.state import COL, DEALT, HAND, VOIDS


def run_isolated(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_a_whist_state_stepped_by_the_vint_engine_is_refused_not_corrupting_memory():
    done = run_isolated("""
        import numpy as np
        from vint_env.vector import EngineStateError, VintEngine, WhistEngine
        state = WhistEngine().init(seed=0, batch_size=4)
        engine = VintEngine()
        for _ in range(60):          # before the fix: 52 steps accepted, then an abort
            try:
                engine.step(state, np.zeros(4, dtype=np.int64))
            except EngineStateError as e:
                assert "not made by VintEngine" in str(e), e
                break
        else:
            raise SystemExit("the Whist state was accepted")
        print("refused")
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "refused"


def test_random_garbage_in_the_small_integer_table_is_refused_never_aborts():
    done = run_isolated("""
        import numpy as np
        from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
        rng = np.random.default_rng(0)
        refused = 0
        for engine in (VintEngine(), WhistEngine(), SoloWhistEngine()):
            for trial in range(400):
                state = engine.init(seed=trial, batch_size=2)
                for _ in range(int(rng.integers(0, 30))):
                    engine.step(state, engine.random_actions(state, rng))
                cols = rng.integers(0, state.small.shape[1], size=int(rng.integers(1, 4)))
                state.small[0, cols] = rng.integers(-128, 128, size=cols.size)
                if rng.random() < 0.3:
                    state.words[1, int(rng.integers(0, 13))] = np.uint64(rng.integers(0, 2**63)) << np.uint64(1)
                try:
                    for _ in range(60):
                        engine.step(state, engine.random_actions(state, rng))
                        engine.observe(state, np.zeros(2, dtype=np.int8))
                except EngineStateError:
                    refused += 1
                except ValueError as e:   # an illegal action: the mask no longer matches the state
                    assert "illegal" in str(e) or "out of range" in str(e), e
        print(refused)
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 100         # most corruptions are caught by the row check itself


@pytest.mark.parametrize("column, value, message", [
    ("dealer", 100, "dealer must be 0..3"),
    ("phase", 7, "phase must be"),
    ("current_player", -5, "current_player must be -1..3"),
    ("won0", 120, "tricks won"),
    ("trick0", 90, "trick and last-trick cards"),
    ("passes", -1, "passes must be 0..4"),
    ("trick_len", 2, "the trick in progress needs"),
])
def test_out_of_range_values_get_an_error_naming_them(column, value, message):
    engine = VintEngine()
    state = engine.init(seed=1, batch_size=3)
    state.small[1, COL[column]] = value
    before = state.copy()
    with pytest.raises(EngineStateError, match=message) as info:
        engine.step(state, np.full(3, 52))
    assert "game 1" in str(info.value)
    for name, arr in before.__dict__.items():          # nothing was written
        np.testing.assert_array_equal(getattr(state, name), arr, err_msg=name)
    with pytest.raises(EngineStateError, match=message):
        engine.observe(state, 0)
    with pytest.raises(EngineStateError, match=message):
        engine.global_state(state)


@pytest.mark.parametrize("word, value, message", [
    (HAND, 1 << 60, "hands must be cards of the 52-card deck"),
    (DEALT + 2, 0, "each held as dealt"),
    (VOIDS, 1 << 20, "voids must be 16 bits"),
])
def test_card_masks_outside_the_deck_are_refused(word, value, message):
    engine = VintEngine()
    state = engine.init(seed=2, batch_size=2)
    state.words[0, word] = np.uint64(value)
    with pytest.raises(EngineStateError, match=message):
        engine.step(state, np.full(2, 52))


def test_a_whist_state_cannot_be_in_an_auction():
    engine = WhistEngine()
    state = engine.init(seed=0, batch_size=1)
    state.small[0, COL["phase"]] = 0          # the Whist mask has no pass action to write
    with pytest.raises(EngineStateError, match="only Vint has one"):
        engine.step(state, np.array([0]))


@pytest.mark.parametrize("change, message", [
    (lambda s: setattr(s, "small", s.small.astype(np.int16)), "state.small is int16"),
    (lambda s: setattr(s, "observation", s.observation[:, :-1]), "state.observation"),
    (lambda s: setattr(s, "observation", s.observation.astype(np.uint8)), "float32"),
    (lambda s: setattr(s, "rewards", s.rewards[:1]), "state.rewards"),
    (lambda s: setattr(s, "key", s.key.astype(np.int64)), "state.key"),
    (lambda s: s.small.setflags(write=False), "read-only"),
])
def test_shapes_dtypes_and_batch_size_must_be_the_engines(change, message):
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=2)
    change(state)
    with pytest.raises(EngineStateError, match=message):
        engine.step(state, np.full(2, 52))
    with pytest.raises(EngineStateError, match=message):
        engine.reset(state)


def test_a_tampered_mask_does_not_make_an_action_legal():
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=1)
    for _ in range(4):
        engine.step(state, np.array([52]))           # four passes: redealt, new auction
    state.legal_action_mask[0, :] = 1                 # the state, not the mask array, decides
    with pytest.raises(ValueError, match="illegal"):
        engine.step(state, np.array([3]))             # a card in the auction


def test_a_plain_object_is_not_a_state():
    with pytest.raises(EngineStateError, match="VintBatchState"):
        VintEngine().step(object(), np.zeros(1))


def test_states_the_engine_makes_always_pass_its_check():
    rng = np.random.default_rng(3)
    for engine in (VintEngine(passout="play"), WhistEngine(), WhistEngine(no_trump=True),
                   VintEngine(auto_reset=False)):
        state = engine.init(seed=5, batch_size=16)
        for _ in range(300):
            actions = engine.random_actions(state, rng)
            engine.step(state, np.where(actions < 0, 0, actions))
            engine.check_state(state)
