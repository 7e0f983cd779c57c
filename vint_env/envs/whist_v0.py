"""`whist_v0`: Whist (Вист) for four players as a PettingZoo AEC environment.

Rules: RULES.md section 3 (seed 004): fixed partnerships, no auction; the
dealer's last card is turned face up, sets trump and stays in the dealer's
hand until played; the player left of the dealer leads; 13 tricks.  2 points
a trick over six below the line; game at 10 (5 for the game), rubber of two
games (10 more); honours, slams and coronets above the line.

| | |
|---|---|
| Agents | `player_0` .. `player_3`; partnerships (0, 2) and (1, 3) |
| Actions | `Discrete(52)`: play card id `suit * 13 + rank` (suits S, C, D, H) |
| Observations | `Dict(observation=Box(0, 1, (785,), float32), action_mask=Box(0, 1, (52,), int8))`, seat-relative, layout `WHIST_LAYOUT` |
| State | `Box(0, 1, (997,), float32)`: all hands + seat 0's view (see `encode_state`) |
| Reward | the deal's points difference between the sides (deal mode), or each deal's change in it with game and rubber premiums (rubber mode), times `reward_scale` (default 0.1); raw points in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``episode``: ``"deal"`` (default) or ``"rubber"``;
- ``ten_is_honour``: the trump 10 is a fifth honour (default False);
  ``no_trump``: 004's whist without trumps (no card turned, the aces are the
  honours, coronets doubled), default False;
- ``reward_scale``: reward = raw points x scale, default 0.1;
- ``max_deals``: rubber mode truncates after this many deals (default 100);
- ``viewer``: seat whose hand ``render`` shows (default all hands);
- ``render_mode``: ``"ansi"`` or ``"human"``.

``reset(seed=..., options={"deal": PBN, "dealer": seat, "turned_card": "H2"})``
replays an exact deal (the turned card must be in the dealer's hand; drawn
uniformly from it when not given); in rubber mode ``options={"deals": [PBN, ...]}``
fixes the first deals (``turned_card`` then applies to the first).
"""

from __future__ import annotations

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..cards import card_text
from ..rules.whist import NUM_ACTIONS, WhistDeal, WhistRubber, action_text
from .base import (CardGameEnv, Outcome, random_deal_for, random_turned_card, take_dealer,
                   take_deals, take_turned_card, wrap)
from .whist_obs import STATE_SIZE, WHIST_LAYOUT, encode_observation, encode_state

EPISODES = ("deal", "rubber")
SIDE_NAMES = ("NS", "EW")
# The score-sheet items Whist uses (RULES 3), in the order of the infos.
ITEMS = ("tricks", "slam_taken", "honours", "coronets", "game", "rubber")


def sheet_items(score) -> dict[str, int]:
    """One side's Whist entries: the items of RULES 3 and their total."""
    d = {item: getattr(score, item) for item in ITEMS}
    d["total"] = score.total
    return d


class raw_env(CardGameEnv):
    metadata = {
        "name": "whist_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
        "render_fps": 1,
    }
    NUM_ACTIONS = NUM_ACTIONS
    RESET_OPTIONS = ("deal", "deals", "dealer", "turned_card")
    LAYOUT = WHIST_LAYOUT
    STATE_SIZE = STATE_SIZE

    def __init__(self, episode: str = "deal", ten_is_honour: bool = False, no_trump: bool = False,
                 reward_scale: float = 0.1, max_deals: int = 100, viewer: int | None = None,
                 render_mode: str | None = None):
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        for name, value in (("ten_is_honour", ten_is_honour), ("no_trump", no_trump)):
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, got {value!r}")
        if isinstance(max_deals, bool) or not isinstance(max_deals, int) or max_deals < 1:
            raise ValueError(f"max_deals must be a positive integer, got {max_deals!r}")
        if viewer not in (None, 0, 1, 2, 3):
            raise ValueError(f"viewer must be a seat 0..3 or None, got {viewer!r}")
        super().__init__(render_mode=render_mode, reward_scale=reward_scale)
        self.episode = episode
        self.ten_is_honour = ten_is_honour
        self.no_trump = no_trump
        self.max_deals = max_deals
        self.viewer = viewer
        self.deal: WhistDeal | None = None
        self.rubber: WhistRubber | None = None
        self.deals_played = 0
        self._queued_deals: list = []
        self.last_record = None

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        self._queued_deals = take_deals(options, several=self.episode == "rubber")
        dealer = take_dealer(options, self._rng)
        turned = take_turned_card(options)
        if turned is not None and self.no_trump:
            raise ValueError("reset option 'turned_card': no card is turned in no-trump Whist")
        if turned is not None and not self._queued_deals:
            raise ValueError("reset option 'turned_card' needs the replayed 'deal' it belongs to")
        self.deals_played = 0
        self.last_record = None
        if self.episode == "rubber":
            self.rubber = WhistRubber(first_dealer=dealer, no_trump=self.no_trump,
                                      ten_is_honour=self.ten_is_honour)
            hands = self._next_hands()
            self.deal = self.rubber.new_deal(hands, self._turned(hands, dealer, turned))
        else:
            self.rubber = None
            hands = self._next_hands()
            self.deal = WhistDeal(hands, dealer, self._turned(hands, dealer, turned),
                                  self.no_trump, self.ten_is_honour)

    def _next_hands(self):
        return random_deal_for(self._queued_deals, self._rng)

    def _turned(self, hands, dealer: int, given: int | None) -> int | None:
        if self.no_trump:
            return None
        if given is not None:
            return given
        return random_turned_card(self._rng, hands[dealer])

    def _current_seat(self) -> int:
        return self.deal.current_player

    def _legal_actions(self) -> list[int]:
        return self.deal.legal_actions()

    def _is_legal(self, action: int) -> bool:
        return self.deal.is_legal(action)

    def _apply(self, action: int) -> Outcome:
        deal = self.deal
        deal.apply(action)
        if not deal.is_over:
            return Outcome()
        self.deals_played += 1
        infos = {"deal": self._deal_info(deal)}
        if self.rubber is None:
            diff = deal.scores[0].total - deal.scores[1].total
            infos["points"] = diff
            return Outcome(points=[diff, -diff, diff, -diff], terminated=True, infos=infos)
        record = self.rubber.finish_deal()
        self.last_record = record
        diff = record.difference
        infos["points"] = diff
        infos["deal"]["with_premiums"] = {SIDE_NAMES[s]: sheet_items(record.scores[s]) for s in (0, 1)}
        infos["rubber"] = self._rubber_info()
        points = [diff, -diff, diff, -diff]
        if self.rubber.is_over:
            return Outcome(points=points, terminated=True, infos=infos)
        if self.deals_played >= self.max_deals:
            return Outcome(points=points, truncated=True, infos=infos)
        hands = self._next_hands()
        self.deal = self.rubber.new_deal(hands, self._turned(hands, self.rubber.dealer, None))
        return Outcome(points=points, infos=infos)

    def _deal_info(self, deal: WhistDeal) -> dict:
        return {
            "dealer": deal.dealer,
            "turned_card": card_text(deal.turned_card) if deal.turned_card is not None else None,
            "trump": "SCDH"[deal.trump] if deal.trump >= 0 else "NT",
            "tricks": deal.play.side_tricks(),
            "scores": {SIDE_NAMES[s]: sheet_items(deal.scores[s]) for s in (0, 1)},
        }

    def _rubber_info(self) -> dict:
        sheet = self.rubber.sheet
        return {
            "games_won": tuple(sheet.games_won),
            "below_line": tuple(sheet.below),
            "totals": {SIDE_NAMES[s]: sheet_items(sheet.totals[s]) for s in (0, 1)},
            "result": sheet.result,
            "over": sheet.is_over,
            "winner": SIDE_NAMES[sheet.winner] if sheet.winner is not None else None,
        }

    def _encode(self, seat: int) -> np.ndarray:
        return encode_observation(self.deal, seat, self.rubber)

    def _encode_state(self) -> np.ndarray:
        return encode_state(self.deal, self.rubber)

    def action_text(self, action: int) -> str:
        try:
            return action_text(action)
        except ValueError:
            return "out of range"

    # rendering ----------------------------------------------------------------
    def _render_text(self) -> str:
        from .render import render_whist
        return render_whist(self)


def env(illegal_action: str = "raise", **kwargs):
    """`whist_v0` with PettingZoo's classic wrapper stack (see :func:`wrap`)."""
    return wrap(raw_env(**kwargs), illegal_action=illegal_action)


def parallel_env(**kwargs):
    """Turn-based parallel version: only the agent to move acts each step."""
    return turn_based_aec_to_parallel(env(**kwargs))
