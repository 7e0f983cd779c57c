"""The harness's tables of a game, through its record (:mod:`vint_env.games`).

It makes the game's raw PettingZoo env with rewards in points, turns a board
into reset options, and reads what the deal at a table came to (the game's
outcome type: contract, declarer, tricks) from the finished env through the record.
"""

from __future__ import annotations

from .. import games
from ..cards import card_text
from ..games import TWO_PLAYER, DealOutcome, Game
from ..games.params import OptionError
from .deals import Board

#: The games the harness plays (their names: the ``--game`` choices).
GAMES = games.names()


class EnvOptionError(ValueError):
    """An env option (``--env-option KEY=VALUE``, ``env_options=``) the game's env does not take."""


def make_env(game: Game | str, episode: str = "deal", /, **options):
    """The raw env of ``game`` for an ``episode`` kind, its rewards in points (not scaled);
    ``options``: further options of the env (two-player Vint: ``way=1``)."""
    game = games.get(game)
    if episode not in game.episodes:
        raise ValueError(f"{game.name}: episode must be one of {game.episodes}, got {episode!r}")
    if "episode" in options:
        raise EnvOptionError(f"{game.name}: the episode kind is not an env option here; choose it with "
                             f"--episode ({' or '.join(game.episodes)})")
    if "reward_scale" in options:
        raise EnvOptionError(f"{game.name}: reward_scale is not an env option of a match (the harness scores in "
                             f"points), got {options['reward_scale']!r}")
    try:
        game.check_options(options, defaults=False)   # the game's declared options: unknown or bad, named
    except OptionError as e:
        raise EnvOptionError(str(e)) from None
    kwargs = {**options, "reward_scale": game.points_scale}
    if len(game.episodes) > 1:
        kwargs["episode"] = episode
    return game.raw_env(**kwargs)


def reset_options(game: Game | str, board: Board) -> dict:
    """The reset options that replay ``board`` (its deal, dealer and, where the game turns one, turned card)."""
    game = games.get(game)
    # two players deal in turn: the board's dealer seat picks the dealing player, alike at both tables
    opts = {"deal": board.deal, "dealer": board.dealer % 2 if game.format == TWO_PLAYER else board.dealer}
    if game.turns_card and board.turned is not None:
        opts["turned_card"] = card_text(board.turned)
    return opts


def table_outcome(game: Game | str, raw_env) -> DealOutcome:
    """What the deal a raw env has just played came to: the game's outcome type (:mod:`vint_env.games.outcome`)."""
    return games.get(game).deal_outcome(raw_env.deal)
