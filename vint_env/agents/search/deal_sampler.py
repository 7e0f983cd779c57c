"""Exact uniform sampling of the hidden cards consistent with what a player knows.

A game describes what one player knows as a :class:`Knowledge`: for every
seat the cards it is *known* to hold (the player's own hand, an exposed
hand, a turned card still in the dealer's hand), how many cards it holds,
and per suit bounds on how many of the *unknown* cards of that suit it may
hold (a void shown by failing to follow suit is the bound 0; an auction
inference such as "a bidder of a suit holds at least four of it" is a lower
bound).  :class:`DealSampler` then draws deals uniformly from *all* deals
consistent with that knowledge, exactly (no rejection, no approximation):

1. a dynamic program over the suits counts, for every way of splitting each
   suit's unknown cards between the hidden seats (within the bounds, adding
   up to each seat's number of unknown cards), the deals it stands for
   (the product of the multinomial coefficients);
2. a draw picks the split of each suit in turn with probability
   proportional to those counts, then deals the suit's cards to the seats
   by a random permutation.

Every consistent deal is therefore equally likely, no card is dealt twice,
and a seed reproduces the draws.  Seats are whatever the game uses (the
PIMC agent uses seats relative to the player: 0 is the player).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np

from ...cards import FULL_DECK, SUIT_MASK, hand_cards


class ImpossibleKnowledge(ValueError):
    """No deal is consistent with the knowledge given (a bug in the caller's bookkeeping)."""


@dataclass
class Knowledge:
    """What one player knows about the cards still held.

    ``known[s]``: mask of cards seat ``s`` is known to hold now;
    ``size[s]``: how many cards seat ``s`` holds now;
    ``gone``: mask of cards no longer held by anybody (played);
    ``low[s][suit]`` / ``high[s][suit]``: bounds on how many *unknown* cards
    of ``suit`` seat ``s`` gets (defaults 0 and 13).  A seat whose known
    cards already make up its size is fully known (not sampled).
    """

    known: list[int]
    size: list[int]
    gone: int = 0
    low: list[list[int]] = field(default_factory=lambda: [[0] * 4 for _ in range(4)])
    high: list[list[int]] = field(default_factory=lambda: [[13] * 4 for _ in range(4)])

    def void(self, seat: int, suit: int) -> None:
        """Seat has shown out of ``suit``: it holds no unknown card of it."""
        self.high[seat][suit] = 0

    def at_least(self, seat: int, suit: int, n: int) -> None:
        """Seat holds at least ``n`` unknown cards of ``suit``."""
        self.low[seat][suit] = max(self.low[seat][suit], n)

    @property
    def unknown(self) -> int:
        """Mask of the cards whose holder is not known."""
        held = 0
        for k in self.known:
            held |= k
        return FULL_DECK & ~self.gone & ~held

    def hidden_seats(self) -> list[int]:
        return [s for s in range(len(self.size)) if self.size[s] > self.known[s].bit_count()]

    def check(self) -> None:
        """Raise :class:`ImpossibleKnowledge` on inconsistent bookkeeping."""
        seen = self.gone
        for s, k in enumerate(self.known):
            if k & seen:
                raise ImpossibleKnowledge(f"seat {s}: a known card is also played or known elsewhere")
            seen |= k
            if k.bit_count() > self.size[s]:
                raise ImpossibleKnowledge(f"seat {s}: {k.bit_count()} known cards but holds {self.size[s]}")
        need = sum(self.size[s] - self.known[s].bit_count() for s in range(len(self.size)))
        if need != self.unknown.bit_count():
            raise ImpossibleKnowledge(f"{self.unknown.bit_count()} unknown cards for {need} places")


def _splits(n: int, lows, highs, caps):
    """All ways to split ``n`` cards between seats within bounds and caps."""
    if not lows:
        if n == 0:
            yield ()
        return
    if len(lows) == 1:
        if lows[0] <= n <= min(highs[0], caps[0]):
            yield (n,)
        return
    rest_low = sum(lows[1:])
    for k in range(lows[0], min(highs[0], caps[0], n - rest_low) + 1):
        for tail in _splits(n - k, lows[1:], highs[1:], caps[1:]):
            yield (k, *tail)


def _ways(n: int, split) -> int:
    """Multinomial coefficient: ways to deal n distinct cards in groups ``split``."""
    out, left = 1, n
    for k in split:
        out *= comb(left, k)
        left -= k
    return out


class DealSampler:
    """Uniform draws of the hidden hands given a :class:`Knowledge`.

    >>> k = Knowledge(known=[(1 << 13) - 1, 0, 0, 0], size=[13, 13, 13, 13])
    >>> k.void(1, 1)                     # seat 1 has shown out of clubs
    >>> s = DealSampler(k)
    >>> hands = s.draw(np.random.default_rng(0))
    >>> [h.bit_count() for h in hands], hands[1] & SUIT_MASK[1]
    ([13, 13, 13, 13], 0)
    """

    def __init__(self, knowledge: Knowledge):
        knowledge.check()
        self.k = knowledge
        self.seats = knowledge.hidden_seats()
        unknown = knowledge.unknown
        self.suit_cards = [hand_cards(unknown & SUIT_MASK[s]) for s in range(4)]
        self.need = tuple(knowledge.size[s] - knowledge.known[s].bit_count() for s in self.seats)
        self._memo: dict = {}
        self.splits = [self._suit_splits(suit) for suit in range(4)]
        self.total = self._count(0, self.need)
        if self.total == 0:
            raise ImpossibleKnowledge("no deal is consistent with the knowledge (bounds too tight)")

    def _suit_splits(self, suit: int) -> dict:
        """split -> ways, for every split of the suit's unknown cards within the bounds."""
        n = len(self.suit_cards[suit])
        lows = [self.k.low[s][suit] for s in self.seats]
        highs = [self.k.high[s][suit] for s in self.seats]
        return {split: _ways(n, split) for split in _splits(n, lows, highs, [13] * len(self.seats))}

    def _count(self, suit: int, need) -> int:
        """Deals of suits ``suit``..3 that give each hidden seat ``need`` cards."""
        if suit == 3:
            return self.splits[3].get(need, 0)
        key = (suit, need)
        found = self._memo.get(key)
        if found is not None:
            return found
        total = 0
        for split, ways in self.splits[suit].items():
            rest = tuple(a - b for a, b in zip(need, split))
            if min(rest, default=0) >= 0:
                sub = self._count(suit + 1, rest)
                if sub:
                    total += ways * sub
        self._memo[key] = total
        return total

    def _choices(self, suit: int, need):
        key = ("choices", suit, need)
        found = self._memo.get(key)
        if found is None:
            options, weights = [], []
            for split, ways in self.splits[suit].items():
                rest = tuple(a - b for a, b in zip(need, split))
                if min(rest, default=0) < 0:
                    continue
                w = ways * (self._count(suit + 1, rest) if suit < 3 else (not any(rest)))
                if w:
                    options.append((split, rest))
                    weights.append(w)
            found = self._memo[key] = (options, weights, sum(weights))
        return found

    def draw(self, rng: np.random.Generator) -> list[int]:
        """One deal: the hands of every seat (known cards included)."""
        hands = list(self.k.known)
        need = self.need
        for suit in range(4):
            options, weights, total = self._choices(suit, need)
            pick = int(rng.integers(total)) if total > 1 else 0
            for (split, rest), w in zip(options, weights):
                if pick < w:
                    break
                pick -= w
            n = len(self.suit_cards[suit])
            cards = self.suit_cards[suit]
            order = rng.permutation(n) if n > 1 else range(n)
            i = 0
            for seat, k in zip(self.seats, split):
                for j in order[i:i + k]:
                    hands[seat] |= 1 << cards[j]
                i += k
            need = rest
        return hands


__all__ = ["Knowledge", "DealSampler", "ImpossibleKnowledge"]
