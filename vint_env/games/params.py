"""Declared game parameters, as OpenSpiel declares them: name, type, default, allowed values, a line of doc.

Every option of a game's env (and of its batched engine, and of ``vint-eval --env-option``,
``vint-play`` and the training configs' ``env_kwargs``) is a :class:`Parameter` of the game's
record, validated in one place, :meth:`Parameter.check`:

- ``bool``: only ``True``/``False`` (NumPy booleans too); ``"no"`` or ``1`` are refused;
- ``int``: Python and NumPy integers, never bools and never floats (``100.0`` is refused);
- ``float``: any finite real number but a bool, returned as a float;
- ``str``: a string;
- ``allowed``: the value must be one of them; ``minimum`` / ``maximum``: bounds of a number;
  ``optional``: ``None`` is allowed too.

>>> p = Parameter("way", int, 4, "the way of playing", allowed=(1, 2, 3, 4, 5))
>>> p.check(2), p.parse("3")
(2, 3)
>>> p.check(4.0)
Traceback (most recent call last):
...
vint_env.games.params.OptionError: way must be one of (1, 2, 3, 4, 5), got 4.0 (an integer, not float)
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ..inputs import excerpt

__all__ = ["OptionError", "Parameter", "check_options", "parse_options", "unknown_name", "MAX_POINTS", "MAX_REWARD_SCALE"]

#: A bound on the raw points of any deal or rubber of any game (Vint's biggest rubbers are below 10**8).
MAX_POINTS = 1e12
#: The largest reward scale: rewards (raw points x scale) stay finite even in float32.
MAX_REWARD_SCALE = float(np.finfo(np.float32).max) / MAX_POINTS

_TYPE_NAMES = {bool: "True or False", int: "an integer", float: "a number", str: "a string"}


class OptionError(ValueError):
    """An option of a game that is unknown, of the wrong type or not one of its allowed values."""


@dataclass(frozen=True)
class Parameter:
    """One option of a game (see the module docstring)."""

    name: str
    type: type                       #: bool, int, float or str
    default: Any
    doc: str                         #: one line, for the docs' option tables and ``--help``
    allowed: tuple | None = None     #: the values allowed, or None for any value of the type
    minimum: float | None = None     #: numbers: the smallest value allowed (inclusive)
    maximum: float | None = None     #: numbers: the largest value allowed (inclusive)
    optional: bool = False           #: None is allowed too
    exclusive_minimum: bool = False  #: numbers: ``minimum`` itself is refused (a scale > 0)

    def describe(self) -> str:
        """What a value must be: ``'one of (1, 2, 3, 4, 5)'``, ``'a finite positive number'``."""
        if self.allowed is not None:
            text = f"one of {self.allowed}"
        elif self.type is float and self.minimum == 0 and self.exclusive_minimum:
            text = "a finite positive number"
        elif self.type is int and self.minimum == 1 and not self.exclusive_minimum:
            text = "a positive integer"
        else:
            text = _TYPE_NAMES[self.type]
            if self.minimum is not None:
                text += f" {'>' if self.exclusive_minimum else '>='} {_number(self.minimum)}"
        if self.maximum is not None:
            text += f" (at most {_number(self.maximum)})"
        if self.optional:
            text += " or None"
        return text

    def check(self, value):
        """``value`` as this parameter's type (NumPy scalars become Python ones); OptionError naming it otherwise."""
        if value is None and self.optional:
            return None
        converted = _convert(self.type, value)
        ok = converted is not None
        if ok and self.allowed is not None:
            ok = converted in self.allowed
        if ok and self.minimum is not None:
            ok = converted > self.minimum if self.exclusive_minimum else converted >= self.minimum
        if ok and self.maximum is not None:
            ok = converted <= self.maximum
        if not ok:
            kind = "" if converted is not None or self.allowed is None else \
                f" ({_TYPE_NAMES[self.type]}, not {type(value).__name__})"
            raise OptionError(f"{self.name} must be {self.describe()}, got {excerpt(value)}{kind}")
        return converted

    def parse(self, text: str):
        """The value written as ``text`` (``--env-option way=1``, a ``vint-play`` option), checked."""
        t = text.strip()
        if self.optional and t.lower() in ("none", ""):
            return None
        if self.type is bool:
            value = {"true": True, "false": False, "1": True, "0": False}.get(t.lower(), t)
        elif self.type is int:
            value = int(t) if _INTEGER.fullmatch(t) else t
        elif self.type is float:
            try:
                value = float(t)
            except ValueError:
                value = t
        else:
            value = t
        return self.check(value)


#: An integer as text: ASCII digits (``int`` also reads "٣"), few enough that ``int`` reads them at once.
_INTEGER = re.compile(r"[+-]?[0-9]{1,60}")


def _number(x) -> str:
    """A bound as the docs write it: integers whole (``4294967295``), other numbers short (``1e+12``)."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


def _convert(kind: type, value):
    """``value`` as ``kind``, or None if it is not one."""
    if kind is bool:
        return bool(value) if isinstance(value, (bool, np.bool_)) else None
    if isinstance(value, (bool, np.bool_)):
        return None
    if kind is int:
        return int(value) if isinstance(value, Integral) else None
    if kind is float:
        if isinstance(value, Real) and math.isfinite(value):
            return float(value)
        return None
    return value if isinstance(value, kind) else None


def unknown_name(owner: str, name, known, what: str = "env option", listing: str = "its options") -> OptionError:
    """The error for a name ``owner`` does not know, naming the nearest known one and all of them."""
    near = difflib.get_close_matches(str(name)[:100], list(known), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    options = ", ".join(known) if known else "none"
    return OptionError(f"{owner}: unknown {what} {excerpt(name)}{hint}; {listing}: {options}")


def check_options(owner: str, parameters, options: dict, defaults: bool = True) -> dict:
    """``options`` checked against ``parameters`` (unknown names are an OptionError naming the nearest);
    with ``defaults``, every parameter not given gets its default."""
    if not isinstance(options, dict):
        raise OptionError(f"{owner}: options must be a dict of option name -> value, got {options!r}")
    declared = {p.name: p for p in parameters}
    for name in options:
        if name not in declared:
            raise unknown_name(owner, name, declared)
    out = {}
    for name, p in declared.items():
        if name in options:
            out[name] = p.check(options[name])
        elif defaults:
            out[name] = p.default
    return out


def parse_options(owner: str, parameters, items) -> dict:
    """``KEY=VALUE`` texts (``--env-option``) parsed and checked by their parameters."""
    declared = {p.name: p for p in parameters}
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionError(f"option {excerpt(item)}: expected KEY=VALUE, e.g. reward_scale=0.01")
        if key not in declared:
            raise unknown_name(owner, key, declared)
        if key in out:
            raise OptionError(f"{owner}: option {key} is given twice ({key}={out[key]!r} and "
                              f"{excerpt(item)}); give it once")
        out[key] = declared[key].parse(value)
    return out


# ---------------------------------------------------------------- the options most games share
def episode(episodes: tuple[str, ...]) -> Parameter:
    return Parameter("episode", str, episodes[0], "what one episode is: one deal, or a rubber of deals",
                     allowed=episodes)


def reward_scale(default: float, unit: str = "points") -> Parameter:
    return Parameter("reward_scale", float, default, f"reward = raw {unit} x this scale", minimum=0.0,
                     exclusive_minimum=True, maximum=MAX_REWARD_SCALE)


def max_deals(default: int = 100) -> Parameter:
    return Parameter("max_deals", int, default, "rubber episodes are truncated after this many deals", minimum=1)


def viewer(players: int = 4, who: str = "seat") -> Parameter:
    return Parameter("viewer", int, None, f"the {who} whose hand `render` shows (None: every hand)",
                     allowed=tuple(range(players)), optional=True)


def vint_variants() -> tuple[Parameter, ...]:
    """Vint's scoring variants (four-player and two-player Vint, rules, envs and the batched engine)."""
    from ..rules.rubber import GAME_RACE_VARIANTS
    from ..rules.vint import GAME_BONUS_VARIANTS, PASSOUT_VARIANTS
    from ..rules.vint_scoring import HONOURS_VARIANTS
    return (
        Parameter("game_bonus", int, 100, "the bonus for a game won (docs: Scoring)", allowed=GAME_BONUS_VARIANTS),
        Parameter("passout", str, "mark", "a passed-out deal writes a mark, or is played at no-trump",
                  allowed=PASSOUT_VARIANTS),
        Parameter("honours", str, "majority", "honours and aces: counted by the majority side, or net",
                  allowed=HONOURS_VARIANTS),
        Parameter("game_race", str, "first", "rubber episodes: the game goes to the first side over the line "
                  "trick by trick, or is checked at the deal's end", allowed=GAME_RACE_VARIANTS),
    )
