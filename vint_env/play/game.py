"""What `vint-play` needs of a game, read from the harness (:mod:`vint_env.evaluation.games`):
its record (name, format, episode kinds), its raw env with rewards in points, and the reset
options that replay a board.  Every other module of `vint-play` goes through these three."""

from __future__ import annotations

from ..evaluation import games as harness


def game_names() -> list[str]:
    return sorted(harness.GAMES)


def game_record(name: str):
    """The game's record: ``.name``, ``.format`` (partnership or solo), ``.episodes``."""
    try:
        from .. import games
    except ImportError:
        return harness.game_spec(name)
    return games.get(name)


def make_env(name: str, episode: str):
    if hasattr(harness, "make_env"):
        return harness.make_env(name, episode)
    return harness.game_spec(name).make_env(episode)


def reset_options(name: str, board) -> dict:
    if hasattr(harness, "reset_options"):
        return harness.reset_options(name, board)
    return harness.game_spec(name).reset_options(board)
