"""Training rewards that separate what play controls from what the deal fixed (training only).

The games' real reward is the deal's score difference, honours and coronets
included: points fixed by the cards dealt, which add noise the policy cannot
act on, and in Vint one failed bid costs hundreds of times a routine deal.
A :class:`RewardShaper` changes what the *learner trains on* in the rollouts
of the AEC game batch, never the games themselves, so evaluations (played by
the harness in its own envs) and the ``return_vs_*`` figures of the logs stay
in real points.  Options (config keys ``shaping_*``, all off by default):

- ``trick_reward``: each trick won pays ``+trick_reward`` to the winner's
  side and ``-trick_reward`` to the other side, at the trick (dense credit);
- ``exclude_items``: score items (names of the deal info's ``scores``, e.g.
  ``honours``, ``coronets``) taken out of the deal's reward;
- ``deal_transform``: ``"symlog"`` maps the deal reward ``r`` (env scale, after
  the exclusions) to ``c * sign(r) * ln(1 + |r| / c)`` with ``c = deal_scale``:
  near ``r`` for small deals, logarithmic for the catastrophic ones.

A partnership game only (the sides are seats 0-2 and 1-3).
"""

from __future__ import annotations

import math

import numpy as np

from vint_env.envs.partnership import SIDE_NAMES, PartnershipEnv

TRANSFORMS = ("none", "symlog")
SIDE_SIGN = np.array([1.0, -1.0, 1.0, -1.0])     # seats of side 0 (NS) +, of side 1 (EW) -


def symlog(r: float, scale: float) -> float:
    """``scale * sign(r) * ln(1 + |r| / scale)``: odd (so zero-sum stays zero-sum), slope 1 at 0."""
    return math.copysign(scale * math.log1p(abs(r) / scale), r)


class RewardShaper:
    """Extra credits per seat for one step of a partnership env (see the module text)."""

    def __init__(self, trick_reward: float = 0.0, exclude_items=(), deal_transform: str = "none",
                 deal_scale: float = 1.0):
        if deal_transform not in TRANSFORMS:
            raise ValueError(f"shaping_deal_transform must be one of {TRANSFORMS}, got {deal_transform!r}")
        if deal_scale <= 0:
            raise ValueError(f"shaping_deal_scale must be > 0, got {deal_scale!r}")
        self.trick_reward = float(trick_reward)
        self.exclude_items = tuple(exclude_items)
        self.deal_transform = deal_transform
        self.deal_scale = float(deal_scale)

    @property
    def active(self) -> bool:
        return bool(self.trick_reward or self.exclude_items or self.deal_transform != "none")

    @staticmethod
    def check_env(env) -> None:
        if not isinstance(env, PartnershipEnv):
            raise ValueError(f"reward shaping needs a partnership game (sides 0-2 and 1-3); "
                             f"{env.metadata['name']} is not one")

    @staticmethod
    def tricks_so_far(env) -> tuple[object, int]:
        """``(deal, tricks completed)`` before a step, to find the tricks the step completes."""
        play = getattr(env.deal, "play", None)
        return env.deal, 0 if play is None else len(play.trick_winners)

    def step_credits(self, env, before: tuple[object, int]) -> np.ndarray:
        """Credits ``[4]`` to add, for the step just applied to ``env`` (``before``: :meth:`tricks_so_far`
        taken before it).  Call right after ``env.step`` (the deal info is the step's)."""
        extra = np.zeros(4)
        deal, n = before
        play = getattr(deal, "play", None)
        if self.trick_reward and play is not None:
            for winner in play.trick_winners[n:]:
                extra += self.trick_reward * SIDE_SIGN * SIDE_SIGN[winner]
        info = env.infos[env.possible_agents[0]]
        if "points" in info and (self.exclude_items or self.deal_transform != "none"):
            real = float(info["points"]) * env.reward_scale                 # side 0's real deal reward
            kept = real - self._excluded(info) * env.reward_scale
            if self.deal_transform == "symlog":
                kept = symlog(kept, self.deal_scale)
            extra += (kept - real) * SIDE_SIGN
        return extra

    def _excluded(self, info: dict) -> float:
        """Points of the excluded items, side 0's minus side 1's."""
        scores = info.get("deal", {}).get("scores")
        if not self.exclude_items:
            return 0.0
        if not isinstance(scores, dict) or set(scores) != set(SIDE_NAMES):
            raise ValueError("shaping_exclude_items needs the deal info's per-side 'scores'")
        names = set(scores[SIDE_NAMES[0]])
        unknown = [i for i in self.exclude_items if i not in names or i == "total"]
        if unknown:
            raise ValueError(f"shaping_exclude_items {unknown} are not score items of this game; "
                             f"its items: {sorted(names - {'total'})}")
        return float(sum(scores[SIDE_NAMES[0]][i] - scores[SIDE_NAMES[1]][i] for i in self.exclude_items))
