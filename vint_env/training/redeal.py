"""Deals consistent with what one seat has seen: the hidden hands of a batch state dealt again.

A search on information (PIMC: rollouts over sampled deals) needs deals the deciding seat cannot tell
from the real one.  :func:`deals_like` reads from a batch state of the engine what the seat knows, as the
search agent's :class:`~vint_env.agents.search.deal_sampler.HandConstraints`, and draws the hidden hands
with its :class:`~vint_env.agents.search.deal_sampler.DealSampler` (uniform over every consistent deal):

- its own hand, and every card already played (the hands as dealt keep them);
- the cards the game's rules show to every seat (the engine's ``face_up``: the turned card of Whist and Solo
  Whist while its holder holds it, an exposed open misère hand) stay with their holders;
- each other seat keeps its number of cards and gets no card of a suit it has shown out of.

What the auction says of the hands (a rule bot's bid, a proposal) is not used: the deals are uniform
given the cards and the voids, the usual PIMC sampling.  Four-seat engines only (Vint, Whist, Solo Whist).
"""

from __future__ import annotations

import numpy as np

from vint_env.agents.search.deal_sampler import DealSampler, HandConstraints
from vint_env.vector.state import DEALT, HAND, VOIDS, VintBatchState


def seat_view(words: np.ndarray, face_up: np.ndarray, seat: int) -> HandConstraints:
    """What ``seat`` knows of the hands of one game: its ``words`` row and the cards every seat sees
    (``face_up``, the engine's :meth:`~vint_env.vector.engine.BatchEngine.face_up` row)."""
    hands = [int(words[HAND + s]) for s in range(4)]
    known = [int(c) for c in face_up]
    known[seat] = hands[seat]
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
    face_up = engine.face_up(state)                      # checks the state; four-seat engines only
    rows = np.repeat(np.arange(state.batch_size), samples)
    out = VintBatchState(**{k: v[rows] for k, v in vars(state).items()})
    for b in range(state.batch_size):
        words = state.words[b]
        hands = DealSampler(seat_view(words, face_up[b], int(seats[b]))).draw_many(rng, samples)
        played = np.array([int(words[DEALT + s]) & ~int(words[HAND + s]) for s in range(4)], dtype=np.int64)
        at = slice(b * samples, (b + 1) * samples)
        out.words[at, HAND:HAND + 4] = hands.astype(np.uint64)
        out.words[at, DEALT:DEALT + 4] = (hands | played[None, :]).astype(np.uint64)
    return out


__all__ = ["deals_like", "seat_view"]
