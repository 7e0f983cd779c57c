"""The search agent's plans of Whist and Vint: what :class:`~vint_env.agents.search.search.SearchAgent` needs
to know of a game besides its PIMC plan (:mod:`.pimc_games`).

A game's record names its plan (``Game.search``).  The plan says which shipped agent is the
*blueprint* (the agent whose action is kept unless the search finds a better one, and which makes
the decisions the search does not: Vint's calls; the shipped network in both games), which network
models the other players' play, how the deal is replayed in the batched engine (the engine's rules,
the dealer and the turned card as the observer knows them) and what the auction was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...games.knowledge import Knowledge, one_hot

__all__ = ["SearchPlan", "WHIST", "VINT", "network_of"]


@dataclass(frozen=True)
class SearchPlan:
    """What the search agent needs to know of one game (see the module docstring).

    ``blueprint``: the agent spec of the default blueprint (a shipped agent; option ``blueprint`` names
    another); ``models``: the agent specs whose networks may model the others' play (the first is the
    default); ``engine_options(k)``: the batched
    engine's options for the table the observer plays at; ``dealer(k)`` and ``turned(k)`` (the dealer's
    turned card, or None), relative to the observer; ``calls(k)``: the auction so far as ``(relative
    seat, action)`` pairs in order (empty without an auction); ``margin``: the default margin (points
    a deal) by which the search's best card must beat the blueprint's to be played instead;
    ``temperature``: the default temperature of the model's logits (a critic's logits are values);
    ``candidates``: the default number of deals weighed a decision (the model's network costs what it
    costs a row: Vint's is larger); ``first_samples`` and ``late_samples``: the default deals solved a
    decision in the first trick and from the fifth on (None: ``samples``, as in the tricks between).
    """

    blueprint: str
    models: tuple[str, ...]
    engine_options: Callable[[Knowledge], dict]
    dealer: Callable[[Knowledge], int]
    turned: Callable[[Knowledge], int | None]
    calls: Callable[[Knowledge], list]
    margin: float
    temperature: float
    candidates: int
    first_samples: int
    late_samples: int | None


def network_of(agent):
    """The policy network of a loaded learned agent: a PPO agent's, or a residual agent's critic."""
    inner = getattr(agent, "policy", agent)
    return inner.network


def _dealer(k: Knowledge) -> int:
    return one_hot(k.o["dealer"])


def _whist_turned(k: Knowledge) -> int | None:
    return one_hot(k.o["turned_card"])


def _whist_engine(k: Knowledge) -> dict:
    return {"no_trump": one_hot(k.o["turned_card"]) is None}


def _vint_engine(k) -> dict:
    return {"passout": "play"} if k.passout_play else {}


WHIST = SearchPlan(blueprint="baseline", models=("baseline", "residual"), engine_options=_whist_engine,
                   dealer=_dealer, turned=_whist_turned, calls=lambda k: [], margin=0.0, temperature=1.0,
                   candidates=40, first_samples=6, late_samples=36)
VINT = SearchPlan(blueprint="baseline", models=("residual", "baseline"), engine_options=_vint_engine,
                  dealer=_dealer, turned=lambda k: None, calls=lambda k: list(k.calls), margin=0.0,
                  temperature=1.0, candidates=24, first_samples=8, late_samples=None)
