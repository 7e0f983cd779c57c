"""`whist_v0`: Whist (Вист) for four players as a PettingZoo AEC environment.

Rules: docs/rules/whist.md (the Whist book): fixed partnerships, no auction; the
dealer's last card is turned face up, sets trump and stays in the dealer's
hand until played; the player left of the dealer leads; 13 tricks.  2 points
a trick over six below the line; game at 10 (5 for the game), rubber of two
games (10 more); honours, slams and coronets above the line.

| | |
|---|---|
| Agents | `player_0` .. `player_3`; partnerships (0, 2) and (1, 3) |
| Actions | `Discrete(52)`: play card id `suit * 13 + rank` (suits S, C, D, H) |
| Observations | `Dict(observation=Box(0, 1, (965,), float32), action_mask=Box(0, 1, (52,), int8))`, seat-relative, layout `WHIST_LAYOUT` |
| State | `Box(0, 1, (1177,), float32)`: all hands + seat 0's view (see `encode_state`) |
| Reward | the deal's points difference between the sides (deal mode), or each deal's change in it with game and rubber premiums (rubber mode), times `reward_scale` (default 0.1); raw points in `infos` |

Options of ``env(...)`` / ``raw_env(...)``:

- ``episode``: ``"deal"`` (default) or ``"rubber"``;
- ``ten_is_honour``: the trump 10 is a fifth honour (default False);
  ``no_trump``: the Whist book's whist without trumps (no card turned, the aces are the
  honours, coronets doubled), default False;
- ``reward_scale``: reward = raw points x scale, default 0.1;
- ``max_deals``: rubber mode truncates after this many deals (default 100);
- ``viewer``: seat whose hand ``render`` shows (default all hands);
- ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (an RGB frame) or ``"human"`` (a window).

``reset(seed=..., options={"deal": PBN, "dealer": seat, "turned_card": "H2"})``
replays an exact deal (the turned card must be in the dealer's hand; drawn
uniformly from it when not given); in rubber mode ``options={"deals": [PBN, ...]}``
fixes the first deals (``turned_card`` then applies to the first).
"""

from __future__ import annotations

from ..cards import NO_TRUMP, card_text
from ..games.whist import GAME
from ..rules.whist import WhistDeal, WhistRubber
from .base import env_factories, random_turned_card, take_dealer, take_deals, take_turned_card
from .partnership import SIDE_NAMES, PartnershipEnv

# The score-sheet items Whist uses (docs/rules/whist.md), in the order of the infos.
ITEMS = ("tricks", "slam_taken", "honours", "coronets", "game", "rubber")


def sheet_items(score) -> dict[str, int]:
    """One side's Whist entries: the items of docs/rules/whist.md and their total."""
    d = {item: getattr(score, item) for item in ITEMS}
    d["total"] = score.total
    return d

_D = GAME.defaults


class raw_env(PartnershipEnv):
    GAME = GAME                        # metadata, NUM_ACTIONS, LAYOUT, STATE_SIZE, ACTION_TEXT: from it
    RESET_OPTIONS = ("deal", "deals", "dealer", "turned_card")

    def __init__(self, episode: str = _D["episode"], ten_is_honour: bool = _D["ten_is_honour"],
                 no_trump: bool = _D["no_trump"], reward_scale: float = _D["reward_scale"],
                 max_deals: int = _D["max_deals"], viewer: int | None = _D["viewer"], render_mode: str | None = None):
        o = GAME.check_options(episode=episode, ten_is_honour=ten_is_honour, no_trump=no_trump,
                               reward_scale=reward_scale, max_deals=max_deals, viewer=viewer)
        super().__init__(episode=o["episode"], reward_scale=o["reward_scale"], max_deals=o["max_deals"],
                         viewer=o["viewer"], render_mode=render_mode)
        self.ten_is_honour = o["ten_is_honour"]
        self.no_trump = o["no_trump"]

    # hooks -----------------------------------------------------------------
    def _start(self, options: dict) -> None:
        queued = take_deals(options, several=self.episode == "rubber")
        dealer = take_dealer(options, self._rng)
        turned = take_turned_card(options)
        if turned is not None and self.no_trump:
            raise ValueError("reset option 'turned_card': no card is turned in no-trump Whist")
        if turned is not None and not queued:
            raise ValueError("reset option 'turned_card' needs the replayed 'deal' it belongs to")
        self._start_episode(queued, dealer, {"turned_card": turned})

    def _turned(self, hands, dealer: int, given: int | None) -> int | None:
        if self.no_trump:
            return None
        if given is not None:
            return given
        return random_turned_card(self._rng, hands[dealer])

    def _new_deal(self, hands, dealer, options_left):
        return WhistDeal(hands, dealer, self._turned(hands, dealer, options_left["turned_card"]),
                         self.no_trump, self.ten_is_honour)

    def _new_rubber(self, dealer):
        return WhistRubber(first_dealer=dealer, no_trump=self.no_trump, ten_is_honour=self.ten_is_honour)

    def _next_rubber_deal(self, hands, options_left):
        given = options_left["turned_card"] if options_left else None
        return self.rubber.new_deal(hands, self._turned(hands, self.rubber.dealer, given))

    def _items(self, score) -> dict[str, int]:
        return sheet_items(score)

    def _deal_info(self, deal: WhistDeal) -> dict:
        return {
            "dealer": deal.dealer,
            "turned_card": card_text(deal.turned_card) if deal.turned_card is not None else None,
            "trump": "SCDH"[deal.trump] if deal.trump != NO_TRUMP else "NT",
            "tricks": deal.play.side_tricks(),
            "scores": {SIDE_NAMES[s]: sheet_items(deal.scores[s]) for s in (0, 1)},
        }

    def _card_changes_more(self, card: int) -> bool:
        return card == self.deal.turned_card      # the dealer's turned card leaves the table

    def _render_text(self) -> str:
        from .render import render_whist
        return render_whist(self)

    def _table_view(self):
        from .render import whist_view
        return whist_view(self)


env, parallel_env = env_factories(raw_env)
