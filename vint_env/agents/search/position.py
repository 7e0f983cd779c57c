"""One play decision as PIMC sees it (:class:`Position`), and what the deal sampler may assume
(:func:`hand_constraints`).

Each game's position builder (named by its game record's ``pimc`` plan, :mod:`.pimc_games`,
:mod:`.pimc_vint2p`) makes a :class:`Position` from what the player knows: the game's decoder
(``Game.decode``, :mod:`vint_env.games.knowledge`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...cards import SUIT_MASK
from ...games.knowledge import Knowledge
from .deal_sampler import HandConstraints

__all__ = ["Position", "hand_constraints", "play_common"]


@dataclass
class Position:
    """One decision in the play, in seats relative to the player (0 me,
    1 left, 2 partner, 3 right; side 0 is seats 0 and 2)."""

    hand: int
    played: list[int]                 # cards each seat has played (the trick in progress included)
    trick: list[tuple[int, int]]      # (seat, card) of the trick in progress
    trump: int                        # suit 0..3 or NO_TRUMP
    side_tricks: tuple[int, int]      # tricks won so far by our side and theirs
    points: Callable[[int], int]      # our side's total tricks -> our points minus theirs
    known: dict[int, int] = field(default_factory=dict)   # seat -> cards it is known to hold
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    min_length: dict[tuple[int, int], int] = field(default_factory=dict)   # (seat, suit) -> length as dealt
    size: list[int] | None = None     # cards each seat holds now (default: 13 minus its played cards)
    solvable: bool = True             # False where double-dummy cannot model the play (two-player Vint)
    two_hands: bool = False           # tricks of two cards, seat 0 against seat 2 (two-player Vint, ways 2, 3)

    @property
    def leader(self) -> int:
        return self.trick[0][0] if self.trick else 0

    @property
    def gone(self) -> int:
        out = 0
        for p in self.played:
            out |= p
        return out


def hand_constraints(pos: Position, use_auction: bool = True) -> HandConstraints:
    """The sampler's :class:`HandConstraints` for a position."""
    known = [pos.hand, 0, 0, 0]
    for seat, cards in pos.known.items():
        known[seat] |= cards
    size = list(pos.size) if pos.size is not None else [13 - p.bit_count() for p in pos.played]
    k = HandConstraints(known=known, size=size, gone=pos.gone)
    for seat in (1, 2, 3):
        for suit in pos.voids[seat]:
            k.void(seat, suit)
    if use_auction:
        for (seat, suit), n in pos.min_length.items():
            if suit in pos.voids[seat]:
                continue                              # the play contradicts it: drop it
            have = ((pos.played[seat] | known[seat]) & SUIT_MASK[suit]).bit_count()
            if n > have:
                k.at_least(seat, suit, n - have)
    return k


def play_common(k: Knowledge) -> dict:
    """What every four-hand position holds, from what the player knows."""
    return {"hand": k.hand, "played": k.played_by, "trick": k.trick, "trump": k.trump,
            "side_tricks": k.tricks_taken, "voids": [set(v) for v in k.voids]}
