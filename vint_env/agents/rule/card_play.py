"""Card-play advice of the rule books, as an ordered list of small rules.

Shared by the Vint, Whist and Solo Whist rule bots (the three games play
tricks the same way, docs/rules/index.md).  Every rule is a function of a
:class:`~vint_env.agents.rule.play_view.PlayView` that returns a card or ``None``
(does not apply); :func:`choose_card` tries the rules of the bot's position
in order.  Each rule's docstring names its source: the seed file and the
advice it follows, and the ids of that advice in ``docs/play_advice.md``
(the catalogue of the books' advice).  Catalogue items not implemented: the
finesses (V-SECOND-4, V-SECOND-8, V-THIRD-2), V-SECOND-5 (play a doubleton
king or queen second hand), V-LSUIT-7/8/10/11/13/18/19/23, V-THIRD-7 and the
Vint "showing" conventions (V-BID-20 to V-BID-24).

Books: the club rules (Vint: "Правила розыгрыша", "Исключения розыгрыша",
"Правила сноса карт"), Whist book (Whist), docs/rules/vint.md, Good play.
"""

from __future__ import annotations

from typing import Callable, Optional

from ...cards import NO_TRUMP, Rank
from ...rules.tricks import beats
from .play_view import Book, PlayView


Rule = Callable[[PlayView], Optional[int]]


def lowest(cards: list[int]) -> int:
    return min(cards, key=lambda c: (c % 13, c // 13))


def highest(cards: list[int]) -> int:
    return max(cards, key=lambda c: (c % 13, -(c // 13)))


# =============================================================== leads

def lead_trumps_to_draw_them(v: PlayView) -> Optional[int]:
    """Declaring side draws the opponents' trumps.

    club rules: "Тот игрок, который назначает игру, должен козырять сразу при
    заручке" (the declarer leads trumps as soon as he has the lead); "При
    игре 'три', которую назначил партнер, необходимо козырять при первой
    заручке"; "При игре 'два' не козыряют" (the declarer's partner does not
    lead trumps at level two).  Whist book: with four or five trumps lead trumps,
    "с самого старшего" (the highest first); with three or fewer do not
    (four or more measured +0.1 points a board, 95% CI [0.0, 0.2], over five).
    docs/play_advice.md: V-LSUIT-4, V-LSUIT-5, V-LSUIT-6, W-LSUIT-2, W-LSUIT-3
    (Solo Whist: 4.4 [derived]).
    """
    if v.trump == NO_TRUMP or not v.length(v.trump) or not v.opponents_may_hold_trumps():
        return None
    n = v.length(v.trump)
    if v.game == Book.VINT:
        if not v.declaring:
            return None
        if v.declarer != 0 and (v.level < 3 or n < 3):
            return None
    elif v.game == Book.WHIST:
        if n < 4:                       # W-LSUIT-3: never with three or fewer
            return None
    else:  # solo whist: the declaring side (solo, proposal, abondance) draws trumps
        if not v.declaring or n < 3:
            return None
    return trump_lead_card(v)


def trump_lead_card(v: PlayView) -> int:
    """From the top (Ukrainian rules: "Козырять необходимо с самых старших карт с туза и
    короля"; V-LEAD-14, W-LEAD-11) when the top trump is the master or heads
    touching honours; else the lowest.  Leading the top trump always measured
    worse in Whist (-0.1 points a board, 95% CI [-0.1, -0.0], 1,500 boards)."""
    cards = v.cards(v.trump)
    if v.is_master(cards[0]):
        return cards[0]
    eff = v.effective_ranks(v.trump)
    if len(eff) >= 2 and eff[0] >= Rank.QUEEN and eff[1] == eff[0] - 1:
        return cards[0]
    return cards[-1]


def lead_partners_suit(v: PlayView) -> Optional[int]:
    """Lead the suit partner named, with its highest card.

    club rules: "При объявленных мастях игрок должен ходить не со своей масти,
    а со старшей карты, которую заявил партнер"; "Если у игрока на руках туз
    бланк, король или дама бланк мастей, которые объявил партнер, то игрок
    должен отходить их".  Only while no opponent is known to ruff it, and
    not the trump suit of the opponents.  docs/play_advice.md: V-LSUIT-9,
    V-LSUIT-1, V-LEAD-11, V-LEAD-13.
    """
    if v.declaring:
        return None
    for p in sorted(v.partners):
        for suit in sorted(v.named[p]):
            if suit == v.trump or not v.length(suit) or v.opponent_may_ruff(suit):
                continue
            if v.opponents_void_in(suit):
                continue
            return v.cards(suit)[0]
    return None


def return_partners_suit(v: PlayView) -> Optional[int]:
    """Return the suit partner led and won with.

    Whist book: "Если партнер пошел с какой-нибудь масти и взял взятку, ему следует
    подыграть и ходить с той же масти" (unless the bot has a very strong
    suit of its own: then that first).  docs/play_advice.md: W-LSUIT-1.
    """
    for suit in sorted(v.partner_won_leads):
        if suit == v.trump or not v.length(suit) or v.opponent_may_ruff(suit):
            continue
        if any(v.masters_run(s) >= 2 for s in range(4) if s != v.trump and s != suit):
            return None          # own strong suit first
        cards = v.cards(suit)
        return cards[0] if v.is_master(cards[0]) or len(cards) <= 2 else cards[-1]
    return None


def cash_sure_tricks(v: PlayView) -> Optional[int]:
    """Cash sure winners: lead a master card where no opponent can ruff it.

    club rules: "При игре 'три' самое верное отходить свои верные взятки";
    "Если у игрока есть туз, король, дама, то игрок будет отхаживать эту
    коронку".  The books say it for contracts of three and for coronets; we
    cash every sure winner that no opponent is known to ruff, which measured
    better in all contracts (Whist: +0.9 points a board, 95% CI [0.7, 1.0],
    over cashing only runs of three, 1,000 boards; Vint: +46 points a board,
    [6, 85], 400 boards).  docs/play_advice.md: V-LSUIT-2, V-LSUIT-3
    (generalised).
    """
    for suit in _suits_by_length(v):
        if suit == v.trump or not v.length(suit) or not v.masters_run(suit):
            continue
        if v.opponent_may_ruff(suit) or (v.trump != NO_TRUMP and v.opponents_void_in(suit)):
            continue
        return v.cards(suit)[0]
    return None


def lead_to_partners_void(v: PlayView) -> Optional[int]:
    """Lead a suit partner lacks so that partner ruffs it.

    Whist book: "Если партнер имеет недостаток в какой-нибудь масти, выгодно ходить
    к нему с этой масти, тогда он сможет укрываться маленькими козырями".
    docs/play_advice.md: W-LSUIT-4 (V-LSUIT-22 at no-trump does not arise: no trumps).
    """
    if v.trump == NO_TRUMP:
        return None
    for p in sorted(v.partners):
        if v.trump in v.voids[p]:
            continue
        for suit in range(4):
            if suit == v.trump or suit not in v.voids[p] or not v.length(suit):
                continue
            if v.opponent_may_ruff(suit):
                continue
            return v.cards(suit)[-1]
    return None


def lead_by_the_books_table(v: PlayView) -> Optional[int]:
    """Choose the suit to lead and the card by the books' lead tables.

    Suit: prefer sequences and long suits (Whist book: "Более предпочтительными
    считаются ходы от длинной масти"; Ukrainian rules: "При бескозырной игре ходят от
    своей сильной масти"); avoid the suit named by the opponent on the right
    (Ukrainian rules: "Игрок не должен ходить с масти, которую заявил контрпартнер,
    который сидит справа"); avoid K-x and K-x-x (Ukrainian rules: "От короля сам-друг
    или сам-третей не ходят"), A-Q (Whist book: "Не рекомендуется ходить с той
    масти, в которой имеются Туз и Дама"), singletons in Whist (Whist book: "С
    одиночной карты ходить не нужно"), partner's first discard (Whist book: "его
    слабая масть, а значит ходить с нее не стоит") and suits no opponent
    holds (Whist book).  Card: :func:`table_card`.  docs/play_advice.md: V-LSUIT-12,
    V-LSUIT-17, V-LSUIT-21, V-LEAD-9, W-LSUIT-5 to W-LSUIT-9, W-LEAD-4, W-LEAD-8.
    """
    suits = [s for s in range(4) if v.length(s) and s != v.trump]
    if not suits:
        return None
    best = max(suits, key=lambda s: (_lead_priority(v, s), v.length(s), -s))
    return table_card(v, best)


def _lead_priority(v: PlayView, suit: int) -> float:
    eff = v.effective_ranks(suit)
    n = len(eff)
    p = 0.0
    if _has(eff, Rank.ACE, Rank.KING, Rank.QUEEN) or _has(eff, Rank.ACE, Rank.KING):
        p += 100
    elif _has(eff, Rank.KING, Rank.QUEEN, Rank.JACK) or _has(eff, Rank.QUEEN, Rank.JACK, Rank.TEN):
        p += 90
    elif _has(eff, Rank.KING, Rank.QUEEN):
        p += 70
    if n >= 5:
        p += 40 + (20 if v.trump == NO_TRUMP else 0)
    elif n == 4:
        p += 30
    if eff and eff[0] == Rank.ACE and n >= 4:
        p += 10
    if v.game == Book.VINT and eff and eff[0] == Rank.KING and n in (2, 3):
        p -= 50                                     # Ukrainian rules: not from K-x, K-x-x
    if _has(eff, Rank.ACE, Rank.QUEEN) and Rank.KING not in eff:
        p -= 40                                     # Whist book: wait with A-Q
    if n == 1 and (v.game == Book.WHIST or (eff and eff[0] < Rank.ACE)):
        p -= 40                                     # Whist book: no singleton leads
    if v.game == Book.VINT and suit in v.named[3]:
        p -= 80                                     # Ukrainian rules: not the right-hand opponent's suit
    if v.game == Book.VINT and v.declaring is False and v.declarer is not None and suit in v.named[v.declarer]:
        p -= 30
    for partner in v.partners:
        if v.first_discard[partner] == suit:
            p -= 40                                 # Whist book: partner's first discard is his weak suit
    if v.trump != NO_TRUMP and v.opponents_void_in(suit):
        p -= 100                                    # Whist book: not a suit neither opponent holds
    if v.opponent_may_ruff(suit):
        p -= 60
    return p


def _has(eff: list[int], *ranks: int) -> bool:
    return all(r in eff for r in ranks)


def table_card(v: PlayView, suit: int) -> int:
    """The card to lead from a suit, by the lead tables of the Ukrainian rules (Vint) and Whist book (Whist).

    ===================  ========================  =============================
    holding              Vint (club rules)            Whist (Whist book)
    ===================  ========================  =============================
    A-K-Q ...            K (V-LEAD-1)              Q, "коронка ... с Дамы" (W-LEAD-10)
    A-K ...              A, then K (V-LEAD-2, -3)  K, "давая понять ... Туз" (W-LEAD-9)
    K-Q-J, K-Q ...       K (V-LEAD-4)              K
    Q-J-10, Q-J ...      Q (V-LEAD-5)              Q (W-LEAD-1)
    A-Q-J-x              small (V-LEAD-6)          small
    A-x-x-x (and more)   small (V-LEAD-7)          small (W-LEAD-2)
    A-x                  A (V-LEAD-8)              A
    K-x-x(-x)            (not led: V-LEAD-9)       small (W-LEAD-3)
    other                small from 3+, high from 2 (V-LEAD-15, W-LEAD-7)
    ===================  ========================  =============================
    """
    cards = v.cards(suit)
    eff = v.effective_ranks(suit)
    whist = v.game in (Book.WHIST, Book.SOLO_WHIST)
    if _has(eff, Rank.ACE, Rank.KING, Rank.QUEEN):
        return cards[eff.index(Rank.QUEEN if whist else Rank.KING)]
    if _has(eff, Rank.ACE, Rank.KING):
        return cards[eff.index(Rank.KING if whist else Rank.ACE)]
    top_run = 1
    while top_run < len(eff) and eff[top_run] == eff[top_run - 1] - 1:
        top_run += 1
    if top_run >= 2 and eff[0] >= Rank.JACK:
        return cards[0]                              # K-Q, Q-J-10: top of the sequence
    if eff[0] == Rank.ACE and len(eff) == 2:
        return cards[0]                              # Ukrainian rules: "туз сам-друг ... с туза"
    if len(cards) == 2:
        return cards[0]
    return cards[-1]


def lead_lowest_of_longest(v: PlayView) -> Optional[int]:
    """Last resort: the lowest card of the longest suit (trumps if nothing else)."""
    suits = [s for s in range(4) if v.length(s)]
    suit = max(suits, key=lambda s: (s != v.trump, v.length(s), -s))
    return v.cards(suit)[-1]


LEAD_RULES: list[Rule] = [
    lead_trumps_to_draw_them,
    lead_partners_suit,
    return_partners_suit,
    cash_sure_tricks,
    lead_to_partners_void,
    lead_by_the_books_table,
    lead_lowest_of_longest,
]


# =============================================================== following suit

def follow_low_when_partner_wins(v: PlayView) -> Optional[int]:
    """Do not overtake a partner who is sure to win the trick.

    Whist book: "Если же партнер пошел Королем, а у вас имеется Туз, следует
    оставить эту взятку партнеру".  docs/play_advice.md: W-PLAY-3, V-THIRD-1
    (its exception), 2.6 (fourth hand).
    """
    if not v.partner_winning():
        return None
    _, card = v.winning()
    if v.position == 3 or v.sure_to_stand(card):
        return lowest(v.cards(v.led_suit))
    return None


def cover_an_honour_with_an_honour(v: PlayView) -> Optional[int]:
    """Second hand covers an opponent's honour with a higher honour.

    club rules: "На фигуру соперника необходимо класть старшую фигуру"; "Туз
    необходимо класть всегда на короля и даму соперника".
    docs/play_advice.md: V-SECOND-2, V-SECOND-3.
    """
    if v.position != 1 or v.trick[0][0] not in v.opponents:
        return None
    led = v.trick[0][1]
    if led % 13 < Rank.JACK:
        return None
    higher = [c for c in v.cards(v.led_suit) if c > led and c % 13 >= Rank.JACK]
    return min(higher) if higher else None


def second_hand_ace_in_big_games(v: PlayView) -> Optional[int]:
    """club rules: "При большой игре по второй кладут туза и на маленькую"
    (against a contract of four or more, second hand plays the ace even on
    a small card).  docs/play_advice.md: V-SECOND-6 (big = level 4 and up
    here)."""
    if v.position != 1 or v.game != Book.VINT or v.level < 4 or v.declaring:
        return None
    cards = v.cards(v.led_suit)
    return cards[0] if cards[0] % 13 == Rank.ACE else None


def second_hand_low(v: PlayView) -> Optional[int]:
    """club rules: "Второй игрок на вышедшую мелкую карту кладет тоже мелкую
    карту" (second hand low).  docs/play_advice.md: V-SECOND-7, W-PLAY-6."""
    if v.position != 1:
        return None
    return lowest(v.cards(v.led_suit))


def third_hand_high(v: PlayView) -> Optional[int]:
    """Third hand plays high: the lowest of its top touching cards, if that wins.

    club rules: "По третьей руке Вы должны положить старшую карту".  Whist book: "Если
    партнер сбрасывает карту, то на нее следует класть самую старшую".
    (Partner's card that is sure to win was left alone by
    :func:`follow_low_when_partner_wins`.)  docs/play_advice.md: V-THIRD-1,
    W-PLAY-1.
    """
    if v.position != 2:
        return None
    cards = v.cards(v.led_suit)
    top = v.lowest_equivalent(cards[0])
    if not v.can_win_with([top]):
        return None
    return top


def fourth_hand_wins_cheaply(v: PlayView) -> Optional[int]:
    """Last to play: win as cheaply as possible, else play low."""
    if v.position != 3:
        return None
    winners = v.can_win_with(v.cards(v.led_suit))
    return winners[0] if winners else None


def follow_lowest(v: PlayView) -> Optional[int]:
    """Nothing to gain: the lowest card of the suit."""
    return lowest(v.cards(v.led_suit))


FOLLOW_RULES: list[Rule] = [
    follow_low_when_partner_wins,
    cover_an_honour_with_an_honour,
    second_hand_ace_in_big_games,
    second_hand_low,
    third_hand_high,
    fourth_hand_wins_cheaply,
    follow_lowest,
]


# =============================================================== void in the suit led

def discard_when_partner_wins(v: PlayView) -> Optional[int]:
    """Do not ruff partner's winner.

    club rules: "Если партнер объявляет масть, то ошибкой будет перекрывание ее
    козырями"; "Если Ваш партнер вышел с короля той масти, которой у него
    больше нет, то Вам по третьей руке не стоит перекрывать этого короля
    козырной картой".  docs/play_advice.md: V-THIRD-5, V-THIRD-6, W-PLAY-2,
    2.6.
    """
    if not v.partner_winning():
        return None
    _, card = v.winning()
    if v.position == 3 or v.sure_to_stand(card):
        return discard_from_weakest_suit(v)
    return None


def ruff_when_partner_cannot_win(v: PlayView) -> Optional[int]:
    """Ruff (or overruff) with the lowest trump that wins.

    club rules: "Если у Вашего партнера нет надежды встретить старшую карту
    предложенной масти, то Вы ... должны перекрыть эту масть козырем"; "Если
    Ваш партнер вышел с мелкой карты такой масти, которой у Вас нет, то Вы
    должны перекрыть ее козырной картой"; "Если выход делается с масти,
    которой нет у второго игрока и масть разыграна в первый раз, то
    необходимо класть козыря".  Whist book: with fewer than four trumps and no
    honours, ruff even such tricks.  docs/play_advice.md: V-SECOND-1,
    V-THIRD-3, V-THIRD-4, W-PLAY-2, 2.6.
    """
    if v.trump == NO_TRUMP or not v.length(v.trump):
        return None
    winners = v.can_win_with(v.cards(v.trump))
    if not winners:
        return None
    return winners[0]


def discard_from_weakest_suit(v: PlayView) -> Optional[int]:
    """Discard from the weakest suit, keeping the suits with sure tricks.

    club rules "Правила сноса карт": "Первая снесенная карта игрока должна
    принадлежать его самой слабой масти"; "Если у игрока есть верные взятки
    только в одной масти ... сносить все другие масти, но пики не трогать";
    "Если у игрока есть верные взятки в двух мастях, то он должен сносить как
    раз третью".  Trumps are kept while there are other cards.
    docs/play_advice.md: V-DISC-1 to V-DISC-4, W-DISC-1.
    """
    suits = [s for s in range(4) if v.length(s) and s != v.trump] or [v.trump]

    def keep_value(s: int) -> tuple:
        eff = v.effective_ranks(s)
        guarded_honour = any(r >= Rank.JACK and len(eff) > 12 - r for r in eff)
        return (v.masters_run(s), guarded_honour, v.length(s), s)

    suit = min(suits, key=keep_value)
    return v.cards(suit)[-1]


VOID_RULES: list[Rule] = [
    discard_when_partner_wins,
    ruff_when_partner_cannot_win,
    discard_from_weakest_suit,
]


# =============================================================== misère (Solo Whist)

def misere_declarer_card(v: PlayView) -> int:
    """The lone misère declarer avoids every trick.

    Following: the highest card that still loses (keep low cards for
    later), else the lowest.  Void: throw the most dangerous card (the
    highest).  Leading: the lowest card of the suit where it is lowest.
    (the Collection's open-misère example: "сносит свою самую старшую карту"; "вынужден,
    чтобы не взять взятку, положить трефовую 2".)  docs/play_advice.md:
    S-MIS-1, S-MIS-2.
    """
    if not v.trick:
        return min((v.cards(s)[-1] for s in range(4) if v.length(s)), key=lambda c: c % 13)
    led = v.led_suit
    _, best = v.winning()
    if v.length(led):
        cards = v.cards(led)
        losers = [c for c in cards if not beats(c, best, v.trump)]
        return max(losers) if losers else min(cards)
    return highest([c for s in range(4) for c in v.cards(s)])


def misere_defence_card(v: PlayView) -> int:
    """Defenders of a misère try to give the declarer a trick.

    Leading: the lowest card (the declarer must then find a lower one).
    Following after the declarer: keep under the declarer's card so that it
    wins; before the declarer plays: play low so that the declarer cannot
    duck.  Void: discard the highest card.  docs/play_advice.md: S-DEF-1,
    S-DEF-4 (leads avoid the declarer's known voids), S-DEF-5.
    """
    decl = v.declarer
    if not v.trick:
        suits = [s for s in range(4) if v.length(s)]
        # lead where the declarer is not known void, the lowest card
        live = [s for s in suits if decl is None or s not in v.voids[decl]] or suits
        return min((v.cards(s)[-1] for s in live), key=lambda c: c % 13)
    led = v.led_suit
    if not v.length(led):
        return highest([c for s in range(4) for c in v.cards(s)])
    cards = v.cards(led)
    declarer_card = next((c for s, c in v.trick if s == decl), None)
    if declarer_card is not None:
        under = [c for c in cards if c < declarer_card]
        return max(under) if under else min(cards)
    return min(cards)


# =============================================================== entry point

def choose_card(v: PlayView, legal: list[int]) -> int:
    """The card the books advise, among the legal cards."""
    if v.goal == "misere":
        card = misere_declarer_card(v)
    elif v.goal == "misere_defence":
        card = misere_defence_card(v)
    else:
        if not v.trick:
            rules = LEAD_RULES
        elif v.length(v.led_suit):
            rules = FOLLOW_RULES
        else:
            rules = VOID_RULES
        card = None
        for rule in rules:
            card = rule(v)
            if card is not None:
                break
    if card is None or card not in legal:
        # Should not happen: every rule list ends with a rule that always answers.
        raise RuntimeError(f"rule bot chose {card!r}, not among the legal cards {legal}")
    return card


def _suits_by_length(v: PlayView) -> list[int]:
    return sorted(range(4), key=lambda s: (-v.length(s), s))
