"""The games layer: one :class:`Game` record per game, and the registry that names them.

This is the only place a game is named.  Every registry, CLI choice list and
per-game switch of the layers above (envs, agents, vector, evaluation,
wrappers, training) reads it:

>>> from vint_env import games
>>> games.names()
('vint', 'whist', 'solo_whist', 'vint2p')
>>> g = games.get("whist")
>>> g.env_name, g.num_actions, g.layout.size, g.partnership
('whist_v0', 52, 965, True)
>>> games.get("vint_v0").name          # the env's name finds its game too
'vint'

Adding a game is one module here (its encoders and its ``GAME`` record) and
one entry in :data:`_MODULES`.  ``games`` sits directly above ``rules`` and
imports nothing from the layers above it (the record names their factories
as import paths, loaded on first use).
"""

from __future__ import annotations

import argparse
import importlib

from ..inputs import excerpt
from .layout import Layout
from .outcome import DealOutcome
from .record import PARTNERSHIP, SOLO, TWO_PLAYER, Game

#: The agents of every game's env: ``player_i`` sits in seat i.
AGENTS = tuple(f"player_{i}" for i in range(4))
AGENT_SEAT = {a: i for i, a in enumerate(AGENTS)}

#: The game modules, in the order games are listed.  One entry per game.
_MODULES = ("vint", "whist", "solo_whist", "vint2p")

_REGISTRY: dict[str, Game] = {}


def _load() -> dict[str, Game]:
    if not _REGISTRY:
        for module in _MODULES:
            game = importlib.import_module(f"{__name__}.{module}").GAME
            _REGISTRY[game.name] = game
    return _REGISTRY


def names() -> tuple[str, ...]:
    """The games' names: ``('vint', 'whist', 'solo_whist')``."""
    return tuple(_load())


def env_names() -> tuple[str, ...]:
    """The games' env names: ``('vint_v0', 'whist_v0', 'solo_whist_v0')``."""
    return tuple(g.env_name for g in _load().values())


def all_games() -> tuple[Game, ...]:
    return tuple(_load().values())


def get(name) -> Game:
    """The record of game ``name`` (``"vint"``, or its env name ``"vint_v0"``; a :class:`Game` is returned as is).

    An unknown name is a ValueError that lists the known games.
    """
    if isinstance(name, Game):
        return name
    registry = _load()
    if isinstance(name, str):
        if name in registry:
            return registry[name]
        for game in registry.values():
            if name == game.env_name:
                return game
    raise ValueError(f"unknown game {excerpt(name)}; known games: {', '.join(registry)} "
                     f"(or their env names {', '.join(env_names())})")


def add_game_option(parser: argparse.ArgumentParser, *flags: str, env_name: bool = False, **kwargs):
    """The ``--game`` option of a command-line tool: a game's name or its env name (``whist`` or ``whist_v0``).

    The parsed value is the game's name (``env_name=True``: its env name), whichever was typed;
    an unknown name is argparse's usage error, listing the games.  ``kwargs`` go to
    ``add_argument`` (``default``, ``required``, ``nargs``, ``help``).

    >>> p = argparse.ArgumentParser()
    >>> _ = add_game_option(p, default="vint")
    >>> p.parse_args(["--game", "whist_v0"]).game, p.parse_args(["--game", "whist"]).game
    ('whist', 'whist')
    """
    def game(text: str) -> str:
        try:
            record = get(text.strip())
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return record.env_name if env_name else record.name

    known = env_names() if env_name else names()
    kwargs.setdefault("metavar", "{" + ",".join(known) + "}")
    kwargs["help"] = kwargs.get("help", "the game") + " (its name or its env name: whist or whist_v0)"
    return parser.add_argument(*(flags or ("--game",)), type=game, **kwargs)


def engine_games() -> tuple[str, ...]:
    """The games the batched engine plays."""
    return tuple(g.name for g in _load().values() if g.engine is not None)


__all__ = ["AGENTS", "AGENT_SEAT", "DealOutcome", "Game", "Layout", "PARTNERSHIP", "SOLO", "TWO_PLAYER", "get", "names", "env_names",
           "all_games", "engine_games", "add_game_option"]
