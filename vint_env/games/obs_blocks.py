"""Observation blocks the games share: trick play, what a card player tracks, tricks per side,
the rubber score, the state.

Each game's layout lists these block definitions among its own, and its
encoder calls the writers below, so the same feature is encoded one way in
every game (and the batched engine mirrors exactly these).  The full-information
state of every game has one form, :func:`state_layout`, written by :func:`write_state`.
"""

from __future__ import annotations

import numpy as np

from ..rules.tricks import winning_index
from .layout import Layout, masks_bits

PLAY_BLOCKS = [
    ("trick_leader", (4,), "leader of the trick in progress"),
    ("trick", (4, 52), "trick[r, c] = 1 if relative seat r played card c to the trick in progress"),
    ("last_trick", (4, 52), "the last completed trick, same form"),
    ("played", (4, 52), "every card played so far in this deal, by relative seat"),
]

#: What a card player tracks in the play, all public or the observer's own knowledge
#: (docs/rules/index.md: follow suit if able; the highest trump wins, else the highest card of the suit led).
TRACKING_BLOCKS = [
    ("trick_winner", (4,), "relative seat whose card is winning the trick in progress so far "
                           "(all 0 when no trick is in progress)"),
    ("winning_card", (52,), "the card winning the trick in progress so far: the highest trump, else the "
                            "highest card of the suit led (all 0 when no trick is in progress)"),
    ("voids", (4, 4), "voids[r, s] = 1 once relative seat r has shown out of suit s in this deal "
                      "(did not follow when s was led); suits S, C, D, H"),
    ("cards_out", (4, 14), "per suit S, C, D, H: how many of its cards the observer has not seen, one-hot "
                           "0..13 (not played, not in the observer's hand, not face up on the table)"),
    ("top_remaining", (52,), "for each suit, 1 at its highest card not yet played "
                             "(wherever it is, the observer's hand included)"),
]

SIDE_TRICKS_BLOCK = ("tricks_taken", (2, 14),
                     "tricks taken by the observer's side (row 0) and the other side, one-hot 0..13")


def rubber_blocks(game_target: int) -> list:
    return [
        ("rubber_mode", (1,), "1 in episode='rubber'"),
        ("games_won", (2, 2), "games won in this rubber by our side / their side, one-hot 0..1"),
        ("below_line", (2,), f"below-the-line points of the current game, our side / theirs, "
                             f"/ {game_target}, capped at 1"),
    ]


def hands_bits(hands) -> np.ndarray:
    """0/1 vector of four 52-bit card masks, one after the other (4 x 52 entries)."""
    return masks_bits(hands).ravel()


def encode_play(obs: np.ndarray, o: dict, play, dealt_hands, seat: int) -> None:
    """Write the `PLAY_BLOCKS` of a layout (offsets ``o``) from a `TrickPlay`, seen from ``seat``."""
    obs[o["trick_leader"] + ((play.leader - seat) & 3)] = 1
    base = o["trick"]
    for i, c in enumerate(play.trick):
        obs[base + ((play.leader + i - seat) & 3) * 52 + c] = 1
    if play.last_leader >= 0:
        base = o["last_trick"]
        for i, c in enumerate(play.last_trick):
            obs[base + ((play.last_leader + i - seat) & 3) * 52 + c] = 1
    if play.plays:
        gone = [dealt_hands[(seat + r) & 3] & ~play.hands[(seat + r) & 3] for r in range(4)]
        obs[o["played"]:o["played"] + 208] = hands_bits(gone)


def deal_voids(play) -> list[int]:
    """Suits each seat has shown out of so far: a 4-bit mask per absolute seat (bit s = suit s).

    A seat shows out of a suit when it plays another suit to a trick that suit led.
    """
    voids = [0, 0, 0, 0]
    plays, n = play.plays, len(play.seats)
    for start in range(0, len(plays), n):
        led = plays[start][1] // 13
        for s, c in plays[start + 1:start + n]:
            if c // 13 != led:
                voids[s] |= 1 << led
    return voids


def encode_tracking(obs: np.ndarray, o: dict, play, seat: int, remaining: int, known: int) -> None:
    """Write the `TRACKING_BLOCKS` seen from ``seat`` (seats relative to ``seat``).

    ``play``: the `TrickPlay`, or None before play; ``remaining``: card mask of the cards not played
    yet; ``known``: the cards whose place the observer sees (his hand, a face-up card, a shown hand).
    """
    if play is not None:
        if play.trick:
            i = winning_index(play.trick, play.trump)
            obs[o["trick_winner"] + ((play.trick_seats()[i] - seat) & 3)] = 1
            obs[o["winning_card"] + play.trick[i]] = 1
        base = o["voids"]
        for s, mask in enumerate(deal_voids(play)):
            for suit in range(4):
                if mask >> suit & 1:
                    obs[base + 4 * ((s - seat) & 3) + suit] = 1
    unseen = remaining & ~known
    for suit in range(4):
        obs[o["cards_out"] + 14 * suit + (unseen >> 13 * suit & 8191).bit_count()] = 1
        top = (remaining >> 13 * suit & 8191).bit_length()
        if top:
            obs[o["top_remaining"] + 13 * suit + top - 1] = 1


def encode_tracking_hands(obs: np.ndarray, o: dict, hands, play, seat: int, seen: int = 0) -> None:
    """`encode_tracking` for a game whose 52 cards are all in the four ``hands`` until played:
    ``seen`` is the mask of the cards face up besides the observer's hand."""
    encode_tracking(obs, o, play, seat, hands[0] | hands[1] | hands[2] | hands[3], hands[seat] | seen)


def encode_side_tricks(obs: np.ndarray, o: dict, tricks_won, seat: int) -> None:
    """Write `SIDE_TRICKS_BLOCK`: the observer's side's tricks and the other side's."""
    obs[o["tricks_taken"] + tricks_won[seat] + tricks_won[seat ^ 2]] = 1
    obs[o["tricks_taken"] + 14 + tricks_won[seat ^ 1] + tricks_won[seat ^ 3]] = 1


def encode_rubber(obs: np.ndarray, o: dict, sheet, seat: int, game_target: int) -> None:
    """Write the `rubber_blocks` from a rubber's score sheet, seen from ``seat``'s side."""
    me = seat & 1
    obs[o["rubber_mode"]] = 1
    obs[o["games_won"] + min(sheet.games_won[me], 1)] = 1
    obs[o["games_won"] + 2 + min(sheet.games_won[1 - me], 1)] = 1
    obs[o["below_line"]] = min(sheet.below[me] / game_target, 1.0)
    obs[o["below_line"] + 1] = min(sheet.below[1 - me] / game_target, 1.0)


def state_layout(game: str, observation: Layout) -> Layout:
    """The ``state()`` layout of a game: every current hand, the seat to move, seat 0's view.

    Seats are absolute here; seat 0's observation is seat-relative from seat 0,
    so its relative seats are the absolute ones.
    """
    return Layout(f"{game} state", [
        ("hands", (4, 52), "the four seats' current hands, absolute seats 0..3"),
        ("to_move", (4,), "seat to move, absolute, one-hot (all 0 once the deal is over)"),
        ("seat0_view", (observation.size,), "seat 0's observation"),
    ])


def write_state(layout: Layout, hands, to_move: int, write_seat0_view) -> np.ndarray:
    """A new float32 state vector of ``layout`` (see :func:`state_layout`).

    ``write_seat0_view(out)`` writes seat 0's observation into the slice it is given.
    """
    state = np.zeros(layout.size, dtype=np.float32)
    o = layout.offset
    state[layout.slice("hands")] = hands_bits(hands)
    if to_move >= 0:
        state[o["to_move"] + to_move] = 1
    write_seat0_view(state[layout.slice("seat0_view")])
    return state
