"""Two-player Vint (the five ways of the books) as numba-compiled loops: the batched engine's kernel for ``vint2p_v0``.

The second of the two implementations of these rules (the first is the
readable reference, :mod:`vint_env.rules.vint2p` over the four-player
auction, trick play and scoring; the differential tests in
``tests/vector/test_vector_vint2p.py`` play both action by action, way by
way).  What is ordinary Vint is shared with the four-player kernel
(:mod:`.four_seat_kernels`: the contract's points, the trick blocks of the
observation, the deal's random stream); this module holds what is particular
to two players: the seats of each way, who decides and who sees which hand,
the two-caller auction, the exchanges (ways 2, 3), the widow, the give-aways
and the final contract (way 5), tricks of two cards (ways 2, 3).

A state's columns are :data:`~vint_env.vector.state.VINT2P_COLUMNS` and its
words the four-player ones plus the widow, the discards and the hands as
dealt (:mod:`vint_env.vector.state`).  The backend interface (``step``,
``write_views``, ``write_observation``, ``check_rows``, ``legal_actions``,
``illegal_games``, ``sample_legal``) is :mod:`.four_seat_kernels`'s, its shared
part written once in :mod:`.backend`; as there, a step kernel checks every
game's row and the legality of its action in its own call and writes nothing
unless all pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..games import vint2p as game
from ..rules import vint2p as rules
from .backend import KernelBackend, check_observation_out, step_actions, unsealed, view_games
from .four_seat_kernels import (_DEBRUIJN, _DEBRUIJN_INDEX, _bits, _borrowed, _card_order, _close_trick,
                                _contract_points, _hand_of, _insert_sorted, _mix, _observe_trick_cards,
                                _observe_voids_and_cards_out, _passout_points, _play_card, _popcount, _start_row,
                                row_seal_kernels, sample_legal, unpack_bits)  # noqa: F401
from .state import (AUCTION, BIDS, DEALT, DISCARDS, EXCHANGE, FINAL, GIVE, HAND, LAST, OVER, PLAY, TRICK, V2COL,
                    VINT2P_NUM_SMALL, VINT2P_NUM_WORDS, VOIDS, WIDOW, WIDOW_WORD, WON, ORIGINAL, EngineStateError,
                    KernelOptions, RowSeal, VintBatchState)
from .tables import BID_BASE, NUM_BIDS, PASS, RUN_FROM_ACE, TOP_FIVE

KEEP, EXCHANGE_HAND, WIDOW_TO_HAND, WIDOW_TO_DUMMY = (rules.KEEP, rules.EXCHANGE_HAND, rules.WIDOW_TO_HAND,
                                                      rules.WIDOW_TO_DUMMY)
NUM_ACTIONS = rules.NUM_ACTIONS
assert rules.PLAYER_SEATS == {1: (0, 1), 2: (0, 2), 3: (0, 2), 4: (0, 1), 5: (0, 1)}, "the ways' seats moved"
assert rules.PILE_OF == {0: 3, 2: 1} and rules.EXCHANGE_LIMIT == 13

_PHASE, _CUR, _ACTOR, _DEALER = V2COL["phase"], V2COL["current_player"], V2COL["actor"], V2COL["dealer"]
_HIGHEST, _BIDDER, _PASSES, _PASSED_OUT = V2COL["highest"], V2COL["highest_bidder"], V2COL["passes"], \
    V2COL["passed_out"]
_TRUMP, _DECLARER, _LEADER, _TRICK_LEN = V2COL["trump"], V2COL["declarer"], V2COL["leader"], V2COL["trick_len"]
_LAST_LEADER, _TRICKS_PLAYED = V2COL["last_leader"], V2COL["tricks_played"]
_CTRL, _CALLS, _WINNING_BID, _WIDOW_TO, _GIVES = (V2COL["ctrl0"], V2COL["calls"], V2COL["winning_bid"],
                                                  V2COL["widow_to"], V2COL["gives"])
_EXCHANGED, _EXCHANGE_DONE, _EXCHANGER = V2COL["exchanged0"], V2COL["exchange_done0"], V2COL["exchanger"]
_PILE1, _PILE3 = V2COL["pile1_0"], V2COL["pile3_0"]

# Observation offsets (games/vint2p.py, VINT2P_LAYOUT).
_O = game.VINT2P_LAYOUT.offset
O_WAY, O_SINGLE, O_PHASE, O_TO_MOVE, O_ACTING_FOR = (_O["way"], _O["single_auction"], _O["phase"], _O["to_move"],
                                                     _O["acting_for"])
O_DEALER, O_ROLES, O_OPEN_DUMMY, O_SHOWN, O_HANDS = (_O["dealer"], _O["roles"], _O["open_dummy"], _O["shown"],
                                                     _O["hands"])
O_MY_DISCARDS, O_EXCHANGED, O_EXCHANGE_DONE, O_BIDS = (_O["my_discards"], _O["exchanged"], _O["exchange_done"],
                                                       _O["bids"])
O_PASS_COUNT, O_CONTRACT, O_DECLARER, O_WINNING_BID = (_O["pass_count"], _O["contract"], _O["declarer"],
                                                       _O["winning_bid"])
O_WIDOW_TO, O_GIVES, O_TRUMP, O_PASSOUT_PLAY = _O["widow_to"], _O["gives"], _O["trump"], _O["passout_play"]
O_TRICK_LEADER, O_TRICK, O_LAST_TRICK, O_PLAYED = (_O["trick_leader"], _O["trick"], _O["last_trick"],
                                                   _O["played"])
O_WINNER, O_WINNING_CARD, O_VOIDS, O_CARDS_OUT, O_TOP = (_O["trick_winner"], _O["winning_card"], _O["voids"],
                                                         _O["cards_out"], _O["top_remaining"])
O_TRICKS_TAKEN = _O["tricks_taken"]
assert game.ROLES == ("own hand", "own dummy", "opponent", "opponent's dummy", "dummy not yet taken", "pile")
#: The observation's ``phase`` column of each kernel phase code (-1: none, the deal is over).
_PHASE_COLUMN = np.full(8, -1, dtype=np.int64)
for _i, _p in enumerate(game.PHASES):
    _PHASE_COLUMN[_p.code] = _i

_DECK = np.uint64((1 << 52) - 1)
_sealed, _seal = row_seal_kernels(VINT2P_NUM_SMALL, VINT2P_NUM_WORDS)
_BID_BITS = np.uint64((1 << NUM_BIDS) - 1)


# ---------------------------------------------------------------- seats (rules.vint2p.Vint2pDeal, "seats")
@njit(cache=True, inline="always")
def _two_hands(way):
    """Ways 2 and 3: the players sit opposite (seats 0 and 2) and play tricks of two cards."""
    return way == 2 or way == 3


@njit(cache=True, inline="always")
def _seat_of(way, player):
    return np.int64(player) * (2 if _two_hands(way) else 1)


@njit(cache=True, inline="always")
def _next_seat(way, seat):
    """The next seat to play to a trick: clockwise, or the other hand (ways 2, 3)."""
    return (seat + (2 if _two_hands(way) else 1)) & 3


@njit(cache=True, inline="always")
def _dummy_of(small, b, way, player):
    """The dummy seat ``player`` controls, -1 if none."""
    own = _seat_of(way, player)
    for s in range(2, 4):
        if small[b, _CTRL + s] == player and s != own:
            return s
    return -1


@njit(cache=True, inline="always")
def _role(small, b, way, seat, player):
    """The observation's ``roles`` column of ``seat`` seen by ``player`` (games.vint2p._role)."""
    ctrl = np.int64(small[b, _CTRL + seat])
    if ctrl < 0:
        return 4 if (seat >= 2 and (way == 4 or way == 5)) else 5
    own = seat == _seat_of(way, ctrl)
    if ctrl == player:
        return 0 if own else 1
    return 2 if own else 3


@njit(cache=True, inline="always")
def _visible(small, b, way, player):
    """The seats ``player`` sees now, bit s (Vint2pDeal.visible_seats)."""
    own = _seat_of(way, player)
    if _two_hands(way):
        return 1 << own
    if small[b, _PHASE] == AUCTION:
        other = own + 2 if way == 1 else np.int64(small[b, _DEALER]) + 2     # way 1: his dummy; 4, 5: the open one
        return (1 << own) | (1 << other)
    return (1 << own) | 12


# ---------------------------------------------------------------- legality: one predicate for the mask and the step
@njit(cache=True, inline="always")
def _legal_bits(small, words, b, way):
    """The legal actions of the seat to act as two masks: cards (bit = card) and calls (bit = action - 52)."""
    one = np.uint64(1)
    zero = np.uint64(0)
    phase = small[b, _PHASE]
    cards = zero
    calls = zero
    if phase == PLAY:
        hand = words[b, HAND + (small[b, _CUR] & 3)]
        if small[b, _TRICK_LEN] > 0:
            led = np.int64(small[b, TRICK + (small[b, _LEADER] & 3)]) // 13
            follow = hand & (np.uint64(0x1FFF) << np.uint64((13 * led) & 63))
            if follow != zero:
                hand = follow
        cards = hand
    elif phase == AUCTION:                     # pass, or a bid above the highest
        above = np.uint64(np.int64(small[b, _HIGHEST]) + 1)
        calls = one | ((_BID_BITS & ~((one << above) - one)) << one)
    elif phase == EXCHANGE:
        if way == 2:
            calls = (one << np.uint64(KEEP - PASS)) | (one << np.uint64(EXCHANGE_HAND - PASS))
        else:                                  # way 3: a card to exchange, or stop
            cards = words[b, HAND + _seat_of(way, small[b, _EXCHANGER] & 1)]
            calls = one << np.uint64(KEEP - PASS)
    elif phase == WIDOW:
        calls = (one << np.uint64(WIDOW_TO_HAND - PASS)) | (one << np.uint64(WIDOW_TO_DUMMY - PASS))
    elif phase == GIVE:
        cards = words[b, HAND + (small[b, _WIDOW_TO] & 3)]
    elif phase == FINAL:                       # any bid at least the winning one
        at = np.uint64(np.int64(small[b, _WINNING_BID]) & 63)
        calls = (_BID_BITS & ~((one << at) - one)) << one
    return cards, calls


@njit(cache=True, inline="always")
def _is_legal(small, words, b, a, way):
    """Whether action ``a`` is legal in game ``b``, from the state (never its mask array); anything goes once over."""
    cards, calls = _legal_bits(small, words, b, way)
    return _in_bits(small, b, a, cards, calls)


@njit(cache=True, inline="always")
def _in_bits(small, b, a, cards, calls):
    """Whether action ``a`` is one of game ``b``'s legal actions ``(cards, calls)`` (``_legal_bits``'s form);
    anything goes once over."""
    if small[b, _PHASE] == OVER:
        return True
    one = np.uint64(1)
    if 0 <= a < 52:
        return ((cards >> np.uint64(a)) & one) == one
    if PASS <= a < NUM_ACTIONS:
        return ((calls >> np.uint64(a - PASS)) & one) == one
    return False


@njit(cache=True, inline="always")
def _legal_one(small, words, b, out, way):
    """The legal actions of the seat to act into ``out[b]``; returns them as ``_legal_bits`` does (for the seal)."""
    out[b, :] = 0
    cards, calls = _legal_bits(small, words, b, way)
    _bits(out, b, 0, cards)
    _bits(out, b, PASS, calls)
    return cards, calls


# ---------------------------------------------------------------- moves (rules.vint2p.Vint2pDeal.apply)
@njit(cache=True, inline="always")
def _start_tricks(small, words, b, trump, leader):
    """Play starts: the hands as they are now are the ones scored and shown as played from."""
    for s in range(4):
        words[b, DEALT + s] = words[b, HAND + s]
    small[b, _TRUMP] = trump
    small[b, _LEADER] = leader
    small[b, _CUR] = leader
    small[b, _TRICK_LEN] = 0
    small[b, _PHASE] = PLAY


@njit(cache=True, inline="always")
def _start_play(small, words, b, way):
    """The contract is settled: the lead of each way (Vint2pDeal._start_play)."""
    declarer = np.int64(small[b, _DECLARER])
    decl_player = np.int64(small[b, _CTRL + (declarer & 3)]) & 1
    if way == 1:
        leader = (declarer + 1) & 3            # left of the declarer, as in ordinary Vint
    elif way == 3:
        leader = declarer                      # the one who named the game
    else:
        leader = _seat_of(way, 1 - decl_player)
    _start_tricks(small, words, b, np.int64(small[b, _HIGHEST]) % 5, leader)


@njit(cache=True)
def _finish(small, words, b, way, honours_net, scale, points, rewards, terminated):
    """Score the deal (per player: his hand and his dummy) and end it."""
    t0 = 0
    t1 = 0
    for s in range(4):
        ctrl = small[b, _CTRL + s]
        won = np.int64(small[b, WON + s])
        t0 += won * (ctrl == 0)
        t1 += won * (ctrl == 1)
    if small[b, _PASSED_OUT] == 1:
        diff = _passout_points(t0, t1)
    else:
        zero = np.uint64(0)
        d0 = _dummy_of(small, b, way, 0)
        d1 = _dummy_of(small, b, way, 1)
        diff = _contract_points(words[b, DEALT + _seat_of(way, 0)], words[b, DEALT + _seat_of(way, 1)],
                                words[b, DEALT + (d0 & 3)] if d0 >= 0 else zero,
                                words[b, DEALT + (d1 & 3)] if d1 >= 0 else zero, t0, t1,
                                np.int64(small[b, _HIGHEST]), np.int64(small[b, _CTRL + (small[b, _DECLARER] & 3)]),
                                honours_net, RUN_FROM_ACE, TOP_FIVE)
    _end(small, b, diff, scale, points, rewards, terminated)


@njit(cache=True, inline="always")
def _end(small, b, diff, scale, points, rewards, terminated):
    small[b, _PHASE] = OVER
    small[b, _CUR] = -1
    points[b, 0] = diff
    points[b, 1] = -diff
    rewards[b, 0] = diff * scale
    rewards[b, 1] = -diff * scale
    terminated[b] = True


@njit(cache=True)
def _call(small, words, b, a, seat, way, single, passout_play, scale, points, rewards, terminated):
    """A call of the two-player auction (rules.vint.Auction with two callers, the dealer first)."""
    calls = min(np.int64(small[b, _CALLS]) + 1, 2)     # way 1's single round ends after two calls
    small[b, _CALLS] = calls
    small[b, _CUR] = _seat_of(way, 1 - (np.int64(small[b, _CTRL + seat]) & 1))
    if a != PASS:
        i = a - BID_BASE
        small[b, _HIGHEST] = i
        small[b, _BIDDER] = seat
        small[b, _PASSES] = 0
        words[b, BIDS + seat] |= np.uint64(1) << np.uint64(i)
    else:
        small[b, _PASSES] += 1
    h = small[b, _HIGHEST]
    passes = small[b, _PASSES]
    if single:
        if calls < 2:
            return
        contract = h >= 0
    elif h < 0:
        if passes < 2:
            return
        contract = False
    else:
        if passes < 1:
            return
        contract = True
    dealer = np.int64(small[b, _DEALER])
    if contract:
        declarer = np.int64(small[b, _BIDDER])
        small[b, _DECLARER] = declarer
        decl_player = np.int64(small[b, _CTRL + declarer])
        if way == 4 or way == 5:               # the declarer takes the open dummy, the other the closed one
            small[b, _CTRL + dealer + 2] = decl_player
            small[b, _CTRL + 3 - dealer] = 1 - decl_player
        if way == 5:
            small[b, _WINNING_BID] = h
            small[b, _PHASE] = WIDOW
            small[b, _CUR] = declarer
        else:
            _start_play(small, words, b, way)
        return
    small[b, _PASSED_OUT] = 1                  # passed out (docs/rules/vint2p.md, Pass-out)
    if passout_play:
        if way == 4:                           # the dealer keeps the open dummy
            small[b, _CTRL + dealer + 2] = dealer
            small[b, _CTRL + 3 - dealer] = 1 - dealer
        dealer_seat = _seat_of(way, dealer)
        leader = (dealer_seat + 1) & 3 if way == 1 else _seat_of(way, 1 - dealer)
        _start_tricks(small, words, b, 4, leader)
    else:
        _end(small, b, 0, scale, points, rewards, terminated)


@njit(cache=True, inline="always")
def _done_exchanging(small, b, way, player):
    small[b, _EXCHANGE_DONE + player] = 1
    if small[b, _EXCHANGE_DONE + 1 - player] == 1:
        small[b, _PHASE] = AUCTION
        small[b, _CUR] = _seat_of(way, small[b, _DEALER])        # the dealer calls first
    else:
        small[b, _EXCHANGER] = 1 - player
        small[b, _CUR] = _seat_of(way, 1 - player)


@njit(cache=True)
def _exchange(small, words, b, a, way):
    """Ways 2 and 3 (Vint2pDeal._exchange): keep, the whole hand for the pile, or a card for the pile's top."""
    one = np.uint64(1)
    player = np.int64(small[b, _EXCHANGER]) & 1
    seat = _seat_of(way, player)
    pile = 3 if seat == 0 else 1
    if a == KEEP:
        _done_exchanging(small, b, way, player)
    elif a == EXCHANGE_HAND:
        words[b, DISCARDS + player] = words[b, HAND + seat]
        words[b, HAND + seat] = words[b, HAND + pile]
        words[b, HAND + pile] = 0
        small[b, _EXCHANGED + player] = 13
        _done_exchanging(small, b, way, player)
    else:
        n = np.int64(small[b, _EXCHANGED + player])
        top = np.uint64(small[b, (_PILE3 if pile == 3 else _PILE1) + min(n, 12)] & 63)
        bit = one << np.uint64(a)
        words[b, HAND + seat] = (words[b, HAND + seat] & ~bit) | (one << top)
        words[b, HAND + pile] &= ~(one << top)
        words[b, DISCARDS + player] |= bit
        small[b, _EXCHANGED + player] = n + 1
        if n + 1 == 13:
            _done_exchanging(small, b, way, player)


@njit(cache=True)
def _give(small, words, b, a, way):
    """Way 5: three give-aways from the hand that took the widow, to fixed recipients (Vint2pDeal._give)."""
    declarer = np.int64(small[b, _DECLARER])
    decl = np.int64(small[b, _CTRL + (declarer & 3)]) & 1
    widow_to = np.int64(small[b, _WIDOW_TO]) & 3
    gives = np.int64(small[b, _GIVES])
    if gives == 0:
        to = _dummy_of(small, b, way, decl) if widow_to == declarer else declarer
    elif gives == 1:
        to = _seat_of(way, 1 - decl)
    else:
        to = _dummy_of(small, b, way, 1 - decl)
    bit = np.uint64(1) << np.uint64(a)
    words[b, HAND + widow_to] &= ~bit
    words[b, HAND + (to & 3)] |= bit
    small[b, _GIVES] = gives + 1
    if gives + 1 == 3:
        small[b, _PHASE] = FINAL
        small[b, _CUR] = declarer


@njit(cache=True, inline="always")
def _winning(small, b, way, leader, n):
    """The seat winning game ``b``'s trick of ``n`` cards led by ``leader`` so far, and its card: the highest
    trump, else the highest card of the suit led (the seats in the way's order)."""
    trump = np.int64(small[b, _TRUMP])
    winner = leader
    best = np.int64(small[b, TRICK + leader])
    s = leader
    for _ in range(n - 1):
        s = _next_seat(way, s)
        c = np.int64(small[b, TRICK + s])
        if (c // 13 == best // 13 and c > best) or (c // 13 != best // 13 and c // 13 == trump):
            winner = s
            best = c
    return winner, best


@njit(cache=True)
def _apply_one(small, words, b, a, way, single, passout_play, honours_net, scale, points, rewards, terminated):
    """One legal action in game ``b``."""
    phase = small[b, _PHASE]
    seat = np.int64(small[b, _CUR]) & 3
    small[b, _ACTOR] = seat
    if phase == PLAY:
        n, leader = _play_card(small, words, b, seat, a)
        if n < (2 if _two_hands(way) else 4):
            small[b, _CUR] = _next_seat(way, seat)
            return
        winner, _ = _winning(small, b, way, leader, n)
        played = _close_trick(small, b, leader, winner)
        if played == 13:
            _finish(small, words, b, way, honours_net, scale, points, rewards, terminated)
    elif phase == AUCTION:
        _call(small, words, b, a, seat, way, single, passout_play, scale, points, rewards, terminated)
    elif phase == EXCHANGE:
        _exchange(small, words, b, a, way)
    elif phase == WIDOW:
        decl = np.int64(small[b, _CTRL + seat]) & 1
        widow_to = seat if a == WIDOW_TO_HAND else _dummy_of(small, b, way, decl)
        small[b, _WIDOW_TO] = widow_to
        words[b, HAND + (widow_to & 3)] |= words[b, WIDOW_WORD]
        small[b, _PHASE] = GIVE
        small[b, _CUR] = widow_to
    elif phase == GIVE:
        _give(small, words, b, a, way)
    else:                                      # FINAL: the final contract, at least the winning bid
        small[b, _HIGHEST] = a - BID_BASE
        _start_play(small, words, b, way)


# ---------------------------------------------------------------- the observation (games.vint2p.encode_observation)
@njit(cache=True, inline="always")
def _observe(small, words, b, player, out, way, single):
    """``games.vint2p.encode_observation`` of ``player`` (0, 1) in game ``b`` into ``out[b]`` (deal episodes)."""
    out[b, :] = 0
    zero = np.uint64(0)
    me = _seat_of(way, player)
    phase = np.int64(small[b, _PHASE])
    out[b, O_WAY + way - 1] = 1
    out[b, O_SINGLE] = single
    col = _PHASE_COLUMN[phase & 7]
    if col >= 0:
        out[b, O_PHASE + col] = 1
    seat = np.int64(small[b, _CUR])
    if seat >= 0:
        mover = small[b, _CTRL + seat]
        out[b, O_TO_MOVE + (mover != player)] = 1
        if mover == player:
            out[b, O_ACTING_FOR + ((seat - me) & 3)] = 1
    out[b, O_DEALER + (small[b, _DEALER] != player)] = 1
    for s in range(4):
        out[b, O_ROLES + ((s - me) & 3) * 6 + _role(small, b, way, s, player)] = 1
    if way == 4 or way == 5:
        out[b, O_OPEN_DUMMY + ((np.int64(small[b, _DEALER]) + 2 - me) & 3)] = 1
    known = words[b, DISCARDS + player]
    visible = _visible(small, b, way, player)
    for s in range(4):
        if (visible >> s) & 1:
            r = (s - me) & 3
            out[b, O_SHOWN + r] = 1
            _bits(out, b, O_HANDS + 52 * r, words[b, HAND + s])
            known |= words[b, HAND + s]
    playing = small[b, _TRUMP] >= 0
    played = zero
    if playing:
        for s in range(4):
            played |= words[b, DEALT + s] ^ words[b, HAND + s]
    # the tracking blocks (games.obs_blocks.encode_tracking): every card not played is still out, seen or not
    n = np.int64(small[b, _TRICK_LEN])
    if playing and n > 0:
        winner, best = _winning(small, b, way, np.int64(small[b, _LEADER]), n)
        out[b, O_WINNER + ((winner - me) & 3)] = 1
        out[b, O_WINNING_CARD + best] = 1
    remaining = _DECK & ~played
    _observe_voids_and_cards_out(words, b, me, out, O_VOIDS, O_CARDS_OUT, O_TOP, remaining, remaining & ~known)
    if _two_hands(way):
        _bits(out, b, O_MY_DISCARDS, words[b, DISCARDS + player])
        for p in range(2):
            rel = 1 if p != player else 0
            out[b, O_EXCHANGED + 14 * rel + small[b, _EXCHANGED + p]] = 1
            out[b, O_EXCHANGE_DONE + rel] = small[b, _EXCHANGE_DONE + p]
    for p in range(2):
        _bits(out, b, O_BIDS + 35 * (1 if p != player else 0), words[b, BIDS + _seat_of(way, p)])
    out[b, O_PASS_COUNT + min(small[b, _PASSES], 1)] = 1
    h = small[b, _HIGHEST]
    if h >= 0:
        out[b, O_CONTRACT + h] = 1
        out[b, O_DECLARER + (small[b, _BIDDER] != me)] = 1
    if small[b, _WINNING_BID] >= 0:
        out[b, O_WINNING_BID + small[b, _WINNING_BID]] = 1
    widow_to = np.int64(small[b, _WIDOW_TO])
    if widow_to >= 0:
        out[b, O_WIDOW_TO + ((widow_to - me) & 3)] = 1
    if way == 5:
        out[b, O_GIVES + small[b, _GIVES]] = 1
    if playing:
        out[b, O_TRUMP + small[b, _TRUMP]] = 1
        out[b, O_PASSOUT_PLAY] = small[b, _PASSED_OUT]
        _observe_trick_cards(small, b, me, out, O_TRICK_LEADER, O_TRICK, O_LAST_TRICK)
        for r in range(4):
            s = (me + r) & 3
            _bits(out, b, O_PLAYED + 52 * r, words[b, DEALT + s] ^ words[b, HAND + s])
        mine = 0
        theirs = 0
        for s in range(4):
            ctrl = small[b, _CTRL + s]
            won = np.int64(small[b, WON + s])
            mine += won * (ctrl == player)
            theirs += won * (ctrl == 1 - player)
        out[b, O_TRICKS_TAKEN + mine] = 1
        out[b, O_TRICKS_TAKEN + 14 + theirs] = 1


# ---------------------------------------------------------------- deals (the engine's random stream)
_SALT = np.uint64(0xD1B54A32D192ED03)          # the dealer, as four_seat_kernels._deal_one
_WIDOW_SALT = np.uint64(0x8CB92BA72F3D8DD7)    # way 5's widow: one card of each hand
_PILE_SALT = np.uint64(0xA0761D6478BD642F)     # ways 2, 3: the order of the piles


@njit(cache=True)
def _new_deal(small, words, b, way, dealer, widow, piles):
    """Start a deal from the hands as dealt in ``words[b, ORIGINAL:]``, the dealing player, way 5's widow (a card
    mask) and ways 2/3's pile orders (``piles[0]`` the pile at seat 1, ``piles[1]`` at seat 3, top first)."""
    _start_row(small, words, b)
    small[b, _CALLS] = 0
    small[b, _GIVES] = 0
    for s in range(4):
        words[b, DEALT + s] = words[b, ORIGINAL + s] & ~widow
        words[b, HAND + s] = words[b, ORIGINAL + s] & ~widow
    words[b, WIDOW_WORD] = widow
    words[b, DISCARDS] = 0
    words[b, DISCARDS + 1] = 0
    for p in range(2):
        small[b, _EXCHANGED + p] = 0
        small[b, _EXCHANGE_DONE + p] = 0
        small[b, _CTRL + _seat_of(way, p)] = p
    if way == 1:                               # each player's dummy lies opposite him
        small[b, _CTRL + 2] = 0
        small[b, _CTRL + 3] = 1
    if _two_hands(way):
        for i in range(13):
            small[b, _PILE1 + i] = piles[0, i]
            small[b, _PILE3 + i] = piles[1, i]
    small[b, _DEALER] = dealer
    small[b, _EXCHANGER] = dealer              # ways 2, 3: the dealer exchanges first
    small[b, _PHASE] = EXCHANGE if _two_hands(way) else AUCTION
    small[b, _CUR] = _seat_of(way, dealer)     # the dealer exchanges / calls first


@njit(cache=True)
def _random_deal(small, words, key, deal_index, b, way):
    """Game ``b``'s next deal from its key: the 52 cards as four_seat_kernels._deal_one deals them, the dealing
    player, way 5's widow (a uniform card of each hand), ways 2/3's pile orders (uniform permutations)."""
    base = _mix(key[b] ^ _mix(deal_index[b]))
    order = _card_order(base)
    widow = np.uint64(0)
    piles = np.full((2, 13), -1, dtype=np.int8)
    for s in range(4):
        hand = _hand_of(order, s)
        words[b, ORIGINAL + s] = hand
        if way == 5:                           # the k-th lowest card of the hand goes to the widow
            k = np.int64((_mix(base ^ (_WIDOW_SALT + np.uint64(s))) >> np.uint64(32)) % np.uint64(13))
            widow |= np.uint64(1) << np.uint64(_nth_card(hand, k))
        if _two_hands(way) and (s == 1 or s == 3):
            pile = piles[s // 2]
            pkeys = np.empty(13, dtype=np.uint64)
            for i in range(13):                # the hand's cards in the order of their random keys
                c = np.int64(order[13 * s + i])
                _insert_sorted(pkeys, pile, i, _mix(base ^ (_PILE_SALT + np.uint64(c))), c)
    dealer = np.int64(_mix(base ^ _SALT) >> np.uint64(63))
    _new_deal(small, words, b, way, dealer, widow, piles)
    deal_index[b] += np.uint64(1)


@njit(cache=True, inline="always")
def _nth_card(hand, k):
    for c in range(52):
        if (hand >> np.uint64(c)) & np.uint64(1):
            if k == 0:
                return c
            k -= 1
    return 0


@njit(cache=True)
def _random_deals(small, words, key, deal_index, games, way):
    for i in range(games.shape[0]):
        _random_deal(small, words, key, deal_index, games[i], way)


@njit(cache=True)
def _given_deals(small, words, deal_index, games, dealers, widows, piles, way):
    """Deals given by the caller (their hands already in ``words[:, ORIGINAL:]``)."""
    for i in range(games.shape[0]):
        _new_deal(small, words, games[i], way, dealers[i], widows[i], piles[i])
        deal_index[games[i]] += np.uint64(1)


# ---------------------------------------------------------------- the row check
_FAULTS = (
    ("columns", "a column of small is out of its range (phase, seats -1..3, the dealer and controllers players "
                "0/1, counts, cards -1..51, bids -1..34)"),
    ("won", "tricks won must add up to tricks_played"),
    ("cards", "the hands now (in play: as play started), the widow not yet taken and the discards must hold every "
              "card once, each hand now held as play started (before play: as dealt, less the widow), and the hands "
              "as dealt must be four hands of 13 cards"),
    ("bids", "bids must be bid indices 0..34, voids 16 bits"),
    ("phase", "the phase must be one of this way's, with a seat to act (the auction: at most one pass in a row; "
              "the widow, give-aways and final contract: the declarer and the winning bid; the "
              "exchange: at most 12 cards exchanged by the player exchanging, both piles in order)"),
    ("play", "play needs a leader 0..3, a trump 0..4, at most 12 tricks played, a contract unless passed out, and "
             "a card from each seat that played to the trick in progress"),
    ("played", "in play each hand must be its cards as play started less the cards its seat played: one a trick "
               "(a seat that plays to tricks), and the card on the trick in progress (no longer held)"),
)
ROW_FAULTS = tuple(message for _, message in _FAULTS)


def _column_bounds():
    low = np.full(VINT2P_NUM_SMALL, -1, dtype=np.int8)
    high = np.full(VINT2P_NUM_SMALL, -1, dtype=np.int16)
    seat = (-1, 3)
    bounds = {"phase": (0, 7), "current_player": seat, "actor": seat, "dealer": (0, 1),
              "highest": (-1, NUM_BIDS - 1), "highest_bidder": seat, "passes": (0, 2), "passed_out": (0, 1),
              "trump": (-1, 4), "declarer": seat, "leader": seat, "trick_len": (0, 3), "last_leader": seat,
              "tricks_played": (0, 13), "calls": (0, 2), "winning_bid": (-1, NUM_BIDS - 1), "widow_to": seat,
              "gives": (0, 3), "exchanger": (0, 1)}
    for s in range(4):
        bounds.update({f"won{s}": (0, 13), f"trick{s}": (-1, 51), f"last{s}": (-1, 51), f"ctrl{s}": (-1, 1)})
    for p in range(2):
        bounds.update({f"exchanged{p}": (0, 13), f"exchange_done{p}": (0, 1)})
    for i in range(13):
        bounds.update({f"pile1_{i}": (-1, 51), f"pile3_{i}": (-1, 51)})
    for name, (lo, hi) in bounds.items():          # the others (turned, Solo Whist's auction) stay -1
        low[V2COL[name]], high[V2COL[name]] = lo, hi
    return low, (high - low).astype(np.uint8)


_LOW, _SPAN = _column_bounds()
# The phases each way has, bit = phase code.
_WAY_PHASES = np.zeros(6, dtype=np.int64)
for _way in rules.WAYS:
    _WAY_PHASES[_way] = (1 << AUCTION) | (1 << PLAY) | (1 << OVER)
    if _way in (2, 3):
        _WAY_PHASES[_way] |= 1 << EXCHANGE
    if _way == 5:
        _WAY_PHASES[_way] |= (1 << WIDOW) | (1 << GIVE) | (1 << FINAL)


@njit(cache=True, inline="always")
def _faults(small, words, b, way):
    """The row's faults as bits (bit = position in ``_FAULTS``); no branch on a valid row, indices masked."""
    zero = np.uint64(0)
    out = np.uint8(0)
    for c in range(VINT2P_NUM_SMALL):          # v in lo..hi  <=>  (v - lo) mod 256 <= hi - lo
        out |= np.uint8(np.uint8(small[b, c] - _LOW[c]) > _SPAN[c])
    faults = np.int64(out != 0)
    won = np.int64(small[b, WON]) + small[b, WON + 1] + small[b, WON + 2] + small[b, WON + 3]
    faults |= np.int64(won != small[b, _TRICKS_PLAYED]) << 1
    playing = small[b, _TRUMP] >= 0
    widow_out = words[b, WIDOW_WORD] if small[b, _WIDOW_TO] < 0 else zero
    union = widow_out | words[b, DISCARDS] | words[b, DISCARDS + 1]
    count = _popcount(widow_out) + _popcount(words[b, DISCARDS]) + _popcount(words[b, DISCARDS + 1])
    outside = zero
    original = zero
    sizes = zero
    for s in range(4):
        held = words[b, DEALT + s] if playing else words[b, HAND + s]
        union |= held
        count += _popcount(held)
        outside |= words[b, HAND + s] & ~words[b, DEALT + s] if playing \
            else words[b, DEALT + s] ^ (words[b, ORIGINAL + s] & ~words[b, WIDOW_WORD])
        original |= words[b, ORIGINAL + s]
        sizes |= _popcount(words[b, ORIGINAL + s]) ^ np.uint64(13)
    faults |= np.int64((union != _DECK) | (count != np.uint64(52)) | (outside != zero) | (original != _DECK)
                       | (sizes != zero)) << 2
    bids = words[b, BIDS] | words[b, BIDS + 1] | words[b, BIDS + 2] | words[b, BIDS + 3]
    faults |= np.int64(((bids >> np.uint64(NUM_BIDS)) != zero) | ((words[b, VOIDS] >> np.uint64(16)) != zero)) << 3
    phase = np.int64(small[b, _PHASE])
    cur = small[b, _CUR]
    exchanger = np.int64(small[b, _EXCHANGER]) & 1
    bad_phase = (((_WAY_PHASES[way] >> (phase & 7)) & 1) == 0) | ((phase != OVER) & (cur < 0)) \
        | ((phase == AUCTION) & (small[b, _PASSES] > 1)) \
        | (((phase == WIDOW) | (phase == GIVE) | (phase == FINAL))
           & ((small[b, _DECLARER] < 0) | (small[b, _WINNING_BID] < 0) | (small[b, _CTRL + (small[b, _DECLARER] & 3)] < 0))) \
        | ((phase == GIVE) & ((small[b, _WIDOW_TO] < 0) | (small[b, _GIVES] > 2))) \
        | ((phase == EXCHANGE) & (small[b, _EXCHANGED + exchanger] > 12))
    for i in range(13):                        # ways 2, 3: both piles' cards in order, the exchange reads them
        bad_phase |= _two_hands(way) & ((small[b, _PILE1 + i] < 0) | (small[b, _PILE3 + i] < 0))
    faults |= np.int64(bad_phase) << 4
    n = np.int64(small[b, _TRICK_LEN])
    leader = np.int64(small[b, _LEADER])
    bad_play = (phase == PLAY) & ((leader < 0) | (small[b, _TRUMP] < 0) | (small[b, _TRICKS_PLAYED] > 12)
                                  | ((small[b, _PASSED_OUT] == 0)
                                     & ((small[b, _HIGHEST] < 0) | (small[b, _DECLARER] < 0)))
                                  | (n >= (2 if _two_hands(way) else 4)))
    s = leader & 3
    for i in range(3):
        bad_play |= (i < n) & (small[b, TRICK + s] < 0)
        s = _next_seat(way, s)
    faults |= np.int64(bad_play) << 5
    tricks = np.int64(small[b, _TRICKS_PLAYED])
    played_off = False
    for s in range(4):                         # the hand is the cards as play started less the cards played
        played = words[b, DEALT + s] & ~words[b, HAND + s]
        card = np.int64(small[b, TRICK + s])
        on_trick = card >= 0
        plays = np.int64((not _two_hands(way)) or (s & 1) == 0)   # ways 2, 3: the piles at seats 1, 3 never play
        played_off |= np.int64(_popcount(played)) != tricks * plays + np.int64(on_trick)
        played_off |= on_trick & (((played >> np.uint64(card & 63)) & np.uint64(1)) == zero)
    faults |= np.int64(playing & played_off) << 6
    return faults


@njit(cache=True)
def _first_fault(small, words, way, out):
    for b in range(small.shape[0]):
        f = _faults(small, words, b, way)
        if f != 0:
            out[0] = b
            for i in range(len(_FAULTS)):
                if (f >> i) & 1:
                    out[1] = i + 1
                    return
            return


@njit(cache=True)
def _first_refused(small, words, actions, way, seal_small, seal_words, sealed, seal_legal):
    for b in range(small.shape[0]):
        if _sealed(small, words, b, seal_small, seal_words, sealed):      # its legal actions as sealed
            cards, calls = seal_legal[b, 0], seal_legal[b, 1]
        elif _faults(small, words, b, way) == 0:
            cards, calls = _legal_bits(small, words, b, way)
        else:
            return b
        if not _in_bits(small, b, actions[b], cards, calls):
            return b
    return -1


@njit(cache=True)
def _illegal(small, words, actions, way, bad):
    n = 0
    for b in range(small.shape[0]):
        if not _is_legal(small, words, b, actions[b], way):
            bad[n] = b
            n += 1
    return n


# ---------------------------------------------------------------- the kernels
@njit(cache=True, inline="always")
def _observer(small, b):
    """The player whose view a game shows: the one to decide, else the one who acted last."""
    seat = small[b, _CUR]
    if seat < 0:
        seat = max(small[b, _ACTOR], 0)
    return max(small[b, _CTRL + seat], 0)


@njit(cache=True, inline="always")
def _step_game(small, words, key, deal_index, b, action, way, single, passout_play, honours_net, scale, auto_reset,
               points, rewards, terminated, observer, obs, mask):
    terminated[b] = False
    for p in range(2):
        points[b, p] = 0
        rewards[b, p] = 0.0
    if small[b, _PHASE] != OVER:
        _apply_one(small, words, b, action, way, single, passout_play, honours_net, scale, points, rewards,
                   terminated)
        if auto_reset and terminated[b]:
            _random_deal(small, words, key, deal_index, b, way)
    me = _observer(small, b)
    observer[b] = me
    _observe(small, words, b, np.int64(me), obs, way, single)
    return _legal_one(small, words, b, mask, way)


def _step_kernel(parallel: bool):
    """The step kernel on one thread or over numba's threads (``parallel``), one source compiled twice with
    distinct disk caches (four_seat_kernels._step_kernel): it checks every game first and writes nothing unless
    all pass; -1 once every game has stepped and its row is sealed, else the first game refused."""
    rows = prange if parallel else range

    @njit(cache=True, parallel=parallel)
    def step_kernel(small, words, key, deal_index, actions, way, single, passout_play, honours_net, scale,
                    auto_reset, points, rewards, terminated, observer, obs, mask, seal_small, seal_words, sealed,
                    seal_legal):
        # every array uncounted for the kernel's own use (four_seat_kernels._borrowed)
        small, words, key, deal_index, actions = (_borrowed(small), _borrowed(words), _borrowed(key),
                                                  _borrowed(deal_index), _borrowed(actions))
        points, rewards, terminated, observer, obs, mask = (_borrowed(points), _borrowed(rewards),
                                                            _borrowed(terminated), _borrowed(observer),
                                                            _borrowed(obs), _borrowed(mask))
        seal_small, seal_words, sealed, seal_legal = (_borrowed(seal_small), _borrowed(seal_words),
                                                      _borrowed(sealed), _borrowed(seal_legal))
        refused = _first_refused(small, words, actions, way, seal_small, seal_words, sealed, seal_legal)
        if refused >= 0:
            return refused
        for b in rows(small.shape[0]):
            cards, calls = _step_game(small, words, key, deal_index, b, actions[b], way, single, passout_play,
                                      honours_net, scale, auto_reset, points, rewards, terminated, observer, obs,
                                      mask)
            _seal(small, words, b, seal_small, seal_words, sealed, seal_legal, cards, calls)
        return -1

    return step_kernel


_step_serial, _step_parallel = _step_kernel(False), _step_kernel(True)


@njit(cache=True)
def _views_serial(small, words, players, obs, mask, write_mask, way, single):
    for b in range(small.shape[0]):
        _observe(small, words, b, np.int64(players[b]), obs, way, single)
        if write_mask:
            _legal_one(small, words, b, mask, way)


@njit(cache=True, parallel=True)
def _views_parallel(small, words, players, obs, mask, write_mask, way, single):
    for b in prange(small.shape[0]):
        _observe(small, words, b, np.int64(players[b]), obs, way, single)
        if write_mask:
            _legal_one(small, words, b, mask, way)


@njit(cache=True)
def _views_subset(small, words, games, observer, obs, mask, way, single):
    for i in range(games.shape[0]):
        b = games[i]
        me = _observer(small, b)
        observer[b] = me
        _observe(small, words, b, np.int64(me), obs, way, single)
        _legal_one(small, words, b, mask, way)


@njit(cache=True)
def _deciders(small, out):
    for b in range(small.shape[0]):
        seat = small[b, _CUR]
        out[b] = -1 if seat < 0 else small[b, _CTRL + (seat & 3)]


# ---------------------------------------------------------------- the backend interface (backend.KernelBackend's)
@njit(cache=True)
def _random_legal(small, words, u, out, way, seal_small, seal_words, sealed, seal_legal):
    """The ``floor(u[b] * n)``-th of the ``n`` legal actions of each game (cards, then calls), from the state
    (-1 in a finished deal); returns the first game whose row fails the row check (``out`` then incomplete), or -1.
    A row not sealed is sealed once it passes."""
    # every array uncounted for the kernel's own use (four_seat_kernels._borrowed)
    small, words, u, out = _borrowed(small), _borrowed(words), _borrowed(u), _borrowed(out)
    seal_small, seal_words, sealed, seal_legal = (_borrowed(seal_small), _borrowed(seal_words), _borrowed(sealed),
                                                  _borrowed(seal_legal))
    for b in range(small.shape[0]):
        if _sealed(small, words, b, seal_small, seal_words, sealed):      # its legal actions as sealed
            cards, calls = seal_legal[b, 0], seal_legal[b, 1]
        elif _faults(small, words, b, way) == 0:
            cards, calls = _legal_bits(small, words, b, way)
            _seal(small, words, b, seal_small, seal_words, sealed, seal_legal, cards, calls)
        else:
            return b
        out[b] = -1
        if small[b, _PHASE] == OVER:
            continue
        n_cards = np.int64(_popcount(cards))
        k = np.int64(u[b] * (n_cards + np.int64(_popcount(calls))))
        bits, base = (cards, 0) if k < n_cards else (calls, PASS)
        if k >= n_cards:
            k -= n_cards
        for _ in range(k):                      # drop the k lowest legal actions
            bits &= bits - np.uint64(1)
        low = bits & (~bits + np.uint64(1))
        out[b] = base + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]
    return -1


@njit(cache=True)
def _legal_into(small, words, out, way):
    _legal_one(small, words, 0, out, way)


_BACKEND = KernelBackend(code="way", row_faults=ROW_FAULTS, first_fault=_first_fault, first_refused=_first_refused,
                         random_legal=_random_legal, legal_into=_legal_into, illegal=_illegal,
                         views_serial=_views_serial, views_parallel=_views_parallel,
                         view_options=lambda spec: (spec.way, spec.single_auction), viewer="player", viewers=2)
check_rows, random_legal, first_refused = _BACKEND.check_rows, _BACKEND.random_legal, _BACKEND.first_refused
legal_actions, illegal_games = _BACKEND.legal_actions, _BACKEND.illegal_games
write_observation = _BACKEND.write_observation


def step(state: VintBatchState, actions: np.ndarray, spec: KernelOptions, auto_reset: bool,
         parallel: bool = False, seal: RowSeal | None = None) -> int:
    """One engine step in place; -1 once done (every row sealed), else the first game refused (nothing written);
    a row sealed in ``seal`` is taken without the row check (four_seat_kernels.step)."""
    acts = step_actions(state, actions)
    seal = seal if seal is not None else unsealed(state)
    kernel = _step_parallel if parallel else _step_serial
    return kernel(state.small, state.words, state.key, state.deal_index, acts, spec.way, spec.single_auction,
                  spec.passout_play, spec.honours_net, spec.reward_scale, auto_reset, state.points, state.rewards,
                  state.terminated, state.observer, state.observation, state.legal_action_mask, *seal.arrays)


def write_views(state: VintBatchState, spec: KernelOptions, parallel: bool = False, games=None) -> None:
    """Observation and mask of the player to decide (or the last to act, once over), in ``games`` or all."""
    check_rows(state, spec)
    if games is None:
        games = np.arange(state.batch_size)
    games = view_games(state, games)
    _views_subset(state.small, state.words, games, state.observer, state.observation, state.legal_action_mask,
                  spec.way, spec.single_auction)


def deciding_players(state: VintBatchState) -> np.ndarray:
    """The player (0, 1) who decides now in each game, -1 once a deal is over."""
    out = np.empty(state.batch_size, dtype=np.int8)
    _deciders(state.small, out)
    return out


def start_deals(state: VintBatchState, games: np.ndarray, spec: KernelOptions, hands=None, dealers=None,
                widows=None, piles=None) -> None:
    """New deals in ``games``: the next random ones, or the given hands (``[n, 4]``), dealers (players), widows
    (card masks) and piles (``[n, 2, 13]`` card ids, the piles at seats 1 and 3, top first)."""
    games = np.asarray(games, dtype=np.int64)
    if games.size == 0:
        return
    if hands is None:
        _random_deals(state.small, state.words, state.key, state.deal_index, games, spec.way)
        return
    state.words[games, ORIGINAL:ORIGINAL + 4] = hands
    _given_deals(state.small, state.words, state.deal_index, games, np.asarray(dealers, dtype=np.int64),
                 np.asarray(widows, dtype=np.uint64), np.asarray(piles, dtype=np.int8), spec.way)
