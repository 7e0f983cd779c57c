"""`vint2p_v0`: two-player Vint (Винт вдвоём), the five ways of the books, as a PettingZoo AEC env.

| | |
|---|---|
| Agents | `player_0`, `player_1`; each also plays the dummy he controls (ways 1, 4, 5) |
| Actions | `Discrete(92)`: 0..51 a card (play; way 3 discard; way 5 give-away), 52 pass, 53..87 bids 1S .. 7NT (also way 5's final contract), 88 keep / stop exchanging, 89 exchange the hand, 90 widow to my hand, 91 widow to my dummy |
| Observations | `Dict(observation=Box(0, 1, (VINT2P_LAYOUT.size,), float32), action_mask=Box(0, 1, (92,), int8))`, player-relative, layout `VINT2P_LAYOUT` |
| State | all hands, the widow, the discards, the seat to act, then player 0's observation |
| Reward | the deal's points difference between the players (deal mode), or each deal's change in it with premiums (rubber mode), times `reward_scale` (default 0.001): zero-sum; raw points in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``way``: 1..5 (default 4); ``auction``: way 1 only, ``"alternating"`` (default) or ``"single"``;
- ``episode``: ``"deal"`` (default) or ``"rubber"``; ``max_deals`` (rubber mode, default 100);
- ``game_bonus``: 100 (default) or 1000; ``passout``: ``"mark"`` (default) or ``"play"`` (not way 5);
- ``honours``: ``"majority"`` (default) or ``"net"``; ``game_race``: ``"first"`` (default) or ``"deal_end"``;
- ``reward_scale``: default 0.001; ``viewer``: player whose view ``render`` shows (default: all);
- ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (an RGB frame) or ``"human"`` (a window).

``reset(seed=..., options={"deal": PBN, "dealer": 0 or 1})`` replays a deal
(the dealer is a *player*); way 5 also takes ``"widow"`` (four cards of the
deal, one text or id each; each hand must keep 12), ways 2 and 3 ``"piles"``
(``{1: [cards top first], 3: [...]}``).  Without them the widow and the
pile orders are drawn from the env's generator.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ..cards import hand_cards, parse_card
from ..rules.vint2p import Vint2pDeal, Vint2pRubber, action_text
from .base import env_factories, take_deals, take_option
from .partnership import PartnershipEnv
from ..games.vint2p import GAME

PLAYERS = ("player_0", "player_1")
_D = GAME.defaults
VINT_VARIANTS = ("game_bonus", "passout", "honours", "game_race")   # the scoring variants, as declared


class raw_env(PartnershipEnv):
    GAME = GAME                        # metadata, NUM_ACTIONS, LAYOUT, STATE_SIZE, ACTION_TEXT: from it
    AGENT_NAMES = PLAYERS
    INCREMENTAL_VIEWS = False          # a player's view moves with the seat he acts for: encoded afresh
    SIDE_NAMES = PLAYERS
    RESET_OPTIONS = ("deal", "deals", "dealer", "widow", "piles")

    def __init__(self, way: int = _D["way"], auction: str = _D["auction"], episode: str = _D["episode"],
                 game_bonus: int = _D["game_bonus"], passout: str = _D["passout"], honours: str = _D["honours"],
                 game_race: str = _D["game_race"], reward_scale: float = _D["reward_scale"],
                 max_deals: int = _D["max_deals"], viewer: int | None = _D["viewer"], render_mode: str | None = None):
        o = GAME.check_options(way=way, auction=auction, episode=episode, game_bonus=game_bonus, passout=passout,
                               honours=honours, game_race=game_race, reward_scale=reward_scale,
                               max_deals=max_deals, viewer=viewer)
        super().__init__(episode=o["episode"], reward_scale=o["reward_scale"], max_deals=o["max_deals"],
                         viewer=o["viewer"], render_mode=render_mode)
        self.way, self.auction = o["way"], o["auction"]
        self.game_bonus, self.passout, self.honours, self.game_race = (o[k] for k in VINT_VARIANTS)

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        queued = take_deals(options, several=self.episode == "rubber")
        dealer = take_option(options, "dealer", None)
        if dealer is None:
            dealer = int(self._rng.integers(2))
        elif isinstance(dealer, (bool, np.bool_)) or not isinstance(dealer, Integral) or dealer not in (0, 1):
            raise ValueError(f"reset option 'dealer' must be a player 0 or 1, got {dealer!r}")
        self._start_episode(queued, int(dealer), options)

    def _extras(self, hands, options_left: dict | None) -> dict:
        """The widow (way 5) and the pile orders (ways 2, 3): from the options, else drawn."""
        options_left = options_left if options_left is not None else {}
        widow = take_option(options_left, "widow", None)
        piles = take_option(options_left, "piles", None)
        if self.way == 5:
            if widow is None:
                # 13 cards to each seat, then one random card of each hand to the widow:
                # a uniformly random deal of 12, 12, 12, 12 and 4.
                widow = [int(self._rng.choice(hand_cards(h))) for h in hands]
            else:
                widow = [_card(c, "widow") for c in widow]
            return {"widow": widow}
        if widow is not None:
            raise ValueError(f"reset option 'widow' is for way 5, this env plays way {self.way}")
        if self.way in (2, 3):
            if piles is None:
                piles = {s: [int(c) for c in self._rng.permutation(hand_cards(hands[s]))] for s in (1, 3)}
            elif not isinstance(piles, dict):
                raise ValueError(f"reset option 'piles' must be a dict {{1: [...], 3: [...]}}, got {piles!r}")
            else:
                piles = {int(s): [_card(c, "piles") for c in order] for s, order in piles.items()}
            return {"piles": piles}
        if piles is not None:
            raise ValueError(f"reset option 'piles' is for ways 2 and 3, this env plays way {self.way}")
        return {}

    def _new_deal(self, hands, dealer, options_left):
        return Vint2pDeal(hands, self.way, dealer, self.passout, self.auction, honours=self.honours,
                          **self._extras(hands, options_left))

    def _new_rubber(self, dealer):
        return Vint2pRubber(self.way, first_dealer=dealer, game_bonus=self.game_bonus, passout=self.passout,
                            auction=self.auction, honours=self.honours, game_race=self.game_race)

    def _next_rubber_deal(self, hands, options_left):
        return self.rubber.new_deal(hands, **self._extras(hands, options_left))

    def _current_seat(self) -> int:
        return self.deal.current_controller

    def _deal_info(self, deal: Vint2pDeal) -> dict:
        return {
            "way": deal.way,
            "dealer": deal.dealer,
            "auction": [(deal.controllers[s], action_text(a)) for s, a in deal.auction.calls],
            "exchanged": tuple(deal.exchanged) if deal.way in (2, 3) else None,
            "contract": str(deal.contract) if deal.contract else None,
            "winning_bid": str(deal.winning_bid) if deal.winning_bid else None,
            "declarer": deal.declaring_player if deal.declarer >= 0 else None,
            "declarer_seat": deal.declarer if deal.declarer >= 0 else None,
            "passed_out": deal.passed_out,
            "tricks": deal.player_tricks() if deal.play else None,
            "scores": {PLAYERS[p]: deal.scores[p].as_dict() for p in (0, 1)},
        }

    def _render_text(self) -> str:
        from .vint2p_render import render_vint2p
        return render_vint2p(self)

    def _table_view(self):
        from .vint2p_render import vint2p_view
        return vint2p_view(self)


def _card(value, option: str) -> int:
    if isinstance(value, str):
        return parse_card(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < 52:
        return int(value)
    raise ValueError(f"reset option {option!r}: expected card text like 'H2' or an id 0..51, got {value!r}")


env, parallel_env = env_factories(raw_env)
