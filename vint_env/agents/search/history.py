"""The actions of one deal in the order they were taken, as one player saw them (:class:`DealHistory`).

An observation holds the auction (Vint: every call, in order, from its ``bids`` block) and the cards each
seat has played, but not the order of the tricks before the last one.  A player who is asked for
every card it plays sees each trick whole: between two of its turns exactly one trick completes, and
its observation then shows that trick (``last_trick``), while the trick that was in progress at its
previous turn gives that trick's leader.  :class:`DealHistory` keeps those tricks, so that at any
turn the whole deal so far is known in order: the calls, then the cards, as ``(relative seat,
action)`` pairs, seat 0 the observer.  Nothing but the observations goes in.

Where the agent was not asked at every one of its turns (it was made mid-deal, or a turn went to
another player of the same seat), the history is incomplete; :meth:`DealHistory.actions` then says so
(``None``) instead of guessing, and the caller falls back on what needs no order.
"""

from __future__ import annotations

from ...games.knowledge import Knowledge

__all__ = ["DealHistory", "SeatHistories"]


class DealHistory:
    """The ordered actions of one deal seen by one seat (see the module docstring)."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.tricks: list[list[tuple[int, int]]] = []     # completed tricks, (relative seat, card) in order
        self._pending_leader: int | None = None           # leader of the trick in progress at the last turn
        self.broken = False                               # a trick was missed: the order is unknown

    def update(self, k: Knowledge) -> None:
        """Bring the history up to date with the observation of a play turn (call it at every one)."""
        done = k.tricks_played
        if done < len(self.tricks):                      # a new deal (a rubber's next deal)
            self.reset()
        if done == len(self.tricks) + 1 and self._pending_leader is not None:
            last = k.last_trick
            leader = self._pending_leader
            trick = [((leader + i) % 4, last.get((leader + i) % 4)) for i in range(4)]
            if len(last) == 4 and all(c is not None for _, c in trick):
                self.tricks.append(trick)
            else:
                self.broken = True
        elif done != len(self.tricks):
            self.broken = True
        self._pending_leader = k.leader

    def plays(self, k: Knowledge) -> list[tuple[int, int]] | None:
        """Every card played in the deal so far, in order, or None where the history is incomplete
        (checked against the cards the observation says each seat has played)."""
        if self.broken:
            return None
        plays = [p for trick in self.tricks for p in trick] + list(k.trick)
        by_seat = [0, 0, 0, 0]
        for seat, card in plays:
            by_seat[seat] |= 1 << card
        if by_seat != list(k.played_by):
            return None
        return plays


class SeatHistories:
    """A :class:`DealHistory` per agent name (the same agent object may act for several seats), all
    forgotten at ``reset`` (a new deal)."""

    def __init__(self):
        self._by_agent: dict = {}

    def of(self, agent) -> DealHistory:
        found = self._by_agent.get(agent)
        if found is None:
            found = self._by_agent[agent] = DealHistory()
        return found

    def reset(self) -> None:
        self._by_agent.clear()
