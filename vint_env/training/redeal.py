"""Deals consistent with what one seat has seen: the hidden hands of a batch state dealt again.

A search on information (PIMC: rollouts over sampled deals) needs deals the deciding seat cannot tell
from the real one.  :func:`deals_like` reads from a batch state of the engine what the seat knows, as the
search agent's :class:`~vint_env.agents.search.deal_sampler.HandConstraints`, and draws the hidden hands
with its :class:`~vint_env.agents.search.deal_sampler.DealSampler` (uniform over every consistent deal):

- its own hand, and every card already played (the hands as dealt keep them);
- the turned card (Whist, Solo Whist: face up until its holder plays it) stays with its holder;
- an exposed open misère hand (Solo Whist, from the end of the first trick) stays with its declarer;
- each other seat keeps its number of cards and gets no card of a suit it has shown out of.

What the auction says of the hands (a rule bot's bid, a proposal) is not used: the deals are uniform
given the cards and the voids, the usual PIMC sampling.  Four-seat engines only (Vint, Whist, Solo Whist).
"""

from __future__ import annotations

import numpy as np

from vint_env.agents.search.deal_sampler import DealSampler, HandConstraints
from vint_env.vector.state import COL, DEALT, HAND, SOLO_WHIST, VINT, VOIDS, WHIST, VintBatchState
from vint_env.vector.tables import SOLO_OPEN_MISERE

_TURNED, _HIGHEST = COL["turned"], COL["highest"]
_DECLARER, _TRICKS = COL["declarer"], COL["tricks_played"]


def seat_view(words: np.ndarray, small: np.ndarray, seat: int, solo_whist: bool = False) -> HandConstraints:
    """What ``seat`` knows of the hands of one game (its ``words`` and ``small`` rows)."""
    hands = [int(words[HAND + s]) for s in range(4)]
    known = [0, 0, 0, 0]
    known[seat] = hands[seat]
    turned = int(small[_TURNED])
    for s in range(4):                         # the turned card, while its holder still holds it
        if turned >= 0 and (hands[s] >> turned) & 1:
            known[s] |= 1 << turned
    if solo_whist and int(small[_HIGHEST]) == SOLO_OPEN_MISERE and int(small[_TRICKS]) >= 1:
        declarer = int(small[_DECLARER])
        known[declarer] = hands[declarer]
    gone = 0
    for s in range(4):
        gone |= int(words[DEALT + s]) & ~hands[s]
    view = HandConstraints(known=known, size=[h.bit_count() for h in hands], gone=gone)
    voids = int(words[VOIDS])
    for s in range(4):
        for suit in range(4):
            if (voids >> (4 * s + suit)) & 1:
                view.void(s, suit)
    return view


def deals_like(engine, state: VintBatchState, seats: np.ndarray, samples: int,
               rng: np.random.Generator) -> VintBatchState:
    """A new batch state of ``samples`` games for each game ``b`` of ``state`` (rows ``b * samples`` on),
    copies of it with the cards seat ``seats[b]`` cannot see dealt again (module docstring)."""
    if engine.spec.game not in (VINT, WHIST, SOLO_WHIST):
        raise ValueError(f"deals_like deals four-seat games (Vint, Whist, Solo Whist), not {type(engine).__name__}'s")
    engine.check_state(state)
    solo_whist = engine.spec.game == SOLO_WHIST
    rows = np.repeat(np.arange(state.batch_size), samples)
    out = VintBatchState(**{k: v[rows] for k, v in vars(state).items()})
    for b in range(state.batch_size):
        words = state.words[b]
        hands = DealSampler(seat_view(words, state.small[b], int(seats[b]), solo_whist)).draw_many(rng, samples)
        played = np.array([int(words[DEALT + s]) & ~int(words[HAND + s]) for s in range(4)], dtype=np.int64)
        at = slice(b * samples, (b + 1) * samples)
        out.words[at, HAND:HAND + 4] = hands.astype(np.uint64)
        out.words[at, DEALT:DEALT + 4] = (hands | played[None, :]).astype(np.uint64)
    return out


__all__ = ["deals_like", "seat_view"]
