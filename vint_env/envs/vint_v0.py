"""`vint_v0`: Vint (Винт) for four players as a PettingZoo AEC environment.

Rules: docs/rules/vint.md (auction from the dealer, no double, passers may
bid again; no dummy, all 13 tricks; scoring with tricks, undertricks, slams,
honours, coronets, game, rubber and pass-out marks).

| | |
|---|---|
| Agents | `player_0` .. `player_3`; partnerships (0, 2) and (1, 3) |
| Actions | `Discrete(88)`: 0..51 play card id `suit * 13 + rank` (suits S, C, D, H), 52 pass, 53..87 bids 1S 1C 1D 1H 1NT 2S .. 7NT |
| Observations | `Dict(observation=Box(0, 1, (1102,), float32), action_mask=Box(0, 1, (88,), int8))`, seat-relative, layout `VINT_LAYOUT` |
| State | `Box(0, 1, (1314,), float32)`: all hands + seat 0's view (see `encode_state`) |
| Reward | the deal's points difference between the sides (deal mode), or each deal's change in it with premiums (rubber mode), times `reward_scale` (default 0.001); raw points in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``episode``: ``"deal"`` (default) or ``"rubber"``;
- ``game_bonus``: 100 (default) or 1000; ``passout``: ``"mark"`` (default) or ``"play"`` (docs/rules/vint.md, Scoring and Pass-out);
- ``honours``: ``"majority"`` (default: the honours majority side counts its honours, the aces
  majority side its aces, compared) or ``"net"`` (the net difference of honours plus aces);
- ``game_race``: ``"first"`` (default: the first side to reach 500 below the line, trick by
  trick, wins the game) or ``"deal_end"`` (checked after the deal); rubber episodes only, a
  deal episode has no game;
- ``reward_scale``: reward = raw points x scale, default 0.001;
- ``max_deals``: rubber mode truncates after this many deals (default 100);
- ``viewer``: seat whose hand ``render`` shows (default all hands);
- ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (an RGB frame) or ``"human"`` (a window).

``reset(seed=..., options={"deal": PBN, "dealer": seat})`` replays an exact
deal; in rubber mode ``options={"deals": [PBN, ...]}`` fixes the first deals.
"""

from __future__ import annotations

from ..games.vint import GAME
from ..rules.vint import AUCTION, BID_BASE, PASS, VintDeal, VintRubber, action_text
from .base import env_factories, take_dealer, take_deals
from .partnership import SIDE_NAMES, PartnershipEnv

_D = GAME.defaults
VINT_VARIANTS = ("game_bonus", "passout", "honours", "game_race")   # the scoring variants, as declared


class raw_env(PartnershipEnv):
    GAME = GAME                        # metadata, NUM_ACTIONS, LAYOUT, STATE_SIZE, ACTION_TEXT: from it
    RESET_OPTIONS = ("deal", "deals", "dealer")

    def __init__(self, episode: str = _D["episode"], game_bonus: int = _D["game_bonus"], passout: str = _D["passout"],
                 reward_scale: float = _D["reward_scale"], max_deals: int = _D["max_deals"],
                 viewer: int | None = _D["viewer"], render_mode: str | None = None, honours: str = _D["honours"],
                 game_race: str = _D["game_race"]):
        o = GAME.check_options(episode=episode, game_bonus=game_bonus, passout=passout, reward_scale=reward_scale,
                               max_deals=max_deals, viewer=viewer, honours=honours, game_race=game_race)
        super().__init__(episode=o["episode"], reward_scale=o["reward_scale"], max_deals=o["max_deals"],
                         viewer=o["viewer"], render_mode=render_mode)
        self.game_bonus, self.passout, self.honours, self.game_race = (o[k] for k in VINT_VARIANTS)

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        queued = take_deals(options, several=self.episode == "rubber")
        self._start_episode(queued, take_dealer(options, self._rng), options)

    def _new_deal(self, hands, dealer, options_left):
        return VintDeal(hands, dealer, self.passout, self.honours)

    def _new_rubber(self, dealer):
        return VintRubber(first_dealer=dealer, game_bonus=self.game_bonus, passout=self.passout,
                          honours=self.honours, game_race=self.game_race)

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

    def _write_call(self, seat: int, action: int) -> bool:
        """A call that leaves the auction open changes only its blocks: write them in the four rows."""
        deal = self.deal
        if deal.phase != AUCTION:
            return False                   # play starts or the deal is passed out: re-encode
        # The state before the call, read back from the calls (bids only rise).
        passes_before, last_bid = 0, None
        for s, a in reversed(deal.calls[:-1]):
            if a != PASS:
                last_bid = (s, a)
                break
            passes_before += 1
        o, size = self.LAYOUT.offset, self.LAYOUT.size
        idx, val = [], []
        for k in range(4):                 # observer k's row; the caller's seat relative to k
            row, r = k * size, (seat - k) & 3
            move, passes = row + o["to_move"], row + o["pass_count"]
            idx += (move + r, move + ((r + 1) & 3))
            val += (0, 1)
            if action == PASS:
                idx += (passes + min(passes_before, 3), passes + min(passes_before + 1, 3))
                val += (0, 1)
                continue
            if last_bid is not None:
                idx += (row + o["contract"] + last_bid[1] - BID_BASE, row + o["declarer"] + ((last_bid[0] - k) & 3))
                val += (0, 0)
            if passes_before:
                idx.append(passes + min(passes_before, 3))
                val.append(0)
            idx += (passes, row + o["bids"] + r * 35 + action - BID_BASE,
                    row + o["contract"] + action - BID_BASE, row + o["declarer"] + r)
            val += (1, 1, 1, 1)
        self._views.write(idx, val)
        return True

    def _render_text(self) -> str:
        from .render import render_vint
        return render_vint(self)

    def _table_view(self):
        from .render import vint_view
        return vint_view(self)


env, parallel_env = env_factories(raw_env)
