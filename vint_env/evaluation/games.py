"""What the harness needs to know about each game.

A :class:`GameSpec` makes the game's raw PettingZoo env, turns a board into
reset options, says how seats form teams (fixed partnerships, or every
player for themselves in Solo Whist) and reads the per-table details the
reports use (contract, declarer, tricks) from the finished env.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from ..cards import card_text
from .deals import Board

PARTNERSHIP = "partnership"   # teams at seats (0, 2) and (1, 3); duplicate swaps them
SOLO = "solo"                 # one seat under test against three; rotated through the seats


@dataclass(frozen=True)
class GameSpec:
    name: str
    env_module: str
    format: str
    episodes: tuple[str, ...] = ("deal",)
    env_kwargs: dict = field(default_factory=dict)
    options: Callable[[Board], dict] | None = None
    details: Callable[[Any], dict] | None = None

    def make_env(self, episode: str = "deal"):
        if episode not in self.episodes:
            raise ValueError(f"{self.name}: episode must be one of {self.episodes}, got {episode!r}")
        module = importlib.import_module(self.env_module)
        kwargs = dict(self.env_kwargs)
        if len(self.episodes) > 1:
            kwargs["episode"] = episode
        return module.raw_env(**kwargs)

    def action_text(self, action: int) -> str:
        """``'SA'``, ``'pass'``, ``'3NT'``, ``'solo'``: the env's text of an action id."""
        return importlib.import_module(self.env_module).raw_env.ACTION_TEXT(action)

    def reset_options(self, board: Board) -> dict:
        return self.options(board) if self.options else {"deal": board.deal, "dealer": board.dealer}


# ------------------------------------------------------------------ Vint

def _vint_details(env) -> dict:
    deal = env.deal
    out = {"dealer": deal.dealer, "passed_out": bool(deal.passed_out)}
    if deal.contract is not None:
        out.update(contract=str(deal.contract), level=deal.contract.level, strain=deal.contract.strain,
                   declarer=deal.declarer)
    if deal.play is not None:
        out["side_tricks"] = list(deal.play.side_tricks())
    return out


def _whist_options(board: Board) -> dict:
    opts = {"deal": board.deal, "dealer": board.dealer}
    if board.turned is not None:
        opts["turned_card"] = card_text(board.turned)
    return opts


def _trick_details(env) -> dict:
    deal = env.deal
    out: dict = {"dealer": getattr(deal, "dealer", None)}
    play = getattr(deal, "play", None)
    if play is not None:
        out["tricks_won"] = list(play.tricks_won)
    for name in ("trump", "contract", "declarer"):
        value = getattr(deal, name, None)
        if value is not None and isinstance(value, (int, str)):
            out[name] = value
        elif value is not None:
            out[name] = str(value)
    return out


def _solo_details(env) -> dict:
    from ..rules.solo_whist_calls import CALL_NAMES
    deal = env.deal
    out: dict = {"dealer": deal.dealer, "thrown_in": bool(deal.thrown_in)}
    if deal.contract >= 0:
        out.update(contract=CALL_NAMES[deal.contract], declaring=list(deal.declaring_seats),
                   declarer=deal.declarer, made=bool(getattr(deal, "made", False)))
    if deal.play is not None:
        out["tricks_won"] = list(deal.play.tricks_won)
    return out


GAMES: dict[str, GameSpec] = {
    "vint": GameSpec("vint", "vint_env.envs.vint_v0", PARTNERSHIP, ("deal", "rubber"),
                     {"reward_scale": 1.0}, None, _vint_details),
    "whist": GameSpec("whist", "vint_env.envs.whist_v0", PARTNERSHIP, ("deal", "rubber"),
                      {"reward_scale": 1.0}, _whist_options, _trick_details),
    # Solo Whist settles in quarter points; a reward scale of 0.25 gives points.
    "solo_whist": GameSpec("solo_whist", "vint_env.envs.solo_whist_v0", SOLO, ("deal",),
                           {"reward_scale": 0.25}, _whist_options, _solo_details),
}


def game_spec(name: str) -> GameSpec:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(GAMES)}")
    return GAMES[name]
