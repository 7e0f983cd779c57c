"""Solo Whist in the engine's state checks (issue 23 item 1) and its early end on lead (item 21).

As tests/vector/test_engine_state_checks.py does for Vint and Whist (its random-garbage test runs the Solo
Whist engine too): a state another engine made, or with values no engine makes, is refused with
:class:`EngineStateError` before any kernel runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from card_game_checks import LOWEST_EAST
from vint_env.cards import parse_pbn
from vint_env.rules.solo_whist import SoloWhistDeal
from vint_env.rules.solo_whist_calls import MISERE, PASS
from vint_env.vector import EngineStateError, SoloWhistEngine, VintEngine, WhistEngine
from vint_env.vector.state import COL


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


def test_eldest_hands_certain_misere_ends_before_the_first_card_in_the_engine():
    """Issue 23 item 21: East, eldest hand and on lead, holds only cards below the others' in suits they hold."""
    pbn = LOWEST_EAST
    engine = SoloWhistEngine(auto_reset=False)
    state = engine.init(deals=[pbn], dealers=[0], turned=["S9"])
    ref = SoloWhistDeal(parse_pbn(pbn), 0, int(state.turned[0]))
    for a in (MISERE, PASS, PASS, PASS):
        ref.apply(a)
        state = engine.step(state, np.array([a]))
    assert ref.is_over and ref.play.tricks_played == 0 and ref.made
    assert state.terminated.tolist() == [True] and state.points[0].tolist() == ref.payments == [-8, 24, -8, -8]
