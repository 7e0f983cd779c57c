"""Who sits where in self-play: each deal's opponents, drawn from ``opponent_mix``.

- ``self``: the learner (the current network) plays all four seats, and all four seats' decisions are
  training samples (one network shared by all seats: the observation is seat-relative);
- ``pool``: the learner plays one side (drawn at random), a past snapshot of itself the other seats
  (``pool.py``);
- ``random`` / ``rule``: the learner plays one side, scripted bots the other seats.

A *side* (:func:`learner_sides`) is a partnership in the partnership games (seats 0-2 or 1-3; two-player
Vint's two players hold the same seats in the engine) and a single seat in Solo Whist, where every player
is for themselves: there the learner sits alone against three opponents, as the evaluation harness seats
an agent.

Duplicate training (``duplicate.py``) seats the second table of a pair as the first, every controller one
seat on (:meth:`Seating.mirror`).
"""

from __future__ import annotations

import numpy as np

from vint_env.games import Game
from vint_env.games.record import SOLO

from .duplicate import rotate_seats

LEARNER = -1          # controller code of a learner seat
BOT = -2              # controller code of a scripted bot's seat
POOL0 = 0             # controller codes >= 0: index into the pool
BOT_KINDS = ("random", "rule")
PARTNERSHIPS = ((0, 2), (1, 3))
SINGLE_SEATS = ((0,), (1,), (2,), (3,))


def learner_sides(game: Game) -> tuple[tuple[int, ...], ...]:
    """The seats the learner may play against others, side by side: a single seat in a game without
    partnerships (Solo Whist), the partnerships 0-2 and 1-3 otherwise."""
    return PARTNERSHIPS if game.format != SOLO else SINGLE_SEATS


class Seating:
    """The controller of every seat of a batch of ``num_envs`` games, drawn anew for each deal.

    ``control[i, s]``: who plays seat ``s`` of game ``i`` (``LEARNER``, ``BOT`` or ``POOL0`` + a pool index);
    ``deal_kind[i]``: the opponents of game ``i``'s deal (``self``, ``pool``, ``random``, ``rule``);
    ``learner_side[i]``: the side (an index into ``sides``, :func:`learner_sides`) the learner plays against
    them; ``bot_seed[i, s]``: the seed the bot at seat ``s`` was reset with.  ``make_bot(kind)`` builds a
    scripted agent (``random``, ``rule``): one instance per game and seat, reset for each deal with a seed
    drawn from the rollout RNG.
    """

    def __init__(self, num_envs: int, opponent_mix: dict, make_bot, sides: tuple = PARTNERSHIPS):
        if sides not in (PARTNERSHIPS, SINGLE_SEATS):
            raise ValueError(f"sides must be the partnerships {PARTNERSHIPS} or the single seats {SINGLE_SEATS}, "
                             f"got {sides!r}")
        self.sides_seats = sides
        self.kinds = [k for k, p in opponent_mix.items() if p > 0]
        self.probs = np.array([opponent_mix[k] for k in self.kinds], dtype=np.float64)
        self.probs /= self.probs.sum()
        self.make_bot = make_bot
        self.bots: dict[tuple[int, int, str], object] = {}
        self.control = np.full((num_envs, 4), LEARNER, dtype=np.int64)
        self.bot_seed = np.zeros((num_envs, 4), dtype=np.int64)
        self.deal_kind: list[str] = ["self"] * num_envs
        self.learner_side = np.zeros(num_envs, dtype=np.int64)

    def bot(self, i: int, seat: int):
        """The scripted agent of game ``i``'s deal at ``seat``, built on first use."""
        key = (i, seat, self.deal_kind[i])
        if key not in self.bots:
            self.bots[key] = self.make_bot(self.deal_kind[i])
        return self.bots[key]

    def draw(self, i: int, rng: np.random.Generator, pool_size: int) -> int:
        """Draw game ``i``'s next deal (opponents, side, bots' seeds); the seed to deal it with."""
        kind = self.kinds[rng.choice(len(self.kinds), p=self.probs)]
        if kind == "pool" and pool_size == 0:
            kind = "self"   # no snapshot yet: the current policy is its own past
        side = int(rng.integers(len(self.sides_seats)))
        self.deal_kind[i], self.learner_side[i] = kind, side
        self.control[i] = LEARNER
        other = [s for s in range(4) if s not in self.sides_seats[side]]
        if kind == "pool":
            self.control[i, other] = POOL0 + int(rng.integers(pool_size))
        elif kind != "self":
            self.control[i, other] = BOT
            for s in other:
                self.bot_seed[i, s] = int(rng.integers(2**31))
                self.bot(i, s).reset(int(self.bot_seed[i, s]))
        return int(rng.integers(2**31))

    def mirror(self, i: int, j: int) -> None:
        """Seat game ``j``'s deal as game ``i``'s, every controller one seat on (duplicate training)."""
        self.deal_kind[j] = self.deal_kind[i]
        # seat s of game j holds the controller of game i's seat s + 1: the learner's side one seat back
        self.learner_side[j] = (self.learner_side[i] - 1) % len(self.sides_seats)
        self.control[j] = rotate_seats(self.control[i])
        self.bot_seed[j] = rotate_seats(self.bot_seed[i])
        for s in np.flatnonzero(self.control[j] == BOT):
            self.bot(j, int(s)).reset(int(self.bot_seed[j, s]))

    def sides(self, i: int) -> list[int]:
        """The sides the learner played in game ``i``'s deal (all of them in self-play)."""
        return list(range(len(self.sides_seats))) if self.deal_kind[i] == "self" else [int(self.learner_side[i])]


def default_bot_factory(game):
    """``make_bot(kind)``: the scripted agent ``kind`` (``random``, ``rule``) of ``game`` (its record) from the
    agent registry."""
    from vint_env.agents.registry import load_agent

    def make_bot(kind: str):
        return load_agent(kind, game=game)
    return make_bot
