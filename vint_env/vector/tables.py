"""Constants and lookup tables of the batched engine, taken from the reference code.

Observation offsets come from the games' layouts (:mod:`vint_env.games`),
action numbers from :mod:`vint_env.rules.vint`, and the per-suit tables
from the reference scoring helpers, so the batched engine cannot drift from
them silently (the differential tests check the rest).
"""

from __future__ import annotations

import numpy as np

from ..games import solo_whist, vint, whist
from ..rules import solo_whist_calls as solo_calls
from ..rules.solo_whist_payments import TERMS as SOLO_TERMS_BY_CONTRACT
from ..rules.vint import BID_BASE, NUM_BIDS, PASS
from ..rules.vint_scoring import NT, sequence_length
from ..rules.whist_scoring import SLAM_POINTS, TRICK_POINTS, coronet_value

OBS_SIZE, NUM_ACTIONS = vint.GAME.observation_size, vint.GAME.num_actions
WHIST_OBS_SIZE, WHIST_NUM_ACTIONS = whist.GAME.observation_size, whist.GAME.num_actions
O = vint.GAME.layout.offset
O_PHASE, O_DEALER, O_TO_MOVE, O_HAND = O["phase"], O["dealer"], O["to_move"], O["hand"]
O_BIDS, O_PASS_COUNT, O_CONTRACT, O_DECLARER = O["bids"], O["pass_count"], O["contract"], O["declarer"]
O_TRUMP, O_PASSOUT_PLAY, O_TRICK_LEADER = O["trump"], O["passout_play"], O["trick_leader"]
O_TRICK, O_LAST_TRICK, O_PLAYED, O_TRICKS_TAKEN = O["trick"], O["last_trick"], O["played"], O["tricks_taken"]
#: The tracking blocks (games/obs_blocks.py, TRACKING_BLOCKS): trick_winner, winning_card, voids, cards_out,
#: top_remaining, in this order, for Vint (O_TRACK) and Whist (W_TRACK).
TRACK_NAMES = ("trick_winner", "winning_card", "voids", "cards_out", "top_remaining")
O_TRACK = tuple(O[name] for name in TRACK_NAMES)

# Whist (docs/rules/whist.md): observation offsets, and the scoring figures of the reference.
W = whist.GAME.layout.offset
W_PHASE, W_DEALER, W_TO_MOVE, W_HAND, W_TRUMP = W["phase"], W["dealer"], W["to_move"], W["hand"], W["trump"]
W_TURNED_CARD, W_TURNED_HOLDER, W_TRICK_LEADER = W["turned_card"], W["turned_holder"], W["trick_leader"]
W_TRICK, W_LAST_TRICK, W_PLAYED, W_TRICKS_TAKEN = W["trick"], W["last_trick"], W["played"], W["tricks_taken"]
W_TRACK = tuple(W[name] for name in TRACK_NAMES)
#: Whist coronet points by run length from the ace: [plain, doubled] x 0..13 (the Whist book's figures).
WHIST_CORONET = np.array([[coronet_value(n, d) for n in range(14)] for d in (False, True)], dtype=np.int64)
WHIST_TRICK_POINTS = TRICK_POINTS
WHIST_SLAM_12, WHIST_SLAM_13 = SLAM_POINTS[12], SLAM_POINTS[13]

# Solo Whist (docs/rules/solo_whist.md): observation offsets, call actions, the payment terms.
SOLO_OBS_SIZE, SOLO_NUM_ACTIONS = solo_whist.GAME.observation_size, solo_whist.GAME.num_actions
S = solo_whist.GAME.layout.offset
S_PHASE, S_DEALER, S_TO_MOVE, S_HAND = S["phase"], S["dealer"], S["to_move"], S["hand"]
S_TURNED_CARD, S_TURNED_HOLDER, S_CALLS, S_PASSED = S["turned_card"], S["turned_holder"], S["calls"], S["passed"]
S_MUST_RAISE, S_HIGHEST, S_DECLARING, S_WITH_ME = S["must_raise"], S["highest"], S["declaring"], S["with_me"]
S_TRUMP, S_EXPOSED_SEAT, S_EXPOSED, S_TRICK_LEADER = S["trump"], S["exposed_seat"], S["exposed"], S["trick_leader"]
S_TRICK, S_LAST_TRICK, S_PLAYED, S_TRICKS_TAKEN = S["trick"], S["last_trick"], S["played"], S["tricks_taken"]
S_TRACK = tuple(S[name] for name in TRACK_NAMES)
SOLO_PASS, SOLO_PROPOSAL, SOLO_ACCEPT = solo_calls.PASS, solo_calls.PROPOSAL, solo_calls.ACCEPT
SOLO_ABONDANCE, SOLO_TRUMP_ABONDANCE = solo_calls.ABONDANCE, solo_calls.TRUMP_ABONDANCE
SOLO_MISERE, SOLO_OPEN_MISERE, SOLO_DECLAREE = solo_calls.MISERE, solo_calls.OPEN_MISERE, solo_calls.DECLAREE
SOLO_TRUMP_BASE = solo_calls.TRUMP_BASE
#: The observation's ``calls`` columns are the call actions from the proposal on, in order (bit ``action - 53``).
SOLO_CALL_BASE = solo_calls.PROPOSAL
_CALL_ORDER = (solo_calls.PROPOSAL, solo_calls.ACCEPT, *solo_calls.BIDS[1:])
assert _CALL_ORDER == tuple(range(SOLO_CALL_BASE, SOLO_CALL_BASE + 8)), "Solo Whist calls are no longer 53..60"
#: Rank of each call action among the bids (the observation's ``highest`` column), -1 for acceptance.
SOLO_BID_INDEX = np.array([solo_calls.bid_index(a) if a in solo_calls.BIDS else -1 for a in _CALL_ORDER],
                          dtype=np.int64)
#: Payment terms by call action - 53: stake, tricks needed, over/undertrick money (quarter points).
SOLO_TERMS = np.array([SOLO_TERMS_BY_CONTRACT.get(a, (0, 0, 0)) for a in _CALL_ORDER], dtype=np.int64)

#: Length of the unbroken run from the ace down, for every 13-bit rank mask (docs/rules/vint.md, Scoring item 5).
RUN_FROM_ACE = np.array([sequence_length(r) for r in range(1 << 13)], dtype=np.int8)
#: Bits set, for every 13-bit mask.
POPCOUNT_13 = np.array([bin(r).count("1") for r in range(1 << 13)], dtype=np.int64)
#: Rank of the highest set bit, for every 13-bit mask (-1 for none).
HIGHEST_13 = np.array([r.bit_length() - 1 for r in range(1 << 13)], dtype=np.int8)
#: Cards 10, J, Q, K, A held, for every 13-bit rank mask (trump honours, docs/rules/vint.md, Scoring item 4).
TOP_FIVE = np.array([bin(r >> 8).count("1") for r in range(1 << 13)], dtype=np.int8)

ALL_ACES = sum(1 << (13 * s + 12) for s in range(4))
SUIT_BITS = (1 << 13) - 1

__all__ = ["OBS_SIZE", "WHIST_OBS_SIZE", "WHIST_NUM_ACTIONS", "NUM_ACTIONS", "NUM_BIDS", "PASS", "BID_BASE", "NT",
           "RUN_FROM_ACE", "TOP_FIVE", "POPCOUNT_13", "ALL_ACES", "SUIT_BITS", "WHIST_CORONET"]
