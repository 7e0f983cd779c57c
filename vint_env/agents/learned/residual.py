"""A rule bot corrected by a learnt critic: the policy network overrides the bot's choice only where it
values another action more by a margin.

The network of a checkpoint trained with ``teacher_values`` (see the training docs) ranks the legal
actions by their learnt worth: its logits are ``value_scale x`` the expected points of each card.
Played alone, it repeats the small errors of any clone on the decisions where the cards are close.
:class:`ResidualAgent` plays the base agent's action (the game's rule bot), except where the network's
logit of its best action exceeds the logit of the base agent's action by more than ``margin``: the
network is used as a critic that must be confident before it departs from the bot.  This is residual
policy learning in its simplest form; the base agent sees every decision, so its memory of the deal
(voids, signals) stays what it would be if it played alone.

A checkpoint says it is played this way with the key ``residual``:
``{"base": "rule", "margin": M, "actions": "cards" | "auction" | "all"}`` (``margin`` in logits), set
by the training config keys ``residual_base``, ``residual_margin`` and ``residual_actions``.  With
``"cards"`` the network may override only card decisions (actions 0..51 in every game): the ones
that double-dummy values taught it; a Vint call stays the bot's, since the network only copied
the bot's calls and its logits there are no values.  With ``"auction"`` it may override only the
other decisions (the calls, and Solo Whist's choice of trump: actions 52 and up), the ones that
``teacher_values: rollout_auction`` values; the card play stays the bot's.
"""

from __future__ import annotations

import numpy as np
import torch

from ...cards import NUM_CARDS   # actions 0..51 are the cards in every game
from ..base import Agent

BASES = ("rule",)
ACTIONS = ("cards", "auction", "all")


def check_residual(spec, where: str = "checkpoint") -> dict:
    """The checked ``{"base", "margin"}`` of a checkpoint's ``residual`` entry (a ValueError naming the fault)."""
    if not isinstance(spec, dict) or set(spec) != {"base", "margin", "actions"}:
        raise ValueError(f"{where}: 'residual' must be a dict with keys 'base', 'margin' and 'actions', "
                         f"got {spec!r}")
    if spec["actions"] not in ACTIONS:
        raise ValueError(f"{where}: residual actions must be one of {ACTIONS}, got {spec['actions']!r}")
    if spec["base"] not in BASES:
        raise ValueError(f"{where}: residual base must be one of {BASES}, got {spec['base']!r}")
    margin = spec["margin"]
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin >= 0:
        raise ValueError(f"{where}: residual margin must be a number >= 0 (logits), got {margin!r}")
    return {"base": spec["base"], "margin": float(margin), "actions": spec["actions"]}


def judged_rows(mask: np.ndarray, base: np.ndarray, actions: str) -> np.ndarray:
    """``[N]`` bool: the decisions the network may override (more than one legal action, and a base action of
    the kind ``actions`` names: ``cards`` 0..51, ``auction`` the rest, ``all``); the others need no forward pass."""
    card = np.asarray(base) < NUM_CARDS
    judged = np.asarray(mask, dtype=bool).sum(1) > 1
    return judged & card if actions == "cards" else judged & ~card if actions == "auction" else judged


def residual_choice(logits: np.ndarray, mask: np.ndarray, base: np.ndarray, margin: float, actions: str) -> np.ndarray:
    """``[N]``: the residual rule, row by row: the base agent's action ``base``, or the network's best legal
    action of the kind ``actions`` may override where its logit exceeds the base action's by more than
    ``margin`` (``logits`` ``[N, A]``, ``mask`` ``[N, A]`` the legal actions); a forced action, or a base action
    of a kind the network may not override, stays."""
    mask = np.asarray(mask, dtype=bool).copy()
    base = np.asarray(base, dtype=np.int64)
    judged = judged_rows(mask, base, actions)
    if actions == "cards":
        mask[:, NUM_CARDS:] = False
    elif actions == "auction":
        mask[:, :NUM_CARDS] = False
    masked = np.where(mask, logits, -np.inf)
    best = masked.argmax(1)
    rows = np.arange(len(base))
    gain = masked[rows, best] - masked[rows, base]
    return np.where(judged & (gain > margin), best, base)


class ResidualAgent(Agent):
    """``policy``'s network as a critic of ``base`` (see the module docstring)."""

    def __init__(self, policy, base: Agent, margin: float, actions: str = "all", name: str | None = None):
        if actions not in ACTIONS:
            raise ValueError(f"residual actions must be one of {ACTIONS}, got {actions!r}")
        self.policy = policy
        self.game = policy.game
        self.base = base
        self.margin = float(margin)
        self.actions = actions
        self.name = name or f"{policy.name}+{getattr(base, 'name', 'base')}"
        self.decisions = 0
        self.overrides = 0          # decisions where the network's choice replaced the base agent's

    def reset(self, seed: int | None = None) -> None:
        self.base.reset(seed)
        self.policy.reset(seed)

    @torch.no_grad()
    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        base = int(self.base.act(observation, env=env, agent=agent))
        self.decisions += 1
        mask = np.asarray(observation["action_mask"]).astype(bool)[None]
        if not judged_rows(mask, [base], self.actions)[0]:
            return base
        obs = torch.as_tensor(np.asarray(observation["observation"], dtype=np.float32)[None])
        logits = self.policy.network(obs)[0].numpy()
        chosen = int(residual_choice(logits, mask, np.array([base]), self.margin, self.actions)[0])
        self.overrides += chosen != base
        return chosen


__all__ = ["ResidualAgent", "check_residual", "residual_choice", "judged_rows", "BASES", "ACTIONS"]
