"""Deals consistent with what one seat has seen: the hidden hands of a batch state dealt again.

A search on information (PIMC: perfect-information rollouts over sampled deals) needs deals that the
deciding seat cannot tell from the real one.  :func:`redeal_hidden` keeps everything the seat knows and
deals the cards it cannot see again, uniformly at random among the other seats' places:

- its own hand, and every card already played (the hands as dealt keep them);
- the turned card (Whist, Solo Whist: face up until its holder plays it) stays with its holder;
- an exposed open misère hand (Solo Whist, from the end of the first trick) stays with its declarer;
- each other seat keeps its number of cards and never receives a suit it has shown out of.

What the auction says of the hands (a rule bot's bid, a proposal) is not used: the deals are uniform
given the cards and voids, the usual PIMC sampling.  Only four-seat engines (Vint, Whist, Solo Whist).
"""

from __future__ import annotations

import numpy as np

from .state import COL, DEALT, HAND, SOLO_WHIST, VINT, VOIDS, WHIST, VintBatchState
from .tables import SOLO_OPEN_MISERE

_TURNED, _DEALER, _HIGHEST = COL["turned"], COL["dealer"], COL["highest"]
_DECLARER, _TRICKS = COL["declarer"], COL["tricks_played"]


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if (mask >> c) & 1]


def _pinned(small: np.ndarray, hands: list[int], seat: int, solo_whist: bool) -> list[int]:
    """The cards each seat holds that ``seat`` sees: its own hand, the turned card, an exposed hand."""
    pinned = [0, 0, 0, 0]
    pinned[seat] = hands[seat]
    turned = int(small[_TURNED])
    for s in range(4):                         # the turned card, while its holder still holds it
        if turned >= 0 and (hands[s] >> turned) & 1:
            pinned[s] |= 1 << turned
    if solo_whist and int(small[_HIGHEST]) == SOLO_OPEN_MISERE and int(small[_TRICKS]) >= 1:
        declarer = int(small[_DECLARER])
        pinned[declarer] = hands[declarer]
    return pinned


def redeal_row(words: np.ndarray, small: np.ndarray, seat: int, rng: np.random.Generator,
               solo_whist: bool = False, tries: int = 64) -> np.ndarray | None:
    """The ``words`` row of one game with the cards ``seat`` cannot see dealt again (module docstring), or
    ``None`` when no deal was found that respects every seat's voids.

    First by rejection (the hidden cards shuffled and cut by the seats' numbers, kept when no seat receives
    a suit it has shown out of: uniform over the deals consistent with the view), ``tries`` times; then, where
    voids make that rare, card by card (each card to a seat that may hold it, chosen in proportion to its room
    left; ``tries`` times), which is consistent but not exactly uniform."""
    hands = [int(words[HAND + s]) for s in range(4)]
    voids = int(words[VOIDS])
    pinned = _pinned(small, hands, seat, solo_whist)
    pool = np.array([c for s in range(4) for c in _cards(hands[s] & ~pinned[s])], dtype=np.int64)
    room0 = np.array([bin(hands[s] & ~pinned[s]).count("1") for s in range(4)])
    # allowed[suit, s]: seat s has not shown out of suit
    allowed = np.array([[not (voids >> (4 * s + suit)) & 1 for s in range(4)] for suit in range(4)])
    seat_of = np.repeat(np.arange(4), room0)
    found = None
    for _ in range(tries):
        order = rng.permutation(pool)
        if allowed[order // 13, seat_of].all():
            found = order
            break
    if found is None:
        found = _card_by_card(pool, room0, allowed, rng, tries)
        if found is None:
            return None
        pool, seat_of = found
        found = pool
    out = words.copy()
    for s in range(4):
        new = pinned[s]
        for card in found[seat_of == s]:
            new |= 1 << int(card)
        played = int(words[DEALT + s]) & ~hands[s]
        out[HAND + s] = np.uint64(new)
        out[DEALT + s] = np.uint64(played | new)
    return out


def _card_by_card(pool, room0, allowed, rng, tries):
    """``(cards, seats)``: each card of ``pool`` given to a seat that may hold it, or ``None``."""
    for _ in range(tries):
        room = room0.copy()
        cards = rng.permutation(pool)
        seats = np.empty(len(cards), dtype=np.int64)
        for i, card in enumerate(cards):
            weight = room * allowed[card // 13]
            total = weight.sum()
            if total == 0:
                break
            seats[i] = rng.choice(4, p=weight / total)
            room[seats[i]] -= 1
        else:
            return cards, seats
    return None


def redeal_hidden(engine, state: VintBatchState, seats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Deal again, in place, the cards seat ``seats[b]`` cannot see in each game ``b`` of ``state``, a batch
    of ``engine``'s games; ``[B]`` bool: the games dealt again (False: left as they were, every try ran
    into voids)."""
    if engine.spec.game not in (VINT, WHIST, SOLO_WHIST):
        raise ValueError(f"redeal_hidden deals four-seat games (Vint, Whist, Solo Whist), not {type(engine).__name__}'s")
    engine.check_state(state)
    solo_whist = engine.spec.game == SOLO_WHIST
    ok = np.zeros(state.batch_size, dtype=bool)
    for b in range(state.batch_size):
        row = redeal_row(state.words[b], state.small[b], int(seats[b]), rng, solo_whist)
        if row is not None:
            state.words[b] = row
            ok[b] = True
    return ok


__all__ = ["redeal_hidden", "redeal_row"]
