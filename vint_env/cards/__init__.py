"""Cards, suits, ranks, hands and deals, with their text and PBN notations.

A card is identified everywhere by its id ``suit * 13 + rank`` (docs/envs/index.md, Conventions):
suits in the rules' suit order (docs/rules/index.md) spades 0, clubs 1, diamonds 2, hearts 3; ranks
2..A = 0..12.  :class:`Card` is an ``int`` subclass carrying that id, so it
can be used as an action id directly.

A hand is a 52-bit integer mask (bit ``card id`` set when the card is held):
compact, hashable, and fast to query by suit.

>>> Card.parse("SA"), Card.parse("h10"), Card.parse("DT")
(Card.parse('SA'), Card.parse('H10'), Card.parse('D10'))
>>> int(Card.parse("C2"))
13
>>> deal = parse_pbn("N:AKQ2.J98.7654.32 JT98.AKQ.32.AKQJ 7654.T765.AKQ.T9 3.432.JT98.87654")
>>> str(Card.parse("SA")), hand_to_pbn(deal[0])
('SA', 'AKQ2.J98.7654.32')
"""

from __future__ import annotations

from enum import IntEnum
from numbers import Integral
from typing import Iterable, Sequence

from ..inputs import excerpt

__all__ = [
    "Suit", "Rank", "Card", "DeckError", "SEATS", "SEAT_LETTERS",
    "NUM_CARDS", "NO_TRUMP", "FULL_DECK", "SUIT_MASK",
    "card_suit", "card_rank", "card_text", "parse_card",
    "hand_from_cards", "hand_cards", "hand_size", "hand_suit_ranks",
    "hand_to_text", "hand_to_pbn", "parse_hand_pbn",
    "parse_pbn", "deal_to_pbn", "validate_deal", "random_deal",
]

NUM_CARDS = 52
#: The no-trump marker everywhere (trump of a deal, strain of a Vint bid, observation column):
#: the fifth strain, after the suits 0..3.
NO_TRUMP = 4
FULL_DECK = (1 << NUM_CARDS) - 1
SEATS = (0, 1, 2, 3)
SEAT_LETTERS = "NESW"


class DeckError(ValueError):
    """A card, hand or deal text (or value) that is malformed or impossible."""


class Suit(IntEnum):
    """Suits in the canonical order of docs/rules/index.md (lowest first)."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "SCDH"[self]

    @property
    def symbol(self) -> str:
        return "♠♣♦♥"[self]


class Rank(IntEnum):
    """Ranks 2..A as 0..12."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def text(self) -> str:
        return RANK_TEXT[self]


RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_PBN = "23456789TJQKA"
_RANK_FROM_TEXT = {t: i for i, t in enumerate(RANK_TEXT)}
_RANK_FROM_TEXT["T"] = Rank.TEN
SUIT_LETTERS = "SCDH"
SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
# PBN writes each hand as spades.hearts.diamonds.clubs.
PBN_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


def card_suit(card: int) -> int:
    return card // 13


def card_rank(card: int) -> int:
    return card % 13


def card_text(card: int) -> str:
    """``'SA'``, ``'H10'``, ``'C2'``."""
    if not 0 <= card < NUM_CARDS:
        raise DeckError(f"card id {excerpt(card)} is out of range 0..51")
    return SUIT_LETTERS[card // 13] + RANK_TEXT[card % 13]


def parse_card(text: str) -> int:
    """Card id from text such as ``'SA'``, ``'h10'``, ``'HT'``, ``'c2'``."""
    if not isinstance(text, str):
        raise DeckError(f"card text must be a string, got {type(text).__name__}")
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in SUIT_LETTERS or t[1:] not in _RANK_FROM_TEXT:
        raise DeckError(
            f"malformed card {excerpt(text)}: expected a suit letter S, C, D or H "
            "followed by a rank 2-10, T, J, Q, K or A (e.g. 'SA', 'H10')")
    return SUIT_LETTERS.index(t[0]) * 13 + _RANK_FROM_TEXT[t[1:]]


class Card(int):
    """A card; an ``int`` equal to its id ``suit * 13 + rank``."""

    __slots__ = ()

    def __new__(cls, value: int) -> "Card":
        if not isinstance(value, int) or not 0 <= value < NUM_CARDS:
            raise DeckError(f"card id {excerpt(value)} is out of range 0..51")
        return super().__new__(cls, value)

    @classmethod
    def from_suit_rank(cls, suit: int, rank: int) -> "Card":
        if not (0 <= suit < 4 and 0 <= rank < 13):
            raise DeckError(f"no card with suit {excerpt(suit)} and rank {excerpt(rank)}")
        return cls(suit * 13 + rank)

    @classmethod
    def parse(cls, text: str) -> "Card":
        return cls(parse_card(text))

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def rank(self) -> Rank:
        return Rank(self % 13)

    def __str__(self) -> str:
        return card_text(self)

    def __repr__(self) -> str:
        return f"Card.parse({card_text(self)!r})"


# ---------------------------------------------------------------- hands

def hand_from_cards(cards: Iterable[int]) -> int:
    """Hand mask from card ids; a repeated card is an error."""
    mask = 0
    for c in cards:
        c = int(c)
        if not 0 <= c < NUM_CARDS:
            raise DeckError(f"card id {excerpt(c)} is out of range 0..51")
        bit = 1 << c
        if mask & bit:
            raise DeckError(f"card {card_text(c)} appears twice")
        mask |= bit
    return mask


def hand_cards(hand: int) -> list[int]:
    """Card ids held, in increasing id order."""
    out = []
    while hand:
        low = hand & -hand
        out.append(low.bit_length() - 1)
        hand ^= low
    return out


def hand_size(hand: int) -> int:
    return hand.bit_count()


def hand_suit_ranks(hand: int, suit: int) -> int:
    """The 13-bit rank mask of one suit of a hand."""
    return (hand >> (13 * suit)) & 0x1FFF


def _ranks_desc(ranks: int, alphabet: Sequence[str]) -> str:
    return "".join(alphabet[r] for r in range(12, -1, -1) if ranks >> r & 1)


def hand_to_text(hand: int) -> str:
    """One line, suits in canonical order: ``'S:AK2 C:- D:QJ H:1098'``."""
    parts = []
    for s in Suit:
        ranks = hand_suit_ranks(hand, s)
        txt = " ".join(RANK_TEXT[r] for r in range(12, -1, -1) if ranks >> r & 1)
        parts.append(f"{s.symbol} {txt or '-'}")
    return "  ".join(parts)


def hand_to_pbn(hand: int) -> str:
    return ".".join(_ranks_desc(hand_suit_ranks(hand, s), RANK_PBN) for s in PBN_SUIT_ORDER)


def parse_hand_pbn(text: str) -> int:
    """Hand mask from one PBN hand ``'AKQ2.J98.7654.32'`` (S.H.D.C)."""
    parts = text.split(".")
    if len(parts) != 4:
        raise DeckError(f"PBN hand {excerpt(text)} must have 4 suits separated by '.', got {len(parts)}")
    mask = 0
    for suit, part in zip(PBN_SUIT_ORDER, parts):
        for ch in part.upper():
            if ch not in RANK_PBN:
                raise DeckError(f"bad rank letter {ch!r} in PBN hand {excerpt(text)} (use AKQJT98765432)")
            bit = 1 << (suit * 13 + RANK_PBN.index(ch))
            if mask & bit:
                raise DeckError(f"card {card_text(suit * 13 + RANK_PBN.index(ch))} appears twice in PBN hand {excerpt(text)}")
            mask |= bit
    return mask


# ---------------------------------------------------------------- deals

Deal = tuple  # tuple of four hand masks, indexed by seat


def validate_deal(hands: Sequence[int]) -> tuple[int, int, int, int]:
    """Check four hands of 13 distinct cards covering the deck (integer card masks, no bit outside the 52 cards)."""
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__"):
        raise DeckError(f"a deal is 4 hand masks or a PBN string, got {excerpt(hands)}")
    if len(hands) != 4:
        raise DeckError(f"a deal has 4 hands, got {len(hands)}")
    seen = 0
    for seat, h in enumerate(hands):
        if isinstance(h, bool) or not isinstance(h, Integral):
            raise DeckError(f"hand of seat {SEAT_LETTERS[seat]} must be an integer card mask, got {excerpt(h)}")
        h = int(h)
        if h < 0 or h & ~FULL_DECK:
            raise DeckError(f"hand of seat {SEAT_LETTERS[seat]} ({h:#x}) has bits outside the 52-card deck "
                            f"(card ids 0..51)")
        n = hand_size(h)
        if n != 13:
            raise DeckError(f"hand of seat {SEAT_LETTERS[seat]} has {n} cards, expected 13")
        dup = seen & h
        if dup:
            raise DeckError(
                f"card {card_text(hand_cards(dup)[0])} is dealt twice "
                f"(again to seat {SEAT_LETTERS[seat]})")
        seen |= h
    return tuple(int(h) for h in hands)  # type: ignore[return-value]


def parse_pbn(text: str) -> tuple[int, int, int, int]:
    """Deal from PBN ``"N:AKQ2.J98.7654.32 ..."``; returns hands indexed by seat.

    The first letter names the seat of the first hand; the others follow
    clockwise.  A malformed or impossible deal raises :class:`DeckError`.
    """
    if not isinstance(text, str):
        raise DeckError(f"PBN deal must be a string, got {type(text).__name__}")
    t = text.strip()
    if len(t) < 2 or t[1] != ":" or t[0].upper() not in SEAT_LETTERS:
        raise DeckError(f"PBN deal {excerpt(text)} must start with a seat letter N, E, S or W and ':'")
    first = SEAT_LETTERS.index(t[0].upper())
    parts = t[2:].split()
    if len(parts) != 4:
        raise DeckError(f"PBN deal {excerpt(text)} must have 4 hands, got {len(parts)}")
    hands = [0, 0, 0, 0]
    for i, part in enumerate(parts):
        hands[(first + i) % 4] = parse_hand_pbn(part)
    return validate_deal(hands)


def deal_to_pbn(hands: Sequence[int], first: int = 0) -> str:
    seats = [(first + i) % 4 for i in range(4)]
    return SEAT_LETTERS[first] + ":" + " ".join(hand_to_pbn(hands[s]) for s in seats)


def random_deal(rng) -> tuple[int, int, int, int]:
    """Uniformly random deal from a ``numpy.random.Generator`` (or ``random.Random``)."""
    if hasattr(rng, "permutation"):
        order = [int(c) for c in rng.permutation(NUM_CARDS)]
    else:
        order = list(range(NUM_CARDS))
        rng.shuffle(order)
    return tuple(hand_from_cards(order[13 * s:13 * s + 13]) for s in range(4))  # type: ignore[return-value]
