"""Typed calls and cards for `vint-play`: text to action id and back, through the game's record.

``1NT``, ``pass``, ``SA``, ``h10`` / ``HT``, ``misere``, ``solo``, ``trump D``:
case-insensitive, ten as ``10`` or ``T``.  The texts and the parsing are the
game's own (:mod:`vint_env.games`: the same the envs use to name actions in messages).
"""

from __future__ import annotations

from typing import Callable

from .. import games


def action_codec(game: games.Game | str) -> tuple[Callable[[int], str], Callable[[str], int]]:
    """``(action_text, parse_action)`` of ``game`` (its record or its name)."""
    record = games.get(game)
    return record.action_text, record.parse_action


def parse_typed(game: games.Game | str, typed: str) -> int:
    """Action id of what a person typed; ValueError with the reason if it names no action."""
    _, parse = action_codec(game)
    text = typed.strip()
    if not text:
        raise ValueError("nothing typed")
    return int(parse(text))
