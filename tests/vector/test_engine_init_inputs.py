"""Bad arguments of the engines' ``init``: a named ValueError, never a failed allocation or a TypeError (found by
tests/package/test_fuzz_public_inputs.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vint_env.vector.deals import MAX_BATCH_SIZE
from vint_env.vector.engine import SoloWhistEngine, Vint2pEngine, VintEngine, WhistEngine

ENGINES = [VintEngine, WhistEngine, SoloWhistEngine, Vint2pEngine]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("batch", [MAX_BATCH_SIZE + 1, 5_578_497_849, 0, -1, True, 2.0])
def test_a_batch_size_out_of_range_is_refused_by_name(engine, batch):
    with pytest.raises(ValueError, match=r"batch_size must be an integer in 1\.\.1,048,576"):
        engine().init(seed=0, batch_size=batch)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dealers", [{}, "N", 1.5, None.__class__, [0, 9]])
def test_dealers_that_are_not_seats_are_refused_by_name(engine, dealers):
    with pytest.raises(ValueError, match="dealers"):          # two-player Vint: only with injected deals
        engine().init(seed=0, batch_size=2, dealers=dealers)


def test_the_largest_batch_the_bound_names_is_one_an_engine_makes():
    assert WhistEngine().init(seed=0, batch_size=3, dealers=2).batch_size == 3


@pytest.mark.parametrize("engine", [VintEngine, WhistEngine, SoloWhistEngine])
@pytest.mark.parametrize("deals", [(1, 2, 3, 4), [None], [{}]])
def test_deals_that_are_not_deals_are_refused_by_name(engine, deals):
    with pytest.raises(ValueError, match=r"deal 0: expected a PBN string or a 4-tuple of hand masks"):
        engine().init(seed=0, deals=deals)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rng", [0, None, "seed", np.random.RandomState(0)])
def test_random_actions_without_a_generator_is_refused_by_name(engine, rng):
    """Issue 49 (Low): ``random_actions(state, 0)`` raised an AttributeError from inside the method."""
    e = engine()
    state = e.init(seed=0, batch_size=2)
    with pytest.raises(ValueError, match="rng must be a numpy Generator"):
        e.random_actions(state, rng)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_option_init_and_reset_do_not_take_is_refused_naming_the_method(engine):
    """Issue 49 (Low): ``init(dealer=...)`` gave a TypeError naming the private ``_start``."""
    e = engine()
    with pytest.raises(ValueError, match=rf"{engine.__name__}\.init\(\) takes no option 'dealer'.* dealers"):
        e.init(seed=0, batch_size=2, dealer=1)
    state = e.init(seed=0, batch_size=2)
    with pytest.raises(ValueError, match=rf"{engine.__name__}\.reset\(\) takes no option 'seed'"):
        e.reset(state, seed=3)
