"""The Vint variants of the batched engine: ``honours`` changes the scores, ``game_race`` nothing.

The engine plays deal episodes, which have no game: the race for 500 (docs/rules/vint.md, "Game and rubber")
decides games within a rubber.  The option is accepted and checked like ``vint_v0``'s, so
that one set of options configures both, and it must leave every array of every step alone.
The honours rules are checked exactly against the reference in ``test_vector_engine.py``
(random deals) and ``test_vint_scoring_cases.py`` (the worked cases).
"""

from __future__ import annotations

import numpy as np
import pytest

from vint_env.vector import VintEngine
from vint_env.vector.engine import random_legal_actions

ARRAYS = ("small", "words", "key", "deal_index", "observation", "legal_action_mask", "rewards", "points",
          "terminated", "observer")


def play(engines, steps=300, batch=32, seed=5):
    """Step every engine with the same random legal actions; yield the states after each step."""
    states = [e.init(seed=seed, batch_size=batch) for e in engines]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = random_legal_actions(states[0].legal_action_mask, rng)
        states = [e.step(s, actions) for e, s in zip(engines, states)]
        yield states


def test_game_race_changes_nothing_in_deal_episodes():
    engines = [VintEngine(game_race="first"), VintEngine(game_race="deal_end")]
    finished = 0
    for first, deal_end in play(engines):
        for name in ARRAYS:
            assert np.array_equal(getattr(first, name), getattr(deal_end, name)), name
        finished += int(first.terminated.sum())
    assert finished > 50
    assert [e.game_race for e in engines] == ["first", "deal_end"]


def test_honours_rule_changes_some_scores_and_nothing_else():
    engines = [VintEngine(honours="majority"), VintEngine(honours="net")]
    differ = same = 0
    for majority, net in play(engines, steps=600):
        for name in ("small", "words", "observation", "legal_action_mask", "terminated"):
            assert np.array_equal(getattr(majority, name), getattr(net, name)), name
        done = majority.terminated
        differ += int((majority.points[done, 0] != net.points[done, 0]).sum())
        same += int((majority.points[done, 0] == net.points[done, 0]).sum())
    assert differ > 20 and same > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"honours": "sum"}, r"honours must be one of \('majority', 'net'\), got 'sum'"),
    ({"honours": None}, r"honours must be one of \('majority', 'net'\), got None"),
    ({"game_race": "last"}, r"game_race must be one of \('first', 'deal_end'\), got 'last'"),
    ({"game_race": True}, r"game_race must be one of \('first', 'deal_end'\), got True"),
])
def test_bad_variant_values_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VintEngine(**kwargs)
