"""Double-dummy solving of tricks of two cards (two-player Vint, ways 2 and 3).

DDS solves four hands in two partnerships; ways 2 and 3 of two-player Vint
play tricks of two cards, one hand against one (the piles and discards out
of play), which DDS cannot model.  This module solves them exactly with
both hands known: the leader plays any card, the other follows suit if he
can (else any card), the higher card of the suit led or a trump wins, the
winner leads next.

The search is a null-window alpha-beta ("can the leader take at least t
tricks?", bisected over t) with a transposition table of bounds per
position, compiled by numba.  Cards that touch among the cards still in
the two hands (nothing live between them) are equal, and only one of each
such run is tried.  One table per solve: it is valid for one trump suit.

A position is ``(me, opp, trump, lead)``: the two hands as card masks
(0..51, suit-major as everywhere in the package), the trump suit 0..3 or
4 for no-trump, and the card the opponent has led to the trick in progress
(-1 when the player to move leads).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

NO_TRUMP = 4
_KEY = types.UniTuple(types.int64, 2)


@njit(cache=True)
def _reps(hand: int, live: int, suit_only: int) -> np.ndarray:
    """The highest card of each run of ``hand``'s touching cards among ``live``
    (in suit ``suit_only``, or in every suit when it is -1), high cards first."""
    out = np.empty(13, np.int64)
    n = 0
    for s in range(4):
        if suit_only >= 0 and s != suit_only:
            continue
        prev_own = False
        for r in range(12, -1, -1):
            c = 13 * s + r
            if (live >> c) & 1:
                if (hand >> c) & 1:
                    if not prev_own:                 # at most 13: one per card of the hand
                        out[n] = c
                        n += 1
                    prev_own = True
                else:
                    prev_own = False
    return out[:n]


@njit(cache=True)
def _has_suit(hand: int, s: int) -> bool:
    return ((hand >> (13 * s)) & 0x1FFF) != 0


@njit(cache=True)
def _bit_count(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _leader_wins(c: int, d: int, trump: int) -> bool:
    if c // 13 == d // 13:
        return c > d
    return d // 13 != trump


@njit(cache=True)
def _ge(lead: int, follow: int, t: int, trump: int, table) -> bool:
    """Can the leader (hand ``lead``) take at least ``t`` of the remaining tricks?"""
    n = _bit_count(lead)
    if t <= 0:
        return True
    if t > n:
        return False
    key = (lead, follow)
    lo, hi = 0, n
    if key in table:
        b = table[key]
        lo, hi = b // 16, b % 16
        if lo >= t:
            return True
        if hi < t:
            return False
    live = lead | follow
    result = False
    for c in _reps(lead, live, -1):
        s = c // 13
        responses = _reps(follow, live, s if _has_suit(follow, s) else -1)
        ok = True
        for d in responses:
            if _leader_wins(c, d, trump):
                r = _ge(lead & ~(1 << c), follow & ~(1 << d), t - 1, trump, table)
            else:
                r = not _ge(follow & ~(1 << d), lead & ~(1 << c), n - t, trump, table)
            if not r:
                ok = False
                break
        if ok:
            result = True
            break
    if result:
        lo = max(lo, t)
    else:
        hi = min(hi, t - 1)
    table[key] = lo * 16 + hi
    return result


@njit(cache=True)
def _value(lead: int, follow: int, trump: int, table) -> int:
    """The most tricks the leader takes from here against best defence."""
    lo, hi = 0, _bit_count(lead)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _ge(lead, follow, mid, trump, table):
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True)
def _card_values(me: int, opp: int, trump: int, led: int, table) -> np.ndarray:
    """Rows (card, tricks the player to move takes from now, this trick included)
    for one card of each run of his equal legal cards."""
    n = _bit_count(me)
    live = me | opp | ((1 << led) if led >= 0 else 0)
    if led >= 0:
        s = led // 13
        cards = _reps(me, live, s if _has_suit(me, s) else -1)
    else:
        cards = _reps(me, live, -1)
    out = np.empty((cards.shape[0], 2), np.int64)
    for i in range(cards.shape[0]):
        c = cards[i]
        rest = me & ~(1 << c)
        if led >= 0:                              # I follow the opponent's lead
            if _leader_wins(led, c, trump):
                v = n - 1 - _value(opp, rest, trump, table)
            else:
                v = 1 + _value(rest, opp, trump, table)
        else:                                     # I lead: the opponent answers as best he can
            v = n
            live_after = rest | opp
            s = c // 13
            for d in _reps(opp, live_after, s if _has_suit(opp, s) else -1):
                if _leader_wins(c, d, trump):
                    w = 1 + _value(rest, opp & ~(1 << d), trump, table)
                else:
                    w = n - 1 - _value(opp & ~(1 << d), rest, trump, table)
                v = min(v, w)
        out[i, 0] = c
        out[i, 1] = v
    return out


def _new_table():
    return Dict.empty(key_type=_KEY, value_type=types.int64)


def solve_two_hands(me: int, opp: int, trump: int, led: int = -1) -> dict[int, int]:
    """Card id -> tricks the player to move takes from now on (the trick in
    progress included) with each of his legal cards, both then playing
    double-dummy; equal cards (touching among the live cards) get the value
    of their run.  ``led``: the opponent's card on the table, or -1."""
    if me.bit_count() != opp.bit_count() + (led >= 0):
        raise ValueError(f"hands of {me.bit_count()} and {opp.bit_count()} cards do not fit "
                         f"{'a trick in progress' if led >= 0 else 'a lead'}")
    if trump not in (0, 1, 2, 3, NO_TRUMP):
        raise ValueError(f"trump must be a suit 0..3 or {NO_TRUMP} (no-trump), got {trump!r}")
    rows = _card_values(me, opp, trump, led, _new_table())
    live = me | opp | ((1 << led) if led >= 0 else 0)
    out: dict[int, int] = {}
    for c, v in rows:
        c = int(c)
        out[c] = int(v)
        # the lower cards of its run are worth the same
        for lower in range(c - 1, (c // 13) * 13 - 1, -1):
            if me >> lower & 1:
                out[lower] = int(v)
            elif live >> lower & 1:
                break
    return out


__all__ = ["solve_two_hands", "NO_TRUMP"]
