"""Scoring of one Vint deal, docs/rules/vint.md, Scoring items 1-5 and Pass-out.

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
    """T = 10 x level (docs/rules/vint.md, Scoring)."""
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
    """Coronet points of one hand as dealt (docs/rules/vint.md, Scoring item 5)."""
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


HONOURS_VARIANTS = ("majority", "net")


def honour_holdings(hands, strain: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Each side's trump honours and aces in the hands as dealt (docs/rules/vint.md, Scoring item 4).

    Returns ``(honours, aces)``, each a pair (side 0, side 1).  The honours
    are the trump A, K, Q, J, 10 (none at no-trump); the aces are the four
    aces, so the trump ace is counted in both.
    """
    honours = [0, 0]
    aces = [0, 0]
    for seat, hand in enumerate(hands):
        aces[seat & 1] += (hand & ALL_ACES).bit_count()
        if strain != NT:
            honours[seat & 1] += (hand_suit_ranks(hand, strain) >> 8).bit_count()   # 10, J, Q, K, A
    return (honours[0], honours[1]), (aces[0], aces[1])


def majority_side(counts: tuple[int, int]) -> int:
    """The side holding the majority of a set of cards, or -1 (a tie, or fewer than two).

    A majority is more than the other side and at least two.  With four
    hands in play every honour and ace is held, so this is "three or more of
    the five honours" and "three or more aces"; two-player ways that play
    only two hands use the same words.
    """
    a, b = counts
    if a > b and a >= 2:
        return 0
    if b > a and b >= 2:
        return 1
    return -1


def honour_points(honours: tuple[int, int], aces: tuple[int, int], side_tricks: tuple[int, int],
                  level: int, strain: int, rule: str = "majority") -> tuple[int, int]:
    """Honour premiums of side 0 and side 1 (docs/rules/vint.md, Scoring item 4).

    ``honours``: trump A K Q J 10 held by each side (ignored at no-trump);
    ``aces``: aces held by each side; ``side_tricks``: tricks each side took
    (decides tied aces); ``level``/``strain``: the contract (T = 10 x level).

    ``rule="majority"`` (default).  Trump contract: the honours majority side
    counts its honours h, the aces majority side its aces a; aces tied: the
    aces of the side that took seven or more tricks count.  One side with
    both: it scores (h + a) x 10 x T; different sides: the larger count
    scores the difference x 10 x T, equal counts nothing.  No-trump: the
    aces majority side scores its aces x 25 x T, a tie nothing.

    ``rule="net"``: each side's count is honours + aces (aces only at
    no-trump); the larger count scores the difference x 10 x T (x 25 x T at
    no-trump).

    Examples of the rule books, spades trump at level 3 (10 x T = 300):

    >>> honour_points((3, 2), (1, 3), (7, 6), 3, 0)   # 3 honours + 1 ace against 2 honours + 3 aces
    (0, 0)
    >>> honour_points((2, 3), (1, 3), (7, 6), 3, 0)   # 2 + 1 against 3 + 3: one side has both
    (0, 1800)
    >>> honour_points((3, 2), (2, 2), (8, 5), 3, 0)   # 3 honours, aces 2-2 and the majority of tricks
    (1500, 0)
    >>> honour_points((3, 2), (2, 2), (5, 8), 3, 0)   # 3 honours, aces 2-2, the other side took 8
    (300, 0)
    >>> honour_points((3, 2), (2, 2), (5, 8), 3, 0, rule="net")
    (300, 0)
    """
    if rule not in HONOURS_VARIANTS:
        raise ValueError(f"honours must be one of {HONOURS_VARIANTS}, got {rule!r}")
    t = trick_value(level)
    if strain == NT:
        per = 25 * t
        if rule == "net":
            return _difference(aces, per)
        side = majority_side(aces)
        if side < 0:
            return 0, 0
        return (aces[0] * per, 0) if side == 0 else (0, aces[1] * per)
    per = 10 * t
    if rule == "net":
        return _difference((honours[0] + aces[0], honours[1] + aces[1]), per)
    counts = [0, 0]                      # what each side's majorities are worth
    h_side = majority_side(honours)
    if h_side >= 0:
        counts[h_side] += honours[h_side]
    a_side = majority_side(aces)
    if a_side < 0 and aces[0] == aces[1]:
        # tied aces: those of the side that took seven or more tricks count
        a_side = 0 if side_tricks[0] >= 7 else (1 if side_tricks[1] >= 7 else -1)
    if a_side >= 0:
        counts[a_side] += aces[a_side]
    return _difference((counts[0], counts[1]), per)


def _difference(counts: tuple[int, int], per: int) -> tuple[int, int]:
    """The larger count scores the difference x ``per``; equal counts nothing."""
    a, b = counts
    return ((a - b) * per, 0) if a >= b else (0, (b - a) * per)


def score_contract(hands, level: int, strain: int, declarer: int, side_tricks: tuple[int, int],
                   honours: str = "majority") -> tuple[SideScore, SideScore]:
    """Score a played Vint contract (docs/rules/vint.md, Scoring items 1-5).

    ``hands`` are the four hands as dealt; ``side_tricks`` the tricks taken
    by side 0 and side 1; ``honours`` the honours rule, ``"majority"``
    (default) or ``"net"`` (see :func:`honour_points`).
    """
    if honours not in HONOURS_VARIANTS:
        raise ValueError(f"honours must be one of {HONOURS_VARIANTS}, got {honours!r}")
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
    held, aces = honour_holdings(hands, strain)
    scores[0].honours, scores[1].honours = honour_points(held, aces, side_tricks, level, strain, honours)
    # 5. coronets
    for seat, hand in enumerate(hands):
        scores[side_of(seat)].coronets += hand_coronets(hand, strain)
    return scores


def score_passout_play(side_tricks: tuple[int, int]) -> tuple[SideScore, SideScore]:
    """docs/rules/vint.md, Pass-out "play" variant: 500 above the line for each trick over six."""
    scores = (SideScore(), SideScore())
    for side in (0, 1):
        if side_tricks[side] > 6:
            scores[side].passout_tricks = 500 * (side_tricks[side] - 6)
    return scores
