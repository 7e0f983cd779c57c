"""Observation blocks the games share: trick play, tricks per side, the rubber score, the state.

Each game's layout lists these block definitions among its own, and its
encoder calls the writers below, so the same feature is encoded one way in
every game (and the batched engine mirrors exactly these).  The full-information
state of every game has one form, :func:`state_layout`, written by :func:`write_state`.
"""

from __future__ import annotations

import numpy as np

from .layout import Layout, masks_bits

PLAY_BLOCKS = [
    ("trick_leader", (4,), "leader of the trick in progress"),
    ("trick", (4, 52), "trick[r, c] = 1 if relative seat r played card c to the trick in progress"),
    ("last_trick", (4, 52), "the last completed trick, same form"),
    ("played", (4, 52), "every card played so far in this deal, by relative seat"),
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
