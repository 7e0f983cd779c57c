"""Solo Whist's rule bot inside the batched engine: :class:`SoloWhistRuleBot`, numba-compiled.

The same bot as :class:`vint_env.agents.rule.solo_whist.SoloWhistRuleAgent`, decision by decision
(tests/vector/test_solo_whist_rule_kernel.py plays both over thousands of decisions), for the games of a
:class:`~vint_env.vector.engine.SoloWhistEngine` batch whose seat to move it plays, so that rollouts
against it run at the engine's speed.  The reference is deterministic given its observation and its
memory of the tricks (no random tie-break: every choice is a max or min over a key that ends in the suit
or the card id), so nothing random is reproduced here.

It reads from the engine's state only what the seat's observation shows: its own hand, the turned card,
the calls and the legal actions (the state's ``legal_action_mask``, the player to move's), the trick in
progress and the last one, the cards each seat has played (as dealt minus held: the observation's
``played`` block), the voids shown, the sides.  Never another seat's hand.

Like the reference (:class:`~vint_env.agents.rule.play_view.TrickMemory`), it remembers what its
observation forgets, per game and seat: each seat's first discard and the tricks a partner led and won.
That memory is fed at the seat's own turns, so **ask the bot at every turn of every seat it plays in a
deal** (as a Python bot is asked); it forgets a seat's memory at each of the seat's calls in the auction
and whenever the game's deal changes (``state.deal_index``), as the reference forgets at each call and
at ``reset``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..agents.rule.solo_whist import (ABONDANCE_TRICKS, ACCEPT_TRICKS, DECLAREE_TRICKS, MISERE_DANGER,
                                      OPEN_MISERE_DANGER, PROPOSAL_TRICKS, SOLO_TRICKS)
from ..cards import NO_TRUMP as NT
from ..rules.solo_whist_calls import (ABONDANCE, ACCEPT, DECLAREE, MISERE, OPEN_MISERE, PASS, PROPOSAL, SOLO,
                                      TRUMP_ABONDANCE, TRUMP_BASE)
from .rule_card_play import MISERE as GOAL_MISERE, MISERE_DEFENCE, TRICKS, choose_card
from .rule_view import (QUEEN, TEN, V_DECLARER, V_FIRST, V_HAND, V_LEADER, V_NTRICK, V_PARTNERS, V_PLAYED, V_TRICK,
                        V_TRUMP, V_VOIDS, V_WON_LEADS, VIEW_SIZE, count, high_rank, ranks_of)
from .state import AUCTION, COL, DEALT, HAND, LAST, TRICK, TRUMP, VOIDS

_PHASE, _CUR, _HIGHEST, _BIDDER = COL["phase"], COL["current_player"], COL["highest"], COL["highest_bidder"]
_PARTNER, _DECLARER, _TRUMP, _LEADER = COL["partner"], COL["declarer"], COL["trump"], COL["leader"]
_TRICK_LEN, _TRICKS_PLAYED, _TURNED = COL["trick_len"], COL["tricks_played"], COL["turned"]

# Sure tricks in half tricks (hand_eval counts halves), the reference's thresholds.
_PROPOSAL2, _ACCEPT2, _SOLO2 = 2.0 * PROPOSAL_TRICKS, 2.0 * ACCEPT_TRICKS, 2.0 * SOLO_TRICKS
_ABONDANCE2, _DECLAREE2 = 2.0 * ABONDANCE_TRICKS, 2.0 * DECLAREE_TRICKS

# A seat's memory (TrickMemory), one int64 row per game and seat.
M_DEAL = 0          # the deal it belongs to (state.deal_index)
M_SEEN = 1          # tricks completed at the seat's last turn
M_PENDING = 2       # relative seat that led the trick then in progress, -1 none
M_FIRST = 3         # + relative seat: the suit of its first discard, -1 none
M_LEADS = 7         # + suit: completed tricks led in that suit, bit 4 * leader + winner (relative seats)
MEMORY_SIZE = 11


# =============================================================== hand evaluation (hand_eval), in half tricks

@njit(cache=True)
def top_tricks2(ranks):
    """hand_eval.top_tricks x 2 of a 13-bit holding."""
    n = count(ranks)
    run = 0
    r = 12
    while r >= 0 and (ranks >> r) & 1:
        run += 1
        r -= 1
    if run:
        extra = 1 if r >= 1 and (ranks >> (r - 1)) & 1 and n > run + 1 else 0
        return min(2 * run + extra, 2 * n)
    if (ranks >> 11) & 1 and (ranks >> 10) & 1:
        return 2 + ((ranks >> 9) & 1)
    if (ranks >> 11) & 1 and n >= 2:
        return 1
    if (ranks >> TEN) & 7 == 7:                        # Q-J-10
        return 2
    return 0


@njit(cache=True)
def length_tricks2(ranks, trump):
    """hand_eval.length_tricks x 2: trumps past the third; a plain suit of five or more with two of A, K, Q."""
    n = count(ranks)
    if trump:
        return 2 * max(0, n - 3)
    if n >= 5 and count(ranks >> QUEEN) >= 2:
        return 2 * (n - 4)
    return 0


@njit(cache=True)
def sure_tricks2(hand, strain):
    """hand_eval.sure_tricks x 2 if ``strain`` (0..3, or NT) were trumps."""
    total = 0
    for s in range(4):
        ranks = ranks_of(hand, s)
        top = top_tricks2(ranks)
        total += max(top, min(2 * count(ranks), top + length_tricks2(ranks, s == strain)))
    return total


@njit(cache=True)
def lowness(hand):
    """hand_eval.lowness: the cards that cannot be kept below the others' (the i-th lowest above 2i + 1)."""
    score = 0
    for s in range(4):
        ranks = ranks_of(hand, s)
        i = 0
        for r in range(13):
            if (ranks >> r) & 1:
                if r > 2 * i + 1:
                    score += 1
                i += 1
    return score


@njit(cache=True)
def misere_shape_ok(hand):
    """No suit longer than six cards."""
    for s in range(4):
        if count(ranks_of(hand, s)) > 6:
            return False
    return True


@njit(cache=True)
def best_suit(hand):
    """The suit of the most sure tricks as trumps, then the longest, then the lowest."""
    best = 0
    for s in range(1, 4):
        a, b = sure_tricks2(hand, s), sure_tricks2(hand, best)
        if a > b or (a == b and count(ranks_of(hand, s)) > count(ranks_of(hand, best))):
            best = s
    return best


# =============================================================== the auction (SOLO_BIDDING_RULES)

@njit(cache=True)
def bid(hand, turned_trump, legal):
    """The first of the bidding rules that applies, among the legal calls (``legal``: the action mask row)."""
    if legal[DECLAREE] and sure_tricks2(hand, NT) >= _DECLAREE2:
        return DECLAREE
    if legal[OPEN_MISERE] and lowness(hand) <= OPEN_MISERE_DANGER and misere_shape_ok(hand):
        return OPEN_MISERE
    call = abondance_call(hand, turned_trump, legal)
    if call >= 0:
        return call
    if legal[MISERE] and lowness(hand) <= MISERE_DANGER and misere_shape_ok(hand):
        return MISERE
    trumps = sure_tricks2(hand, turned_trump)
    if legal[SOLO] and trumps >= _SOLO2 and count(ranks_of(hand, turned_trump)) >= 4:
        return SOLO
    if legal[ACCEPT] and trumps >= _ACCEPT2:
        return ACCEPT
    if legal[PROPOSAL] and trumps >= _PROPOSAL2:
        return PROPOSAL
    return PASS


@njit(cache=True)
def abondance_call(hand, turned_trump, legal):
    """abondance_with_nine_sure_tricks: trump abondance with the turned suit, else abondance; -1 none."""
    if sure_tricks2(hand, best_suit(hand)) < _ABONDANCE2:
        return -1
    if legal[TRUMP_ABONDANCE] and sure_tricks2(hand, turned_trump) >= _ABONDANCE2:
        return TRUMP_ABONDANCE
    if legal[ABONDANCE]:
        return ABONDANCE
    return -1


# =============================================================== the seat's memory (TrickMemory)

@njit(cache=True)
def forget(memory, b, me, deal):
    memory[b, me, M_DEAL] = deal
    memory[b, me, M_SEEN] = 0
    memory[b, me, M_PENDING] = -1
    for i in range(4):
        memory[b, me, M_FIRST + i] = -1
        memory[b, me, M_LEADS + i] = 0


@njit(cache=True)
def see_plays(memory, b, me, leader, cards, n, trump):
    """TrickMemory.see_trick: first discards among the plays (``cards[i]`` by relative seat ``leader + i``)."""
    if n == 0:
        return
    led = cards[0] // 13
    for i in range(1, n):
        suit = cards[i] // 13
        seat = (leader + i) & 3
        if suit != led and suit != trump and memory[b, me, M_FIRST + seat] < 0:
            memory[b, me, M_FIRST + seat] = suit


@njit(cache=True)
def remember(small, b, me, v, memory, last):
    """TrickMemory.update at the seat's turn: the last trick, if completed since its last turn, and the trick in
    progress (the view's); ``last``: scratch for the last trick's cards."""
    played = np.int64(small[b, _TRICKS_PLAYED])
    pending = memory[b, me, M_PENDING]
    trump = v[V_TRUMP]
    n = 0
    for i in range(4):
        card = small[b, LAST + ((me + pending + i) & 3)] if pending >= 0 else -1
        if card >= 0:
            last[n] = card
            n += 1
    if played == memory[b, me, M_SEEN] + 1 and n == 4:
        see_plays(memory, b, me, pending, last, n, trump)
        memory[b, me, M_LEADS + last[0] // 13] |= 1 << (4 * pending + v[V_LEADER])
    memory[b, me, M_SEEN] = played
    see_plays(memory, b, me, v[V_LEADER], v[V_TRICK:V_TRICK + 4], v[V_NTRICK], trump)
    memory[b, me, M_PENDING] = v[V_LEADER]


@njit(cache=True)
def partner_won_leads(memory, b, me, partners):
    """Suits a partner led and won a trick with, bit suit."""
    pairs = 0
    for leader in range(4):
        for winner in range(4):
            if (partners >> leader) & 1 and (partners >> winner) & 1:
                pairs |= 1 << (4 * leader + winner)
    suits = 0
    for s in range(4):
        if memory[b, me, M_LEADS + s] & pairs:
            suits |= 1 << s
    return suits


# =============================================================== the play view

@njit(cache=True, inline="always")
def _declaring(small, b, s):
    """Seat ``s`` holds the highest bid (its bidder or the partner who accepted it)."""
    return small[b, _BIDDER] >= 0 and (s == small[b, _BIDDER] or s == small[b, _PARTNER])


@njit(cache=True)
def see_table(small, words, b, me, v):
    """The view's cards, trick, voids and sides from what seat ``me`` sees; the goal of its play."""
    v[:] = 0
    v[V_HAND] = np.int64(words[b, HAND + me])
    played = 0
    voids = np.int64(words[b, VOIDS])
    for r in range(4):
        s = (me + r) & 3
        played |= np.int64(words[b, DEALT + s] ^ words[b, HAND + s])
        v[V_VOIDS] |= ((voids >> (4 * s)) & 15) << (4 * r)
    v[V_PLAYED] = played
    v[V_TRUMP] = small[b, _TRUMP]
    leader = np.int64(small[b, _LEADER])
    v[V_LEADER] = (leader - me) & 3
    v[V_NTRICK] = small[b, _TRICK_LEN]
    for i in range(v[V_NTRICK]):
        v[V_TRICK + i] = small[b, TRICK + ((leader + i) & 3)]
    mine = _declaring(small, b, me)
    v[V_DECLARER] = 0 if mine else -1
    for r in range(3, 0, -1):
        side = _declaring(small, b, (me + r) & 3)
        if side and not mine:
            v[V_DECLARER] = r
        if side == mine and small[b, _DECLARER] >= 0:
            v[V_PARTNERS] |= 1 << r
    contract = small[b, _HIGHEST]
    if contract == MISERE or contract == OPEN_MISERE:
        return GOAL_MISERE if mine else MISERE_DEFENCE
    return TRICKS


@njit(cache=True)
def play_card(small, words, b, me, memory, v, last):
    """The card of seat ``me`` in game ``b`` (SoloWhistRuleAgent's play), its memory brought up to date."""
    goal = see_table(small, words, b, me, v)
    remember(small, b, me, v, memory, last)
    for r in range(4):
        v[V_FIRST + r] = memory[b, me, M_FIRST + r]
    v[V_WON_LEADS] = partner_won_leads(memory, b, me, v[V_PARTNERS])
    return choose_card(v, goal)


# =============================================================== the batch

@njit(cache=True)
def rule_actions_kernel(small, words, legal, deal_index, rows, memory, out):
    """The bot's action in each game of ``rows`` into ``out``; -1, or the first index into ``rows`` whose
    game has no seat to move or whose action came out illegal (nothing is written for it and after it)."""
    v = np.zeros(VIEW_SIZE, dtype=np.int64)
    last = np.zeros(4, dtype=np.int64)
    for k in range(rows.size):
        b = rows[k]
        me = np.int64(small[b, _CUR])
        if me < 0:
            return k
        deal = np.int64(deal_index[b])
        phase = small[b, _PHASE]
        if phase == AUCTION or memory[b, me, M_DEAL] != deal:
            forget(memory, b, me, deal)
        hand = np.int64(words[b, HAND + me])
        if phase == AUCTION:
            a = bid(hand, np.int64(small[b, _TURNED]) // 13, legal[b])
        elif phase == TRUMP:
            a = TRUMP_BASE + best_suit(hand)
        else:
            a = play_card(small, words, b, me, memory, v, last)
        if a < 0 or not legal[b, a]:
            return k
        out[k] = a
    return -1


class SoloWhistRuleBot:
    """Solo Whist's rule bot for the games of a :class:`~vint_env.vector.engine.SoloWhistEngine` batch.

    ``actions(state, rows)`` gives, for each game index in ``rows``, the action the rule bot chooses for the
    seat to move there (int64, one per row), as ``SoloWhistRuleAgent.act`` would on that seat's observation.
    One instance keeps a memory for every game and seat of one batch size (see the module docstring: ask it
    at every turn of the seats it plays).
    """

    def __init__(self, engine):
        from .engine import SoloWhistEngine
        if not isinstance(engine, SoloWhistEngine):
            raise TypeError(f"SoloWhistRuleBot plays a SoloWhistEngine's games, got {type(engine).__name__}")
        self.engine = engine
        self.memory: np.ndarray | None = None

    def actions(self, state, rows) -> np.ndarray:
        """The rule bot's action in each game of ``rows`` (game indices, or a boolean mask over the batch)."""
        self.engine.check_state(state)
        rows = self._rows(state, rows)
        memory = self._memory(state.batch_size)
        out = np.empty(rows.size, dtype=np.int64)
        bad = rule_actions_kernel(state.small, state.words, state.legal_action_mask, state.deal_index, rows,
                                  memory, out)
        if bad >= 0:
            raise RuleBotError(self._refusal(state, int(rows[bad])))
        return out

    def _rows(self, state, rows) -> np.ndarray:
        r = np.asarray(rows)
        if r.dtype == bool:
            if r.shape != (state.batch_size,):
                raise ValueError(f"a boolean rows mask must have shape ({state.batch_size},), got {r.shape}")
            return np.flatnonzero(r)
        if r.size and r.dtype.kind not in "iu":
            raise ValueError(f"rows must be game indices (integers) or a boolean mask, got dtype {r.dtype}")
        r = r.astype(np.int64).ravel()
        if r.size and (r.min() < 0 or r.max() >= state.batch_size):
            raise ValueError(f"rows must be game indices 0..{state.batch_size - 1}")
        return r

    def _memory(self, batch_size: int) -> np.ndarray:
        if self.memory is None:
            self.memory = np.zeros((batch_size, 4, MEMORY_SIZE), dtype=np.int64)
            self.memory[:, :, M_DEAL] = -1
        elif self.memory.shape[0] != batch_size:
            raise ValueError(f"this SoloWhistRuleBot remembers a batch of {self.memory.shape[0]} games; "
                             f"got a state of {batch_size} (make one bot per batch)")
        return self.memory

    @staticmethod
    def _refusal(state, b: int) -> str:
        seat = int(state.small[b, _CUR])
        if seat < 0:
            return f"game {b}: the deal is over, no seat is to move (ask the rule bot only where a seat is to move)"
        return (f"game {b}: the rule bot's choice for seat {seat} is not among the legal actions "
                f"(is the state's legal_action_mask the engine's?)")


class RuleBotError(ValueError):
    """The rule bot was asked where it cannot act: a game whose deal is over, or one whose legal mask refuses
    its choice."""


__all__ = ["RuleBotError", "SoloWhistRuleBot"]
