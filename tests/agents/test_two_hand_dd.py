"""The double-dummy solver of tricks of two cards (two-player Vint, ways 2 and 3):
hand-made positions worked out by hand, and brute-force minimax on random small ones."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from vint_env.agents.search.two_hand_dd import NO_TRUMP, solve_two_hands

SUIT = [0x1FFF << (13 * s) for s in range(4)]
S2, SK, SA, H2, HA = 0, 11, 12, 39, 51          # suits S, C, D, H; ranks 2 (0) .. A (12)


def mask(*cards: int) -> int:
    return sum(1 << c for c in cards)


def test_hand_made_positions():
    # S A-2 against S K and the H 2, hearts trump: the ace wins a trick (the K must
    # follow), then the 2 of spades is ruffed; the 2 led loses to the K and the
    # opponent's trump then takes the ace: 1 trick against 0.
    assert solve_two_hands(mask(SA, S2), mask(SK, H2), 3) == {SA: 1, S2: 0}
    # the same at no-trump: the H 2 cannot win, the ace and the 2 both take one trick:
    # A first wins, then S 2 against H 2 (a discard) wins too: 2; the 2 first loses to the K,
    # the opponent leads the H 2 and the ace is a discard: 0
    assert solve_two_hands(mask(SA, S2), mask(SK, H2), NO_TRUMP) == {SA: 2, S2: 0}
    # following the S K (opponent left with the S 7 and the H 2) holding S A-2, H A: the
    # ace wins, then the H A, and the 2 loses to the 7: 2 tricks; the 2 loses now, but the
    # ace and the H A take the last two whatever he leads: 2 as well
    assert solve_two_hands(mask(SA, S2, HA), mask(H2, 5), NO_TRUMP, led=SK) == {SA: 2, S2: 2}
    # where it matters: the S 3 led, holding S A-4 and H A against his S K and H 2: winning
    # with the 4 keeps the ace over the king (3 tricks); the ace now lets the K take the 4 (2)
    assert solve_two_hands(mask(SA, 2, HA), mask(SK, H2), NO_TRUMP, led=1) == {SA: 2, 2: 3}
    # void in the suit led: any card; a trump wins
    assert solve_two_hands(mask(HA, 20), mask(5), 3, led=SK) == {HA: 2, 20: 1}


def brute(me: int, opp: int, trump: int, led: int) -> dict[int, int]:
    @lru_cache(None)
    def value(lead: int, follow: int) -> int:          # the leader's most tricks
        if not lead:
            return 0
        n, best = lead.bit_count(), 0
        for c in range(52):
            if lead >> c & 1:
                best = max(best, answer(lead, follow, c, n))
        return best

    def answer(lead, follow, c, n):
        s = c // 13
        can = follow & SUIT[s] or follow
        worst = n
        for d in range(52):
            if can >> d & 1:
                wins = c > d if d // 13 == s else d // 13 != trump
                worst = min(worst, 1 + value(lead & ~(1 << c), follow & ~(1 << d)) if wins
                            else n - 1 - value(follow & ~(1 << d), lead & ~(1 << c)))
        return worst

    n = me.bit_count()
    out = {}
    if led < 0:
        for c in range(52):
            if me >> c & 1:
                out[c] = answer(me, opp, c, n)
        return out
    s = led // 13
    can = me & SUIT[s] or me
    for d in range(52):
        if can >> d & 1:
            rest = me & ~(1 << d)
            mine = (d // 13 == s and d > led) or (d // 13 != s and d // 13 == trump)
            out[d] = 1 + value(rest, opp) if mine else n - 1 - value(opp, rest)
    return out


def test_matches_brute_force_minimax():
    """Random positions of 1..5 cards a hand from one to four suits (so the suits
    collide), every trump, half of them with the opponent's card led."""
    rng = random.Random(1)
    following = 0
    for _ in range(250):
        k = rng.randint(1, 5)
        pool = rng.sample(range(13 * rng.randint(1, 4)), 2 * k)
        trump = rng.choice((0, 1, 2, 3, NO_TRUMP))
        me = mask(*pool[:k])
        if rng.random() < 0.5:                        # he has led the last card of his k
            led, opp = pool[-1], mask(*pool[k:-1])
            following += 1
        else:
            led, opp = -1, mask(*pool[k:])
        assert solve_two_hands(me, opp, trump, led) == brute(me, opp, trump, led), (me, opp, trump, led)
    assert 80 < following < 170


def test_bad_positions_fail_loudly():
    with pytest.raises(ValueError, match="do not fit"):
        solve_two_hands(mask(SA, S2), mask(SK), 0)
    with pytest.raises(ValueError, match="trump"):
        solve_two_hands(mask(SA), mask(SK), 7)
