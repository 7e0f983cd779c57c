"""Typed calls and cards for `vint-play`: the one place that turns text into action ids and back.

``1NT``, ``pass``, ``SA``, ``h10`` / ``HT``, ``misere``, ``solo``, ``trump D``:
case-insensitive, ten as ``10`` or ``T``.  The texts and the parsing are the
games' own (the same functions the envs use to name actions in messages).
"""

from __future__ import annotations

import importlib
from typing import Callable

# The games' action text and parsing functions ("module:attribute").
_CODECS = {
    "vint": ("vint_env.rules.vint:action_text", "vint_env.rules.vint:parse_action"),
    "whist": ("vint_env.rules.whist:action_text", "vint_env.cards:parse_card"),
    "solo_whist": ("vint_env.rules.solo_whist_calls:action_text", "vint_env.rules.solo_whist_calls:parse_action"),
}


def _load(path: str):
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def action_codec(game: str) -> tuple[Callable[[int], str], Callable[[str], int]]:
    """``(action_text, parse_action)`` of ``game``."""
    try:
        registry = importlib.import_module("vint_env.games")    # the games layer, where it has landed
    except ImportError:
        registry = None
    if registry is not None and hasattr(registry, "get"):
        record = registry.get(game)
        return record.action_text, record.parse_action
    if game not in _CODECS:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(_CODECS)}")
    text, parse = _CODECS[game]
    return _load(text), _load(parse)


def parse_typed(game: str, typed: str) -> int:
    """Action id of what a person typed; ValueError with the reason if it names no action."""
    _, parse = action_codec(game)
    text = typed.strip()
    if not text:
        raise ValueError("nothing typed")
    return int(parse(text))
