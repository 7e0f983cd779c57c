"""Observation and state encoding of `whist_v0` (documented in the README).

Seat-relative: in every block indexed by a seat, index 0 is the observer,
1 the player on their left, 2 their partner, 3 the player on their right.
Cards are indexed by card id (``suit * 13 + rank``).  Only what the observer
may know is encoded: their own hand, the turned card (face up until the
dealer plays it) and the cards played.
"""

from __future__ import annotations

import numpy as np

from ..rules.whist import GAME_TARGET, WhistDeal
from .layout import Layout, mask_bits
from .obs_blocks import (PLAY_BLOCKS, SIDE_TRICKS_BLOCK, encode_play, encode_rubber,
                         encode_side_tricks, hands_bits, rubber_blocks)

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
    SIDE_TRICKS_BLOCK,
    *rubber_blocks(GAME_TARGET),
])

O = WHIST_LAYOUT.offset
D = WHIST_LAYOUT.size
STATE_SIZE = 4 * 52 + 4 + D


def encode_observation(deal: WhistDeal, seat: int, rubber=None, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``seat`` (float32, 0/1 except `below_line`)."""
    obs = np.zeros(D, dtype=np.float32) if out is None else out
    play = deal.play
    if not deal.is_over:
        obs[O["phase"]] = 1
        obs[O["to_move"] + ((deal.current_player - seat) & 3)] = 1
    obs[O["dealer"] + ((deal.dealer - seat) & 3)] = 1
    obs[O["hand"]:O["hand"] + 52] = mask_bits(play.hands[seat])
    obs[O["trump"] + (4 if deal.trump < 0 else deal.trump)] = 1
    if deal.turned_card is not None:
        obs[O["turned_card"] + deal.turned_card] = 1
        if deal.turned_card_in_hand:
            obs[O["turned_holder"] + ((deal.dealer - seat) & 3)] = 1
    encode_play(obs, O, play, deal.hands, seat)
    encode_side_tricks(obs, O, play.tricks_won, seat)
    if rubber is not None:
        encode_rubber(obs, O, rubber.sheet, seat, GAME_TARGET)
    return obs


def encode_state(deal: WhistDeal, rubber=None) -> np.ndarray:
    """Full information for centralised critics.

    Layout: the four seats' current hands (absolute seats 0..3, 4 x 52), the
    seat to move one-hot (4), then seat 0's observation.
    """
    state = np.zeros(STATE_SIZE, dtype=np.float32)
    state[:208] = hands_bits(deal.play.hands)
    if deal.current_player >= 0:
        state[208 + deal.current_player] = 1
    encode_observation(deal, 0, rubber, out=state[212:])
    return state
