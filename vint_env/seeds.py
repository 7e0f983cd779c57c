"""One rule for seeds everywhere: a non-negative integer (Python or NumPy, never a bool), or None.

NumPy's own errors for ``seed=-1`` or ``seed="abc"`` do not say which argument
was wrong, and ``seed=True`` would silently mean seed 1.

>>> check_seed(7), check_seed(None)
(7, None)
>>> check_seed(-1)
Traceback (most recent call last):
...
vint_env.seeds.SeedError: seed must be a non-negative integer or None, got -1
"""

from __future__ import annotations

from numbers import Integral


class SeedError(ValueError, TypeError):
    """A seed that is not a non-negative integer (or None where a fresh seed is allowed)."""


def check_seed(seed, name: str = "seed", allow_none: bool = True) -> int | None:
    """``seed`` as an ``int`` (or None), else :class:`SeedError` naming ``name``."""
    if seed is None and allow_none:
        return None
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise SeedError(f"{name} must be a non-negative integer{' or None' if allow_none else ''}, got {seed!r}")
    return int(seed)
