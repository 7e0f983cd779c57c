"""The batched Vint and Whist rules in plain NumPy: every operation acts on all games at once.

Three functions over a :class:`~vint_env.vector.state.VintBatchState`:
:func:`apply_actions` (one action per live game: a call in the auction, a
card in play; tricks, contract and scoring), :func:`write_observation` and
:func:`write_legal_mask`.  Rules as in RULES.md section 2 and
:mod:`vint_env.rules.vint`; :mod:`vint_env.vector.numba_backend` says the
same thing game by game in compiled loops.
"""

from __future__ import annotations

import numpy as np

from .deals import start_deals
from .state import AUCTION, BIDS, COL, DEALT, HAND, LAST, OVER, PLAY, TRICK, WHIST, WON, GameSpec, VintBatchState
from .tables import (ALL_ACES, BID_BASE, NUM_BIDS, O_BIDS, O_CONTRACT, O_DEALER, O_DECLARER, O_HAND,
                     O_LAST_TRICK, O_PASS_COUNT, O_PASSOUT_PLAY, O_PHASE, O_PLAYED, O_TO_MOVE, O_TRICK,
                     O_TRICK_LEADER, O_TRICKS_TAKEN, O_TRUMP, PASS, POPCOUNT_13, RUN_FROM_ACE, SUIT_BITS, TOP_FIVE,
                     W_DEALER, W_HAND, W_LAST_TRICK, W_PHASE, W_PLAYED, W_TO_MOVE, W_TRICK, W_TRICK_LEADER,
                     W_TRICKS_TAKEN, W_TRUMP, W_TURNED_CARD, W_TURNED_HOLDER, WHIST_CORONET, WHIST_SLAM_12,
                     WHIST_SLAM_13, WHIST_TRICK_POINTS)

_U1 = np.uint64(1)
_SEATS = np.arange(4)
_BID_IDX = np.arange(NUM_BIDS)
_ACE_MASK = np.uint64(ALL_ACES)
_SUIT_BITS = np.uint64(SUIT_BITS)
_SUIT_SHIFT = (np.arange(4) * 13).astype(np.uint64)


def unpack_bits(words: np.ndarray, nbits: int) -> np.ndarray:
    """The low ``nbits`` bits of uint64 ``words`` as 0/1 uint8, shape ``words.shape + (nbits,)``."""
    w = np.ascontiguousarray(words, dtype="<u8")
    b = w.view(np.uint8).reshape(*w.shape, 8)
    return np.unpackbits(b, axis=-1, bitorder="little")[..., :nbits]


# ---------------------------------------------------------------- moves

def apply_actions(state: VintBatchState, actions: np.ndarray, live: np.ndarray, spec: GameSpec) -> None:
    """Apply ``actions[g]`` for every game ``g`` in ``live`` (indices; legality already checked)."""
    s = state.small
    cur = s[live, COL["current_player"]].astype(np.int64)
    s[live, COL["actor"]] = cur
    phase = s[live, COL["phase"]]
    a = actions[live]
    auction = phase == AUCTION
    if auction.any():
        _call(state, live[auction], a[auction], cur[auction], spec.passout_play, spec.reward_scale)
    if not auction.all():
        _play(state, live[~auction], a[~auction], cur[~auction], spec)


def _call(state, g, a, seat, passout_play, reward_scale):
    """RULES 2.1: a pass or a higher bid; a bid and three passes end the auction, four passes pass out."""
    s = state.small
    s[g, COL["current_player"]] = (seat + 1) & 3
    bid = a != PASS
    gb, sb, ib = g[bid], seat[bid], a[bid] - BID_BASE
    s[gb, COL["highest"]] = ib
    s[gb, COL["highest_bidder"]] = sb
    s[gb, COL["passes"]] = 0
    state.words[gb, BIDS + sb] |= np.left_shift(_U1, ib.astype(np.uint64))
    gp = g[~bid]
    s[gp, COL["passes"]] += 1
    passes, highest = s[gp, COL["passes"]], s[gp, COL["highest"]]
    contract = gp[(highest >= 0) & (passes == 3)]
    if contract.size:
        h = s[contract, COL["highest"]]
        declarer = s[contract, COL["highest_bidder"]]
        _start_play(s, contract, trump=h % 5, leader=(declarer + 1) & 3)   # RULES 2.2
        s[contract, COL["declarer"]] = declarer
    out = gp[(highest < 0) & (passes == 4)]
    if out.size:
        s[out, COL["passed_out"]] = 1
        if passout_play:    # RULES 2.4 "play": no-trump, left of the dealer leads
            _start_play(s, out, trump=4, leader=(s[out, COL["dealer"]] + 1) & 3)
        else:               # RULES 2.4 "mark": nothing is played or scored
            _finish(state, out, np.zeros(out.size, dtype=np.int64), reward_scale)


def _start_play(s, g, trump, leader):
    s[g, COL["phase"]] = PLAY
    s[g, COL["trump"]] = trump
    s[g, COL["leader"]] = leader
    s[g, COL["current_player"]] = leader


def _play(state, g, card, seat, spec):
    """RULES 1: play a card; the fourth card decides the trick, the 13th trick ends the deal."""
    s = state.small
    state.words[g, HAND + seat] &= ~np.left_shift(_U1, card.astype(np.uint64))
    s[g, TRICK + seat] = card
    s[g, COL["trick_len"]] += 1
    s[g, COL["current_player"]] = (seat + 1) & 3
    full = g[s[g, COL["trick_len"]] == 4]
    if not full.size:
        return
    cards = s[full, TRICK:TRICK + 4].astype(np.int64)
    trump = s[full, COL["trump"]].astype(np.int64)
    led = cards[np.arange(full.size), s[full, COL["leader"]]] // 13
    suit, rank = cards // 13, cards % 13
    # The highest trump wins, else the highest card of the suit led.
    strength = np.where(suit == trump[:, None], 26 + rank, np.where(suit == led[:, None], 13 + rank, 0))
    winner = strength.argmax(axis=1)
    s[full, WON + winner] += 1
    s[full, LAST:LAST + 4] = cards
    s[full, COL["last_leader"]] = s[full, COL["leader"]]
    s[full, TRICK:TRICK + 4] = -1
    s[full, COL["trick_len"]] = 0
    s[full, COL["leader"]] = winner
    s[full, COL["current_player"]] = winner
    s[full, COL["tricks_played"]] += 1
    done = full[s[full, COL["tricks_played"]] == 13]
    if done.size:
        diff = score_whist_deals(state, done, spec.ten_is_honour) if spec.game == WHIST else score_deals(state, done)
        _finish(state, done, diff, spec.reward_scale)


def _finish(state, g, diff, reward_scale):
    """End the deals ``g``; ``diff`` is side 0's points minus side 1's."""
    s = state.small
    s[g, COL["phase"]] = OVER
    s[g, COL["current_player"]] = -1
    pts = diff[:, None] * np.array([1, -1, 1, -1], dtype=np.int64)
    state.points[g] = pts
    state.rewards[g] = pts * reward_scale
    state.terminated[g] = True


# ---------------------------------------------------------------- scoring

def score_deals(state: VintBatchState, g: np.ndarray) -> np.ndarray:
    """Side 0's total minus side 1's for the finished deals ``g`` (RULES 2.3 items 1-5, 2.4)."""
    s = state.small
    won = s[g, WON:WON + 4].astype(np.int64)
    tricks = np.stack([won[:, 0] + won[:, 2], won[:, 1] + won[:, 3]], axis=1)
    scores = np.zeros((g.size, 2), dtype=np.int64)
    rows = np.arange(g.size)
    out = s[g, COL["passed_out"]] == 1
    # RULES 2.4 "play": 500 above the line for each trick over six.
    scores[out] = np.maximum(tricks[out] - 6, 0) * 500
    c = ~out
    if c.any():
        gc, rc = g[c], rows[c]
        h = s[gc, COL["highest"]].astype(np.int64)
        level, strain = h // 5 + 1, h % 5
        decl = s[gc, COL["declarer"]].astype(np.int64) & 1
        defn = 1 - decl
        t = 10 * level
        tc = tricks[c]
        k = np.arange(rc.size)
        sc = tc * t[:, None]                                                  # 1. tricks
        short = 6 + level - tc[k, decl]
        sc[k, defn] += np.maximum(short, 0) * 100 * t                         # 2. undertricks
        sc += np.where(tc == 12, 1000, np.where(tc == 13, 2000, 0))           # 3. slams taken
        premium = np.where(level == 6, 5000, np.where(level == 7, 10000, 0))  # 3. slams declared
        sc[k, np.where(short <= 0, decl, defn)] += premium
        dealt = state.words[gc, DEALT:DEALT + 4]
        ranks = ((dealt[:, :, None] >> _SUIT_SHIFT) & _SUIT_BITS).astype(np.int64)   # [n, seat, suit]
        aces = np.bitwise_count(dealt & _ACE_MASK).astype(np.int64)                # [n, seat]
        nt = strain == 4
        trump_ranks = ranks[np.arange(rc.size), :, np.minimum(strain, 3)]           # [n, seat]
        honours = aces + np.where(nt[:, None], 0, TOP_FIVE[trump_ranks])            # 4. honours
        side_h = honours[:, 0::2].sum(1) - honours[:, 1::2].sum(1)
        per = np.where(nt, 25 * t, 10 * t)
        sc[:, 0] += np.maximum(side_h, 0) * per
        sc[:, 1] += np.maximum(-side_h, 0) * per
        run = RUN_FROM_ACE[ranks].astype(np.int64)                                # 5. coronets
        doubled = (np.arange(4)[None, :] == strain[:, None]) | nt[:, None]          # [n, suit]
        seq = np.where(run >= 3, 500 * (run - 2), 0) * np.where(doubled[:, None, :], 2, 1)
        ace_coronet = np.where(aces == 3, 500, np.where(aces == 4, 1000, 0)) * np.where(nt, 2, 1)[:, None]
        cor = seq.sum(2) + ace_coronet                                             # [n, seat]
        sc[:, 0] += cor[:, 0] + cor[:, 2]
        sc[:, 1] += cor[:, 1] + cor[:, 3]
        scores[c] = sc
    return scores[:, 0] - scores[:, 1]


def score_whist_deals(state: VintBatchState, g: np.ndarray, ten_is_honour: bool) -> np.ndarray:
    """Side 0's total minus side 1's for the finished Whist deals ``g`` (RULES 3, seed 004)."""
    s = state.small
    won = s[g, WON:WON + 4].astype(np.int64)
    tricks = np.stack([won[:, 0] + won[:, 2], won[:, 1] + won[:, 3]], axis=1)            # [n, side]
    trump = s[g, COL["trump"]].astype(np.int64)                                            # 4: no-trump
    nt = trump == 4
    dealt = state.words[g, DEALT:DEALT + 4]
    ranks = ((dealt[:, :, None] >> _SUIT_SHIFT) & _SUIT_BITS).astype(np.int64)             # [n, seat, suit]
    doubled = ((np.arange(4)[None, :] == trump[:, None]) | nt[:, None]).astype(np.int64)   # [n, suit]
    coronets = WHIST_CORONET[doubled[:, None, :], RUN_FROM_ACE[ranks]].sum(axis=2)        # [n, seat]
    trump_ranks = ranks[np.arange(g.size), :, np.minimum(trump, 3)]                        # [n, seat]
    held = np.where(nt[:, None], np.bitwise_count(dealt & _ACE_MASK).astype(np.int64),
                    POPCOUNT_13[trump_ranks >> (8 if ten_is_honour else 9)])
    counts = np.stack([held[:, 0] + held[:, 2], held[:, 1] + held[:, 3]], axis=1)
    side = np.where(2 * counts > counts.sum(axis=1, keepdims=True), counts, 0)            # honours
    side += np.maximum(tricks - 6, 0) * WHIST_TRICK_POINTS
    side += np.where(tricks == 12, WHIST_SLAM_12, np.where(tricks == 13, WHIST_SLAM_13, 0))
    side[:, 0] += coronets[:, 0] + coronets[:, 2]
    side[:, 1] += coronets[:, 1] + coronets[:, 3]
    return side[:, 0] - side[:, 1]


# ---------------------------------------------------------------- views

def _write_play_blocks(s, out, rp, sp, rot_p, o_leader, o_trick, o_last, o_taken):
    """Trick-play blocks shared by Vint and Whist for the games ``rp`` (observers ``sp``)."""
    out[rp, o_leader + ((s[rp, COL["leader"]] - sp) & 3)] = 1
    won = s[rp, WON:WON + 4]
    k = np.arange(rp.size)
    ours = won[k, sp] + won[k, sp ^ 2]
    theirs = won[k, sp ^ 1] + won[k, sp ^ 3]
    out[rp, o_taken + ours] = 1
    out[rp, o_taken + 14 + theirs] = 1
    for base, first in ((o_trick, TRICK), (o_last, LAST)):
        cards = s[rp[:, None], first + rot_p]                   # [n, relative seat]
        has = cards >= 0
        r_idx = np.broadcast_to(_SEATS, cards.shape)
        out[np.broadcast_to(rp[:, None], cards.shape)[has], base + r_idx[has] * 52 + cards[has]] = 1


def write_whist_observation(state: VintBatchState, seats: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``whist_obs.encode_observation`` of ``seats[g]`` in every game, into ``out[B, D]`` (deal episodes)."""
    s = state.small.astype(np.int64)
    n = s.shape[0]
    rows = np.arange(n)
    seats = seats.astype(np.int64)
    out[:] = 0
    cur = s[:, COL["current_player"]]
    moving = cur >= 0
    out[rows[moving], W_PHASE] = 1
    out[rows[moving], W_TO_MOVE + ((cur[moving] - seats[moving]) & 3)] = 1
    dealer = s[:, COL["dealer"]]
    out[rows, W_DEALER + ((dealer - seats) & 3)] = 1
    words = state.words
    out[:, W_HAND:W_HAND + 52] = unpack_bits(words[rows, HAND + seats], 52)
    rot = (seats[:, None] + _SEATS) & 3
    played = words[rows[:, None], DEALT + rot] ^ words[rows[:, None], HAND + rot]
    out[:, W_PLAYED:W_PLAYED + 4 * 52] = unpack_bits(played, 52).reshape(n, -1)
    out[rows, W_TRUMP + s[:, COL["trump"]]] = 1
    turned = s[:, COL["turned"]]
    t = turned >= 0
    out[rows[t], W_TURNED_CARD + turned[t]] = 1
    in_hand = t & ((words[rows, HAND + dealer] >> np.maximum(turned, 0).astype(np.uint64)) & _U1 == 1)
    out[rows[in_hand], W_TURNED_HOLDER + ((dealer[in_hand] - seats[in_hand]) & 3)] = 1
    _write_play_blocks(s, out, rows, seats, rot, W_TRICK_LEADER, W_TRICK, W_LAST_TRICK, W_TRICKS_TAKEN)
    return out


def write_observation(state: VintBatchState, seats: np.ndarray, out: np.ndarray, spec: GameSpec,
                      parallel: bool = False) -> np.ndarray:
    """The game's ``encode_observation`` of ``seats[g]`` in every game, into ``out[B, D]`` (deal episodes)."""
    if spec.game == WHIST:
        return write_whist_observation(state, seats, out)
    s = state.small.astype(np.int64)
    n = s.shape[0]
    rows = np.arange(n)
    seats = seats.astype(np.int64)
    out[:] = 0
    phase = s[:, COL["phase"]]
    live = phase != OVER
    out[rows[live], O_PHASE + phase[live]] = 1
    out[rows, O_DEALER + ((s[:, COL["dealer"]] - seats) & 3)] = 1
    cur = s[:, COL["current_player"]]
    moving = cur >= 0
    out[rows[moving], O_TO_MOVE + ((cur[moving] - seats[moving]) & 3)] = 1
    rot = (seats[:, None] + _SEATS) & 3                          # relative seat r -> absolute seat
    words = state.words
    out[:, O_HAND:O_HAND + 52] = unpack_bits(words[rows, HAND + seats], 52)
    out[:, O_BIDS:O_BIDS + 4 * 35] = unpack_bits(words[rows[:, None], BIDS + rot], 35).reshape(n, -1)
    played = words[rows[:, None], DEALT + rot] ^ words[rows[:, None], HAND + rot]
    out[:, O_PLAYED:O_PLAYED + 4 * 52] = unpack_bits(played, 52).reshape(n, -1)
    auction = phase == AUCTION
    out[rows, O_PASS_COUNT + np.where(auction, np.minimum(s[:, COL["passes"]], 3), 3)] = 1
    bid = s[:, COL["highest"]] >= 0
    rb = rows[bid]
    out[rb, O_CONTRACT + s[bid, COL["highest"]]] = 1
    out[rb, O_DECLARER + ((s[bid, COL["highest_bidder"]] - seats[bid]) & 3)] = 1
    played_deal = s[:, COL["trump"]] >= 0
    rp = rows[played_deal]
    if rp.size:
        sp = seats[played_deal]
        out[rp, O_TRUMP + s[played_deal, COL["trump"]]] = 1
        out[rp, O_PASSOUT_PLAY] = s[played_deal, COL["passed_out"]]
        _write_play_blocks(s, out, rp, sp, rot[played_deal], O_TRICK_LEADER, O_TRICK, O_LAST_TRICK,
                           O_TRICKS_TAKEN)
    return out


def write_legal_mask(state: VintBatchState, out: np.ndarray) -> np.ndarray:
    """Legal actions of the player to move in every game, 0/1 into ``out[B, 88]`` (all zero when over)."""
    s = state.small.astype(np.int64)
    n = s.shape[0]
    rows = np.arange(n)
    phase = s[:, COL["phase"]]
    auction = phase == AUCTION
    playing = phase == PLAY
    cur = np.maximum(s[:, COL["current_player"]], 0).astype(np.int64)
    hand = state.words[rows, HAND + cur]
    leading = s[:, COL["trick_len"]] == 0
    led_card = s[rows, TRICK + np.maximum(s[:, COL["leader"]], 0)].astype(np.int64)
    led_suit = np.where(leading, 0, led_card // 13).astype(np.uint64)
    follow = hand & (_SUIT_BITS << (led_suit * np.uint64(13)))
    cards = np.where(leading | (follow == 0), hand, follow)
    cards = np.where(playing, cards, np.uint64(0))
    out[:, :52] = unpack_bits(cards, 52)
    if out.shape[1] > PASS:     # Vint's calls (Whist has only the cards)
        out[:, PASS] = auction
        out[:, BID_BASE:] = auction[:, None] & (_BID_IDX[None, :] > s[:, COL["highest"], None])
    return out


def illegal_games(state: VintBatchState, actions: np.ndarray) -> np.ndarray:
    """Indices of the live games whose action is not legal."""
    inside = (actions >= 0) & (actions < state.legal_action_mask.shape[1])
    ok = inside.copy()
    where = np.flatnonzero(inside)
    ok[where] = state.legal_action_mask[where, actions[where]] == 1
    return np.flatnonzero((state.small[:, COL["phase"]] != OVER) & ~ok)


# ---------------------------------------------------------------- the backend interface

def step(state: VintBatchState, actions: np.ndarray, spec: GameSpec, auto_reset: bool,
         parallel: bool = False) -> None:
    """One engine step in place (actions already checked legal; ``parallel`` is ignored)."""
    state.terminated[:] = False
    state.rewards[:] = 0
    state.points[:] = 0
    apply_actions(state, actions, np.flatnonzero(state.small[:, COL["phase"]] != OVER), spec)
    if auto_reset:
        done = np.flatnonzero(state.terminated)
        if done.size:
            start_deals(state, done, spec)
    write_views(state, spec)


def write_views(state: VintBatchState, spec: GameSpec, parallel: bool = False, games=None) -> None:
    """Observation and mask of the player to move (or last actor of a finished deal), in ``games`` or all."""
    if games is not None:
        sub = VintBatchState(state.small[games], state.words[games], state.key[games], state.deal_index[games],
                             state.observation[games], state.legal_action_mask[games], state.rewards[games],
                             state.points[games], state.terminated[games], state.observer[games])
        write_views(sub, spec)
        state.observation[games] = sub.observation
        state.legal_action_mask[games] = sub.legal_action_mask
        state.observer[games] = sub.observer
        return
    cur = state.small[:, COL["current_player"]]
    state.observer[:] = np.where(cur >= 0, cur, np.maximum(state.small[:, COL["actor"]], 0))
    write_observation(state, state.observer, state.observation, spec)
    write_legal_mask(state, state.legal_action_mask)


def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Action ``floor(u[b] * n_legal)``-th legal action of each row (-1 for a row with none)."""
    counts = mask.sum(axis=1, dtype=np.int64)
    k = (u * counts).astype(np.int64)
    out = (np.cumsum(mask, axis=1, dtype=np.int16) > k[:, None]).argmax(axis=1)
    out[counts == 0] = -1
    return out
