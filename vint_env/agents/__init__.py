"""Agents: random, rule bots, double-dummy oracle, trained policies, a human.

The agents are split by kind: :mod:`~vint_env.agents.rule` (the rule books' bots and what they share),
:mod:`~vint_env.agents.search` (double-dummy and PIMC, over sampled deals) and :mod:`~vint_env.agents.learned`
(networks, PPO checkpoints, the shipped baselines). The interface (:mod:`~vint_env.agents.base`), the spec
registry and the human agent sit here.

Every agent implements :class:`Agent` (``reset(seed)``, ``act(observation,
env=None, agent=None)``); :func:`load_agent` builds one from a spec string
(``"random"``, ``"rule"``, ``"dd"``, ``"pimc[:OPTIONS]"``, ``"network:PATH"``, ``"baseline"``, ``"human"``,
``"py:MODULE:NAME"``) for a game (``"vint"``, ``"whist"``, ``"solo_whist"``).

>>> from vint_env.agents import load_agent
>>> load_agent("rule", game="whist").name
'rule'
"""

from .base import Agent, RandomAgent, legal_actions
from .registry import load_agent

__all__ = ["Agent", "RandomAgent", "legal_actions", "load_agent"]
