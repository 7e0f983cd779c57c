"""Checks of single option values, for callers outside a game's declared options (:mod:`.params`).

They are :class:`~vint_env.games.params.Parameter` checks, so numbers follow one rule everywhere:
integers of any kind are accepted where an integer is wanted (``int``, NumPy integers); bools are
refused (``True`` is not seat 1); a scale must be a finite positive real number.
"""

from __future__ import annotations

from .params import MAX_REWARD_SCALE, Parameter


def positive_scale(name: str, value) -> float:
    """``value`` as a float if it is a finite positive real number (at most the largest reward scale), else ValueError."""
    return Parameter(name, float, None, "", minimum=0.0, exclusive_minimum=True, maximum=MAX_REWARD_SCALE).check(value)


def positive_int(name: str, value) -> int:
    """``value`` as an int if it is a positive integer (NumPy integers too, not bools), else ValueError."""
    return Parameter(name, int, None, "", minimum=1).check(value)


def seat_or_none(name: str, value) -> int | None:
    """``value`` as a seat 0..3 (NumPy integers too, not bools), or None; else ValueError."""
    return Parameter(name, int, None, "", allowed=(0, 1, 2, 3), optional=True).check(value)
