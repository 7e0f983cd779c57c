"""Exact uniform sampling of the hidden cards consistent with what a player knows.

A game describes what one player knows of the hidden hands as :class:`HandConstraints`
(not the decoder's :class:`~vint_env.games.knowledge.Knowledge`, which it is made from): for every
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
   (the product of the multinomial coefficients), as arrays over the cards
   each hidden seat still needs (NumPy, one shifted sum a split);
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


class ImpossibleConstraints(ValueError):
    """No deal is consistent with the constraints given (a bug in the caller's bookkeeping)."""


@dataclass
class HandConstraints:
    """The constraints on the cards still held, from what one player knows.

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
        """Raise :class:`ImpossibleConstraints` on inconsistent bookkeeping."""
        seen = self.gone
        for s, k in enumerate(self.known):
            if k & seen:
                raise ImpossibleConstraints(f"seat {s}: a known card is also played or known elsewhere")
            seen |= k
            if k.bit_count() > self.size[s]:
                raise ImpossibleConstraints(f"seat {s}: {k.bit_count()} known cards but holds {self.size[s]}")
        need = sum(self.size[s] - self.known[s].bit_count() for s in range(len(self.size)))
        if need != self.unknown.bit_count():
            raise ImpossibleConstraints(f"{self.unknown.bit_count()} unknown cards for {need} places")


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
    """Uniform draws of the hidden hands given a :class:`HandConstraints`.

    >>> k = HandConstraints(known=[(1 << 13) - 1, 0, 0, 0], size=[13, 13, 13, 13])
    >>> k.void(1, 1)                     # seat 1 has shown out of clubs
    >>> s = DealSampler(k)
    >>> hands = s.draw(np.random.default_rng(0))
    >>> [h.bit_count() for h in hands], hands[1] & SUIT_MASK[1]
    ([13, 13, 13, 13], 0)
    """

    def __init__(self, knowledge: HandConstraints):
        knowledge.check()
        self.k = knowledge
        self.seats = knowledge.hidden_seats()
        unknown = knowledge.unknown
        self.suit_cards = [hand_cards(unknown & SUIT_MASK[s]) for s in range(4)]
        self.need = tuple(knowledge.size[s] - knowledge.known[s].bit_count() for s in self.seats)
        self._memo: dict = {}
        self.splits = [self._suit_splits(suit) for suit in range(4)]
        self._suffix = self._suffix_counts()
        self.total = int(self._suffix[0][self.need])
        if self.total == 0:
            raise ImpossibleConstraints("no deal is consistent with the constraints (bounds too tight)")

    def _suit_splits(self, suit: int) -> dict:
        """split -> ways, for every split of the suit's unknown cards within the bounds."""
        n = len(self.suit_cards[suit])
        lows = [self.k.low[s][suit] for s in self.seats]
        highs = [self.k.high[s][suit] for s in self.seats]
        return {split: _ways(n, split) for split in _splits(n, lows, highs, [13] * len(self.seats))}

    def _suffix_counts(self) -> list[np.ndarray]:
        """``counts[suit][need]``: the deals of suits ``suit``..3 that give each hidden seat ``need`` cards,
        for every ``need`` up to :attr:`need` (an array with one axis per hidden seat), suit 4 the empty
        deal.  Each suit's array is the previous one shifted by each of the suit's splits and added,
        times the split's ways: the dynamic program over the suits, one NumPy sum a split.  Exact:
        int64 while the number of all deals of the unknown cards fits it, Python integers beyond."""
        shape = tuple(n + 1 for n in self.need)
        exact_int64 = _ways(sum(self.need), self.need) < 2 ** 62
        dtype = np.int64 if exact_int64 else object
        counts = [None] * 5
        counts[4] = np.zeros(shape, dtype=dtype)
        counts[4][(0,) * len(shape)] = 1
        for suit in range(3, -1, -1):
            acc = np.zeros(shape, dtype=dtype)
            below = counts[suit + 1]
            for split, ways in self.splits[suit].items():
                if any(a > n for a, n in zip(split, self.need)):
                    continue
                into = tuple(slice(a, None) for a in split)
                src = tuple(slice(0, n + 1 - a) for a, n in zip(split, self.need))
                acc[into] += ways * below[src]
            counts[suit] = acc
        return counts

    def _choices(self, suit: int, need):
        """The splits of ``suit`` open to a draw whose hidden seats still need ``need`` cards, with the
        cards each then needs and the deals each stands for (memoised)."""
        key = ("choices", suit, need)
        found = self._memo.get(key)
        if found is None:
            table, ways = self._split_table(suit)
            options, weights = [], []
            if len(ways):
                rest = np.asarray(need, dtype=np.int64)[None, :] - table
                ok = np.flatnonzero((rest >= 0).all(axis=1))
                # one count per split kept (a 0-d count when no seat is hidden: every card is known)
                below = np.broadcast_to(self._suffix[suit + 1][tuple(rest[ok].T)], ok.shape)
                for i, b in zip(ok.tolist(), below.tolist()):
                    w = ways[i] * int(b)
                    if w:
                        options.append((tuple(table[i].tolist()), tuple(rest[i].tolist())))
                        weights.append(w)
            found = self._memo[key] = (options, weights, sum(weights))
        return found

    def _split_table(self, suit: int):
        """The suit's splits as an array ``[K, seats]`` and their ways (Python integers), in the order of
        :attr:`splits`."""
        key = ("table", suit)
        found = self._memo.get(key)
        if found is None:
            splits = self.splits[suit]
            table = np.array(list(splits), dtype=np.int64).reshape(len(splits), len(self.seats))
            found = self._memo[key] = (table, list(splits.values()))
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

    def draw_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` deals at once, ``[n, seats]`` card masks (int64), each drawn as :meth:`draw` draws one
        (every consistent deal equally likely, up to the rounding of the counts to float64), with NumPy
        over the draws instead of one at a time: a suit's split by one uniform number a draw, then the
        suit's cards by a random permutation a draw.  Not the same draws as :meth:`draw` for a seed."""
        hands = np.tile(np.array(self.k.known, dtype=np.int64), (n, 1))
        if not self.seats:
            return hands
        need = np.tile(np.array(self.need, dtype=np.int64), (n, 1))
        h = len(self.seats)
        for suit in range(4):
            table, ways = self._split_table(suit)
            rest = need[:, None, :] - table[None, :, :]                     # [n, K, h]
            ok = (rest >= 0).all(axis=2)
            below = self._suffix[suit + 1][tuple(np.where(ok[..., None], rest, 0).transpose(2, 0, 1))]
            weight = np.where(ok, np.asarray(ways, dtype=np.float64)[None, :] * below.astype(np.float64), 0.0)
            cumulative = np.cumsum(weight, axis=1)
            u = rng.random(n) * cumulative[:, -1]
            pick = np.minimum((cumulative <= u[:, None]).sum(axis=1), len(ways) - 1)
            splits = table[pick]
            need = need - splits
            cards = self.suit_cards[suit]
            m = len(cards)
            if m == 0:
                continue
            bits = np.array([1 << c for c in cards], dtype=np.int64)
            order = rng.permuted(np.tile(np.arange(m), (n, 1)), axis=1)
            dealt = bits[order]                                            # [n, m] the suit shuffled
            ends = np.cumsum(splits, axis=1)                               # [n, h]
            place = (np.arange(m)[None, :, None] >= ends[:, None, :]).sum(axis=2)   # seat index per position
            for j, seat in enumerate(self.seats):
                hands[:, seat] |= np.where(place == j, dealt, 0).sum(axis=1)
        return hands


__all__ = ["HandConstraints", "DealSampler", "ImpossibleConstraints"]
