"""`vint_v0`: Vint (Винт) for four players as a PettingZoo AEC environment.

Rules: RULES.md section 2 (auction from the dealer, no double, passers may
bid again; no dummy, all 13 tricks; scoring with tricks, undertricks, slams,
honours, coronets, game, rubber and pass-out marks).

| | |
|---|---|
| Agents | `player_0` .. `player_3`; partnerships (0, 2) and (1, 3) |
| Actions | `Discrete(88)`: 0..51 play card id `suit * 13 + rank` (suits S, C, D, H), 52 pass, 53..87 bids 1S 1C 1D 1H 1NT 2S .. 7NT |
| Observations | `Dict(observation=Box(0, 1, (922,), float32), action_mask=Box(0, 1, (88,), int8))`, seat-relative, layout `VINT_LAYOUT` |
| State | `Box(0, 1, (1134,), float32)`: all hands + seat 0's view (see `encode_state`) |
| Reward | the deal's points difference between the sides (deal mode), or each deal's change in it with premiums (rubber mode), times `reward_scale` (default 0.001); raw points in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``episode``: ``"deal"`` (default) or ``"rubber"``;
- ``game_bonus``: 100 (default) or 1000; ``passout``: ``"mark"`` (default) or ``"play"`` (RULES 2.3, 2.4);
- ``reward_scale``: reward = raw points x scale, default 0.001;
- ``max_deals``: rubber mode truncates after this many deals (default 100);
- ``viewer``: seat whose hand ``render`` shows (default all hands);
- ``render_mode``: ``"ansi"`` or ``"human"``.

``reset(seed=..., options={"deal": PBN, "dealer": seat})`` replays an exact
deal; in rubber mode ``options={"deals": [PBN, ...]}`` fixes the first deals.
"""

from __future__ import annotations

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..cards import SEAT_LETTERS, hand_to_text, parse_pbn, random_deal
from ..rules.vint import (GAME_BONUS_VARIANTS, NUM_ACTIONS, PASSOUT_VARIANTS, VintDeal,
                          VintRubber, action_text)
from .base import CardGameEnv, Outcome, take_option, wrap
from .vint_obs import STATE_SIZE, VINT_LAYOUT, encode_observation, encode_state

EPISODES = ("deal", "rubber")
SIDE_NAMES = ("NS", "EW")


class raw_env(CardGameEnv):
    metadata = {
        "name": "vint_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
        "render_fps": 1,
    }
    NUM_ACTIONS = NUM_ACTIONS
    RESET_OPTIONS = ("deal", "deals", "dealer")
    LAYOUT = VINT_LAYOUT
    STATE_SIZE = STATE_SIZE

    def __init__(self, episode: str = "deal", game_bonus: int = 100, passout: str = "mark",
                 reward_scale: float = 0.001, max_deals: int = 100, viewer: int | None = None,
                 render_mode: str | None = None):
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if game_bonus not in GAME_BONUS_VARIANTS:
            raise ValueError(f"game_bonus must be one of {GAME_BONUS_VARIANTS}, got {game_bonus!r}")
        if passout not in PASSOUT_VARIANTS:
            raise ValueError(f"passout must be one of {PASSOUT_VARIANTS}, got {passout!r}")
        if not isinstance(max_deals, int) or max_deals < 1:
            raise ValueError(f"max_deals must be a positive integer, got {max_deals!r}")
        if viewer not in (None, 0, 1, 2, 3):
            raise ValueError(f"viewer must be a seat 0..3 or None, got {viewer!r}")
        super().__init__(render_mode=render_mode, reward_scale=reward_scale)
        self.episode = episode
        self.game_bonus = game_bonus
        self.passout = passout
        self.max_deals = max_deals
        self.viewer = viewer
        self.deal: VintDeal | None = None
        self.rubber: VintRubber | None = None
        self.deals_played = 0
        self._queued_deals: list = []
        self.last_record = None

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        deal = take_option(options, "deal", None)
        deals = take_option(options, "deals", None)
        dealer = take_option(options, "dealer", None)
        if deal is not None and deals is not None:
            raise ValueError("give either the reset option 'deal' or 'deals', not both")
        queued = [deal] if deal is not None else list(deals or [])
        if len(queued) > 1 and self.episode == "deal":
            raise ValueError("reset option 'deals' with more than one deal needs episode='rubber'")
        self._queued_deals = [parse_pbn(d) if isinstance(d, str) else d for d in queued]
        if dealer is None:
            dealer = int(self._rng.integers(4))
        elif dealer not in (0, 1, 2, 3):
            raise ValueError(f"reset option 'dealer' must be a seat 0..3, got {dealer!r}")
        self.deals_played = 0
        self.last_record = None
        if self.episode == "rubber":
            self.rubber = VintRubber(first_dealer=dealer, game_bonus=self.game_bonus, passout=self.passout)
            self.deal = self.rubber.new_deal(self._next_hands())
        else:
            self.rubber = None
            self.deal = VintDeal(self._next_hands(), dealer, self.passout)

    def _next_hands(self):
        if self._queued_deals:
            return self._queued_deals.pop(0)
        return random_deal(self._rng)

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
        infos["deal"]["with_premiums"] = {SIDE_NAMES[s]: record.scores[s].as_dict() for s in (0, 1)}
        infos["rubber"] = self._rubber_info()
        points = [diff, -diff, diff, -diff]
        if self.rubber.is_over:
            return Outcome(points=points, terminated=True, infos=infos)
        if self.deals_played >= self.max_deals:
            return Outcome(points=points, truncated=True, infos=infos)
        self.deal = self.rubber.new_deal(self._next_hands())
        return Outcome(points=points, infos=infos)

    def _deal_info(self, deal: VintDeal) -> dict:
        return {
            "dealer": deal.dealer,
            "auction": [(s, action_text(a)) for s, a in deal.calls],
            "contract": str(deal.contract) if deal.contract else None,
            "declarer": deal.declarer if deal.declarer >= 0 else None,
            "passed_out": deal.passed_out,
            "tricks": deal.play.side_tricks() if deal.play else None,
            "scores": {SIDE_NAMES[s]: deal.scores[s].as_dict() for s in (0, 1)},
        }

    def _rubber_info(self) -> dict:
        sheet = self.rubber.sheet
        return {
            "games_won": tuple(sheet.games_won),
            "below_line": tuple(sheet.below),
            "marks": sheet.marks,
            "totals": {SIDE_NAMES[s]: sheet.totals[s].as_dict() for s in (0, 1)},
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
        from .render import render_vint
        return render_vint(self)


def env(illegal_action: str = "raise", **kwargs):
    """`vint_v0` with PettingZoo's classic wrapper stack (see :func:`wrap`)."""
    return wrap(raw_env(**kwargs), illegal_action=illegal_action)


def parallel_env(**kwargs):
    """Turn-based parallel version: only the agent to move acts each step."""
    return turn_based_aec_to_parallel(env(**kwargs))
