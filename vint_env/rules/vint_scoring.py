"""Scoring of one Vint deal, RULES.md section 2.3 items 1-5 and 2.4.

Every entry is a credit to a side: side 0 is seats 0 & 2 (N/S), side 1 is
seats 1 & 3 (E/W).  Game, rubber and pass-out mark premiums depend on the
rubber and live in :mod:`vint_env.rules.rubber`.
"""

from __future__ import annotations

from ..cards import NO_TRUMP, hand_suit_ranks
from .rubber import SideScore, side_of

NT = NO_TRUMP  # the strain of a no-trump bid: the package's one no-trump marker (suits 0..3 as in Suit)
ACE_BITS = tuple(1 << (13 * s + 12) for s in range(4))
ALL_ACES = sum(ACE_BITS)


def trick_value(level: int) -> int:
    """T = 10 x level (RULES 2.3)."""
    return 10 * level


def sequence_length(ranks: int) -> int:
    """Length of the unbroken run from the ace down in a 13-bit rank mask."""
    n = 0
    r = 12
    while r >= 0 and ranks >> r & 1:
        n += 1
        r -= 1
    return n


def hand_coronets(hand: int, strain: int) -> int:
    """Coronet points of one hand as dealt (RULES 2.3 item 5)."""
    points = 0
    for suit in range(4):
        run = sequence_length(hand_suit_ranks(hand, suit))
        if run >= 3:
            value = 500 * (run - 2)
            if suit == strain or strain == NT:
                value *= 2
            points += value
    aces = (hand & ALL_ACES).bit_count()
    if aces >= 3:
        value = 500 if aces == 3 else 1000
        if strain == NT:
            value *= 2
        points += value
    return points


def honour_counts(hands, strain: int) -> tuple[int, int]:
    """Each side's honour count (RULES 2.3 item 4).

    Trump contract: trump A, K, Q, J, 10 plus every ace (the trump ace twice).
    No-trump: the aces only.
    """
    counts = [0, 0]
    for seat, hand in enumerate(hands):
        n = (hand & ALL_ACES).bit_count()
        if strain != NT:
            n += (hand_suit_ranks(hand, strain) >> 8).bit_count()   # 10, J, Q, K, A
        counts[seat & 1] += n
    return counts[0], counts[1]


def honour_points(counts: tuple[int, int], level: int, strain: int) -> tuple[int, int]:
    """Honour premiums of both sides from their counts: the net-difference rule.

    The side with the larger count scores the difference x 10 x T (trump
    contract) or x 25 x T (no-trump, aces only).

    >>> honour_points((3, 4), 3, 0)   # 002: "two honours and one ace" vs "one honour and three aces"
    (0, 300)
    >>> honour_points((4, 4), 3, 0)   # 002: "three honours and one ace" vs "one and three": nothing
    (0, 0)
    """
    a, b = counts
    per = (25 if strain == NT else 10) * trick_value(level)
    if a > b:
        return (a - b) * per, 0
    return 0, (b - a) * per


def score_contract(hands, level: int, strain: int, declarer: int,
                   side_tricks: tuple[int, int]) -> tuple[SideScore, SideScore]:
    """Score a played Vint contract (RULES 2.3 items 1-5).

    ``hands`` are the four hands as dealt; ``side_tricks`` the tricks taken
    by side 0 and side 1.
    """
    if not (1 <= level <= 7 and 0 <= strain <= NT):
        raise ValueError(f"no Vint contract at level {level!r}, strain {strain!r}")
    if sum(side_tricks) != 13:
        raise ValueError(f"the sides' tricks must add up to 13, got {side_tricks}")
    t = trick_value(level)
    scores = (SideScore(), SideScore())
    decl = side_of(declarer)
    defn = 1 - decl
    # 1. tricks, below the line, for both sides
    for side in (0, 1):
        scores[side].tricks = t * side_tricks[side]
    # 2. undertricks
    short = 6 + level - side_tricks[decl]
    if short > 0:
        scores[defn].undertricks = short * 100 * t
    # 3. slams
    for side in (0, 1):
        if side_tricks[side] == 12:
            scores[side].slam_taken = 1000
        elif side_tricks[side] == 13:
            scores[side].slam_taken = 2000
    if level >= 6:
        premium = 5000 if level == 6 else 10000
        if short <= 0:
            scores[decl].slam_declared = premium
        else:
            scores[defn].slam_declared = premium
    # 4. honours
    scores[0].honours, scores[1].honours = honour_points(honour_counts(hands, strain), level, strain)
    # 5. coronets
    for seat, hand in enumerate(hands):
        scores[side_of(seat)].coronets += hand_coronets(hand, strain)
    return scores


def score_passout_play(side_tricks: tuple[int, int]) -> tuple[SideScore, SideScore]:
    """RULES 2.4 "play" variant: 500 above the line for each trick over six."""
    scores = (SideScore(), SideScore())
    for side in (0, 1):
        if side_tricks[side] > 6:
            scores[side].passout_tricks = 500 * (side_tricks[side] - 6)
    return scores
