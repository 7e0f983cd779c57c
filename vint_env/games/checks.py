"""Checks of the option values the layers above share: one rule for numbers everywhere.

Integers of any kind are accepted where an integer is wanted (``int``, NumPy
integers); bools are refused (``True`` is not seat 1); a scale must be a finite
positive real number (NaN, infinity and bools are refused).
"""

from __future__ import annotations

import math
from numbers import Integral, Real


def positive_scale(name: str, value) -> float:
    """``value`` as a float if it is a finite positive real number, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return float(value)


def positive_int(name: str, value) -> int:
    """``value`` as an int if it is a positive integer (NumPy integers too, not bools), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def seat_or_none(name: str, value) -> int | None:
    """``value`` as a seat 0..3 (NumPy integers too, not bools), or None; else ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or not 0 <= value <= 3:
        raise ValueError(f"{name} must be a seat 0..3 or None, got {value!r}")
    return int(value)
