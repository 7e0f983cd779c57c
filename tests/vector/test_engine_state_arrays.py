"""A state's arrays and values as the kernels assume them (issue 31 items 4 and 13, issue 36).

The engines admit a state's arrays once (the engine's dtypes and shapes, C order, writeable, no two
sharing memory) and then by identity; an array replaced or changed in place is checked again.  Every
game's values pass the row check inside the step kernel's own call, before anything is written.  The
reproduction of the memory corruption runs in a subprocess: it must fail the test, not kill pytest.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vint_env.rules.tricks import IllegalActionError
from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
from vint_env.vector.engine import Vint2pEngine
from vint_env.vector.state import COL, DEALT, HAND, NUM_SMALL

FOUR_SEAT_ENGINES = [VintEngine, WhistEngine, SoloWhistEngine]
ENGINES = FOUR_SEAT_ENGINES + [Vint2pEngine]


def run_isolated(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=600)


def played(engine, seed=0, batch=4, steps=10):
    state = engine.init(seed=seed, batch_size=batch)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        engine.step(state, engine.random_actions(state, rng))
    return state


def assert_unchanged(state, before):
    for name, arr in vars(before).items():
        np.testing.assert_array_equal(getattr(state, name), arr, err_msg=name)


def test_the_small_table_aliased_into_the_observation_is_refused_not_corrupting_memory():
    """Issue 31 item 4's snippet: before the fix it died of SIGSEGV or "free(): invalid next size"."""
    done = run_isolated("""
        import numpy as np
        from vint_env.vector import EngineStateError
        from vint_env.vector.engine import WhistEngine
        E = WhistEngine(); rng = np.random.default_rng(0)
        st = E.init(seed=1, batch_size=64)
        alias = st.observation.view(np.int8)[:, 160:160 + st.small.shape[1]]
        alias[:] = st.small; st.small = alias
        try:
            for _ in range(20): E.step(st, E.random_actions(st, rng))
        except EngineStateError as e:
            print("refused:", e)
        else:
            print("stepped")
    """)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("refused:") and "state.small" in done.stdout, done.stdout


def _contiguous_alias(state):
    """small as a C-contiguous view into the observation's memory, holding small's values."""
    b, columns = state.small.shape
    alias = state.observation.view(np.int8).reshape(-1)[:b * columns].reshape(b, columns)
    alias[:] = state.small
    state.small = alias


@pytest.mark.parametrize("engine_class", ENGINES)
@pytest.mark.parametrize("change, message", [
    (_contiguous_alias, "state.small and state.observation share memory|state.observation and state.small share"),
    (lambda s: setattr(s, "deal_index", s.key), "state.key and state.deal_index share memory|"
                                                  "state.deal_index and state.key share memory"),
    (lambda s: setattr(s, "points", s.rewards.view(np.int64)), "state.rewards and state.points share memory|"
                                                                "state.points and state.rewards share memory"),
    (lambda s: setattr(s, "small", np.asfortranarray(s.small)), "state.small must be a C-contiguous array"),
    (lambda s: setattr(s, "observation", np.repeat(s.observation, 2, axis=1)[:, ::2]), "C-contiguous"),
])
def test_arrays_sharing_memory_or_not_in_c_order_are_refused_before_any_kernel(engine_class, change, message):
    engine = engine_class()
    state = played(engine)
    change(state)
    before = state.copy()
    with pytest.raises(EngineStateError, match=message):
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)).clip(0))
    assert_unchanged(state, before)
    for call in (lambda: engine.random_actions(state, np.random.default_rng(0)), lambda: engine.observe(state, 0),
                 lambda: engine.reset(state), lambda: engine.check_state(state)):
        with pytest.raises(EngineStateError, match=message):
            call()


@pytest.mark.parametrize("change, message", [
    (lambda s: setattr(s.small, "shape", (s.small.size,)), r"state.small must be a \[B, "),
    (lambda s: setattr(s.observation, "dtype", np.int32), "float32"),
    (lambda s: setattr(s.legal_action_mask, "dtype", np.uint8), "int8"),
    (lambda s: s.rewards.setflags(write=False), "read-only"),
])
def test_an_admitted_array_changed_in_place_is_checked_again(change, message):
    engine = VintEngine()
    state = played(engine)                    # admitted: later calls check its arrays by identity
    change(state)
    with pytest.raises(EngineStateError, match=message):
        engine.step(state, np.full(4, 52))


def test_an_array_replaced_by_a_good_one_is_admitted_again():
    engine = VintEngine()
    state = played(engine, steps=3)
    twin = state.copy()
    state.small = state.small.copy()          # a new array with the same values: checked, then admitted
    acts = engine.random_actions(state, np.random.default_rng(1))
    engine.step(state, acts)
    engine.step(twin, acts)
    assert_unchanged(state, twin)


def test_a_solo_whist_state_in_vint_sized_arrays_is_refused_by_vint_engine():
    """Issue 31 item 4: a Solo Whist state copied into Vint-sized arrays was stepped by VintEngine."""
    vint, solo = VintEngine(), SoloWhistEngine()
    for steps in (0, 1, 6, 30):
        src = played(solo, seed=steps, batch=8, steps=steps)
        state = vint.init(seed=0, batch_size=8)
        state.small[:] = src.small
        state.words[:] = src.words
        before = state.copy()
        with pytest.raises(EngineStateError, match="game 0 of the state holds values no engine makes"):
            vint.step(state, np.full(8, 52))
        assert_unchanged(state, before)


@pytest.mark.parametrize("maker, stepper", [(WhistEngine, VintEngine), (VintEngine, WhistEngine),
                                            (SoloWhistEngine, WhistEngine), (VintEngine, SoloWhistEngine)])
def test_another_games_rows_in_this_engines_arrays_are_refused(maker, stepper):
    src = played(maker(), batch=6, steps=5)
    engine = stepper()
    state = engine.init(seed=0, batch_size=6)
    state.small[:] = src.small
    state.words[:] = src.words
    with pytest.raises(EngineStateError, match="game 0 of the state holds values no engine makes"):
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)).clip(0))


def _deal_one_hand_of_52(state, game):
    state.words[game, DEALT:DEALT + 4] = [(1 << 52) - 1, 0, 0, 0]
    state.words[game, HAND:HAND + 4] = [(1 << 52) - 1, 0, 0, 0]


def _empty_hand(state, game):
    state.words[game, DEALT] = 0
    state.words[game, HAND] = 0


def _give_card(state, game, to_seat):
    """The lowest card of another seat's hand as dealt, now also in ``to_seat``'s (both as dealt and now)."""
    other = (to_seat + 1) % 4
    card = np.uint64(int(state.words[game, DEALT + other]) & -int(state.words[game, DEALT + other]))
    state.words[game, DEALT + to_seat] |= card
    state.words[game, HAND + to_seat] |= card


@pytest.mark.parametrize("engine_class", ENGINES)
@pytest.mark.parametrize("corrupt", [lambda s: _give_card(s, 1, 0), lambda s: _deal_one_hand_of_52(s, 1),
                                     lambda s: _empty_hand(s, 1)], ids=["card in two hands", "52-card hand", "no card"])
def test_overlapping_hands_and_a_52_card_hand_fail_the_row_check(engine_class, corrupt):
    """Issue 31 item 13: the row check wants four 13-card hands as dealt, no card in two of them."""
    engine = engine_class()
    state = engine.init(seed=3, batch_size=3)
    corrupt(state)
    before = state.copy()
    with pytest.raises(EngineStateError, match="game 1 .*(four hands of 13 cards|each held as dealt)"):
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
    assert_unchanged(state, before)
    with pytest.raises(EngineStateError, match="game 1 "):
        engine.observe(state, 0)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("engine_class", ENGINES)
def test_an_illegal_action_in_a_later_game_writes_nothing_and_names_game_seat_and_legal_actions(engine_class,
                                                                                                 parallel):
    engine = engine_class(parallel=parallel)
    state = played(engine, batch=5, steps=7)
    acts = engine.random_actions(state, np.random.default_rng(2))
    legal = np.flatnonzero(state.legal_action_mask[3])
    acts[3] = next(a for a in range(engine.num_actions) if a not in legal)
    state.legal_action_mask[3, :] = 1                   # a tampered mask neither makes it legal nor names it
    before = state.copy()
    with pytest.raises(IllegalActionError) as info:
        engine.step(state, acts)
    assert_unchanged(state, before)
    seat = int(state.small[3, COL["current_player"]])
    text = str(info.value)
    assert f"game 3: seat {seat} may not take action {acts[3]} " in text and engine.game.title in text
    named = [int(x) for x in re.findall(r"(?:^| )(\d+) \(", text.split("legal: ")[1])]
    assert named == legal.tolist()


@pytest.mark.parametrize("parallel", [False, True])
def test_a_bad_row_in_a_later_game_writes_nothing(parallel):
    engine = VintEngine(parallel=parallel)
    state = played(engine, batch=6, steps=9)
    state.small[5, COL["trick_len"]] = 3
    state.small[5, COL["trick0"]:COL["trick0"] + 4] = -1
    before = state.copy()
    with pytest.raises(EngineStateError, match="game 5 .*the trick in progress needs"):
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
    assert_unchanged(state, before)


def test_actions_that_share_memory_with_the_state_are_read_once():
    """An actions array that is a view of the state's own memory cannot change under the kernel."""
    engine = VintEngine()
    state = played(engine, batch=4, steps=2)
    twin = state.copy()
    acts = engine.random_actions(state, np.random.default_rng(0))
    state.points[:, 0] = acts                          # the actions live in the state's points, which a step rewrites
    engine.step(state, state.points[:, 0])
    engine.step(twin, acts)
    assert_unchanged(state, twin)


@pytest.mark.parametrize("engine_class", FOUR_SEAT_ENGINES)     # two-player Vint's check has one version
def test_the_kernels_fast_row_check_agrees_with_the_one_that_names_the_fault(engine_class):
    """``_row_ok`` (no branch, run inside the step kernels) passes a row exactly when ``_row_fault`` finds nothing."""
    from vint_env.vector.four_seat_kernels import _row_fault, _row_ok
    engine = engine_class()
    rng = np.random.default_rng(7)
    game = engine.game.engine_code
    solo = engine_class is SoloWhistEngine
    faults = 0
    for trial in range(300):
        state = played(engine, seed=trial, batch=2, steps=int(rng.integers(0, 40)))
        if trial % 3:
            cols = rng.integers(0, NUM_SMALL, size=int(rng.integers(1, 3)))
            state.small[0, cols] = rng.integers(-3, 60, size=cols.size)
        if trial % 5 == 0:
            state.words[0, int(rng.integers(0, 13))] ^= np.uint64(1) << np.uint64(int(rng.integers(0, 64)))
        for b in range(2):
            code = _row_fault(state.small, state.words, b, game)
            assert bool(_row_ok(state.small, state.words, b, game, solo)) == (code == 0), (trial, b, code)
            faults += code != 0
    assert faults > 50


@pytest.mark.parametrize("engine", [VintEngine(), VintEngine(passout="play"), WhistEngine(), SoloWhistEngine(),
                                    VintEngine(auto_reset=False)], ids=["vint", "vint-passout-play", "whist", "solo",
                                                                        "vint-no-reset"])
def test_the_legal_set_of_the_check_and_the_random_choice_is_the_mask(engine):
    """The step's legality and ``random_actions`` read the legal actions as bits (``_legal_set``), the mask
    writer as a run: the same actions in every state of many random games, and random actions always legal."""
    from vint_env.vector.four_seat_kernels import _legal_set
    state = engine.init(seed=11, batch_size=16)
    rng = np.random.default_rng(11)
    solo = isinstance(engine, SoloWhistEngine)
    for _ in range(150):
        for b in range(state.batch_size):
            bits, base = _legal_set(state.small, state.words, b, solo)
            actions = [int(base) + i for i in range(64) if (int(bits) >> i) & 1]
            assert actions == np.flatnonzero(state.legal_action_mask[b]).tolist(), (b, state.small[b].tolist())
        acts = engine.random_actions(state, rng)
        live = state.current_player >= 0
        assert (acts[~live] == -1).all() and state.legal_action_mask[np.flatnonzero(live), acts[live]].all()
        engine.step(state, np.where(acts < 0, 0, acts))


def test_random_actions_are_the_masks_floor_u_n_th_legal_action():
    """Drawn from the state, the random actions are those the mask gives for the same draws (seeds replay)."""
    from vint_env.vector.engine import random_legal_actions
    for engine in (VintEngine(), WhistEngine(), SoloWhistEngine()):
        state = played(engine, seed=4, batch=64, steps=25)
        np.testing.assert_array_equal(engine.random_actions(state, np.random.default_rng(9)),
                                      random_legal_actions(state.legal_action_mask, np.random.default_rng(9)))


def test_the_kernels_use_the_arrays_uncounted_and_leave_their_references_as_they_were():
    """The step and random-action kernels take the state's arrays without numba's reference counts
    (four_seat_kernels._borrowed): after many steps, a refused one among them, every array of every engine's
    state, on one thread and on several, is still referenced exactly as before (a count given back once too
    often frees an array under its state: run in a subprocess, so that the crash fails the test), and the
    state still plays."""
    done = run_isolated("""
        import sys
        import numpy as np
        from vint_env.rules.tricks import MalformedActionError
        from vint_env.vector import SoloWhistEngine, VintEngine, WhistEngine
        from vint_env.vector.engine import Vint2pEngine
        for engine_class in (VintEngine, WhistEngine, SoloWhistEngine, Vint2pEngine):
            for parallel in (False, True):
                engine = engine_class(parallel=parallel)
                state = engine.init(seed=5, batch_size=16)
                rng = np.random.default_rng(5)
                before = {name: sys.getrefcount(arr) for name, arr in vars(state).items()}
                for i in range(60):
                    actions = engine.random_actions(state, rng)
                    if i == 30:
                        refused = actions.copy()
                        refused[3] = 10_000
                        try:
                            engine.step(state, refused)
                        except MalformedActionError:
                            pass
                        else:
                            raise SystemExit("the refused step was not refused")
                    engine.step(state, actions)
                after = {name: sys.getrefcount(arr) for name, arr in vars(state).items()}
                if after != before:
                    raise SystemExit(f"{engine_class.__name__} parallel={parallel}: {before} -> {after}")
                engine.check_state(state)
        print("references as they were")
    """)
    assert done.returncode == 0 and "references as they were" in done.stdout, done.stdout + done.stderr[-2000:]
