"""The rule bots' card play by Solo Whist's book, compiled: :func:`choose_card` on a view array.

The numba twin of :mod:`vint_env.agents.rule.card_play` for ``Book.SOLO_WHIST`` (each function here
carries the name of the reference rule it follows; the reference docstrings give the books' sources
and docs/play_advice.md's ids).  A rule returns a card, or -1 where the reference returns ``None``
(does not apply).  Rules of the reference that never apply in Solo Whist are left out:
``lead_partners_suit`` (no suit is named in Solo Whist's auction) and ``second_hand_ace_in_big_games``
(Vint's).  The differential tests (tests/vector/test_solo_whist_rule_kernel.py) hold the two equal,
decision by decision.
"""

from __future__ import annotations

from numba import njit

from ..cards import NO_TRUMP as NT
from .rule_view import (ACE, JACK, KING, QUEEN, TEN, V_DECLARER, V_FIRST, V_NTRICK, V_PARTNERS, V_TRICK, V_TRUMP,
                        V_WON_LEADS, beats, bottom_card, card_at_effective, cheapest_winner, count, declaring,
                        effective_ranks, has, high_rank, highest_of_hand, holding, is_master, led_suit, length,
                        lowest_equivalent, masters_run, nth_card, opponent_may_ruff, opponents, opponents_may_hold_trumps,
                        opponents_void_in, partner_winning, played_by, sure_to_stand, top_card, void_in, winning)

# Goals of the play (PlayView.goal).
TRICKS, MISERE, MISERE_DEFENCE = 0, 1, 2

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


# =============================================================== entry point

@njit(cache=True)
def choose_card(v, goal):
    """The card the books advise (card_play.choose_card), -1 if none (the caller refuses it)."""
    if goal == MISERE:
        return misere_declarer_card(v)
    if goal == MISERE_DEFENCE:
        return misere_defence_card(v)
    if v[V_NTRICK] == 0:
        return lead(v)
    if length(v, led_suit(v)):
        return follow(v)
    return void_play(v)


__all__ = ["MISERE", "MISERE_DEFENCE", "TRICKS", "choose_card", "nth_card"]
