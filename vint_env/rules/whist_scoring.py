"""Scoring of one Whist deal, docs/rules/whist.md (the Whist book).

Every entry is a credit to a side: side 0 is seats 0 & 2, side 1 seats 1 & 3.
Below the line only ``tricks`` (2 points a trick over six); above it slams,
honours and coronets.  Game (5) and rubber (10) premiums are written by the
shared :class:`~vint_env.rules.rubber.Rubber` sheet.

>>> from vint_env.cards import parse_pbn
>>> hands = parse_pbn("N:AKQJ.AKQ2.32.432 T98.J98.AKQ.T987 765.T765.T98.AKQ 432.43.J7654.J65")
>>> a, b = score_whist(hands, trump=3, side_tricks=(9, 4))
>>> a.tricks, a.honours, a.coronets, b.coronets
(6, 3, 25, 5)
"""

from __future__ import annotations

from ..cards import NO_TRUMP, hand_suit_ranks
from .rubber import SideScore, side_of
from .vint_scoring import ALL_ACES, sequence_length

TRICK_POINTS = 2              # per trick over six, below the line
SLAM_POINTS = {12: 10, 13: 20}


def coronet_value(run: int, doubled: bool) -> int:
    """The Whist book's coronet figures for a run of ``run`` cards from the ace down.

    Plain suit: A-K-Q 5, A-K-Q-J 10, A to 10 20, A to 9 25, then 5 more a
    card (A to 2: 60).  Trump suit (``doubled``): 10, 20, 40, 50, then 10
    more a card (A to 2: 120).  Kept as written (docs/rules/whist.md).

    >>> [coronet_value(n, False) for n in (2, 3, 4, 5, 6, 7, 13)]
    [0, 5, 10, 20, 25, 30, 60]
    >>> [coronet_value(n, True) for n in (3, 4, 5, 6, 13)]
    [10, 20, 40, 50, 120]
    """
    if run < 3:
        return 0
    plain = {3: 5, 4: 10, 5: 20}.get(run, 25 + 5 * (run - 6))
    return 2 * plain if doubled else plain


def hand_coronets(hand: int, trump: int) -> int:
    """Coronet points of one hand as dealt; every suit doubled at no-trump."""
    return sum(coronet_value(sequence_length(hand_suit_ranks(hand, suit)),
                             suit == trump or trump == NO_TRUMP)
               for suit in range(4))


def honour_cards(trump: int, ten_is_honour: bool = False) -> int:
    """Mask of the honours: trump A K Q J (and 10 by variant); at no-trump the four aces."""
    if trump == NO_TRUMP:
        return ALL_ACES
    ranks = 0b11111 if ten_is_honour else 0b1111     # A K Q J (10)
    low = 8 if ten_is_honour else 9
    return (ranks << low) << (13 * trump)


def honour_counts(hands, trump: int, ten_is_honour: bool = False) -> tuple[int, int]:
    """Honours held by each side (both partners together), from the hands as dealt."""
    honours = honour_cards(trump, ten_is_honour)
    counts = [0, 0]
    for seat, hand in enumerate(hands):
        counts[side_of(seat)] += (hand & honours).bit_count()
    return counts[0], counts[1]


def score_honours(hands, trump: int, ten_is_honour: bool = False) -> tuple[int, int]:
    """Honour points per side: the side holding more than half scores one per honour held."""
    counts = honour_counts(hands, trump, ten_is_honour)
    total = counts[0] + counts[1]
    return tuple(c if 2 * c > total else 0 for c in counts)  # type: ignore[return-value]


def score_whist(hands, trump: int, side_tricks: tuple[int, int],
                ten_is_honour: bool = False) -> tuple[SideScore, SideScore]:
    """Score a played Whist deal (docs/rules/whist.md).

    ``hands`` are the four hands as dealt, ``trump`` a suit or
    :data:`~vint_env.cards.NO_TRUMP` (variant ``no_trump``: the aces
    are the honours and every coronet is doubled), ``side_tricks`` the
    tricks of side 0 and side 1.
    """
    if trump not in (NO_TRUMP, 0, 1, 2, 3):
        raise ValueError(f"trump must be a suit 0..3 or NO_TRUMP, got {trump!r}")
    if len(side_tricks) != 2 or sum(side_tricks) != 13 or min(side_tricks) < 0:
        raise ValueError(f"the sides' tricks must be two counts adding up to 13, got {side_tricks}")
    scores = (SideScore(), SideScore())
    honours = score_honours(hands, trump, ten_is_honour)
    for side in (0, 1):
        taken = side_tricks[side]
        if taken > 6:
            scores[side].tricks = TRICK_POINTS * (taken - 6)
        scores[side].slam_taken = SLAM_POINTS.get(taken, 0)
        scores[side].honours = honours[side]
    for seat, hand in enumerate(hands):
        scores[side_of(seat)].coronets += hand_coronets(hand, trump)
    return scores
