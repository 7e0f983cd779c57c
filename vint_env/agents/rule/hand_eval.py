"""Hand evaluation for the rule bots: suit holdings, honours, sure tricks.

Pure functions on hand masks (:mod:`vint_env.cards`), used for bidding.  The
books count "sure tricks" (верные взятки, the club rules) before bidding;
:func:`sure_tricks` is that count: tricks a hand takes from the top of its
suits, plus length tricks in the trump suit and in a long, solid suit.

>>> from vint_env.cards import parse_hand_pbn
>>> hand = parse_hand_pbn("AKQ2.J98.7654.32")      # S.H.D.C
>>> suit_ranks(hand, 0)
[12, 11, 10, 0]
>>> top_tricks([12, 11, 10, 0])
3.0
>>> aces(hand)
1
"""

from __future__ import annotations

from ...cards import NO_TRUMP as NT
from ...cards import Rank, hand_suit_ranks


def suit_ranks(hand: int, suit: int) -> list[int]:
    """Ranks held in one suit, highest first."""
    bits = hand_suit_ranks(hand, suit)
    return [r for r in range(12, -1, -1) if bits >> r & 1]


def suit_length(hand: int, suit: int) -> int:
    return hand_suit_ranks(hand, suit).bit_count()


def aces(hand: int) -> int:
    return sum(hand_suit_ranks(hand, s) >> Rank.ACE & 1 for s in range(4))


def honours_in(hand: int, suit: int) -> int:
    """Honours held in a suit: A, K, Q, J, 10 (docs/rules/vint.md, Scoring item 4)."""
    return (hand_suit_ranks(hand, suit) >> Rank.TEN).bit_count()


def top_tricks(ranks: list[int]) -> float:
    """Tricks a holding takes from the top, whatever the other hands hold.

    The unbroken run from the ace counts in full (A-K-Q: 3); a king guarded
    by a small card, an A-Q or a K-Q counts by the usual half-trick table.
    Capped by the suit's length.
    """
    held = set(ranks)
    run = 0
    r = Rank.ACE
    while r in held:
        run += 1
        r -= 1
    if run:
        extra = 0.5 if (r - 1) in held and len(ranks) > run + 1 else 0.0   # A-Q-x, A-K-J-x
        return min(float(run) + extra, float(len(ranks)))
    if Rank.KING in held and Rank.QUEEN in held:
        return 1.0 + (0.5 if Rank.JACK in held else 0.0)
    if Rank.KING in held and len(ranks) >= 2:
        return 0.5
    if Rank.QUEEN in held and Rank.JACK in held and Rank.TEN in held:
        return 1.0
    return 0.0


def length_tricks(ranks: list[int], trump: bool) -> float:
    """Long cards: in the trump suit every card past the third; in a plain suit
    headed by two top honours every card past the fourth."""
    n = len(ranks)
    if trump:
        return float(max(0, n - 3)) if n >= 4 else 0.0
    if n >= 5 and sum(r >= Rank.QUEEN for r in ranks[:3]) >= 2:
        return float(n - 4)
    return 0.0


def sure_tricks(hand: int, strain: int) -> float:
    """Sure tricks of a hand if ``strain`` (0..3, or :data:`NT`) were trumps."""
    total = 0.0
    for s in range(4):
        ranks = suit_ranks(hand, s)
        top = top_tricks(ranks)
        total += max(top, min(float(len(ranks)), top + length_tricks(ranks, s == strain)))
    return total


def ruffing_tricks(hand: int, trump: int) -> float:
    """Extra tricks from short plain suits when a hand with trumps supports a
    partner's suit: a void 2, a singleton 1, a doubleton 0.5, at most the
    trumps held beyond two."""
    if trump == NT:
        return 0.0
    n_trumps = suit_length(hand, trump)
    value = 0.0
    for s in range(4):
        if s == trump:
            continue
        n = suit_length(hand, s)
        value += {0: 2.0, 1: 1.0, 2: 0.5}.get(n, 0.0)
    return min(value, float(max(0, n_trumps - 2)))


def lowness(hand: int) -> float:
    """How safe a hand is for a misère: mean over cards of (12 - rank) / 12,
    with a penalty for every card that cannot be kept below a lead (a long
    suit's top, an unguarded high card)."""
    score = 0.0
    for s in range(4):
        ranks = suit_ranks(hand, s)[::-1]       # lowest first
        for i, r in enumerate(ranks):
            # The i-th lowest card is safe if it is at most 2 * i + 1 (it can
            # duck under i leads of higher cards by others).
            if r > 2 * i + 1:
                score += 1.0
    return score
