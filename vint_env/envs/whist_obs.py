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

WHIST_LAYOUT = Layout("whist_v0 observation", [
    ("phase", (1,), "1 while the deal is being played (0 once the episode is over)"),
    ("dealer", (4,), "dealer, relative seat"),
    ("to_move", (4,), "player to act, relative seat"),
    ("hand", (52,), "cards the observer holds now"),
    ("trump", (5,), "trump suit S, C, D, H, or no-trump (variant no_trump)"),
    ("turned_card", (52,), "the dealer's turned card, one-hot (all 0 in no-trump Whist)"),
    ("turned_holder", (4,), "relative seat holding the turned card face up (the dealer), "
                            "all 0 once it is played"),
    ("trick_leader", (4,), "leader of the trick in progress"),
    ("trick", (4, 52), "trick[r, c] = 1 if relative seat r played card c to the trick in progress"),
    ("last_trick", (4, 52), "the last completed trick, same form"),
    ("played", (4, 52), "every card played so far in this deal, by relative seat"),
    ("tricks_taken", (2, 14), "tricks taken by the observer's side (row 0) and the other side, one-hot 0..13"),
    ("rubber_mode", (1,), "1 in episode='rubber'"),
    ("games_won", (2, 2), "games won in this rubber by our side / their side, one-hot 0..1"),
    ("below_line", (2,), "below-the-line points of the current game, our side / theirs, / 10, capped at 1"),
])

O = WHIST_LAYOUT.offset
D = WHIST_LAYOUT.size
STATE_SIZE = 4 * 52 + 4 + D


def encode_play(obs: np.ndarray, o: dict, play, dealt_hands, seat: int) -> None:
    """Write the trick-play blocks (`trick_leader`, `trick`, `last_trick`, `played`) of a layout.

    Shared by the Whist and Solo Whist encoders; ``o`` is the layout's offsets.
    """
    obs[o["trick_leader"] + ((play.leader - seat) & 3)] = 1
    base = o["trick"]
    for i, c in enumerate(play.trick):
        obs[base + ((play.leader + i - seat) & 3) * 52 + c] = 1
    if play.last_leader >= 0:
        base = o["last_trick"]
        for i, c in enumerate(play.last_trick):
            obs[base + ((play.last_leader + i - seat) & 3) * 52 + c] = 1
    gone = [dealt_hands[(seat + r) & 3] & ~play.hands[(seat + r) & 3] for r in range(4)]
    if any(gone):
        o_played = o["played"]
        obs[o_played:o_played + 208] = hands_bits(gone)


def hands_bits(hands) -> np.ndarray:
    """0/1 vector of four 52-bit card masks, one after the other (4 x 52 entries)."""
    buf = b"".join(h.to_bytes(7, "little") for h in hands)
    bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little")
    return bits.reshape(4, 56)[:, :52].ravel()


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
    won = play.tricks_won
    obs[O["tricks_taken"] + won[seat] + won[seat ^ 2]] = 1
    obs[O["tricks_taken"] + 14 + won[seat ^ 1] + won[seat ^ 3]] = 1
    if rubber is not None:
        sheet = rubber.sheet
        me = seat & 1
        obs[O["rubber_mode"]] = 1
        obs[O["games_won"] + min(sheet.games_won[me], 1)] = 1
        obs[O["games_won"] + 2 + min(sheet.games_won[1 - me], 1)] = 1
        obs[O["below_line"]] = min(sheet.below[me] / GAME_TARGET, 1.0)
        obs[O["below_line"] + 1] = min(sheet.below[1 - me] / GAME_TARGET, 1.0)
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
