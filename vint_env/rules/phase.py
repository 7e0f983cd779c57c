"""The phases of a deal, one enum for every game's rules and for the batched engine.

A :class:`Phase` is a string (``Phase.PLAY == "play"``, so comparisons and
JSON keep working) with the number the batched kernel stores (``code``):

>>> Phase.AUCTION, str(Phase.PLAY), Phase.PLAY == "play"
(<Phase.AUCTION: 'auction'>, 'play', True)
>>> [p.code for p in (Phase.AUCTION, Phase.PLAY, Phase.OVER)]
[0, 1, 2]

Vint and two-player Vint go through an auction and the play; Whist is play
only; Solo Whist has a trump call between the auction and the play;
two-player Vint's ways add the exchange (ways 2, 3), the widow, the
give-aways and the final contract (way 5).
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Phase"]


class Phase(str, Enum):
    """A deal's phase; ``code`` is its number in the batched engine's ``small`` state column."""

    AUCTION = "auction"
    PLAY = "play"
    OVER = "over"
    TRUMP = "trump"          # Solo Whist: the declarer names trumps
    EXCHANGE = "exchange"    # two-player Vint, ways 2 and 3
    WIDOW = "widow"          # two-player Vint, way 5
    GIVE = "give"
    FINAL = "final"

    @property
    def code(self) -> int:
        return _CODES[self]

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


_CODES = {phase: i for i, phase in enumerate(Phase)}
