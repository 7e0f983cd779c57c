"""`solo_whist_v0`: Solo Whist (Соло вист) for four players as a PettingZoo AEC environment.

Rules: docs/rules/solo_whist.md (first part of the Collection).  Each deal is a tour of
its own between four players for themselves: an auction from eldest hand
(pass, proposal and acceptance, solo, misère, abondance, trump abondance,
open misère, abondance déclarée), the abondance declarer's trump choice,
then trick play, then payments in quarter points (zero-sum over the four).

| | |
|---|---|
| Agents | `player_0` .. `player_3`; no fixed partnerships (a proposal and its acceptance pair two players) |
| Actions | `Discrete(65)`: 0..51 play card id `suit * 13 + rank`; 52 pass, 53 proposal, 54 acceptance, 55 solo, 56 misère, 57 abondance, 58 trump abondance, 59 open misère, 60 abondance déclarée; 61..64 name trump S, C, D, H after an abondance |
| Observations | `Dict(observation=Box(0, 1, (1096,), float32), action_mask=Box(0, 1, (65,), int8))`, seat-relative, layout `SOLO_WHIST_LAYOUT` |
| State | `Box(0, 1, (1308,), float32)`: all hands + seat 0's view (see `encode_state`) |
| Reward | each player's own payment at the end of the deal, in quarter points times `reward_scale` (default 0.25: rewards in points); 0 for all when the deal is thrown in; raw payments in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``payments``: ``"symmetric"`` (default) or ``"literal"`` (docs/rules/solo_whist.md, Payments);
- ``reward_scale``: reward = quarter points x scale, default 0.25;
- ``viewer``: seat whose hand ``render`` shows (default all hands);
- ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (an RGB frame) or ``"human"`` (a window).

``reset(seed=..., options={"deal": PBN, "dealer": seat, "turned_card": "H2"})``
replays an exact deal (the turned card must be in the dealer's hand; drawn
uniformly from it when not given).
"""

from __future__ import annotations

import numpy as np

from ..cards import NO_TRUMP, card_text
from ..games.solo_whist import GAME, encode_observation, encode_state
from ..rules.solo_whist import SoloWhistDeal
from ..rules.solo_whist_calls import action_text
from .base import (NOTHING, CardGameEnv, StepOutcome, env_factories, random_deal_for, random_turned_card,
                   take_dealer, take_deals, take_turned_card)

_D = GAME.defaults


class raw_env(CardGameEnv):
    GAME = GAME                        # metadata, NUM_ACTIONS, LAYOUT, STATE_SIZE, ACTION_TEXT: from it
    RESET_OPTIONS = ("deal", "dealer", "turned_card")

    def __init__(self, payments: str = _D["payments"], reward_scale: float = _D["reward_scale"],
                 viewer: int | None = _D["viewer"], render_mode: str | None = None):
        o = GAME.check_options(payments=payments, reward_scale=reward_scale, viewer=viewer)
        super().__init__(render_mode=render_mode, reward_scale=o["reward_scale"])
        self.payments = o["payments"]
        self.viewer = o["viewer"]
        self.deal: SoloWhistDeal | None = None

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        queued = take_deals(options, several=False)
        dealer = take_dealer(options, self._rng)
        turned = take_turned_card(options)
        if turned is not None and not queued:
            raise ValueError("reset option 'turned_card' needs the replayed 'deal' it belongs to")
        hands = random_deal_for(queued, self._rng)
        if turned is None:
            turned = random_turned_card(self._rng, hands[dealer])
        self.deal = SoloWhistDeal(hands, dealer, turned, self.payments)

    def _apply(self, action: int) -> StepOutcome:
        deal = self.deal
        deal.apply(action, checked=True)     # CardGameEnv.step checked it
        if not deal.is_over:
            return NOTHING
        info = self._deal_info(deal)
        return StepOutcome(points=list(deal.payments), terminated=True,
                           infos={"deal": info, "payments": list(deal.payments)})

    def _deal_info(self, deal: SoloWhistDeal) -> dict:
        over = not deal.thrown_in
        return {
            "dealer": deal.dealer,
            "turned_card": card_text(deal.turned_card),
            "auction": [(s, action_text(a)) for s, a in deal.calls],
            "thrown_in": deal.thrown_in,
            "contract": action_text(deal.contract) if over else None,
            "declarer": deal.declarer if over else None,
            "partner": deal.partner if over and deal.partner >= 0 else None,
            "trump": ("SCDH"[deal.trump] if deal.trump != NO_TRUMP else "NT") if over else None,
            "tricks": deal.tricks if over else None,
            "tricks_played": deal.play.tricks_played if deal.play is not None else 0,
            "made": deal.made,
            "ended_early": deal.ended_early,
            "payments": list(deal.payments),      # quarter points per seat
        }

    def _encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        return encode_observation(self.deal, seat, out=out)

    def _write_trick_counts(self, rows: np.ndarray, play) -> None:
        # The `tricks_taken` block as the encoder writes it: each relative seat's tricks, one-hot.
        start = self.LAYOUT.offset["tricks_taken"]
        rows[:, start:start + 56] = 0
        won = play.tricks_won
        for seat in range(4):
            for r in range(4):
                rows[seat, start + r * 14 + won[(seat + r) & 3]] = 1

    def _card_changes_more(self, card: int) -> bool:
        # The dealer's turned card leaves the table; an open misère hand is on show and shrinks.
        deal = self.deal
        return card == deal.turned_card or deal.hand_shown

    def _encode_state(self) -> np.ndarray:
        return encode_state(self.deal)

    # rendering ----------------------------------------------------------------
    def _render_text(self) -> str:
        from .render import render_solo_whist
        return render_solo_whist(self)

    def _table_view(self):
        from .render import solo_whist_view
        return solo_whist_view(self)


env, parallel_env = env_factories(raw_env)
