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

from ..rules.vint import (GAME_BONUS_VARIANTS, NUM_ACTIONS, PASSOUT_VARIANTS, VintDeal,
                          VintRubber, action_text)
from .base import env_factories, take_dealer, take_deals
from .partnership import SIDE_NAMES, PartnershipEnv
from .vint_obs import STATE_SIZE, VINT_LAYOUT, encode_observation, encode_state


class raw_env(PartnershipEnv):
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
    ACTION_TEXT = staticmethod(action_text)

    def __init__(self, episode: str = "deal", game_bonus: int = 100, passout: str = "mark",
                 reward_scale: float = 0.001, max_deals: int = 100, viewer: int | None = None,
                 render_mode: str | None = None):
        if game_bonus not in GAME_BONUS_VARIANTS:
            raise ValueError(f"game_bonus must be one of {GAME_BONUS_VARIANTS}, got {game_bonus!r}")
        if passout not in PASSOUT_VARIANTS:
            raise ValueError(f"passout must be one of {PASSOUT_VARIANTS}, got {passout!r}")
        super().__init__(episode=episode, reward_scale=reward_scale, max_deals=max_deals,
                         viewer=viewer, render_mode=render_mode)
        self.game_bonus = game_bonus
        self.passout = passout

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        queued = take_deals(options, several=self.episode == "rubber")
        self._start_episode(queued, take_dealer(options, self._rng), options)

    def _new_deal(self, hands, dealer, options_left):
        return VintDeal(hands, dealer, self.passout)

    def _new_rubber(self, dealer):
        return VintRubber(first_dealer=dealer, game_bonus=self.game_bonus, passout=self.passout)

    def _next_rubber_deal(self, hands, options_left):
        return self.rubber.new_deal(hands)

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

    def _encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        return encode_observation(self.deal, seat, self.rubber, out=out)

    def _encode_state(self) -> np.ndarray:
        return encode_state(self.deal, self.rubber)

    def _render_text(self) -> str:
        from .render import render_vint
        return render_vint(self)


env, parallel_env = env_factories(raw_env)
