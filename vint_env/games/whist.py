"""Whist's record (:data:`GAME`) and its observation and state encoding (`whist_v0`).

Seat-relative: in every block indexed by a seat, index 0 is the observer,
1 the player on their left, 2 their partner, 3 the player on their right.
Cards are indexed by card id (``suit * 13 + rank``).  Only what the observer
may know is encoded: their own hand, the turned card (face up until the
dealer plays it) and the cards played.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import parse_card
from ..rules.whist import GAME_TARGET, NUM_ACTIONS, WhistDeal, WhistRubber, action_text
from .knowledge import Knowledge, one_hot
from .layout import Layout, mask_bits
from .obs_blocks import (PLAY_BLOCKS, SIDE_TRICKS_BLOCK, TRACKING_BLOCKS, encode_play, encode_rubber,
                         encode_side_tricks, encode_tracking_hands, rubber_blocks, state_layout, write_state)
from . import params
from .outcome import DealOutcome, partnership_points
from .record import PARTNERSHIP, Game

WHIST_LAYOUT = Layout("whist_v0 observation", [
    ("phase", (1,), "1 while the deal is being played (0 once the episode is over)"),
    ("dealer", (4,), "dealer, relative seat"),
    ("to_move", (4,), "player to act, relative seat"),
    ("hand", (52,), "cards the observer holds now"),
    ("trump", (5,), "trump suit S, C, D, H, or no-trump (variant no_trump)"),
    ("turned_card", (52,), "the dealer's turned card, one-hot (all 0 in no-trump Whist)"),
    ("turned_holder", (4,), "relative seat holding the turned card face up (the dealer), "
                            "all 0 once it is played"),
    *PLAY_BLOCKS,
    *TRACKING_BLOCKS,
    SIDE_TRICKS_BLOCK,
    *rubber_blocks(GAME_TARGET),
])

O = WHIST_LAYOUT.offset
D = WHIST_LAYOUT.size
STATE_LAYOUT = state_layout("whist_v0", WHIST_LAYOUT)
STATE_SIZE = STATE_LAYOUT.size


def encode_observation(deal: WhistDeal, seat: int, rubber=None, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``seat`` (float32, 0/1 except `below_line`)."""
    obs = np.zeros(D, dtype=np.float32) if out is None else out
    play = deal.play
    if not deal.is_over:
        obs[O["phase"]] = 1
        obs[O["to_move"] + ((deal.current_player - seat) & 3)] = 1
    obs[O["dealer"] + ((deal.dealer - seat) & 3)] = 1
    obs[O["hand"]:O["hand"] + 52] = mask_bits(play.hands[seat])
    obs[O["trump"] + deal.trump] = 1
    if deal.turned_card is not None:
        obs[O["turned_card"] + deal.turned_card] = 1
        if deal.turned_card_in_hand:
            obs[O["turned_holder"] + ((deal.dealer - seat) & 3)] = 1
    encode_play(obs, O, play, deal.hands, seat)
    # The turned card is face up until played: everybody has seen it (docs/rules/whist.md).
    seen = 1 << deal.turned_card if deal.turned_card is not None else 0
    encode_tracking_hands(obs, O, play.hands, play, seat, seen)
    encode_side_tricks(obs, O, play.tricks_won, seat)
    if rubber is not None:
        encode_rubber(obs, O, rubber.sheet, seat, GAME_TARGET)
    return obs


class WhistKnowledge(Knowledge):
    """What a Whist player knows (:class:`~vint_env.games.knowledge.Knowledge`, and the turned card)."""

    @property
    def turned(self) -> tuple[int, int] | None:
        """``(relative seat, card)`` of the turned card while the dealer holds it face up, else None."""
        holder = one_hot(self.o["turned_holder"])
        return None if holder is None else (holder, int(self.o["turned_card"].argmax()))


def encode_state(deal: WhistDeal, rubber=None) -> np.ndarray:
    """Full information for centralised critics, laid out as :data:`STATE_LAYOUT`."""
    return write_state(STATE_LAYOUT, deal.play.hands, deal.current_player,
                       lambda out: encode_observation(deal, 0, rubber, out=out))


def parse_action(text: str) -> int:
    """A Whist action from card text (``'SA'``, ``'h10'``): the actions are the cards."""
    return parse_card(text)


@dataclass(frozen=True, kw_only=True)
class WhistOutcome(DealOutcome):
    """What a Whist deal came to: the common part (:class:`~vint_env.games.outcome.DealOutcome`; no contract,
    no declarer), the trump suit (0..3, S C D H) and the tricks per seat.

    >>> o = WhistOutcome(dealer=3, trump=2, tricks_won=(3, 4, 2, 4))
    >>> o.details, o.contract_name, WhistOutcome.from_details(o.details) == o
    ({'dealer': 3, 'tricks_won': [3, 4, 2, 4], 'trump': 2}, None, True)
    """

    trump: int = 0
    tricks_won: tuple = (0, 0, 0, 0)

    @classmethod
    def of(cls, deal: WhistDeal) -> "WhistOutcome":
        points, breakdown = partnership_points(deal) if deal.is_over else (None, {})
        return cls(dealer=deal.dealer, points=points, breakdown=breakdown, trump=deal.trump,
                   tricks_won=tuple(deal.play.tricks_won))

    @classmethod
    def from_details(cls, details: dict) -> "WhistOutcome":
        return cls(dealer=details["dealer"], trump=details["trump"], tricks_won=tuple(details["tricks_won"]))

    @property
    def tricks(self) -> tuple:
        return self.tricks_won

    @property
    def status(self) -> str:
        return f"trump {self.trump}"        # Whist has no contract: its table shows the trump suit (0..3)

    @property
    def details(self) -> dict:
        """Dealer, tricks per seat, trump."""
        return {"dealer": self.dealer, "tricks_won": list(self.tricks_won), "trump": self.trump}


def deal_details(deal: WhistDeal) -> dict:
    """The table facts the evaluation reports (:attr:`WhistOutcome.details`)."""
    return WhistOutcome.of(deal).details


EPISODES = ("deal", "rubber")
REWARD_SCALE = 0.1

GAME = Game(
    name="whist", title="Whist", format=PARTNERSHIP, episodes=EPISODES,
    num_actions=NUM_ACTIONS, action_text=action_text, parse_action=parse_action,
    layout=WHIST_LAYOUT, state_layout=STATE_LAYOUT,
    encode_observation=encode_observation, encode_state=encode_state,
    points_unit="points", reward_scale=REWARD_SCALE, points_scale=1.0,
    new_deal=WhistDeal, new_rubber=WhistRubber, outcome=WhistOutcome, turns_card=True,
    decoder=WhistKnowledge, rule_bot="vint_env.agents.rule.whist:WhistRuleAgent",
    dd_agent="vint_env.agents.search.double_dummy:DoubleDummyAgent",
    pimc_agent="vint_env.agents.search.pimc:make_pimc", pimc="vint_env.agents.search.pimc_games:WHIST",
    search="vint_env.agents.search.search_games:WHIST",
    engine="vint_env.vector.engine:WhistEngine", engine_code=1,
    calls_help="none: Whist has no auction, you only play cards",
    parameters=(
        params.episode(EPISODES),
        params.Parameter("ten_is_honour", bool, False, "the trump ten is a fifth honour"),
        params.Parameter("no_trump", bool, False, "the Whist book's whist without trumps: no card is turned"),
        params.reward_scale(REWARD_SCALE), params.max_deals(), params.viewer()),
)
