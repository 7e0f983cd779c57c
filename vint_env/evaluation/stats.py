"""Statistics of matches: means with Student-t confidence intervals.

No SciPy needed: the t quantile is found by bisection on the t distribution
function, written with the regularised incomplete beta function.

>>> round(t_quantile(0.975, 9), 4)
2.2622
>>> ci = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
>>> round(ci.mean, 3), round(ci.low, 3), round(ci.high, 3)
(3.0, 1.037, 4.963)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Distribution function of Student's t with ``df`` degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (``0 < p < 1``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@dataclass
class MeanCI:
    """A mean with its two-sided confidence interval."""

    mean: float
    low: float
    high: float
    sd: float
    n: int
    level: float = 0.95

    @property
    def half_width(self) -> float:
        return 0.5 * (self.high - self.low)

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def as_dict(self) -> dict:
        """The fields as plain JSON values: with one value there is no interval, so ``low``, ``high`` and
        ``sd`` are None and ``interval`` says why (JSON has no NaN or infinity)."""
        d = asdict(self)
        if not all(math.isfinite(d[k]) for k in ("low", "high", "sd")):
            d.update(low=None, high=None, sd=None, interval=f"none: {self.n} value(s) give no confidence interval")
        return d

    def __str__(self) -> str:
        return f"{self.mean:.1f} ± {self.half_width:.1f} (95% CI {self.low:.1f} .. {self.high:.1f}, n={self.n})"


def mean_ci(values: Sequence[float], level: float = 0.95) -> MeanCI:
    """Mean and Student-t confidence interval of independent values.

    For a duplicate match the values are the per-deal differences (a
    paired comparison): the interval is that of the mean difference.
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values: a confidence interval needs at least one")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanCI(mean, -math.inf, math.inf, math.nan, 1, level)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    sd = math.sqrt(var)
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return MeanCI(mean, mean - half, mean + half, sd, n, level)


def share_ci(successes: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """A proportion with its Wilson score interval: (share, low, high)."""
    if n == 0:
        return math.nan, math.nan, math.nan
    z = t_quantile(0.5 + level / 2.0, 1e9)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, centre - half, centre + half
