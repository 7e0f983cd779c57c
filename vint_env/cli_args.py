"""argparse pieces the command-line tools share: ``--version`` (every console script) and the number types
(``vint-eval``, ``vint-play``, ``vint-serve``).

>>> positive_int("3")
3
>>> positive_int("0")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a positive integer (1 or more), got 0
>>> positive(float)("0.5")
0.5
>>> within(float, 0.1, 50)("1e-300")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a number from 0.1 to 50, got 1e-300
"""

from __future__ import annotations

import argparse
import math
import re

from .inputs import excerpt

_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")      # ASCII digits, few enough to read at once

from . import __version__


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: print the command's name and the package's version (``vint_env.__version__``), then exit."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")


def _read(kind, text: str, noun: str):
    """``text`` as a finite number of ``kind``, else an ArgumentTypeError naming it (``noun``: what it must be)."""
    try:
        if kind is int and not _INTEGER.fullmatch(text.strip()):
            raise ValueError
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {noun}, got {excerpt(text, 40)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {noun} (a finite number), got {excerpt(text, 40)}")
    return value


def positive(kind=int, maximum: float | None = None):
    """argparse type: a finite number of ``kind`` (``int`` or ``float``) above 0 (and at most ``maximum``),
    else an error naming the value."""
    noun = "integer" if kind is int else "number"

    def parse(text: str):
        value = _read(kind, text, f"a positive {noun}")
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be a positive {noun}" + (" (1 or more)" if kind is int else "")
                                             + f", got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {value:,}")
        return value
    parse.__name__ = f"positive_{kind.__name__}"
    return parse


def within(kind, low: float, high: float):
    """argparse type: a number of ``kind`` from ``low`` to ``high``, else an error naming the value."""
    noun = "integer" if kind is int else "number"

    def parse(text: str):
        value = _read(kind, text, f"a {noun} from {low:g} to {high:g}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a {noun} from {low:g} to {high:g}, got {value:g}")
        return value
    parse.__name__ = f"{kind.__name__}_from_{low:g}_to_{high:g}"
    return parse


#: argparse type: an integer >= 1 (``--boards 0`` must not silently mean "all").
positive_int = positive(int)
