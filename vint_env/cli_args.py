"""argparse pieces the command-line tools share: ``--version`` (every console script) and the number types
(``vint-eval``, ``vint-play``, ``vint-serve``).

>>> positive_int("3")
3
>>> positive_int("0")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a positive integer (1 or more), got 0
>>> positive(float)("0.5")
0.5
"""

from __future__ import annotations

import argparse

from . import __version__


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: print the command's name and the package's version (``vint_env.__version__``), then exit."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")


def positive(kind=int):
    """argparse type: a number of ``kind`` (``int`` or ``float``) above 0, else an error naming the value."""
    noun = "integer" if kind is int else "number"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive {noun}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be a positive {noun}" + (" (1 or more)" if kind is int else "")
                                             + f", got {value}")
        return value
    parse.__name__ = f"positive_{kind.__name__}"
    return parse


#: argparse type: an integer >= 1 (``--boards 0`` must not silently mean "all").
positive_int = positive(int)
