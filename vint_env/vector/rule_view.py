"""What the compiled Solo Whist rule bot knows at its turn in the play: a view array and its questions.

The numba twin of :class:`vint_env.agents.rule.play_view.PlayView` (Solo Whist's part of it), for
:mod:`vint_env.vector.solo_whist_rule`.  A view is one int64 array of :data:`VIEW_SIZE` entries,
filled by the bot from what its seat may see (its hand, the trick, the cards played, the voids shown,
the sides, its memory of the tricks); every function here is a question
``PlayView`` answers, under the same name where it has one.  Seats are relative to the bot (0 me,
1 left, 2 across, 3 right); cards are card ids (``suit * 13 + rank``); a suit's holding is a 13-bit
rank mask.  ``None`` of the reference is -1 here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import NO_TRUMP as NT
from .tables import HIGHEST_13, POPCOUNT_13

# The entries of a view.
V_HAND = 0          # the bot's hand, a 52-bit card mask
V_PLAYED = 1        # every card played in the deal (the trick in progress included)
V_TRUMP = 2         # 0..3, or NT (4)
V_LEADER = 3        # relative seat that led the trick in progress
V_NTRICK = 4        # cards in the trick in progress (the bot's position: 0 leads .. 3 fourth hand)
V_TRICK = 5         # + i: the i-th card played to the trick in progress
V_PARTNERS = 9      # relative seats on the bot's side, bit r
V_DECLARER = 10     # PlayView.declarer: 0 when the bot declares, else the first declaring relative seat
V_VOIDS = 11        # suits shown out of: bit 4 * relative seat + suit
V_FIRST = 12        # + relative seat: the suit of its first discard, -1 none (TrickMemory.first_discard)
V_WON_LEADS = 16    # suits a partner led and won a trick with, bit suit (PlayView.partner_won_leads)
VIEW_SIZE = 17

ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8
_POP13 = POPCOUNT_13.astype(np.int8)
_HIGH13 = HIGHEST_13.astype(np.int8)


@njit(cache=True, inline="always")
def ranks_of(mask, suit):
    """The 13-bit rank mask of ``suit`` in a card mask."""
    return (mask >> (13 * suit)) & 0x1FFF


@njit(cache=True, inline="always")
def count(ranks):
    return np.int64(_POP13[ranks])


@njit(cache=True, inline="always")
def high_rank(ranks):
    """The highest rank set in a 13-bit mask (-1 for none)."""
    return np.int64(_HIGH13[ranks])


@njit(cache=True, inline="always")
def low_rank(ranks):
    return np.int64(_HIGH13[ranks & -ranks])


@njit(cache=True, inline="always")
def beats(card, best, trump):
    """rules.tricks.beats: a higher card of the suit, or a trump on another suit."""
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


# ------------------------------------------------------------ the bot's cards
@njit(cache=True, inline="always")
def holding(v, suit):
    return ranks_of(v[V_HAND], suit)


@njit(cache=True, inline="always")
def length(v, suit):
    return count(holding(v, suit))


@njit(cache=True, inline="always")
def top_card(v, suit):
    """``cards(suit)[0]``: the bot's highest card of a suit it holds."""
    return 13 * suit + high_rank(holding(v, suit))


@njit(cache=True, inline="always")
def bottom_card(v, suit):
    """``cards(suit)[-1]``: the bot's lowest card of a suit it holds."""
    return 13 * suit + low_rank(holding(v, suit))


@njit(cache=True)
def nth_card(v, suit, i):
    """``cards(suit)[i]``: the bot's i-th highest card of a suit."""
    ranks = holding(v, suit)
    for r in range(12, -1, -1):
        if (ranks >> r) & 1:
            if i == 0:
                return 13 * suit + r
            i -= 1
    return -1


@njit(cache=True)
def highest_of_hand(v):
    """``card_play.highest`` of the whole hand: the highest rank, the lowest suit among equals."""
    for r in range(12, -1, -1):
        for s in range(4):
            if (v[V_HAND] >> (13 * s + r)) & 1:
                return 13 * s + r
    return -1


@njit(cache=True, inline="always")
def outstanding(v, suit):
    """Ranks of a suit that other players still hold."""
    return ranks_of(~v[V_HAND] & ~v[V_PLAYED], suit)


@njit(cache=True, inline="always")
def is_master(v, card):
    """No card higher in its suit is still held by another player."""
    return (outstanding(v, card // 13) >> (card % 13 + 1)) == 0


@njit(cache=True)
def masters_run(v, suit):
    """How many of the bot's top cards in a suit are sure winners in turn."""
    out = outstanding(v, suit)
    ranks = holding(v, suit)
    n = 0
    for r in range(12, -1, -1):
        if (ranks >> r) & 1:
            if out >> (r + 1):
                break
            n += 1
    return n


@njit(cache=True)
def effective_ranks(v, suit):
    """PlayView.effective_ranks as a 13-bit mask (the ranks are distinct, so a set keeps their order)."""
    live = ranks_of(~v[V_PLAYED], suit)
    ranks = holding(v, suit)
    eff = 0
    for r in range(13):
        if (ranks >> r) & 1:
            eff |= 1 << (12 - count(live >> (r + 1)))
    return eff


@njit(cache=True, inline="always")
def has(eff, ranks):
    """``_has(eff, *ranks)``, the ranks given as a mask."""
    return eff & ranks == ranks


@njit(cache=True, inline="always")
def card_at_effective(v, suit, eff, rank):
    """``cards[eff.index(rank)]``: the bot's card whose effective rank is ``rank``."""
    return nth_card(v, suit, count(eff >> (rank + 1)))


@njit(cache=True)
def lowest_equivalent(v, card):
    """The lowest of the bot's cards touching ``card`` (no other player's live card between them)."""
    suit = card // 13
    out = outstanding(v, suit)
    ranks = holding(v, suit)
    best = card
    for r in range(card % 13 - 1, -1, -1):
        if (ranks >> r) & 1:
            best = 13 * suit + r
        elif (out >> r) & 1:
            break
    return best


# ------------------------------------------------------------ seats
@njit(cache=True, inline="always")
def opponents(v):
    """Relative seats 1..3 not on the bot's side, bit r."""
    return 0b1110 & ~v[V_PARTNERS]


@njit(cache=True, inline="always")
def void_in(v, seat, suit):
    return (v[V_VOIDS] >> (4 * seat + suit)) & 1 == 1


@njit(cache=True, inline="always")
def declaring(v):
    """The bot's side declared the contract."""
    d = v[V_DECLARER]
    return d >= 0 and (d == 0 or (v[V_PARTNERS] >> d) & 1 == 1)


@njit(cache=True)
def opponents_void_in(v, suit):
    opp = opponents(v)
    for s in range(1, 4):
        if (opp >> s) & 1 and not void_in(v, s, suit):
            return False
    return True


@njit(cache=True)
def opponent_may_ruff(v, suit):
    """An opponent is known void in ``suit`` and may hold trumps."""
    trump = v[V_TRUMP]
    if trump == NT or suit == trump or outstanding(v, trump) == 0:
        return False
    opp = opponents(v)
    for s in range(1, 4):
        if (opp >> s) & 1 and void_in(v, s, suit) and not void_in(v, s, trump):
            return True
    return False


@njit(cache=True)
def opponents_may_hold_trumps(v):
    trump = v[V_TRUMP]
    if trump == NT or outstanding(v, trump) == 0:
        return False
    return not opponents_void_in(v, trump)


# ------------------------------------------------------------ the trick
@njit(cache=True, inline="always")
def led_suit(v):
    return v[V_TRICK] // 13


@njit(cache=True)
def winning(v):
    """(relative seat, card) winning the trick in progress."""
    seat = v[V_LEADER]
    best = v[V_TRICK]
    for i in range(1, v[V_NTRICK]):
        c = v[V_TRICK + i]
        if beats(c, best, v[V_TRUMP]):
            seat = (v[V_LEADER] + i) & 3
            best = c
    return seat, best


@njit(cache=True)
def played_by(v, seat):
    """The card relative ``seat`` played to the trick in progress, -1 none."""
    for i in range(v[V_NTRICK]):
        if (v[V_LEADER] + i) & 3 == seat:
            return v[V_TRICK + i]
    return -1


@njit(cache=True)
def partner_winning(v):
    if v[V_NTRICK] == 0:
        return False
    seat, _ = winning(v)
    return (v[V_PARTNERS] >> seat) & 1 == 1


@njit(cache=True)
def sure_to_stand(v, card):
    """``card`` (now winning) cannot be beaten by an opponent still to play."""
    after = 0
    for s in range(1, 4 - v[V_NTRICK]):
        after |= 1 << s
    after &= opponents(v)
    if after == 0:
        return True
    if not is_master(v, card):
        return False
    suit = card // 13
    trump = v[V_TRUMP]
    if trump != NT and suit != trump:
        for s in range(1, 4):
            if (after >> s) & 1 and void_in(v, s, suit) and not void_in(v, s, trump) and outstanding(v, trump):
                return False
    return True


@njit(cache=True)
def cheapest_winner(v, suit):
    """``can_win_with(cards(suit))[0]``: the bot's lowest card of ``suit`` that beats the trick's best, -1 none."""
    _, best = winning(v)
    ranks = holding(v, suit)
    for r in range(13):
        c = 13 * suit + r
        if (ranks >> r) & 1 and beats(c, best, v[V_TRUMP]):
            return c
    return -1
