"""Solo Whist in the engine's state checks (issue 23 item 1) and its early end on lead (item 21).

As tests/test_engine_state_checks.py does for Vint and Whist: a state another engine made, or with
values no engine makes, is refused with :class:`EngineStateError` before any kernel runs, and the
reproductions run in a subprocess so that an abort would fail the test rather than kill pytest.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vint_env.cards import parse_pbn
from vint_env.rules.solo_whist import SoloWhistDeal
from vint_env.rules.solo_whist_calls import MISERE, PASS
from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
from vint_env.vector.state import COL


def run_isolated(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("maker, stepper", [(VintEngine, SoloWhistEngine), (WhistEngine, SoloWhistEngine),
                                            (SoloWhistEngine, VintEngine), (SoloWhistEngine, WhistEngine)])
def test_a_state_of_another_engine_is_refused(maker, stepper):
    state = maker().init(seed=0, batch_size=3)
    with pytest.raises(EngineStateError, match=f"not made by {stepper.__name__}"):
        stepper().step(state, np.full(3, 52))


@pytest.mark.parametrize("column, value, message", [
    ("phase", 4, "phase must be"),
    ("highest", 54, "highest must be"),            # acceptance is not a bid
    ("highest", 20, "highest must be"),            # a Vint bid index
    ("partner", 4, "partner must be -1..3"),
    ("passed", 16, "passed 0..15"),
    ("must_raise", 2, "must_raise 0 or 1"),
    ("turned", -1, "turned must be a card"),
])
def test_solo_whist_values_out_of_range_are_refused(column, value, message):
    engine = SoloWhistEngine()
    state = engine.init(seed=1, batch_size=2)
    state.small[1, COL[column]] = value
    with pytest.raises(EngineStateError, match=rf"game 1 .*{message}"):
        engine.step(state, np.full(2, PASS))
    with pytest.raises(EngineStateError):
        engine.observe(state, np.zeros(2, dtype=np.int8))


def test_random_garbage_in_a_solo_whist_state_is_refused_never_aborts():
    done = run_isolated("""
        import numpy as np
        from vint_env.vector import EngineStateError, SoloWhistEngine
        rng = np.random.default_rng(0)
        engine = SoloWhistEngine()
        refused = 0
        for trial in range(300):
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
    assert int(done.stdout) > 100


def test_eldest_hands_certain_misere_ends_before_the_first_card_in_the_engine():
    """Issue 23 item 21: East, eldest hand and on lead, holds only cards below the others' in suits they hold."""
    pbn = "N:987.KQ.98765.Q65 432.5432.432.432 AKJ65.T.KQJT.AKJ QT.AJ9876.A.T987"
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(deals=[pbn], dealers=[0], turned=["S9"])
    ref = SoloWhistDeal(parse_pbn(pbn), 0, int(state.turned[0]))
    for a in (MISERE, PASS, PASS, PASS):
        ref.apply(a)
        state = engine.step(state, np.array([a]))
    assert ref.is_over and ref.play.tricks_played == 0 and ref.made
    assert state.terminated.tolist() == [True] and state.points[0].tolist() == ref.payments == [-8, 24, -8, -8]
