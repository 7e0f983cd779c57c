"""The agent interface shared by scripted bots, trained policies and humans.

An agent picks an action for the agent to move from what a PettingZoo env
gives it: the observation dict (``observation`` vector and ``action_mask``).
Agents that are allowed to cheat (``needs_env = True``, e.g. the double-dummy
oracle) also read the env passed to :meth:`Agent.act`.  The evaluation
harness, the training loop and the wrappers only use this interface, so any
agent can sit in any seat.
"""

from __future__ import annotations

import numpy as np


class Agent:
    """Base class of all agents.

    Subclasses implement :meth:`act`; :meth:`reset` is called at the start of
    every episode (deal or rubber) with a seed derived from the match seed.
    """

    name: str = "agent"
    #: True for agents that read the full game from the env (cheating references).
    needs_env: bool = False

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode."""

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        """Action id for ``agent`` (e.g. ``"player_2"``), legal under ``observation["action_mask"]``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the agent holds (an outside program's process): the harness calls it when a
        match ends or stops."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def legal_actions(observation: dict) -> np.ndarray:
    """Legal action ids from an observation's mask; an all-zero mask is an error."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: is this agent to move?")
    return legal


class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
