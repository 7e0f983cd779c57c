"""Points as the command-line tools print them: thousands separators, rounding that fits the figure.

Vint's margins run to six figures, Whist's are fractions of a point: one rule
for both.  A figure with a confidence interval is rounded to what the
interval's width warrants (two significant digits of its half-width, never
finer than 0.01 of a point); a figure alone keeps about three significant
digits, and never fewer than the whole points (a whole number prints whole).

>>> format_points(121349.0)
'+121,349'
>>> format_points(-9.34)
'-9.34'
>>> format_points(0.1666), format_points(7.0), format_points(-2.25)
('+0.17', '+7', '-2.25')
>>> format_points(1234.6, sign=False)
'1,235'
>>> format_ci(121457.2, 118729.0, 124185.4)
'+121,457 [+118,729, +124,185]'
>>> format_ci(0.1666, 0.041, 0.2922)
'+0.17 [+0.04, +0.29]'
>>> format_ci(-143.2, -238.6, -47.9)
'-143 [-239, -48]'
>>> format_ci(12.5, None, float("nan"))
'+12.5 [n/a, n/a]'
"""

from __future__ import annotations

import math
import numbers

MAX_DECIMALS = 2


def _finite(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def decimals_for(magnitude: float) -> int:
    """Decimals that keep about two significant digits of ``magnitude`` (0 to :data:`MAX_DECIMALS`)."""
    magnitude = abs(float(magnitude))
    if not math.isfinite(magnitude) or magnitude == 0:
        return MAX_DECIMALS
    return max(0, min(MAX_DECIMALS, 1 - math.floor(math.log10(magnitude))))


def format_points(value: float, decimals: int | None = None, sign: bool = True) -> str:
    """``value`` in points with thousands separators; ``decimals`` default: about three significant
    digits (whole points from 100 up); ``sign``: a + before positive figures (margins)."""
    if not _finite(value):
        return "n/a"                      # no figure: None (strict JSON) or NaN (one board has no interval)
    value = float(value)
    if decimals is None:
        decimals = 0 if value.is_integer() else decimals_for(value / 10)
    if round(value, decimals) == 0:
        value = 0.0                      # no "-0"
    return f"{value:{'+' if sign else ''},.{decimals}f}"


def ci_parts(mean: float, low: float, high: float, sign: bool = True) -> tuple[str, str, str]:
    """``mean``, ``low`` and ``high`` all rounded alike, to what the interval's half-width warrants."""
    half = (float(high) - float(low)) / 2 if _finite(low) and _finite(high) else math.nan
    decimals = decimals_for(half) if math.isfinite(half) and half > 0 else None
    return tuple(format_points(x, decimals, sign) for x in (mean, low, high))


def format_ci(mean: float, low: float, high: float, sign: bool = True) -> str:
    """``mean [low, high]``, rounded as :func:`ci_parts` does."""
    m, lo, hi = ci_parts(mean, low, high, sign)
    return f"{m} [{lo}, {hi}]"
