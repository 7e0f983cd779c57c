"""The batched Vint, Whist and Solo Whist rules as numba-compiled loops, game by game.

The second of the two implementations of these rules (the first is the
readable reference in :mod:`vint_env.rules`; the differential tests play both
action by action).  One pass over the games per step instead of dozens of
whole-array NumPy operations, which is what makes the engine fast at every
batch size.  Kernels are compiled on first use and cached on disk.
"""

from __future__ import annotations

import numpy as np

from numba import njit, prange, types
from numba.core import cgutils
from llvmlite import ir
from numba.extending import intrinsic

from .backend import KernelBackend, check_observation_out, step_actions, unsealed, view_games
from .state import (AUCTION, BIDS, COL, DEALT, HAND, LAST, NUM_SMALL, NUM_WORDS, OVER, PLAY, SOLO_WHIST, TRICK,
                    TRUMP, VINT, VOIDS, WHIST, WON, EngineStateError, KernelOptions, RowSeal, VintBatchState)
from .tables import (BID_BASE, HIGHEST_13, NUM_BIDS, O_BIDS, O_CONTRACT, O_DEALER, O_DECLARER, O_HAND,
                     O_LAST_TRICK, O_PASS_COUNT, O_PASSOUT_PLAY, O_PHASE, O_PLAYED, O_TO_MOVE, O_TRACK, O_TRICK,
                     O_TRICK_LEADER, O_TRICKS_TAKEN, O_TRUMP, PASS, POPCOUNT_13, RUN_FROM_ACE, S_CALLS,
                     S_DEALER, S_DECLARING, S_EXPOSED, S_EXPOSED_SEAT, S_HAND, S_HIGHEST, S_LAST_TRICK, S_MUST_RAISE,
                     S_PASSED, S_PHASE, S_PLAYED, S_TO_MOVE, S_TRACK, S_TRICK, S_TRICK_LEADER, S_TRICKS_TAKEN,
                     S_TRUMP, S_TURNED_CARD, S_TURNED_HOLDER, S_WITH_ME, SOLO_ABONDANCE, SOLO_ACCEPT, SOLO_BID_INDEX,
                     SOLO_CALL_BASE, SOLO_DECLAREE, SOLO_MISERE, SOLO_OPEN_MISERE,
                     SOLO_PASS, SOLO_PROPOSAL, SOLO_TERMS, SOLO_TRUMP_ABONDANCE, SOLO_TRUMP_BASE, TOP_FIVE, W_DEALER,
                     W_HAND, W_LAST_TRICK, W_PHASE, W_PLAYED, W_TO_MOVE, W_TRACK, W_TRICK, W_TRICK_LEADER,
                     W_TRICKS_TAKEN, W_TRUMP, W_TURNED_CARD, W_TURNED_HOLDER, WHIST_CORONET,
                     WHIST_SLAM_12, WHIST_SLAM_13, WHIST_TRICK_POINTS)

_PHASE, _CUR, _ACTOR, _DEALER = COL["phase"], COL["current_player"], COL["actor"], COL["dealer"]
_HIGHEST, _BIDDER, _PASSES, _PASSED_OUT = COL["highest"], COL["highest_bidder"], COL["passes"], COL["passed_out"]
_TRUMP, _DECLARER, _LEADER, _TRICK_LEN = COL["trump"], COL["declarer"], COL["leader"], COL["trick_len"]
_LAST_LEADER, _TRICKS_PLAYED, _TURNED = COL["last_leader"], COL["tricks_played"], COL["turned"]
_PARTNER, _PASSED, _MAY_ACCEPT, _MUST_RAISE = COL["partner"], COL["passed"], COL["may_accept"], COL["must_raise"]
# Offsets of the tracking blocks (trick_winner, winning_card, voids, cards_out, top_remaining).
O_WINNER, O_WINNING_CARD, O_VOIDS, O_CARDS_OUT, O_TOP = O_TRACK
W_WINNER, W_WINNING_CARD, W_VOIDS, W_CARDS_OUT, W_TOP = W_TRACK
S_WINNER, S_WINNING_CARD, S_VOIDS, S_CARDS_OUT, S_TOP = S_TRACK
# Lookup tables read as compile-time constants: bits set / highest bit of a suit's 13-bit mask.
_POP13 = POPCOUNT_13.astype(np.int8)     # int8: 8 kB each, they stay in the L1 cache
_HIGH13 = HIGHEST_13.astype(np.int8)


@njit(cache=True, inline="always")
def _ranks(hand, suit):
    return np.int64((hand >> np.uint64(13 * suit)) & np.uint64(0x1FFF))


@njit(cache=True, inline="always")
def _honours_vint(h0, h1, a0, a1, t0, t1, strain, t, honours_net):
    """Side 0's honour points minus side 1's, as ``rules.vint_scoring.honour_points`` (docs/rules/vint.md, Scoring item 4).

    ``h0, h1``: trump honours held by each side; ``a0, a1``: aces; ``t0, t1``: tricks taken.
    A majority is more than the other side and at least two.
    """
    if strain == 4:                                      # no-trump: the aces, 25 x T each
        per = 25 * t
        if honours_net:
            return (a0 - a1) * per
        if a0 > a1 and a0 >= 2:
            return a0 * per
        if a1 > a0 and a1 >= 2:
            return -a1 * per
        return 0
    per = 10 * t
    if honours_net:                                      # "net": honours + aces, the difference
        return (h0 + a0 - h1 - a1) * per
    c0 = 0                                               # "majority": each side's majorities
    c1 = 0
    if h0 > h1 and h0 >= 2:
        c0 += h0
    elif h1 > h0 and h1 >= 2:
        c1 += h1
    if a0 > a1 and a0 >= 2:
        c0 += a0
    elif a1 > a0 and a1 >= 2:
        c1 += a1
    elif a0 == a1:                                       # tied aces: the side with seven tricks or more
        if t0 >= 7:
            c0 += a0
        elif t1 >= 7:
            c1 += a1
    return (c0 - c1) * per


@njit(cache=True)
def _score_vint(words, small, b, honours_net, run_tab, top_tab):
    """Side 0's points minus side 1's for finished Vint deal ``b`` (docs/rules/vint.md, Scoring items 1-5 and Pass-out)."""
    t0 = np.int64(small[b, WON]) + small[b, WON + 2]
    t1 = np.int64(small[b, WON + 1]) + small[b, WON + 3]
    if small[b, _PASSED_OUT] == 1:           # docs/rules/vint.md, Pass-out "play": 500 a trick over six
        return _passout_points(t0, t1)
    return _contract_points(words[b, DEALT], words[b, DEALT + 1], words[b, DEALT + 2], words[b, DEALT + 3], t0, t1,
                            np.int64(small[b, _HIGHEST]), np.int64(small[b, _DECLARER]) & 1, honours_net, run_tab,
                            top_tab)


@njit(cache=True, inline="always")
def _passout_points(t0, t1):
    """docs/rules/vint.md, Pass-out "play": 500 a trick over six, side 0's minus side 1's."""
    return 500 * (max(t0 - 6, 0) - max(t1 - 6, 0))


@njit(cache=True)
def _contract_points(hand0, hand1, hand2, hand3, t0, t1, h, declarer_side, honours_net, run_tab, top_tab):
    """Side 0's points minus side 1's for a played Vint contract (bid index ``h``) as ``rules.vint_scoring.
    score_contract``: the hands as dealt, side 0's at 0 and 2 (two-player Vint: 0 for a hand not played);
    ``t0, t1``: each side's tricks."""
    level, strain = h // 5 + 1, h % 5
    t = 10 * level
    diff = t * (t0 - t1)                                 # 1. tricks, both sides
    diff += _slam_taken(t0) - _slam_taken(t1)            # 3. slams taken
    sign = 1 if declarer_side == 0 else -1               # +: the declaring side's credit
    short = 6 + level - (t0 if declarer_side == 0 else t1)
    if short > 0:
        diff -= sign * short * 100 * t                   # 2. undertricks, to the defenders
    if level >= 6:                                       # 3. slams declared
        premium = 5000 if level == 6 else 10000
        diff += sign * premium if short <= 0 else -sign * premium
    h0 = 0                                               # trump honours and aces of each side
    h1 = 0
    a0 = 0
    a1 = 0
    for s in range(4):
        hand = hand0 if s == 0 else (hand1 if s == 1 else (hand2 if s == 2 else hand3))
        aces = 0
        coronets = 0
        for suit in range(4):
            r = _ranks(hand, suit)
            aces += (r >> 12) & 1
            run = np.int64(run_tab[r])
            if run >= 3:                                 # 5. sequence coronets
                v = 500 * (run - 2)
                if suit == strain or strain == 4:
                    v *= 2
                coronets += v
        if aces >= 3:                                    # 5. aces coronet
            v = 500 if aces == 3 else 1000
            if strain == 4:
                v *= 2
            coronets += v
        held = 0
        if strain != 4:
            held = np.int64(top_tab[_ranks(hand, strain)])
        if s & 1:
            diff -= coronets
            h1 += held
            a1 += aces
        else:
            diff += coronets
            h0 += held
            a0 += aces
    return diff + _honours_vint(h0, h1, a0, a1, t0, t1, strain, t, honours_net)   # 4. honours


@njit(cache=True)
def _score_whist(words, small, b, ten_is_honour, run_tab, pop_tab, coronet_tab):
    """Side 0's points minus side 1's for finished Whist deal ``b`` (docs/rules/whist.md, the Whist book)."""
    trump = np.int64(small[b, _TRUMP])          # 4: no-trump variant
    diff = 0
    counts = np.zeros(2, dtype=np.int64)        # honours held per side
    for s in range(4):
        hand = words[b, DEALT + s]
        coronets = 0
        for suit in range(4):
            r = _ranks(hand, suit)
            doubled = 1 if (suit == trump or trump == 4) else 0
            coronets += coronet_tab[doubled, run_tab[r]]        # coronets, per hand as dealt
            if trump == 4:
                counts[s & 1] += (r >> 12) & 1                  # no-trump: the aces are the honours
            elif suit == trump:
                counts[s & 1] += pop_tab[r >> (8 if ten_is_honour else 9)]   # A K Q J (10)
        diff += coronets if (s & 1) == 0 else -coronets
    total = counts[0] + counts[1]
    for k in range(2):                          # more than half of the honours: one point each
        sign = 1 if k == 0 else -1
        if 2 * counts[k] > total:
            diff += sign * counts[k]
        taken = np.int64(small[b, WON + k]) + small[b, WON + k + 2]
        if taken > 6:
            diff += sign * WHIST_TRICK_POINTS * (taken - 6)
        if taken == 12:
            diff += sign * WHIST_SLAM_12
        elif taken == 13:
            diff += sign * WHIST_SLAM_13
    return diff


@njit(cache=True, inline="always")
def _slam_taken(tricks):
    return 1000 if tricks == 12 else (2000 if tricks == 13 else 0)


@njit(cache=True, inline="always")
def _finish(small, b, diff, scale, points, rewards, terminated):
    small[b, _PHASE] = OVER
    small[b, _CUR] = -1
    for s in range(4):
        p = diff if (s & 1) == 0 else -diff
        points[b, s] = p
        rewards[b, s] = p * scale
    terminated[b] = True


@njit(cache=True, inline="always")
def _play_card(small, words, b, seat, a):
    """Seat ``seat`` plays card ``a`` to game ``b``'s trick (a void noted if it does not follow the suit led);
    returns the cards in the trick now and its leader.  Shared with two-player Vint's kernels."""
    one = np.uint64(1)
    words[b, HAND + seat] &= ~(one << np.uint64(a))
    small[b, TRICK + seat] = a
    n = small[b, _TRICK_LEN] + 1
    small[b, _TRICK_LEN] = n
    leader = np.int64(small[b, _LEADER])
    if n > 1:
        led = np.int64(small[b, TRICK + leader]) // 13
        if a // 13 != led:                # shown out of the suit led
            words[b, VOIDS] |= one << np.uint64(4 * seat + led)
    return n, leader


@njit(cache=True, inline="always")
def _close_trick(small, b, leader, winner):
    """Game ``b``'s complete trick, led by ``leader``, goes to ``winner``, who leads next; returns the tricks
    played now.  Shared with two-player Vint's kernels."""
    small[b, WON + winner] += 1
    for s in range(4):
        small[b, LAST + s] = small[b, TRICK + s]
        small[b, TRICK + s] = -1
    small[b, _LAST_LEADER] = leader
    small[b, _TRICK_LEN] = 0
    small[b, _LEADER] = winner
    small[b, _CUR] = winner
    played = small[b, _TRICKS_PLAYED] + 1
    small[b, _TRICKS_PLAYED] = played
    return played


@njit(cache=True, inline="always")
def _apply_one(small, words, b, a, game, passout_play, ten_is_honour, honours_net, literal, scale, points, rewards,
               terminated, run_tab, top_tab, pop_tab, coronet_tab, terms, solo):
    """One action in game ``b`` (legality checked before); ``solo``: ``game == SOLO_WHIST``, a constant of the
    caller's loop (four_seat_kernels's step kernels compile one loop for Solo Whist, one for the other games)."""
    one = np.uint64(1)
    phase = small[b, _PHASE]
    seat = np.int64(small[b, _CUR])
    small[b, _ACTOR] = seat
    small[b, _CUR] = (seat + 1) & 3
    if phase != PLAY and solo:
        _solo_call(small, words, b, a, seat, literal, scale, points, rewards, terminated, terms)
        return
    if phase == AUCTION:                  # docs/rules/vint.md, Auction
        if a != PASS:
            i = a - BID_BASE
            small[b, _HIGHEST] = i
            small[b, _BIDDER] = seat
            small[b, _PASSES] = 0
            words[b, BIDS + seat] |= one << np.uint64(i)
            return
        passes = small[b, _PASSES] + 1
        small[b, _PASSES] = passes
        if small[b, _HIGHEST] >= 0 and passes == 3:      # contract; docs/rules/vint.md, Play: left of declarer leads
            declarer = np.int64(small[b, _BIDDER])
            small[b, _DECLARER] = declarer
            small[b, _TRUMP] = small[b, _HIGHEST] % 5
            small[b, _LEADER] = (declarer + 1) & 3
            small[b, _CUR] = (declarer + 1) & 3
            small[b, _PHASE] = PLAY
        elif small[b, _HIGHEST] < 0 and passes == 4:     # docs/rules/vint.md, Pass-out
            small[b, _PASSED_OUT] = 1
            if passout_play:
                leader = (np.int64(small[b, _DEALER]) + 1) & 3
                small[b, _TRUMP] = 4
                small[b, _LEADER] = leader
                small[b, _CUR] = leader
                small[b, _PHASE] = PLAY
            else:
                _finish(small, b, 0, scale, points, rewards, terminated)
        return
    # play (docs/rules/index.md)
    n, leader = _play_card(small, words, b, seat, a)
    if n < 4:
        return
    trump = small[b, _TRUMP]
    led = small[b, TRICK + leader] // 13
    winner = 0
    best = -1
    for s in range(4):                    # the highest trump, else the highest card of the suit led
        c = np.int64(small[b, TRICK + s])
        suit = c // 13
        key = 0
        if suit == trump:
            key = 26 + c % 13
        elif suit == led:
            key = 13 + c % 13
        if key > best:
            best = key
            winner = s
    played = _close_trick(small, b, leader, winner)
    if solo:                              # the misères and déclarée may end before the 13th trick
        _solo_after_trick(small, words, b, literal, scale, points, rewards, terminated, terms)
    elif played == 13:
        if game == WHIST:
            diff = _score_whist(words, small, b, ten_is_honour, run_tab, pop_tab, coronet_tab)
        else:
            diff = _score_vint(words, small, b, honours_net, run_tab, top_tab)
        _finish(small, b, diff, scale, points, rewards, terminated)


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i


@njit(cache=True, inline="always")
def _bits(out, b, start, word):
    """out[b, start + i] = 1 for every set bit i of ``word`` (the row is already zero)."""
    zero = np.uint64(0)
    while word != zero:
        low = word & (~word + np.uint64(1))
        out[b, start + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]] = 1
        word ^= low


@njit(cache=True, inline="always")
def _observe_play(small, words, b, me, out, o_leader, o_trick, o_last, o_taken):
    """The trick-play blocks shared by Vint and Whist: leader, trick, last trick, tricks taken by side."""
    ours = small[b, WON + me] + small[b, WON + (me ^ 2)]
    theirs = small[b, WON + (me ^ 1)] + small[b, WON + (me ^ 3)]
    out[b, o_taken + ours] = 1
    out[b, o_taken + 14 + theirs] = 1
    _observe_trick_cards(small, b, me, out, o_leader, o_trick, o_last)


@njit(cache=True, inline="always")
def _observe_trick_cards(small, b, me, out, o_leader, o_trick, o_last):
    """The trick blocks of every game (games/obs_blocks.py, ``PLAY_BLOCKS``): leader, trick, last trick."""
    out[b, o_leader + ((small[b, _LEADER] - me) & 3)] = 1
    for r in range(4):
        s = (me + r) & 3
        c = small[b, TRICK + s]
        if c >= 0:
            out[b, o_trick + 52 * r + c] = 1
        c = small[b, LAST + s]
        if c >= 0:
            out[b, o_last + 52 * r + c] = 1


@njit(cache=True, inline="always")
def _observe_tracking(small, words, b, me, out, o_winner, o_card, o_voids, o_out, o_top, seen):
    """The tracking blocks shared by Vint and Whist (games/obs_blocks.py, ``encode_tracking``);
    ``seen``: the cards face up besides the observer's hand."""
    n = np.int64(small[b, _TRICK_LEN])
    if n > 0:                                      # who is winning the trick in progress
        leader = np.int64(small[b, _LEADER])
        trump = np.int64(small[b, _TRUMP])
        winner = leader
        best = np.int64(small[b, TRICK + leader])
        for i in range(1, n):
            s = (leader + i) & 3
            c = np.int64(small[b, TRICK + s])
            if c // 13 == best // 13:
                if c > best:
                    winner = s
                    best = c
            elif c // 13 == trump:
                winner = s
                best = c
        out[b, o_winner + ((winner - me) & 3)] = 1
        out[b, o_card + best] = 1
    left = words[b, HAND] | words[b, HAND + 1] | words[b, HAND + 2] | words[b, HAND + 3]
    _observe_voids_and_cards_out(words, b, me, out, o_voids, o_out, o_top, left,
                                 left & ~(words[b, HAND + me] | seen))


@njit(cache=True, inline="always")
def _observe_voids_and_cards_out(words, b, me, out, o_voids, o_out, o_top, left, unseen):
    """The voids, cards-out and top-card tracking blocks (games/obs_blocks.py, ``encode_tracking``) seen from seat
    ``me``: the suits each seat has shown out of, per suit how many ``unseen`` cards are out and the highest card
    ``left`` (not yet played).  Shared with two-player Vint's observation."""
    voids = words[b, VOIDS]
    if voids != np.uint64(0):
        for r in range(4):
            _bits(out, b, o_voids + 4 * r, (voids >> np.uint64(4 * ((me + r) & 3))) & np.uint64(15))
    for suit in range(4):
        shift = np.uint64(13 * suit)
        out[b, o_out + 14 * suit + _POP13[np.int64((unseen >> shift) & np.uint64(0x1FFF))]] = 1
        top = _HIGH13[np.int64((left >> shift) & np.uint64(0x1FFF))]
        if top >= 0:
            out[b, o_top + 13 * suit + top] = 1


@njit(cache=True, inline="always")
def _observe_vint(small, words, b, me, out):
    """``vint_obs.encode_observation`` of seat ``me`` in game ``b`` into ``out[b]``."""
    out[b, :] = 0
    phase = small[b, _PHASE]
    if phase != OVER:
        out[b, O_PHASE + phase] = 1
    out[b, O_DEALER + ((small[b, _DEALER] - me) & 3)] = 1
    cur = small[b, _CUR]
    if cur >= 0:
        out[b, O_TO_MOVE + ((cur - me) & 3)] = 1
    _bits(out, b, O_HAND, words[b, HAND + me])
    for r in range(4):
        s = (me + r) & 3
        _bits(out, b, O_BIDS + 35 * r, words[b, BIDS + s])
        _bits(out, b, O_PLAYED + 52 * r, words[b, DEALT + s] ^ words[b, HAND + s])
    if phase == AUCTION:
        out[b, O_PASS_COUNT + min(small[b, _PASSES], 3)] = 1
    else:
        out[b, O_PASS_COUNT + 3] = 1
    h = small[b, _HIGHEST]
    if h >= 0:
        out[b, O_CONTRACT + h] = 1
        out[b, O_DECLARER + ((small[b, _BIDDER] - me) & 3)] = 1
    trump = small[b, _TRUMP]
    if trump >= 0:
        out[b, O_TRUMP + trump] = 1
        out[b, O_PASSOUT_PLAY] = small[b, _PASSED_OUT]
        _observe_play(small, words, b, me, out, O_TRICK_LEADER, O_TRICK, O_LAST_TRICK, O_TRICKS_TAKEN)
    _observe_tracking(small, words, b, me, out, O_WINNER, O_WINNING_CARD, O_VOIDS, O_CARDS_OUT, O_TOP,
                      np.uint64(0))


@njit(cache=True, inline="always")
def _observe_whist(small, words, b, me, out):
    """``whist_obs.encode_observation`` of seat ``me`` in game ``b`` into ``out[b]``."""
    out[b, :] = 0
    cur = small[b, _CUR]
    if cur >= 0:
        out[b, W_PHASE] = 1
        out[b, W_TO_MOVE + ((cur - me) & 3)] = 1
    dealer = np.int64(small[b, _DEALER])
    out[b, W_DEALER + ((dealer - me) & 3)] = 1
    _bits(out, b, W_HAND, words[b, HAND + me])
    for r in range(4):
        s = (me + r) & 3
        _bits(out, b, W_PLAYED + 52 * r, words[b, DEALT + s] ^ words[b, HAND + s])
    out[b, W_TRUMP + small[b, _TRUMP]] = 1
    turned = np.int64(small[b, _TURNED])
    seen = np.uint64(0)                  # the turned card is face up until played (docs/rules/whist.md)
    if turned >= 0:
        seen = np.uint64(1) << np.uint64(turned)
        out[b, W_TURNED_CARD + turned] = 1
        if (words[b, HAND + dealer] >> np.uint64(turned)) & np.uint64(1):
            out[b, W_TURNED_HOLDER + ((dealer - me) & 3)] = 1
    _observe_play(small, words, b, me, out, W_TRICK_LEADER, W_TRICK, W_LAST_TRICK, W_TRICKS_TAKEN)
    _observe_tracking(small, words, b, me, out, W_WINNER, W_WINNING_CARD, W_VOIDS, W_CARDS_OUT, W_TOP, seen)


@njit(cache=True, inline="always")
def _observe_one(small, words, b, me, out, game, solo):
    if game == WHIST:
        _observe_whist(small, words, b, me, out)
    elif solo:
        _observe_solo(small, words, b, me, out)
    else:
        _observe_vint(small, words, b, me, out)


@njit(cache=True, inline="always")
def _legal_one(small, words, b, out, solo):
    """Legal actions of the player to move in game ``b`` into ``out[b]`` (``solo``: the game is Solo Whist); returns
    them as ``_legal_set`` does, ``(bits, base)``, for the row's seal."""
    out[b, :] = 0
    bits, base = _legal_set(small, words, b, solo)
    if not solo and small[b, _PHASE] == AUCTION:      # Vint's pass and bids above the highest: one run
        out[b, PASS] = 1
        for i in range(small[b, _HIGHEST] + 1, NUM_BIDS):
            out[b, BID_BASE + i] = 1
    else:
        _bits(out, b, base, bits)
    return bits, base


# ---------------------------------------------------------------- Solo Whist (docs/rules/solo_whist.md)
# The auction, the abondance trump choice, the early ends and the payments; the trick play above is shared.
# Columns: ``highest`` is the highest bid's action (53..60), ``highest_bidder`` who made it (the reference's
# ``declarer`` during the auction), ``declarer`` is set once the auction ends with a contract.

@njit(cache=True, inline="always")
def _solo_new_auction(small, b):
    """A new deal's auction: eldest hand (left of the dealer) calls first, nobody has called yet."""
    small[b, _CUR] = (small[b, _DEALER] + 1) & 3
    small[b, _PARTNER] = -1
    small[b, _PASSED] = 0
    small[b, _MAY_ACCEPT] = 1
    small[b, _MUST_RAISE] = 0


@njit(cache=True, inline="always")
def _solo_declaring(small, b, s):
    """Seat ``s`` holds the highest bid: its bidder, or the partner who accepted it."""
    return small[b, _BIDDER] >= 0 and (s == small[b, _BIDDER] or s == small[b, _PARTNER])


@njit(cache=True, inline="always")
def _solo_proposal_standing(small, b):
    """A proposal is the highest bid and nobody has accepted it."""
    return small[b, _HIGHEST] == SOLO_PROPOSAL and small[b, _PARTNER] < 0


@njit(cache=True, inline="always")
def _solo_may_call(small, b, s, eldest):
    """Seat ``s`` is asked in turn: not holding the highest bid and not passed, or eldest's right to accept."""
    if _solo_declaring(small, b, s):
        return False
    if not (np.int64(small[b, _PASSED]) >> s) & 1:
        return True
    return s == eldest and small[b, _MAY_ACCEPT] == 1 and _solo_proposal_standing(small, b)


def _solo_bid_tables():
    """Solo Whist's higher bids as call bits ``action - SOLO_PASS`` (rules.solo_whist.SoloWhistDeal._legal_calls),
    worked out once here so that the kernels look them up: the bids above each highest bid, by ``highest -
    SOLO_CALL_BASE + 1`` (0: no bid yet; trump abondance only over abondance), and the bids open after an
    unaccepted proposal (any but it and trump abondance)."""
    above_table = np.zeros(16, dtype=np.uint64)
    for h in (-1, *range(SOLO_CALL_BASE, SOLO_TRUMP_BASE)):
        above = SOLO_BID_INDEX[h - SOLO_CALL_BASE] if h >= 0 else -1
        bits = 0
        for a in range(SOLO_CALL_BASE, SOLO_TRUMP_BASE):
            if a != SOLO_ACCEPT and SOLO_BID_INDEX[a - SOLO_CALL_BASE] > above \
                    and (a != SOLO_TRUMP_ABONDANCE or h == SOLO_ABONDANCE):
                bits |= 1 << (a - SOLO_PASS)
        above_table[h - SOLO_CALL_BASE + 1 if h >= 0 else 0] = bits
    raise_bits = sum(1 << (a - SOLO_PASS) for a in range(SOLO_ACCEPT + 1, SOLO_TRUMP_BASE)
                     if a != SOLO_TRUMP_ABONDANCE)
    return above_table, np.uint64(raise_bits)


_SOLO_BIDS_ABOVE, _SOLO_RAISES = _solo_bid_tables()
_SOLO_TRUMPS = np.uint64(15 << (SOLO_TRUMP_BASE - SOLO_PASS))
_SOLO_ACCEPT_BIT = np.uint64(1 << (SOLO_ACCEPT - SOLO_PASS))


@njit(cache=True, inline="always")
def _solo_legal_calls(small, b):
    """The calls the player to move may make, as bits ``action - SOLO_PASS`` (rules.solo_whist.SoloWhistDeal.
    _legal_calls): the four trump suits after an abondance; else pass, acceptance of a standing proposal, or a
    higher bid (the tables above; after an unaccepted proposal, pass or any bid but it)."""
    phase = small[b, _PHASE]
    if phase == TRUMP:
        return _SOLO_TRUMPS
    if phase != AUCTION:
        return np.uint64(0)
    if small[b, _MUST_RAISE] == 1:                       # an unaccepted proposal: bid higher or pass
        return _SOLO_RAISES | np.uint64(1)
    seat = np.int64(small[b, _CUR])
    if (np.int64(small[b, _PASSED]) >> (seat & 3)) & 1:  # eldest hand after passing: accept or pass
        return _SOLO_ACCEPT_BIT | np.uint64(1)
    h = np.int64(small[b, _HIGHEST])
    calls = np.uint64(1) | _SOLO_BIDS_ABOVE[(h - SOLO_CALL_BASE + 1 if h >= 0 else 0) & 15]
    if _solo_proposal_standing(small, b) and seat != small[b, _BIDDER]:
        calls |= _SOLO_ACCEPT_BIT
    return calls


@njit(cache=True)
def _solo_call(small, words, b, a, seat, literal, scale, points, rewards, terminated, terms):
    """A call, or the abondance declarer's trump choice, by ``seat`` (rules.solo_whist.SoloWhistDeal._call)."""
    if small[b, _PHASE] == TRUMP:
        _solo_start_play(small, words, b, a - SOLO_TRUMP_BASE, literal, scale, points, rewards, terminated, terms)
        return
    eldest = (np.int64(small[b, _DEALER]) + 1) & 3
    if a >= SOLO_CALL_BASE:                  # the observation's calls columns
        words[b, BIDS + seat] |= np.uint64(1) << np.uint64(a - SOLO_CALL_BASE)
    if a == SOLO_PASS:
        passed = np.int64(small[b, _PASSED])
        if (passed >> seat) & 1 or (seat == eldest and _solo_proposal_standing(small, b)):
            small[b, _MAY_ACCEPT] = 0        # eldest hand declined the proposal
        small[b, _PASSED] = passed | (1 << seat)
        if small[b, _MUST_RAISE] == 1:       # the proposer passes too: thrown in
            _finish(small, b, 0, scale, points, rewards, terminated)
            return
    elif a == SOLO_ACCEPT:
        small[b, _PARTNER] = seat
        if seat == eldest:
            small[b, _MAY_ACCEPT] = 0
    else:
        small[b, _HIGHEST] = a
        small[b, _BIDDER] = seat
        small[b, _PARTNER] = -1
        small[b, _MUST_RAISE] = 0
    for step in range(1, 4):
        nxt = (seat + step) & 3
        if _solo_may_call(small, b, nxt, eldest):
            small[b, _CUR] = nxt
            return
    h = np.int64(small[b, _HIGHEST])         # nobody else may call
    if h < 0:
        _finish(small, b, 0, scale, points, rewards, terminated)      # everybody passed: thrown in
    elif _solo_proposal_standing(small, b):
        small[b, _MUST_RAISE] = 1
        small[b, _CUR] = small[b, _BIDDER]
    else:
        declarer = small[b, _BIDDER]
        small[b, _DECLARER] = declarer
        if h == SOLO_ABONDANCE:              # the declarer names trump after the auction
            small[b, _PHASE] = TRUMP
            small[b, _CUR] = declarer
        elif h == SOLO_MISERE or h == SOLO_OPEN_MISERE or h == SOLO_DECLAREE:
            _solo_start_play(small, words, b, 4, literal, scale, points, rewards, terminated, terms)
        else:
            _solo_start_play(small, words, b, small[b, _TURNED] // 13, literal, scale, points, rewards,
                             terminated, terms)


@njit(cache=True)
def _solo_start_play(small, words, b, trump, literal, scale, points, rewards, terminated, terms):
    """Eldest hand leads (the declarer in abondance déclarée); the result may be certain before the first card."""
    small[b, _TRUMP] = trump
    leader = np.int64(small[b, _DECLARER]) if small[b, _HIGHEST] == SOLO_DECLAREE \
        else (np.int64(small[b, _DEALER]) + 1) & 3
    small[b, _LEADER] = leader
    small[b, _CUR] = leader
    small[b, _PHASE] = PLAY
    _solo_after_trick(small, words, b, literal, scale, points, rewards, terminated, terms)


@njit(cache=True, inline="always")
def _solo_certain(small, words, b, declarer, misere):
    """Nothing anybody plays can change a misère's (déclarée's) result, between tricks
    (rules.solo_whist.misere_is_safe / declaree_is_safe).  Misère: in every suit all the declarer's cards
    are lower than all the others' cards and, when the declarer is on lead, the others hold cards of every
    suit the declarer holds.  Déclarée: the declarer is on lead and in every suit all the declarer's cards
    are higher than all the others'."""
    on_lead = small[b, _LEADER] == declarer
    if not misere and not on_lead:
        return False
    mine = words[b, HAND + declarer]
    others = words[b, HAND + ((declarer + 1) & 3)] | words[b, HAND + ((declarer + 2) & 3)] \
        | words[b, HAND + ((declarer + 3) & 3)]
    for suit in range(4):
        m = _ranks(mine, suit)
        o = _ranks(others, suit)
        if m != 0 and o != 0:
            if misere and _HIGH13[m] > _HIGH13[o & -o]:
                return False
            if not misere and _HIGH13[m & -m] < _HIGH13[o]:
                return False
        elif misere and on_lead and m != 0:      # a lead nobody can follow would win the trick
            return False
    return True


@njit(cache=True)
def _solo_after_trick(small, words, b, literal, scale, points, rewards, terminated, terms):
    """End the deal when its result is settled (rules.solo_whist.SoloWhistDeal._after_trick)."""
    contract = np.int64(small[b, _HIGHEST])
    declarer = np.int64(small[b, _DECLARER])
    partner = np.int64(small[b, _PARTNER])
    taken = np.int64(small[b, WON + declarer])
    if partner >= 0:
        taken += small[b, WON + partner]
    played = np.int64(small[b, _TRICKS_PLAYED])
    over = played == 13
    if contract == SOLO_MISERE or contract == SOLO_OPEN_MISERE:
        if taken > 0:
            _solo_settle(small, b, taken, literal, scale, points, rewards, terminated, terms)
            return
        if not over and _solo_certain(small, words, b, declarer, True):
            _solo_settle(small, b, 0, literal, scale, points, rewards, terminated, terms)
            return
    elif contract == SOLO_DECLAREE:
        if played > taken:
            _solo_settle(small, b, taken, literal, scale, points, rewards, terminated, terms)
            return
        if not over and _solo_certain(small, words, b, declarer, False):
            _solo_settle(small, b, 13, literal, scale, points, rewards, terminated, terms)
            return
    if over:
        _solo_settle(small, b, taken, literal, scale, points, rewards, terminated, terms)


@njit(cache=True)
def _solo_settle(small, b, tricks, literal, scale, points, rewards, terminated, terms):
    """Payments of the finished contract, in quarter points (rules.solo_whist_payments.payments)."""
    contract = np.int64(small[b, _HIGHEST])
    stake = terms[contract - SOLO_CALL_BASE, 0]
    need = terms[contract - SOLO_CALL_BASE, 1]
    per_trick = terms[contract - SOLO_CALL_BASE, 2]
    if contract == SOLO_MISERE or contract == SOLO_OPEN_MISERE:
        made = tricks == 0
    else:
        made = tricks >= need
    if made:
        x = stake + per_trick * (tricks - need)
    elif per_trick == 0:                     # misères and déclarée: the stake, no undertricks
        x = -stake
    elif literal:
        x = -per_trick * (need - tricks)
    else:
        x = -(stake + per_trick * (need - tricks))
    declarer = np.int64(small[b, _DECLARER])
    partner = np.int64(small[b, _PARTNER])
    for s in range(4):
        if contract == SOLO_PROPOSAL:        # each partner receives from (pays to) one defender
            p = x if (s == declarer or s == partner) else -x
        else:                                # the declarer receives from (pays to) each of the three
            p = 3 * x if s == declarer else -x
        points[b, s] = p
        rewards[b, s] = p * scale
    small[b, _PHASE] = OVER
    small[b, _CUR] = -1
    terminated[b] = True


@njit(cache=True, inline="always")
def _observe_solo(small, words, b, me, out):
    """``games.solo_whist.encode_observation`` of seat ``me`` in game ``b`` into ``out[b]``."""
    out[b, :] = 0
    phase = small[b, _PHASE]
    if phase != OVER:
        out[b, S_PHASE + (0 if phase == AUCTION else (1 if phase == TRUMP else 2))] = 1
        out[b, S_TO_MOVE + ((small[b, _CUR] - me) & 3)] = 1
    dealer = np.int64(small[b, _DEALER])
    out[b, S_DEALER + ((dealer - me) & 3)] = 1
    _bits(out, b, S_HAND, words[b, HAND + me])
    turned = np.int64(small[b, _TURNED])
    out[b, S_TURNED_CARD + turned] = 1
    if (words[b, HAND + dealer] >> np.uint64(turned)) & np.uint64(1):
        out[b, S_TURNED_HOLDER + ((dealer - me) & 3)] = 1
    passed = np.int64(small[b, _PASSED])
    for r in range(4):
        s = (me + r) & 3
        _bits(out, b, S_CALLS + 8 * r, words[b, BIDS + s])
        if (passed >> s) & 1:
            out[b, S_PASSED + r] = 1
    out[b, S_MUST_RAISE] = small[b, _MUST_RAISE]
    h = np.int64(small[b, _HIGHEST])
    if h >= 0:
        out[b, S_HIGHEST + SOLO_BID_INDEX[h - SOLO_CALL_BASE]] = 1
        out[b, S_DECLARING + ((small[b, _BIDDER] - me) & 3)] = 1
        if small[b, _PARTNER] >= 0:
            out[b, S_DECLARING + ((small[b, _PARTNER] - me) & 3)] = 1
    if small[b, _DECLARER] >= 0:             # the auction ended with a contract: the observer's side
        mine = _solo_declaring(small, b, me)
        for r in range(4):
            if _solo_declaring(small, b, (me + r) & 3) == mine:
                out[b, S_WITH_ME + r] = 1
    seen = np.uint64(1) << np.uint64(turned)  # face up: the turned card until played, an open misère hand
    trump = small[b, _TRUMP]
    if trump >= 0:                            # play has started
        out[b, S_TRUMP + trump] = 1
        if h == SOLO_OPEN_MISERE and small[b, _TRICKS_PLAYED] >= 1:
            declarer = np.int64(small[b, _DECLARER])
            shown = words[b, HAND + declarer]
            out[b, S_EXPOSED_SEAT + ((declarer - me) & 3)] = 1
            _bits(out, b, S_EXPOSED, shown)
            seen |= shown
        _observe_trick_cards(small, b, me, out, S_TRICK_LEADER, S_TRICK, S_LAST_TRICK)
        for r in range(4):
            s = (me + r) & 3
            _bits(out, b, S_PLAYED + 52 * r, words[b, DEALT + s] ^ words[b, HAND + s])
            out[b, S_TRICKS_TAKEN + 14 * r + small[b, WON + s]] = 1
    _observe_tracking(small, words, b, me, out, S_WINNER, S_WINNING_CARD, S_VOIDS, S_CARDS_OUT, S_TOP, seen)


# Random deals, exactly as vint_env.vector.deals.random_deals (SplitMix64 keys, stable sort).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SALT = np.uint64(0xD1B54A32D192ED03)
_TURN_SALT = np.uint64(0x8CB92BA72F3D8DD7)


@njit(cache=True, inline="always")
def _mix(x):
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _insert_sorted(keys, items, i, key, item):
    """Insert ``item`` with ``key`` into the first ``i`` entries of ``keys`` / ``items``, sorted by key, after any
    equal key (one step of a stable insertion sort)."""
    j = i
    while j > 0 and keys[j - 1] > key:
        keys[j] = keys[j - 1]
        items[j] = items[j - 1]
        j -= 1
    keys[j] = key
    items[j] = item


@njit(cache=True, inline="always")
def _card_order(base):
    """The 52 cards in the order of their random keys from deal seed ``base``: 13 a hand, seat by seat (as
    ``deals.random_deals``).  Shared with two-player Vint's deals."""
    keys = np.empty(52, dtype=np.uint64)
    order = np.empty(52, dtype=np.int64)
    for i in range(52):
        _insert_sorted(keys, order, i, _mix(base + np.uint64(i + 1) * _GOLDEN), i)
    return order


@njit(cache=True, inline="always")
def _hand_of(order, s):
    """Seat ``s``'s hand of the card order (cards ``13 s`` to ``13 s + 12``) as a card mask."""
    hand = np.uint64(0)
    for i in range(13 * s, 13 * s + 13):
        hand |= np.uint64(1) << np.uint64(order[i])
    return hand


@njit(cache=True, inline="always")
def _start_row(small, words, b):
    """Game ``b``'s row as a new deal starts, before its game's own columns: every column of ``small`` -1 but the
    counters (passes, passed out, trick length, tricks played and won) at 0, no bids, no voids.  Shared with
    two-player Vint's deals (its columns begin with these)."""
    small[b, :] = -1
    small[b, _PASSES] = 0
    small[b, _PASSED_OUT] = 0
    small[b, _TRICK_LEN] = 0
    small[b, _TRICKS_PLAYED] = 0
    for s in range(4):
        small[b, WON + s] = 0
        words[b, BIDS + s] = 0
    words[b, VOIDS] = 0


@njit(cache=True)
def _deal_one(small, words, key, deal_index, b, game, no_trump):
    """Start game ``b``'s next random deal (as ``deals.random_deals`` and ``deals.start_deals``)."""
    base = _mix(key[b] ^ _mix(deal_index[b]))
    order = _card_order(base)
    _start_row(small, words, b)
    for s in range(4):
        hand = _hand_of(order, s)
        words[b, DEALT + s] = hand
        words[b, HAND + s] = hand
    dealer = np.int64(_mix(base ^ _SALT) >> np.uint64(62))
    small[b, _PHASE] = AUCTION
    small[b, _DEALER] = dealer
    if game == SOLO_WHIST or (game == WHIST and not no_trump):     # a uniform card of the dealer's hand is turned
        k = np.int64((_mix(base ^ _TURN_SALT) >> np.uint64(32)) % np.uint64(13))
        hand = words[b, DEALT + dealer]
        for c in range(52):
            if (hand >> np.uint64(c)) & np.uint64(1):
                if k == 0:
                    small[b, _TURNED] = c
                    break
                k -= 1
    if game == WHIST:           # docs/rules/whist.md: turned card's suit is trump; left of the dealer leads
        small[b, _TRUMP] = 4 if no_trump else small[b, _TURNED] // 13
        small[b, _PHASE] = PLAY
        small[b, _LEADER] = (dealer + 1) & 3
        small[b, _CUR] = (dealer + 1) & 3
    elif game == SOLO_WHIST:    # docs/rules/solo_whist.md, Auction: eldest hand calls first
        _solo_new_auction(small, b)
    else:
        small[b, _CUR] = dealer     # docs/rules/vint.md, Auction: the dealer calls first
    deal_index[b] += np.uint64(1)


@njit(cache=True, inline="always")
def _step_game(small, words, key, deal_index, b, action, game, passout_play, no_trump, ten_is_honour, honours_net,
               literal, scale, auto_reset, points, rewards, terminated, observer, obs, mask, run_tab, top_tab,
               pop_tab, coronet_tab, terms, solo):
    """A whole engine step of game ``b``: act, deal again if over, write observation and mask (``solo``: the game
    is Solo Whist, a constant of the caller's loop); returns the legal actions as ``_legal_set`` does."""
    terminated[b] = False
    for s in range(4):
        points[b, s] = 0
        rewards[b, s] = 0.0
    if small[b, _PHASE] != OVER:
        _apply_one(small, words, b, action, game, passout_play, ten_is_honour, honours_net, literal, scale, points,
                   rewards, terminated, run_tab, top_tab, pop_tab, coronet_tab, terms, solo)
        if auto_reset and terminated[b]:
            _deal_one(small, words, key, deal_index, b, game, no_trump)
    me = small[b, _CUR]
    if me < 0:
        me = max(small[b, _ACTOR], 0)
    observer[b] = me
    _observe_one(small, words, b, np.int64(me), obs, game, solo)
    return _legal_one(small, words, b, mask, solo)


@njit(cache=True)
def _first_refused(small, words, actions, game, seal_small, seal_words, sealed, seal_legal):
    """The first game whose row fails the row check (unless sealed) or whose action is not legal; -1 if none."""
    if game == SOLO_WHIST:        # one loop per kind of game: the other games' loop holds no Solo Whist code
        return _first_refused_of(small, words, actions, game, True, seal_small, seal_words, sealed, seal_legal)
    return _first_refused_of(small, words, actions, game, False, seal_small, seal_words, sealed, seal_legal)


@njit(cache=True, inline="always")
def _first_refused_of(small, words, actions, game, solo, seal_small, seal_words, sealed, seal_legal):
    for b in range(small.shape[0]):
        if _sealed(small, words, b, seal_small, seal_words, sealed):      # its legal actions as sealed
            bits, base = seal_legal[b, 0], np.int64(seal_legal[b, 1])
        elif _row_ok(small, words, b, game, solo):
            bits, base = _legal_set(small, words, b, solo)
        else:
            return b
        if not _in_set(small, b, actions[b], bits, base):
            return b
    return -1


def _step_kernel(parallel: bool):
    """The step kernel, over the games on one thread or over numba's threads (``parallel``): one source compiled
    twice.  It first checks every game (its row unless sealed, the legality of its action) and writes nothing
    unless all pass: it returns the first game refused, or -1 once every game has stepped and its row is sealed.
    The loop over the games is a closure value (``range`` or ``prange``): numba keys a cached closure by its code
    and its closure's values, so the two compilations keep distinct disk caches."""
    rows = prange if parallel else range

    @njit(cache=True, parallel=parallel)
    def step_kernel(small, words, key, deal_index, actions, game, passout_play, no_trump, ten_is_honour,
                    honours_net, literal, scale, auto_reset, points, rewards, terminated, observer, obs, mask,
                    run_tab, top_tab, pop_tab, coronet_tab, terms, seal_small, seal_words, sealed, seal_legal):
        # every array uncounted for the kernel's own use (_borrowed: numba's counts cost 40% of the loop)
        small, words, key, deal_index, actions = (_borrowed(small), _borrowed(words), _borrowed(key),
                                                  _borrowed(deal_index), _borrowed(actions))
        points, rewards, terminated, observer, obs, mask = (_borrowed(points), _borrowed(rewards),
                                                            _borrowed(terminated), _borrowed(observer),
                                                            _borrowed(obs), _borrowed(mask))
        run_tab, top_tab, pop_tab, coronet_tab, terms = (_borrowed(run_tab), _borrowed(top_tab), _borrowed(pop_tab),
                                                         _borrowed(coronet_tab), _borrowed(terms))
        seal_small, seal_words, sealed, seal_legal = (_borrowed(seal_small), _borrowed(seal_words),
                                                      _borrowed(sealed), _borrowed(seal_legal))
        # the checks run on one thread in both: a parallel pass of their own would make the threads meet twice
        refused = _first_refused(small, words, actions, game, seal_small, seal_words, sealed, seal_legal)
        if refused >= 0:
            return refused
        if game == SOLO_WHIST:                # one loop per kind of game: the others' loop holds no Solo Whist code
            for b in rows(small.shape[0]):
                bits, base = _step_game(small, words, key, deal_index, b, actions[b], game, passout_play, no_trump,
                                        ten_is_honour, honours_net, literal, scale, auto_reset, points, rewards,
                                        terminated, observer, obs, mask, run_tab, top_tab, pop_tab, coronet_tab,
                                        terms, True)
                _seal(small, words, b, seal_small, seal_words, sealed, seal_legal, bits, base)
            return -1
        for b in rows(small.shape[0]):
            bits, base = _step_game(small, words, key, deal_index, b, actions[b], game, passout_play, no_trump,
                                    ten_is_honour, honours_net, literal, scale, auto_reset, points, rewards,
                                    terminated, observer, obs, mask, run_tab, top_tab, pop_tab, coronet_tab, terms,
                                    False)
            _seal(small, words, b, seal_small, seal_words, sealed, seal_legal, bits, base)
        return -1

    return step_kernel


_step_serial, _step_parallel = _step_kernel(False), _step_kernel(True)


@njit(cache=True)
def _views_serial(small, words, seats, obs, mask, write_mask, game):
    for b in range(small.shape[0]):
        _observe_one(small, words, b, np.int64(seats[b]), obs, game, game == SOLO_WHIST)
        if write_mask:
            _legal_one(small, words, b, mask, game == SOLO_WHIST)


@njit(cache=True, parallel=True)
def _views_parallel(small, words, seats, obs, mask, write_mask, game):
    for b in prange(small.shape[0]):
        _observe_one(small, words, b, np.int64(seats[b]), obs, game, game == SOLO_WHIST)
        if write_mask:
            _legal_one(small, words, b, mask, game == SOLO_WHIST)


@njit(cache=True)
def _views_subset(small, words, games, observer, obs, mask, game):
    for i in range(games.shape[0]):
        b = games[i]
        me = small[b, _CUR]
        if me < 0:
            me = max(small[b, _ACTOR], 0)
        observer[b] = me
        _observe_one(small, words, b, np.int64(me), obs, game, game == SOLO_WHIST)
        _legal_one(small, words, b, mask, game == SOLO_WHIST)


# ---------------------------------------------------------------- the row seal (state.RowSeal)
@intrinsic
def _load8(typingctx, arr, offset):
    """The 8 bytes of int8 array ``arr``'s memory at byte ``offset`` as one uint64 (an unaligned load)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        ptr = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)
    return types.uint64(arr, types.int64), codegen


@intrinsic
def _store8(typingctx, arr, offset, value):
    """Write uint64 ``value`` as the 8 bytes of int8 array ``arr``'s memory at byte ``offset`` (unaligned)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        ptr = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        builder.store(args[2], ptr, align=1)
        return context.get_dummy_value()
    return types.void(arr, types.int64, types.uint64), codegen


def row_seal_kernels(num_small: int, num_words: int):
    """``(sealed, seal)`` for rows of ``num_small`` (at least 8) int8 and ``num_words`` uint64 columns: whether game
    ``b``'s row is sealed and still, byte for byte, its copy as a kernel checked or wrote it; and seal it as it is
    now, with its legal actions (two words ``legal0, legal1`` in the kernel module's form, kept in the seal's
    ``legal``: a sealed row's action is judged by a bit test, not worked out from the row again).  The ``small``
    row is read 8 bytes at a time (the last 8 overlapping), the column counts are compile-time constants of the
    loops: read column by column, or with the counts from the arrays' shapes, the comparison cost as much as the
    row check it replaces."""
    chunks = (num_small + 7) // 8

    @njit(inline="always")
    def sealed(small, words, b, seal_small, seal_words, sealed_rows):
        base = np.int64(b) * num_small
        diff = np.uint64(0)
        for k in range(chunks):
            at = base + min(8 * k, num_small - 8)
            diff |= _load8(small, at) ^ _load8(seal_small, at)
        for w in range(num_words):
            diff |= words[b, w] ^ seal_words[b, w]
        return (sealed_rows[b] != 0) & (diff == np.uint64(0))

    @njit(inline="always")
    def seal(small, words, b, seal_small, seal_words, sealed_rows, seal_legal, legal0, legal1):
        base = np.int64(b) * num_small
        for k in range(chunks):
            at = base + min(8 * k, num_small - 8)
            _store8(seal_small, at, _load8(small, at))
        for w in range(num_words):
            seal_words[b, w] = words[b, w]
        seal_legal[b, 0] = legal0
        seal_legal[b, 1] = legal1
        sealed_rows[b] = 1

    return sealed, seal


_sealed, _seal = row_seal_kernels(NUM_SMALL, NUM_WORDS)


# ---------------------------------------------------------------- the row check
# Every index a kernel computes from a state's values is bounded by this check, so no kernel writes outside its
# arrays whatever a caller put in them.  It runs before any kernel reads a state: inside the step kernels' own
# call (a first pass over the games, with the legality of their actions, before the pass that steps them), and
# as one pass of its own (check_rows) before the other kernels.  It is branch-free on valid rows: the games of a
# batch are in different phases, and a branch on each would be mispredicted half the time.

#: What the row check finds wrong: (name, message); ``_row_fault`` returns the position + 1 of the first broken.
_FAULTS = (
    ("phase", "phase must be 0 (auction), 1 (play), 2 (over) or, in Solo Whist, 3 (the abondance trump choice)"),
    ("current_player", "current_player must be -1..3"),
    ("actor", "actor must be -1..3"),
    ("dealer", "dealer must be 0..3"),
    ("highest", "highest must be -1..34 (a bid index; in Solo Whist -1 or a bid action 53, 55..60)"),
    ("highest_bidder", "highest_bidder must be -1..3"),
    ("passes", "passes must be 0..4"),
    ("passed_out", "passed_out must be 0 or 1"),
    ("trump", "trump must be -1..4"),
    ("declarer", "declarer must be -1..3"),
    ("leader", "leader must be -1..3"),
    ("trick_len", "trick_len must be 0..3"),
    ("last_leader", "last_leader must be -1..3"),
    ("tricks_played", "tricks_played must be 0..13"),
    ("turned", "turned must be -1..51"),
    ("won", "tricks won must be 0..13 each and add up to tricks_played"),
    ("cards", "trick and last-trick cards must be -1..51"),
    ("hands", "hands must be cards of the 52-card deck, each held as dealt"),
    ("deal", "the hands as dealt must be four hands of 13 cards, no card in two of them"),
    ("bids", "bids must be bid indices 0..34"),
    ("voids", "voids must be 16 bits (4 seats x 4 suits)"),
    ("auction", "an auction needs a seat to move 0..3 and at most 3 passes (and only Vint has one)"),
    ("play", "play needs a seat to move 0..3, a leader 0..3, a trump 0..4 and at most 12 tricks played"),
    ("contract", "Vint play needs a contract (highest 0..34, declarer 0..3) unless passed out"),
    ("whist_trump", "Whist needs a trump 0..4"),
    ("trick", "the trick in progress needs a leader 0..3 and a card 0..51 from each seat that played to it"),
    ("played", "each hand must be its cards as dealt less the cards its seat played: 13 less the tricks played, "
               "less one if it played to the trick in progress (a card of its hand as dealt, no longer held)"),
    ("solo_auction", "Solo Whist: partner must be -1..3, passed 0..15 (a bit per seat), may_accept and must_raise "
                     "0 or 1"),
    ("solo_turned", "Solo Whist: turned must be a card 0..51 of the dealer's hand as dealt"),
    ("solo_calls", "Solo Whist: calls must be 8 bits (bit action - 53) per seat"),
    ("solo_bid", "Solo Whist: a bid needs its bidder 0..3, the trump choice an abondance, its declarer and a seat "
                 "to move"),
    ("other_game", "the columns only another game's rules write must hold their start values (the turned card in "
                   "Vint; the auction and contract in Whist; Solo Whist's auction in the others): a state of "
                   "another game's engine?"),
)
ROW_FAULTS = tuple(message for _, message in _FAULTS)
_NUM_FAULTS = len(_FAULTS)
_CODE = {name: i + 1 for i, (name, _) in enumerate(_FAULTS)}
(_F_HIGHEST, _F_WON, _F_HANDS, _F_PLAYED, _F_DEAL, _F_BIDS, _F_VOIDS, _F_AUCTION, _F_PLAY, _F_CONTRACT,
 _F_WHIST_TRUMP, _F_TRICK, _F_SOLO_TURNED, _F_SOLO_CALLS, _F_SOLO_BID) = (
    _CODE[n] for n in ("highest", "won", "hands", "played", "deal", "bids", "voids", "auction", "play", "contract",
                       "whist_trump", "trick", "solo_turned", "solo_calls", "solo_bid"))


def _column_bounds():
    """Per game (by kernel number) and column of ``small``: its lowest value, its span (highest - lowest, as
    uint8) and the fault code of a value outside."""
    games = max(VINT, WHIST, SOLO_WHIST) + 1
    low = np.full((games, NUM_SMALL), -128, dtype=np.int8)
    high = np.full((games, NUM_SMALL), 127, dtype=np.int16)
    code = np.zeros((games, NUM_SMALL), dtype=np.int8)
    seat = (-1, 3)
    bounds = {"phase": (0, 2), "current_player": seat, "actor": seat, "dealer": (0, 3), "highest": (-1, NUM_BIDS - 1),
              "highest_bidder": seat, "passes": (0, 4), "passed_out": (0, 1), "trump": (-1, 4), "declarer": seat,
              "leader": seat, "trick_len": (0, 3), "last_leader": seat, "tricks_played": (0, 13), "turned": (-1, 51)}
    for g in range(games):
        rows = dict(bounds)
        if g == SOLO_WHIST:       # highest: a bid action, refined by the relational check (not 0..52, not 54)
            rows.update(phase=(0, 3), highest=(-1, SOLO_DECLAREE))
        columns = [(name, name, lo_hi) for name, lo_hi in rows.items()]
        for s in range(4):
            columns += [(f"won{s}", "won", (0, 13)), (f"trick{s}", "cards", (-1, 51)), (f"last{s}", "cards", (-1, 51))]
        if g == SOLO_WHIST:
            columns += [("partner", "solo_auction", seat), ("passed", "solo_auction", (0, 15)),
                        ("may_accept", "solo_auction", (0, 1)), ("must_raise", "solo_auction", (0, 1))]
        else:                     # what only another game's rules write stays -1
            columns += [(name, "other_game", (-1, -1)) for name in ("partner", "passed", "may_accept", "must_raise")]
            if g == VINT:
                columns += [("turned", "other_game", (-1, -1))]
        if g == WHIST:            # no auction, no contract
            columns += [("highest", "other_game", (-1, -1)), ("highest_bidder", "other_game", (-1, -1)),
                        ("declarer", "other_game", (-1, -1)), ("passes", "other_game", (0, 0)),
                        ("passed_out", "other_game", (0, 0))]
        for column, fault, (lo, hi) in columns:
            low[g, COL[column]], high[g, COL[column]], code[g, COL[column]] = lo, hi, _CODE[fault]
    return low, (high - low).astype(np.uint8), code


_LOW, _SPAN, _COLUMN_FAULT = _column_bounds()


@intrinsic
def _borrowed(typingctx, arr):
    """Array ``arr`` without its reference count (its memory-info pointer null), for a kernel's own use.

    numba counts the references to an array each time an inlined function takes it, with an atomic
    instruction (15 increments and 15 decrements a game in the step loop, where its pruning pass gave up on
    the loop body's branches): about 40% of Whist's step loop (in one process, load about 2.4: 474 ns a
    game-step counted, 276 uncounted).  The state's arrays live in the caller for the whole kernel call, so
    a kernel may use them uncounted; a borrowed array never leaves the kernel that made it (the kernels
    return numbers), and with a null pointer numba's counting is a test and no atomic instruction."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, value=args[0])
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        return array._getvalue()
    return arr(arr), codegen


@intrinsic
def _popcount(typingctx, x):
    """Set bits of a uint64 (one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def _fault_bit(broken, code):
    return np.uint64(1 if broken else 0) << np.uint64(code - 1)


@njit(cache=True, inline="always")
def _relation_faults(small, words, b, game, solo):
    """The faults beyond one column's range, as bits (bit ``code - 1``); no branch, every index masked in range.
    ``solo``: ``game == SOLO_WHIST``, a constant where the caller's loop is compiled for one kind of game (a
    branch on the game inside the loop, never taken, still made the loop 3 times slower)."""
    zero = np.uint64(0)
    phase = small[b, _PHASE]
    cur = small[b, _CUR]
    h = np.int64(small[b, _HIGHEST])
    won = np.int64(small[b, WON]) + small[b, WON + 1] + small[b, WON + 2] + small[b, WON + 3]
    faults = _fault_bit(won != small[b, _TRICKS_PLAYED], _F_WON)
    deck = np.uint64((1 << 52) - 1)
    outside = zero
    dealt_all = zero
    size_off = zero
    bids = zero
    tricks = np.int64(small[b, _TRICKS_PLAYED])
    played_off = False
    for s in range(4):
        dealt = words[b, DEALT + s]
        hand = words[b, HAND + s]
        outside |= (dealt & ~deck) | (hand & ~dealt)
        size_off |= _popcount(dealt) ^ np.uint64(13)
        dealt_all |= dealt
        bids |= words[b, BIDS + s]
        # the hand is the cards dealt less the cards played: one a trick, and the card on the trick in progress
        card = np.int64(small[b, TRICK + s])
        on_trick = card >= 0
        played_off |= (np.int64(_popcount(hand)) + tricks + np.int64(on_trick)) != 13
        played_off |= on_trick & ((((dealt & ~hand) >> np.uint64(card & 63)) & np.uint64(1)) == zero)
    faults |= _fault_bit(outside != zero, _F_HANDS)
    faults |= _fault_bit(played_off, _F_PLAYED)
    faults |= _fault_bit((size_off != zero) | (dealt_all != deck), _F_DEAL)
    faults |= _fault_bit((bids >> np.uint64(NUM_BIDS)) != zero, _F_BIDS)
    faults |= _fault_bit((words[b, VOIDS] >> np.uint64(16)) != zero, _F_VOIDS)
    faults |= _fault_bit((phase == AUCTION) & ((game == WHIST) | (cur < 0) | (small[b, _PASSES] > 3)), _F_AUCTION)
    faults |= _fault_bit((phase == PLAY) & ((cur < 0) | (small[b, _LEADER] < 0) | (small[b, _TRUMP] < 0)
                                            | (small[b, _TRICKS_PLAYED] > 12)), _F_PLAY)
    faults |= _fault_bit((phase == PLAY) & (game != WHIST) & (small[b, _PASSED_OUT] == 0)
                         & ((h < 0) | (small[b, _DECLARER] < 0)), _F_CONTRACT)
    faults |= _fault_bit((game == WHIST) & (small[b, _TRUMP] < 0), _F_WHIST_TRUMP)
    n = np.int64(small[b, _TRICK_LEN])
    leader = np.int64(small[b, _LEADER])
    missing = (n > 0) & (leader < 0)
    for i in range(3):
        missing |= (i < n) & (small[b, TRICK + ((leader + i) & 3)] < 0)
    faults |= _fault_bit(missing, _F_TRICK)
    if solo:
        turned = np.int64(small[b, _TURNED])
        dealer_hand = words[b, DEALT + (small[b, _DEALER] & 3)]
        faults |= _fault_bit((h != -1) & ((h < SOLO_CALL_BASE) | (h == SOLO_ACCEPT)), _F_HIGHEST)
        faults |= _fault_bit((turned < 0) | (((dealer_hand >> np.uint64(turned & 63)) & np.uint64(1)) == zero),
                             _F_SOLO_TURNED)
        faults |= _fault_bit((bids >> np.uint64(8)) != zero, _F_SOLO_CALLS)
        faults |= _fault_bit(((h >= 0) & (small[b, _BIDDER] < 0))
                             | ((phase == TRUMP) & ((h != SOLO_ABONDANCE) | (small[b, _DECLARER] < 0) | (cur < 0))),
                             _F_SOLO_BID)
    return faults


@njit(cache=True, inline="always")
def _row_ok(small, words, b, game, solo):
    """Game ``b``'s row holds values the kernels can index by (no branch: the fast path of every kernel)."""
    low = _LOW[game]
    span = _SPAN[game]
    out = np.uint8(0)
    for c in range(NUM_SMALL):            # v in lo..hi  <=>  (v - lo) mod 256 <= hi - lo
        out |= np.uint8(np.uint8(small[b, c] - low[c]) > span[c])
    return (out == 0) & (_relation_faults(small, words, b, game, solo) == np.uint64(0))


@njit(cache=True)
def _row_fault(small, words, b, game):
    """0 if game ``b``'s row passes the row check, else the code (``ROW_FAULTS`` position + 1) of the first fault."""
    low = _LOW[game]
    span = _SPAN[game]
    code = 0
    for c in range(NUM_SMALL):
        if np.uint8(small[b, c] - low[c]) > span[c] and (code == 0 or _COLUMN_FAULT[game, c] < code):
            code = np.int64(_COLUMN_FAULT[game, c])
    faults = _relation_faults(small, words, b, game, game == SOLO_WHIST)
    for i in range(_NUM_FAULTS):
        if (faults >> np.uint64(i)) & np.uint64(1) and (code == 0 or i + 1 < code):
            return i + 1
    return code


@njit(cache=True)
def _first_fault(small, words, game, out):
    for b in range(small.shape[0]):
        if not _row_ok(small, words, b, game, game == SOLO_WHIST):
            out[0] = b
            out[1] = _row_fault(small, words, b, game)
            return


_ALL_BIDS = np.uint64((1 << NUM_BIDS) - 1)


@njit(cache=True, inline="always")
def _legal_set(small, words, b, solo):
    """The legal actions of the player to move in game ``b`` as ``(bits, base)``: action ``base + i`` for each
    set bit ``i`` (none in a finished deal).  The rules ``_legal_one`` writes into the mask, as bits: the mask
    writer fills the auction's bids as a run, this serves the step's legality check and the random choice.
    No branch outside Solo Whist's calls (``solo``: a constant of the caller's loop), and every index masked in
    range, so any values give some set and never a read outside the row."""
    phase = small[b, _PHASE]
    if solo and phase != PLAY:                                    # Solo Whist's calls and trump choice
        return _solo_legal_calls(small, b), np.int64(SOLO_PASS)
    hand = words[b, HAND + (small[b, _CUR] & 3)]
    led = np.int64(small[b, TRICK + (small[b, _LEADER] & 3)]) // 13
    follow = hand & (np.uint64(0x1FFF) << np.uint64((13 * led) & 63))
    cards = follow if (small[b, _TRICK_LEN] > 0) & (follow != np.uint64(0)) else hand
    above = np.uint64((np.int64(small[b, _HIGHEST]) + 1) & 63)   # Vint: pass, or a bid above the highest
    calls = np.uint64(1) | (((_ALL_BIDS >> above) << above) << np.uint64(1))
    bits = cards if phase == PLAY else (calls if phase == AUCTION else np.uint64(0))
    return bits, np.int64(0 if phase == PLAY else PASS)


@njit(cache=True, inline="always")
def _is_legal(small, words, b, a, solo):
    """Whether action ``a`` is legal in game ``b``, from the state itself (never from its mask array); any action
    is taken (and ignored) in a finished deal."""
    bits, base = _legal_set(small, words, b, solo)
    return _in_set(small, b, a, bits, base)


@njit(cache=True, inline="always")
def _in_set(small, b, a, bits, base):
    """Whether action ``a`` is one of game ``b``'s legal actions ``(bits, base)`` (``_legal_set``'s form); any
    action is taken (and ignored) in a finished deal."""
    i = a - base
    return (small[b, _PHASE] == OVER) | ((i >= 0) & (i < 64) & (((bits >> np.uint64(i & 63)) & np.uint64(1)) != 0))


@njit(cache=True)
def _random_legal(small, words, u, out, game, seal_small, seal_words, sealed, seal_legal):
    """Action ``floor(u[b] * n_legal)``-th legal action of each game (-1 in a finished deal), from the state;
    returns the first game whose row fails the row check (then ``out`` is not complete), or -1.  A row not
    sealed is sealed once it passes."""
    small, words, u, out = _borrowed(small), _borrowed(words), _borrowed(u), _borrowed(out)   # uncounted: _borrowed
    seal_small, seal_words, sealed, seal_legal = (_borrowed(seal_small), _borrowed(seal_words), _borrowed(sealed),
                                                  _borrowed(seal_legal))
    if game == SOLO_WHIST:
        return _random_legal_of(small, words, u, out, game, True, seal_small, seal_words, sealed, seal_legal)
    return _random_legal_of(small, words, u, out, game, False, seal_small, seal_words, sealed, seal_legal)


@njit(cache=True, inline="always")
def _random_legal_of(small, words, u, out, game, solo, seal_small, seal_words, sealed, seal_legal):
    for b in range(small.shape[0]):
        if _sealed(small, words, b, seal_small, seal_words, sealed):      # its legal actions as sealed
            bits, base = seal_legal[b, 0], np.int64(seal_legal[b, 1])
        elif _row_ok(small, words, b, game, solo):
            bits, base = _legal_set(small, words, b, solo)
            _seal(small, words, b, seal_small, seal_words, sealed, seal_legal, bits, base)
        else:
            return b
        k = np.int64(u[b] * np.int64(_popcount(bits)))
        for _ in range(k):                                       # drop the k lowest legal actions
            bits &= bits - np.uint64(1)
        low = bits & (~bits + np.uint64(1))
        out[b] = base + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)] if bits != np.uint64(0) else -1
    return -1


@njit(cache=True)
def _illegal(small, words, actions, game, bad):
    n = 0
    for b in range(small.shape[0]):
        if not _is_legal(small, words, b, actions[b], game == SOLO_WHIST):
            bad[n] = b
            n += 1
    return n


# ---------------------------------------------------------------- the backend interface
# Each function takes a state its engine admitted (state.admit: its arrays are the engine's) and runs the row
# check before any kernel that indexes by the state's values: inside the step kernels' own call, as a pass of
# its own (check_rows) before the others.

@njit(cache=True)
def _legal_into(small, words, out, game):
    _legal_one(small, words, 0, out, game == SOLO_WHIST)


_BACKEND = KernelBackend(code="game", row_faults=ROW_FAULTS, first_fault=_first_fault, first_refused=_first_refused,
                         random_legal=_random_legal, legal_into=_legal_into, illegal=_illegal,
                         views_serial=_views_serial, views_parallel=_views_parallel,
                         view_options=lambda spec: (spec.game,), viewer="seat", viewers=4)
check_rows, random_legal, first_refused = _BACKEND.check_rows, _BACKEND.random_legal, _BACKEND.first_refused
legal_actions, illegal_games = _BACKEND.legal_actions, _BACKEND.illegal_games
write_observation = _BACKEND.write_observation


def step(state: VintBatchState, actions: np.ndarray, spec: KernelOptions, auto_reset: bool,
         parallel: bool = False, seal: RowSeal | None = None) -> int:
    """One engine step in place; -1 once done.  Unless every game's row passes the row check (or is sealed in
    ``seal``, the state's from ``state.admit``) and its action is legal, nothing is written and the first game
    that fails is returned (``illegal_games`` / ``check_rows`` name what failed); else every row is sealed."""
    acts = step_actions(state, actions)
    seal = seal if seal is not None else unsealed(state)
    kernel = _step_parallel if parallel else _step_serial
    return kernel(state.small, state.words, state.key, state.deal_index, acts, spec.game, spec.passout_play,
                  spec.no_trump, spec.ten_is_honour, spec.honours_net, spec.payments_literal, spec.reward_scale,
                  auto_reset, state.points, state.rewards, state.terminated, state.observer, state.observation,
                  state.legal_action_mask, RUN_FROM_ACE, TOP_FIVE, POPCOUNT_13, WHIST_CORONET, SOLO_TERMS,
                  *seal.arrays)


def write_views(state: VintBatchState, spec: KernelOptions, parallel: bool = False, games=None) -> None:
    """Observation and mask of the player to move (or last actor of a finished deal), in ``games`` or all."""
    check_rows(state, spec)
    if games is not None:
        games = view_games(state, games)
        _views_subset(state.small, state.words, games, state.observer,
                      state.observation, state.legal_action_mask, spec.game)
        return
    cur = state.small[:, _CUR]
    state.observer[:] = np.where(cur >= 0, cur, np.maximum(state.small[:, _ACTOR], 0))
    kernel = _views_parallel if parallel else _views_serial
    kernel(state.small, state.words, state.observer, state.observation, state.legal_action_mask, True, spec.game)


@njit(cache=True)
def _sample(mask, u, out):
    for b in range(mask.shape[0]):
        count = 0
        for j in range(mask.shape[1]):
            count += mask[b, j]
        k = np.int64(u[b] * count)
        out[b] = -1
        for j in range(mask.shape[1]):
            if mask[b, j]:
                if k == 0:
                    out[b] = j
                    break
                k -= 1


def unpack_bits(words: np.ndarray, nbits: int) -> np.ndarray:
    """The low ``nbits`` bits of uint64 ``words`` as 0/1 uint8, shape ``words.shape + (nbits,)``."""
    w = np.ascontiguousarray(words, dtype="<u8")
    b = w.view(np.uint8).reshape(*w.shape, 8)
    return np.unpackbits(b, axis=-1, bitorder="little")[..., :nbits]


def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Action ``floor(u[b] * n_legal)``-th legal action of each row (-1 for a row with none)."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    _sample(mask, u, out)
    return out
