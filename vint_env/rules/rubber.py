"""The score sheet of the fixed-partnership games: deals, games and the rubber.

Vint (docs/rules/vint.md, Scoring items 6-8 and Pass-out) and Whist (docs/rules/whist.md) both write each
deal's entries for side 0 (seats 0 & 2) and side 1 (seats 1 & 3), below the
line (toward the game) and above it; a side reaching the game target below
the line wins a game and its bonus, two games win the rubber and its bonus,
and the rubber is settled on the difference of all entries.

When both sides can reach the game target on one deal, ``game_race`` says
who wins the game: ``"first"``, the side that reaches it first in the order
the deal's below-the-line points were written (Vint writes trick points
trick by trick), or ``"deal_end"``, the side with the higher total after the
deal (equal totals: the ``tie_winner`` the caller names).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields

GAME_RACE_VARIANTS = ("first", "deal_end")


def side_of(seat: int) -> int:
    """Partnership of a seat: 0 for seats 0 & 2, 1 for seats 1 & 3."""
    return seat & 1


@dataclass
class SideScore:
    """One side's credits from one deal (or a rubber's running sum).

    ``tricks`` is below the line (counts toward the game); every other item
    is above the line.  Items a game does not use stay zero.
    """

    tricks: int = 0
    undertricks: int = 0
    slam_taken: int = 0
    slam_declared: int = 0
    honours: int = 0
    coronets: int = 0
    passout_tricks: int = 0   # Vint, docs/rules/vint.md, Pass-out "play" variant: 500 a trick over six
    game: int = 0
    rubber: int = 0
    marks: int = 0

    @property
    def below(self) -> int:
        return self.tricks

    @property
    def above(self) -> int:
        return self.total - self.tricks

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    def as_dict(self) -> dict[str, int]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["total"] = self.total
        return d

    def add(self, other: "SideScore") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class DealRecord:
    """One deal on the score sheet: both sides' entries including premiums."""

    scores: tuple[SideScore, SideScore]
    game_winner: int | None = None
    rubber_winner: int | None = None
    passed_out: bool = False

    @property
    def difference(self) -> int:
        """Side 0's total minus side 1's."""
        return self.scores[0].total - self.scores[1].total


@dataclass
class Rubber:
    """Games and rubber bookkeeping.

    ``game_target``: below-the-line points that win a game (Vint 500,
    Whist 10).  ``mark_values``: the premiums of pass-out marks, paid in
    order, cycling, to the rubber winner (Vint: 500, 1000).  ``game_race``:
    ``"deal_end"`` (default; Whist scores below the line only at the end of
    a deal) or ``"first"`` (Vint's default, see the module docstring; every
    deal with below-the-line points then needs their ``below_order``).
    """

    game_target: int
    game_bonus: int
    rubber_bonus: int
    mark_values: tuple[int, ...] = ()
    game_race: str = "deal_end"
    games_won: list[int] = field(default_factory=lambda: [0, 0])
    below: list[int] = field(default_factory=lambda: [0, 0])
    totals: tuple[SideScore, SideScore] = field(default_factory=lambda: (SideScore(), SideScore()))
    marks: int = 0
    records: list[DealRecord] = field(default_factory=list)
    winner: int | None = None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def result(self) -> int:
        """Settlement: side 0's total minus side 1's (docs/rules/vint.md, Scoring item 8)."""
        return self.totals[0].total - self.totals[1].total

    def __post_init__(self):
        if self.game_race not in GAME_RACE_VARIANTS:
            raise ValueError(f"game_race must be one of {GAME_RACE_VARIANTS}, got {self.game_race!r}")

    def record_deal(self, deal_scores, tie_winner: int | None = None,
                    passed_out: bool = False, below_order=None) -> DealRecord:
        """Write a deal's entries; adds game, rubber and mark premiums it earns.

        ``tie_winner`` is the side that wins the game when both reach the
        target with equal totals (Vint: the declaring side; ``"deal_end"``
        only).  ``below_order``: the deal's below-the-line entries as
        ``(side, points)`` in the order they were written (Vint: one per
        trick, to the side that took it); needed by ``game_race="first"``.
        A side that wins the game ends it: the next game starts from zero
        after this deal, and the rest of the deal still counts in the totals.
        """
        if self.is_over:
            raise ValueError("the rubber is over; start a new one")
        scores = (copy.copy(deal_scores[0]), copy.copy(deal_scores[1]))
        record = DealRecord(scores=scores, passed_out=passed_out)
        if passed_out and self.mark_values:
            self.marks += 1
        if self.game_race == "first":
            winner = self._first_to_reach(scores, below_order)
        else:
            winner = self._higher_at_deal_end(scores, tie_winner)
        if winner is None:
            for side in (0, 1):
                self.below[side] += scores[side].below
        else:
            scores[winner].game += self.game_bonus
            self.games_won[winner] += 1
            self.below = [0, 0]
            record.game_winner = winner
            if self.games_won[winner] == 2:
                scores[winner].rubber += self.rubber_bonus
                if self.mark_values:
                    n = len(self.mark_values)
                    scores[winner].marks += sum(self.mark_values[i % n] for i in range(self.marks))
                self.winner = winner
                record.rubber_winner = winner
        for side in (0, 1):
            self.totals[side].add(scores[side])
        self.records.append(record)
        return record

    def _first_to_reach(self, scores, below_order) -> int | None:
        """The side whose running below-the-line total reaches the target first, or None."""
        order = list(below_order or ())
        written = [0, 0]
        for side, points in order:
            if side not in (0, 1):
                raise ValueError(f"below_order entries must be (side 0 or 1, points), got {(side, points)!r}")
            written[side] += points
        if written != [scores[0].below, scores[1].below]:
            raise ValueError(f"below_order adds up to {written}, but the deal scores "
                             f"{[scores[0].below, scores[1].below]} below the line")
        below = list(self.below)
        for side, points in order:
            below[side] += points
            if below[side] >= self.game_target:
                return side
        return None

    def _higher_at_deal_end(self, scores, tie_winner: int | None) -> int | None:
        """The side that reached the target after the deal; both: the higher total, else ``tie_winner``."""
        below = [self.below[side] + scores[side].below for side in (0, 1)]
        reached = [side for side in (0, 1) if below[side] >= self.game_target]
        if not reached:
            return None
        if len(reached) == 1:
            return reached[0]
        if below[0] != below[1]:
            return 0 if below[0] > below[1] else 1
        if tie_winner is None:
            raise ValueError("both sides reached the game with equal totals and no tie winner")
        return tie_winner
