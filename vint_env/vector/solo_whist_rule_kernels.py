"""The compiled Solo Whist rule bot: the numba kernels behind :class:`vint_env.vector.solo_whist_rule.SoloWhistRuleBot`.

The numba twin of :class:`vint_env.agents.rule.solo_whist.SoloWhistRuleAgent`: its bidding rules
(``SOLO_BIDDING_RULES``, with :mod:`~vint_env.agents.rule.hand_eval` counted in half tricks), its memory of
the tricks (:class:`~vint_env.agents.rule.play_view.TrickMemory`), what it knows at its turn in the play
(:class:`~vint_env.agents.rule.play_view.PlayView`, here a view array) and the card play of
:mod:`vint_env.agents.rule.card_play` for ``Book.SOLO_WHIST``.  Each function carries the name of the
reference function it follows (the reference docstrings give the books' sources and docs/play_advice.md's
ids); ``None`` of the reference is -1 here.  Rules of the reference that never apply in Solo Whist are left
out: ``lead_partners_suit`` (no suit is named in Solo Whist's auction) and ``second_hand_ace_in_big_games``
(Vint's).

One file on purpose: numba caches a compiled function with the code of the functions it calls, keyed by
its own file's source only, so a kernel split over files would keep running an old copy of a callee
edited in another file.  The bidding thresholds are the reference's own constants, passed in at each call
(:data:`vint_env.vector.solo_whist_rule.LIMITS`) for the same reason.

Seats are relative to the bot (0 me, 1 left, 2 across, 3 right); cards are card ids
(``suit * 13 + rank``); a suit's holding is a 13-bit rank mask.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import NO_TRUMP as NT
from ..rules.solo_whist_calls import (ABONDANCE, ACCEPT, DECLAREE, MISERE, OPEN_MISERE, PASS, PROPOSAL, SOLO,
                                      TRUMP_ABONDANCE, TRUMP_BASE)
from .state import AUCTION, COL, DEALT, HAND, LAST, TRICK, TRUMP, VOIDS
from .tables import HIGHEST_13, POPCOUNT_13

_PHASE, _CUR, _HIGHEST, _BIDDER = COL["phase"], COL["current_player"], COL["highest"], COL["highest_bidder"]
_PARTNER, _DECLARER, _TRUMP, _LEADER = COL["partner"], COL["declarer"], COL["trump"], COL["leader"]
_TRICK_LEN, _TRICKS_PLAYED, _TURNED = COL["trick_len"], COL["tricks_played"], COL["turned"]

# The bidding thresholds (``limits``, the reference's constants): sure tricks in half tricks, the misère dangers.
L_PROPOSAL, L_ACCEPT, L_SOLO, L_ABONDANCE, L_DECLAREE, L_MISERE, L_OPEN_MISERE = range(7)
NUM_LIMITS = 7


# =============================================================== the view: what the bot knows in the play

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


# =============================================================== card play (card_play, Book.SOLO_WHIST)

# Goals of the play (PlayView.goal).
GOAL_TRICKS, GOAL_MISERE, GOAL_MISERE_DEFENCE = 0, 1, 2

_AK, _AKQ, _KQ, _KQJ, _QJT, _AQ = ((1 << ACE) | (1 << KING), (1 << ACE) | (1 << KING) | (1 << QUEEN),
                                   (1 << KING) | (1 << QUEEN), (1 << KING) | (1 << QUEEN) | (1 << JACK),
                                   (1 << QUEEN) | (1 << JACK) | (1 << TEN), (1 << ACE) | (1 << QUEEN))


# =============================================================== leads

@njit(cache=True)
def lead_trumps_to_draw_them(v):
    """The declaring side (solo, proposal, abondance) draws trumps with three or more."""
    trump = v[V_TRUMP]
    if trump == NT or length(v, trump) == 0 or not opponents_may_hold_trumps(v):
        return -1
    if not declaring(v) or length(v, trump) < 3:
        return -1
    return trump_lead_card(v)


@njit(cache=True)
def trump_lead_card(v):
    """From the top when the top trump is the master or heads touching honours; else the lowest."""
    trump = v[V_TRUMP]
    top = top_card(v, trump)
    if is_master(v, top):
        return top
    eff = effective_ranks(v, trump)
    first = high_rank(eff)
    if count(eff) >= 2 and first >= QUEEN and (eff >> (first - 1)) & 1:
        return top
    return bottom_card(v, trump)


@njit(cache=True)
def other_suit_has_masters(v, suit):
    """A suit other than trumps and ``suit`` with two sure winners in a row (return_partners_suit)."""
    for s in range(4):
        if s != v[V_TRUMP] and s != suit and masters_run(v, s) >= 2:
            return True
    return False


@njit(cache=True)
def return_partners_suit(v):
    """Return the suit partner led and won with (Whist book), unless the bot has a strong suit of its own."""
    for suit in range(4):
        if not (v[V_WON_LEADS] >> suit) & 1:
            continue
        if suit == v[V_TRUMP] or length(v, suit) == 0 or opponent_may_ruff(v, suit):
            continue
        if other_suit_has_masters(v, suit):
            return -1
        top = top_card(v, suit)
        return top if is_master(v, top) or length(v, suit) <= 2 else bottom_card(v, suit)
    return -1


@njit(cache=True)
def suit_by_length(v, i):
    """``_suits_by_length(v)[i]``: the suits longest first, the lower suit first among equals."""
    taken = 0
    for _ in range(i + 1):
        best = -1
        for s in range(4):
            if not (taken >> s) & 1 and (best < 0 or length(v, s) > length(v, best)):
                best = s
        taken |= 1 << best
    return best


@njit(cache=True)
def cash_sure_tricks(v):
    """Cash a master card where no opponent can ruff it."""
    trump = v[V_TRUMP]
    for i in range(4):
        suit = suit_by_length(v, i)
        if suit == trump or length(v, suit) == 0 or masters_run(v, suit) == 0:
            continue
        if opponent_may_ruff(v, suit) or (trump != NT and opponents_void_in(v, suit)):
            continue
        return top_card(v, suit)
    return -1


@njit(cache=True)
def lead_to_partners_void(v):
    """Lead a suit partner lacks so that partner ruffs it (the lowest card)."""
    trump = v[V_TRUMP]
    if trump == NT:
        return -1
    for p in range(1, 4):
        if not (v[V_PARTNERS] >> p) & 1 or void_in(v, p, trump):
            continue
        for suit in range(4):
            if suit == trump or not void_in(v, p, suit) or length(v, suit) == 0:
                continue
            if opponent_may_ruff(v, suit):
                continue
            return bottom_card(v, suit)
    return -1


@njit(cache=True)
def lead_priority(v, suit):
    """``_lead_priority`` of Solo Whist: sequences and long suits first; not A-Q, a singleton below the ace,
    partner's first discard, a suit the opponents lack or may ruff."""
    eff = effective_ranks(v, suit)
    n = count(eff)
    first = high_rank(eff)
    p = 0
    if has(eff, _AK):
        p += 100
    elif has(eff, _KQJ) or has(eff, _QJT):
        p += 90
    elif has(eff, _KQ):
        p += 70
    if n >= 5:
        p += 40 + (20 if v[V_TRUMP] == NT else 0)
    elif n == 4:
        p += 30
    if first == ACE and n >= 4:
        p += 10
    if has(eff, _AQ) and not (eff >> KING) & 1:
        p -= 40
    if n == 1 and first < ACE:
        p -= 40
    for partner in range(1, 4):
        if (v[V_PARTNERS] >> partner) & 1 and v[V_FIRST + partner] == suit:
            p -= 40
    if v[V_TRUMP] != NT and opponents_void_in(v, suit):
        p -= 100
    if opponent_may_ruff(v, suit):
        p -= 60
    return p


@njit(cache=True)
def table_card(v, suit):
    """The card to lead from a suit by the Whist book's lead table (A-K-Q: the queen; A-K: the king ...)."""
    eff = effective_ranks(v, suit)
    n = count(eff)
    if has(eff, _AKQ):
        return card_at_effective(v, suit, eff, QUEEN)
    if has(eff, _AK):
        return card_at_effective(v, suit, eff, KING)
    first = high_rank(eff)
    run = 1
    while run < n and (eff >> (first - run)) & 1:
        run += 1
    if run >= 2 and first >= JACK:
        return top_card(v, suit)
    if first == ACE and n == 2:
        return top_card(v, suit)
    if n == 2:
        return top_card(v, suit)
    return bottom_card(v, suit)


@njit(cache=True)
def lead_by_the_books_table(v):
    """The suit of the highest lead priority (then the longer, then the lower suit), its card by the table."""
    best = -1
    best_p = 0
    for s in range(4):
        if length(v, s) == 0 or s == v[V_TRUMP]:
            continue
        p = lead_priority(v, s)
        if best < 0 or p > best_p or (p == best_p and length(v, s) > length(v, best)):
            best, best_p = s, p
    return -1 if best < 0 else table_card(v, best)


@njit(cache=True)
def lead_lowest_of_longest(v):
    """Last resort: the lowest card of the longest suit, trumps only if nothing else."""
    best = -1
    for s in range(4):
        if length(v, s) == 0:
            continue
        if best < 0 or _longer_lead(v, s, best):
            best = s
    return bottom_card(v, best)


@njit(cache=True, inline="always")
def _longer_lead(v, s, best):
    """Key (not trumps, length, -suit) of ``s`` above ``best``'s (``s`` is the higher suit)."""
    a, b = s != v[V_TRUMP], best != v[V_TRUMP]
    return (a and not b) or (a == b and length(v, s) > length(v, best))


@njit(cache=True)
def lead(v):
    """LEAD_RULES in order (lead_partners_suit never applies in Solo Whist)."""
    card = lead_trumps_to_draw_them(v)
    if card < 0:
        card = return_partners_suit(v)
    if card < 0:
        card = cash_sure_tricks(v)
    if card < 0:
        card = lead_to_partners_void(v)
    if card < 0:
        card = lead_by_the_books_table(v)
    if card < 0:
        card = lead_lowest_of_longest(v)
    return card


# =============================================================== following suit

@njit(cache=True)
def partner_sure_to_win(v):
    """Partner wins the trick and nobody after the bot can take it (follow_low / discard_when_partner_wins)."""
    if not partner_winning(v):
        return False
    _, card = winning(v)
    return v[V_NTRICK] == 3 or sure_to_stand(v, card)


@njit(cache=True)
def cover_an_honour_with_an_honour(v):
    """Second hand covers an opponent's honour with the lowest higher honour."""
    if v[V_NTRICK] != 1 or not (opponents(v) >> 3) & 1:
        return -1
    led = v[V_TRICK]
    if led % 13 < JACK:
        return -1
    suit = led // 13
    ranks = holding(v, suit)
    for r in range(max(led % 13 + 1, JACK), 13):
        if (ranks >> r) & 1:
            return 13 * suit + r
    return -1


@njit(cache=True)
def third_hand_high(v):
    """Third hand plays the lowest of its top touching cards, if that wins."""
    if v[V_NTRICK] != 2:
        return -1
    top = lowest_equivalent(v, top_card(v, led_suit(v)))
    _, best = winning(v)
    return top if beats(top, best, v[V_TRUMP]) else -1


@njit(cache=True)
def follow(v):
    """FOLLOW_RULES in order (second_hand_ace_in_big_games is Vint's)."""
    suit = led_suit(v)
    if partner_sure_to_win(v):
        return bottom_card(v, suit)
    card = cover_an_honour_with_an_honour(v)
    if card >= 0:
        return card
    if v[V_NTRICK] == 1:
        return bottom_card(v, suit)                 # second hand low
    card = third_hand_high(v)
    if card < 0 and v[V_NTRICK] == 3:
        card = cheapest_winner(v, suit)             # fourth hand wins cheaply
    return card if card >= 0 else bottom_card(v, suit)


# =============================================================== void in the suit led

@njit(cache=True)
def keep_value_below(v, s, t):
    """``discard_from_weakest_suit``'s key (masters run, a guarded honour, length, suit) of ``s`` below ``t``'s."""
    ms, mt = masters_run(v, s), masters_run(v, t)
    if ms != mt:
        return ms < mt
    gs, gt = guarded_honour(v, s), guarded_honour(v, t)
    if gs != gt:
        return gt
    if length(v, s) != length(v, t):
        return length(v, s) < length(v, t)
    return s < t


@njit(cache=True)
def guarded_honour(v, suit):
    """An honour (jack or higher, effectively) with enough cards below it to keep it."""
    eff = effective_ranks(v, suit)
    n = count(eff)
    for r in range(JACK, 13):
        if (eff >> r) & 1 and n > 12 - r:
            return True
    return False


@njit(cache=True)
def discard_from_weakest_suit(v):
    """The lowest card of the weakest suit, keeping trumps while there are other cards."""
    trump = v[V_TRUMP]
    weakest = -1
    for s in range(4):
        if length(v, s) == 0 or s == trump:
            continue
        if weakest < 0 or keep_value_below(v, s, weakest):
            weakest = s
    if weakest < 0:
        weakest = trump
    return bottom_card(v, weakest)


@njit(cache=True)
def void_play(v):
    """VOID_RULES in order: discard under partner's sure winner, else ruff as cheaply as wins, else discard."""
    if partner_sure_to_win(v):
        return discard_from_weakest_suit(v)
    trump = v[V_TRUMP]
    if trump != NT and length(v, trump):
        card = cheapest_winner(v, trump)
        if card >= 0:
            return card
    return discard_from_weakest_suit(v)


# =============================================================== misère

@njit(cache=True)
def lowest_lead(v, avoid):
    """The lowest card by rank over the suits held (the first suit among equal ranks), skipping the suits in
    ``avoid`` (a suit mask) unless every suit held is there."""
    held = 0
    for s in range(4):
        if length(v, s):
            held |= 1 << s
    if held & ~avoid == 0:
        avoid = 0
    best = -1
    for s in range(4):
        if (held >> s) & 1 and not (avoid >> s) & 1:
            c = bottom_card(v, s)
            if best < 0 or c % 13 < best % 13:
                best = c
    return best


@njit(cache=True)
def misere_declarer_card(v):
    """The lone misère declarer ducks: the highest card that still loses, else the lowest; void, the highest
    card of the hand; leading, the lowest card of the suit where it is lowest."""
    if v[V_NTRICK] == 0:
        return lowest_lead(v, 0)
    suit = led_suit(v)
    if length(v, suit) == 0:
        return highest_of_hand(v)
    _, best = winning(v)
    ranks = holding(v, suit)
    for r in range(12, -1, -1):
        c = 13 * suit + r
        if (ranks >> r) & 1 and not beats(c, best, v[V_TRUMP]):
            return c
    return bottom_card(v, suit)


@njit(cache=True)
def misere_defence_card(v):
    """Defenders of a misère lead low where the declarer is not known void, keep under the declarer's card
    after it played, play low before it; void, the highest card."""
    decl = v[V_DECLARER]
    if v[V_NTRICK] == 0:
        voids = 0
        for s in range(4):
            if void_in(v, decl, s):
                voids |= 1 << s
        return lowest_lead(v, voids)
    suit = led_suit(v)
    if length(v, suit) == 0:
        return highest_of_hand(v)
    theirs = played_by(v, decl)
    if theirs >= 0:
        ranks = holding(v, suit)
        for r in range(12, -1, -1):
            if (ranks >> r) & 1 and 13 * suit + r < theirs:
                return 13 * suit + r
    return bottom_card(v, suit)


# =============================================================== the card (card_play.choose_card)

@njit(cache=True)
def choose_card(v, goal):
    """The card the books advise (card_play.choose_card), -1 if none (the caller refuses it)."""
    if goal == GOAL_MISERE:
        return misere_declarer_card(v)
    if goal == GOAL_MISERE_DEFENCE:
        return misere_defence_card(v)
    if v[V_NTRICK] == 0:
        return lead(v)
    if length(v, led_suit(v)):
        return follow(v)
    return void_play(v)


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
def bid(hand, turned_trump, legal, limits):
    """The first of the bidding rules that applies, among the legal calls (``legal``: the action mask row;
    ``limits``: the thresholds, L_*)."""
    if legal[DECLAREE] and sure_tricks2(hand, NT) >= limits[L_DECLAREE]:
        return DECLAREE
    if legal[OPEN_MISERE] and lowness(hand) <= limits[L_OPEN_MISERE] and misere_shape_ok(hand):
        return OPEN_MISERE
    call = abondance_call(hand, turned_trump, legal, limits)
    if call >= 0:
        return call
    if legal[MISERE] and lowness(hand) <= limits[L_MISERE] and misere_shape_ok(hand):
        return MISERE
    trumps = sure_tricks2(hand, turned_trump)
    if legal[SOLO] and trumps >= limits[L_SOLO] and count(ranks_of(hand, turned_trump)) >= 4:
        return SOLO
    if legal[ACCEPT] and trumps >= limits[L_ACCEPT]:
        return ACCEPT
    if legal[PROPOSAL] and trumps >= limits[L_PROPOSAL]:
        return PROPOSAL
    return PASS


@njit(cache=True)
def abondance_call(hand, turned_trump, legal, limits):
    """abondance_with_nine_sure_tricks: trump abondance with the turned suit, else abondance; -1 none."""
    if sure_tricks2(hand, best_suit(hand)) < limits[L_ABONDANCE]:
        return -1
    if legal[TRUMP_ABONDANCE] and sure_tricks2(hand, turned_trump) >= limits[L_ABONDANCE]:
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
        return GOAL_MISERE if mine else GOAL_MISERE_DEFENCE
    return GOAL_TRICKS


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
def rule_actions_kernel(small, words, legal, deal_index, rows, memory, limits, out):
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
            a = bid(hand, np.int64(small[b, _TURNED]) // 13, legal[b], limits)
        elif phase == TRUMP:
            a = TRUMP_BASE + best_suit(hand)
        else:
            a = play_card(small, words, b, me, memory, v, last)
        if a < 0 or not legal[b, a]:
            return k
        out[k] = a
    return -1
