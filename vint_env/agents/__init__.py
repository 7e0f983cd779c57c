"""Agents: random, rule bots, double-dummy oracle, trained policies, a human.

The agents are split by kind: :mod:`~vint_env.agents.rule` (the rule books' bots and what they share),
:mod:`~vint_env.agents.search` (double-dummy and PIMC, over sampled deals) and :mod:`~vint_env.agents.learned`
(networks, PPO checkpoints, the shipped baselines). The interface (:mod:`~vint_env.agents.base`), the spec
registry and the human agent sit here.

Every agent implements :class:`Agent` (``reset(seed)``, ``act(observation,
env=None, agent=None)``); :func:`load_agent` builds one from a spec string
(``"random"``, ``"rule"``, ``"dd"``, ``"pimc[:OPTIONS]"``, ``"ppo:PATH"``, ``"baseline"``, ``"human"``,
``"py:MODULE:NAME"``) for a game (``"vint"``, ``"whist"``, ``"solo_whist"``).

>>> from vint_env.agents import load_agent
>>> load_agent("rule", game="whist").name
'rule'
"""

from .base import Agent, RandomAgent, legal_actions
from .registry import load_agent

from .._moved import alias_modules

# Where the flat modules of release 0.1 went (deprecated aliases, removed in the next release).
alias_modules({f"{__name__}.{old}": f"{__name__}.{new}" for old, new in {
    "vint_rule": "rule.vint", "whist_rule": "rule.whist", "solo_whist_rule": "rule.solo_whist",
    "vint2p_rule": "rule.vint2p", "card_play": "rule.card_play", "hand_eval": "rule.hand_eval",
    "play_view": "rule.play_view", "double_dummy": "search.double_dummy", "dds_batch": "search.dds_batch",
    "deal_sampler": "search.deal_sampler", "pimc": "search.pimc", "pimc_vint2p": "search.pimc_vint2p",
    "two_hand_dd": "search.two_hand_dd", "vint2p_dd": "search.vint2p_dd", "networks": "learned.networks",
    "policy": "learned.policy", "baseline": "learned.baseline", "residual": "learned.residual"}.items()})

__all__ = ["Agent", "RandomAgent", "legal_actions", "load_agent"]
