"""What sits at a match's seats: an agent spec, or an :class:`~vint_env.agents.base.Agent` object held in memory.

:func:`~vint_env.evaluation.match.run_match` takes either for each side and turns it into a
:class:`Player` here, once, in the calling process:

- a spec (``"rule"``, ``"network:runs/x/checkpoints/latest.pt"``, or a parsed
  :class:`~vint_env.agents.spec.AgentSpec`) travels to worker processes as its text; each seat loads its
  own agent from it (:func:`~vint_env.agents.registry.load_agent`).  The results name it by that text.
- an ``Agent`` object travels as its pickle (bytes, made once here); each seat unpickles its own copy,
  so no per-seat state (a rule bot's memory of the deal, a sampling generator) is shared, and the object
  plays in a worker process exactly as in this one.  The results name it by its ``name``.  An object must
  pickle (every agent of this package does); one of another game (its ``game``, or a network's observation
  size) is refused.  A trained network in memory: :meth:`PPOAgent.from_network
  <vint_env.agents.learned.policy.PPOAgent.from_network>` (a frozen CPU copy of the network, greedy), which
  plays as the same weights loaded from their checkpoint (``network:PATH``) play.

Any of these problems is an :class:`AgentObjectError` that names the side (``agent_a`` / ``agent_b``).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from .. import games
from ..agents.base import Agent
from ..agents.registry import load_agent
from ..agents.spec import AgentSpec, parse_spec
from ..games import Game


class AgentObjectError(TypeError):
    """A side of a match that is neither an agent spec nor an ``Agent`` that can play the match's game."""


@dataclass(frozen=True)
class Player:
    """One side of a match as the seats receive it: a spec's text, or an agent's pickle.  Hashable (a worker
    keeps the tables of its last match by it) and picklable anywhere."""

    label: str                      # how the results name the side
    spec: str | None = None         # the spec's text, or None for an object
    pickled: bytes | None = None    # the object's pickle, or None for a spec

    @property
    def kind(self) -> str | None:
        """The spec's kind (``"rule"``, ``"human"`` ...); None for an object."""
        return None if self.spec is None else parse_spec(self.spec).kind

    def seat_agent(self, record: Game) -> Agent:
        """A fresh agent for one seat."""
        if self.spec is not None:
            return load_agent(self.spec, game=record)
        return pickle.loads(self.pickled)


def agent_label(agent: Agent) -> str:
    """How the results name an agent object: its ``name``, else its class's name."""
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) and name.strip() else type(agent).__name__


def player(agent: str | AgentSpec | Agent, record: Game, side: str = "agent") -> Player:
    """``agent`` as a :class:`Player` of a match of ``record``, checked here: a bad spec fails as
    :func:`~vint_env.agents.registry.load_agent` fails (e.g. a missing checkpoint), a bad object with an
    :class:`AgentObjectError` naming ``side``."""
    if isinstance(agent, (str, AgentSpec)):
        spec = parse_spec(agent)
        load_agent(spec, game=record)           # fail early, in this process
        return Player(str(spec), spec=str(spec))
    if not isinstance(agent, Agent):
        raise AgentObjectError(f"{side}: expected an agent spec (text such as 'rule') or an Agent object, "
                               f"got {type(agent).__name__} {_short(agent)}")
    label = agent_label(agent)
    _check_game(agent, record, f"{side} ({label})")
    try:
        pickled = pickle.dumps(agent)
        pickle.loads(pickled)
    except Exception as e:  # noqa: BLE001 - whatever stops a pickle
        raise AgentObjectError(f"{side} ({label}): an Agent object must pickle (each seat and worker process "
                               f"gets its own copy); {type(agent).__name__} does not: "
                               f"{type(e).__name__}: {e}") from None
    return Player(label, pickled=pickled)


def _check_game(agent: Agent, record: Game, who: str) -> None:
    """Refuse an agent that says it plays another game (``game``) or reads other observations (``obs_size``)."""
    game = getattr(agent, "game", None)
    if isinstance(game, (str, Game)):
        try:
            own = games.get(game)
        except (KeyError, ValueError):
            own = None
        if own is not None and own.name != record.name:
            raise AgentObjectError(f"{who}: this agent plays {own.name}, not {record.name}")
    obs_size = getattr(agent, "obs_size", None)
    if isinstance(obs_size, int) and obs_size != record.observation_size:
        raise AgentObjectError(f"{who}: this agent reads observations of size {obs_size}, "
                               f"but {record.name}'s have {record.observation_size}")


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."
