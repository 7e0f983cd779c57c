"""What the fixed-partnership envs (`vint_v0`, `whist_v0`) share: deal and rubber episodes.

A deal episode scores one deal; a rubber episode plays deals until a side has
won two games (or ``max_deals``, then truncated), rewarding every deal's change
in the score difference with its premiums.  Rewards are the side's points minus
the other side's, times ``reward_scale``: partners equal, zero-sum.  A game env
subclasses :class:`PartnershipEnv` and says how to start a deal or a rubber and
what its deal info and score items are.
"""

from __future__ import annotations

import numpy as np

from .base import NOTHING, CardGameEnv, StepOutcome, random_deal_for
from ..games.obs_blocks import encode_side_tricks

SIDE_NAMES = ("NS", "EW")


class PartnershipEnv(CardGameEnv):
    SIDE_NAMES: tuple[str, str] = SIDE_NAMES

    """A `CardGameEnv` whose rules state ``self.deal`` is a deal of a partnership game.

    Subclasses implement :meth:`_new_deal` (one deal episode), :meth:`_new_rubber`,
    :meth:`_next_rubber_deal`, :meth:`_deal_info` and :meth:`_items`, and set
    ``ACTION_TEXT`` (the game's ``action_text`` function), besides the encoders.
    """

    def __init__(self, episode: str, reward_scale: float, max_deals: int, viewer: int | None,
                 render_mode: str | None):
        # the options come checked by the game's declared parameters (each env's GAME.check_options)
        super().__init__(render_mode=render_mode, reward_scale=reward_scale)
        self.episode = episode
        self.max_deals = max_deals
        self.viewer = viewer
        self.deal = None
        self.rubber = None
        self.deals_played = 0
        self.last_record = None
        self._queued_deals: list = []
        self._tricks_block = self.LAYOUT.slice("tricks_taken")

    # subclass hooks ------------------------------------------------------------
    def _encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        return self.GAME.encode_observation(self.deal, seat, self.rubber, out=out)

    def _encode_state(self) -> np.ndarray:
        return self.GAME.encode_state(self.deal, self.rubber)

    def _new_deal(self, hands, dealer: int, options_left: dict):
        raise NotImplementedError

    def _new_rubber(self, dealer: int):
        raise NotImplementedError

    def _next_rubber_deal(self, hands, options_left: dict | None):
        """The rubber's next deal from ``hands`` (``options_left``: reset options, first deal only)."""
        raise NotImplementedError

    def _deal_info(self, deal) -> dict:
        raise NotImplementedError

    def _items(self, score) -> dict[str, int]:
        """One side's score items for the infos."""
        return score.as_dict()

    def _side_points(self, diff: float) -> list[float]:
        """Points per agent from side 0's points minus side 1's (agents alternate sides)."""
        return [diff if i % 2 == 0 else -diff for i in range(len(self.AGENT_NAMES))]

    def _write_trick_counts(self, rows, play) -> None:
        o = self.LAYOUT.offset
        rows[:, self._tricks_block] = 0
        for seat in range(4):
            encode_side_tricks(rows[seat], o, play.tricks_won, seat)

    # episode ---------------------------------------------------------------------
    def _start_episode(self, queued: list, dealer: int, options_left: dict) -> None:
        self._queued_deals = queued
        self.deals_played = 0
        self.last_record = None
        if self.episode == "rubber":
            self.rubber = self._new_rubber(dealer)
            self.deal = self._next_rubber_deal(self._next_hands(), options_left)
        else:
            self.rubber = None
            self.deal = self._new_deal(self._next_hands(), dealer, options_left)

    def _next_hands(self):
        return random_deal_for(self._queued_deals, self._rng)

    def _apply(self, action: int) -> StepOutcome:
        deal = self.deal
        deal.apply(action, checked=True)     # CardGameEnv.step checked it
        if not deal.is_over:
            return NOTHING
        self.deals_played += 1
        infos = {"deal": self._deal_info(deal)}
        if self.rubber is None:
            diff = deal.scores[0].total - deal.scores[1].total
            infos["points"] = diff
            return StepOutcome(points=self._side_points(diff), terminated=True, infos=infos)
        record = self.rubber.finish_deal()
        self.last_record = record
        diff = record.difference
        infos["points"] = diff
        infos["deal"]["with_premiums"] = {self.SIDE_NAMES[s]: self._items(record.scores[s]) for s in (0, 1)}
        infos["rubber"] = self._rubber_info()
        points = self._side_points(diff)
        if self.rubber.is_over:
            return StepOutcome(points=points, terminated=True, infos=infos)
        if self.deals_played >= self.max_deals:
            return StepOutcome(points=points, truncated=True, infos=infos)
        self.deal = self._next_rubber_deal(self._next_hands(), None)
        return StepOutcome(points=points, infos=infos)

    def _rubber_info(self) -> dict:
        sheet = self.rubber.sheet
        info = {
            "games_won": tuple(sheet.games_won),
            "below_line": tuple(sheet.below),
            "totals": {self.SIDE_NAMES[s]: self._items(sheet.totals[s]) for s in (0, 1)},
            "result": sheet.result,
            "over": sheet.is_over,
            "winner": self.SIDE_NAMES[sheet.winner] if sheet.winner is not None else None,
        }
        if sheet.mark_values:
            info["marks"] = sheet.marks
        return info

