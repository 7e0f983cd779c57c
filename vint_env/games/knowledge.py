"""What a player knows, decoded once from their observation: :class:`Knowledge`.

Every fact an agent reads from an observation (its hand, the trick in progress,
the cards played and by whom, the voids shown, the tricks taken, and in each
game its own part: the auction, the contract, the turned card ...) is decoded
here, in one place, from the named blocks of the game's layout.  The base class
reads the blocks the trick-taking layouts share (`hand`, `trump`,
`trick_leader`, `trick`, `last_trick`, `played`, `voids`, `tricks_taken`);
each game's module adds its own part in a subclass (``VintKnowledge`` ...),
and its record names it (``Game.decoder``; ``Game.decode(vector)`` gives the
knowledge of an observation vector).  The rule bots and PIMC read these facts,
never the vector.

Seats are relative to the observer (0 the observer, 1 the left, 2 across, 3 the
right); cards are card ids, card sets 52-bit masks.  A fact is decoded when
first asked for, then kept.

>>> from vint_env.games.layout import Layout
>>> lay = Layout("demo", [("hand", (52,), ""), ("trump", (5,), ""), ("trick_leader", (4,), ""),
...                       ("trick", (4, 52), ""), ("last_trick", (4, 52), ""), ("played", (4, 52), ""),
...                       ("voids", (4, 4), ""), ("tricks_taken", (2, 14), "")])
>>> v = np.zeros(lay.size, dtype=np.float32)
>>> for block, i in (("hand", 0), ("hand", 12), ("trump", 4), ("trick_leader", 3), ("trick", 3 * 52 + 25),
...                  ("played", 3 * 52 + 25), ("tricks_taken", 0), ("tricks_taken", 14)):
...     v[lay.offset[block] + i] = 1
>>> k = Knowledge(lay.decode(v))
>>> k.hand == 1 | 1 << 12, k.trump, k.leader, k.trick, k.tricks_played, k.tricks_taken
(True, 4, 3, [(3, 25)], 0, (0, 0))
"""

from __future__ import annotations

import numpy as np

__all__ = ["Knowledge", "fact", "mask_of", "current_trick", "one_hot", "seats_of"]


class fact:
    """A decoder's fact: decoded when first asked for, then kept on the instance (as
    ``functools.cached_property``, without its lock, which costs more than most facts take to decode)."""

    def __init__(self, decode):
        self.decode = decode
        self.name = decode.__name__
        self.__doc__ = decode.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.decode(obj)
        return value


def mask_of(bits) -> int:
    """Card mask from a 0/1 vector of 52 entries."""
    mask = 0
    for c in bits.nonzero()[0]:
        mask |= 1 << int(c)
    return mask


def one_hot(block) -> int | None:
    """The index set in a one-hot block, or None when it is all 0."""
    return int(np.argmax(block)) if block.any() else None


def seats_of(block) -> list[int]:
    """The relative seats (indices) set in a 0/1 block, in order."""
    return [int(r) for r in np.flatnonzero(block)]


def current_trick(o: dict, leader: int) -> list[tuple[int, int]]:
    """The trick in progress as ``(seat, card)`` pairs in playing order, read from ``o["trick"]``."""
    trick = []
    for i in range(4):
        seat = (leader + i) % 4
        row = o["trick"][seat].nonzero()[0]
        if row.size == 0:
            break
        trick.append((seat, int(row[0])))
    return trick


class Knowledge:
    """What a player knows in a trick-taking game: the facts of the shared play blocks.

    ``o`` is the observation decoded into its named blocks (``Layout.decode``).
    """

    #: Cards in a completed trick (two-player Vint's ways 2 and 3 play tricks of two).
    per_trick = 4

    def __init__(self, o: dict):
        self.o = o

    # ------------------------------------------------------------ the cards
    @fact
    def hand(self) -> int:
        """The cards the observer holds now."""
        return mask_of(self.o["hand"])

    @fact
    def played_by(self) -> list[int]:
        """The cards each relative seat has played in this deal (the trick in progress included)."""
        return [mask_of(row) for row in self.o["played"]]

    @fact
    def played(self) -> int:
        """Every card played in this deal (the trick in progress included)."""
        return mask_of(self.o["played"].max(axis=0))

    @fact
    def cards_played(self) -> int:
        """How many cards have been played in this deal (0 before the first lead)."""
        return int(self.o["played"].sum())

    @fact
    def voids(self) -> list[set[int]]:
        """The suits each relative seat has shown out of (did not follow when the suit was led)."""
        voids: list[set[int]] = [set(), set(), set(), set()]
        for seat, suit in zip(*self.o["voids"].nonzero()):
            voids[seat].add(int(suit))
        return voids

    # ------------------------------------------------------------ the tricks
    @fact
    def trump(self) -> int:
        """The trump suit 0..3, or 4 (``NO_TRUMP``); 0 before the play, where the block is all 0."""
        return int(self.o["trump"].argmax())

    @fact
    def leader(self) -> int:
        """The relative seat that led (or is to lead) the trick in progress."""
        return int(self.o["trick_leader"].argmax())

    @fact
    def trick(self) -> list[tuple[int, int]]:
        """The trick in progress: ``(relative seat, card)`` in playing order."""
        return current_trick(self.o, self.leader)

    @fact
    def last_trick(self) -> dict[int, int]:
        """The last completed trick: relative seat -> card."""
        return {s: int(row.nonzero()[0][0]) for s, row in enumerate(self.o["last_trick"]) if row.any()}

    @fact
    def tricks_played(self) -> int:
        """Completed tricks."""
        return (self.cards_played - len(self.trick)) // self.per_trick

    @fact
    def tricks_taken(self) -> tuple[int, ...]:
        """Tricks taken: by the observer's side and the other (each relative seat in Solo Whist)."""
        return tuple(int(row.argmax()) for row in self.o["tricks_taken"])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self.o)} blocks>"
