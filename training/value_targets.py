"""Action values as imitation targets: what each legal card is worth on the true deal, double-dummy.

Behaviour cloning copies a teacher's choices, so a clone is at best as good
as its teacher.  With ``teacher_values: dd`` the teacher still plays the deals
(its play decides which positions are seen), but every card decision is
labelled with the *points* each legal card is worth to the deciding side if
all four players then play double-dummy on the true deal: the tricks that
card keeps (DDS, all cards of a position in one search, all positions of a
deal in one batch) turned into the side's points for the deal by the game's
own scoring (a Vint contract's overtricks, undertricks and slams; Whist's
tricks over six), with premiums fixed by the deal (honours, coronets) left
out because no card changes them.

A policy that regresses these values from its *observation* learns, for
each card, the mean of its double-dummy worth over the deals consistent
with what the player has seen, weighted by how often the teacher's play
reaches that observation: the quantity PIMC estimates by sampling deals, at
the cost of one forward pass instead of a dozen DDS solves.

Auction decisions (Vint) and games without a double-dummy solver keep the
teacher's action as their target (:func:`value_games` lists the games that
have values).
"""

from __future__ import annotations

import numpy as np

from vint_env import games

VALUE_KINDS = ("", "dd")


def value_games() -> tuple[str, ...]:
    """Games whose card decisions get double-dummy values (four hands, fixed partnerships)."""
    from vint_env.agents.pimc import POSITION_OF
    return tuple(sorted(POSITION_OF))


def check_values(kind: str, game: str) -> None:
    """Refuse a value kind that is unknown or that the game does not have, naming both."""
    if kind not in VALUE_KINDS:
        raise ValueError(f"teacher_values must be one of {VALUE_KINDS}, got {kind!r}")
    name = games.get(game).name
    if kind == "dd" and name not in value_games():
        raise ValueError(f"teacher_values 'dd' needs a four-hand game with fixed partnerships "
                         f"({', '.join(value_games())}), not {name!r}: its card play has no double-dummy solver")


class DealValues:
    """Collects the card decisions of one deal, then solves them all in one DDS batch.

    ``note(env, observation)`` before each decision (``None`` if it is not a
    card decision); ``solve()`` after the deal returns, per noted decision,
    an array of the env's action size with each legal card's points and NaN
    elsewhere.
    """

    def __init__(self, game: str, num_actions: int):
        from vint_env.agents.pimc import POSITION_OF
        from vint_env.agents.play_view import TrickMemory
        name = games.get(game).name
        self.position_of = POSITION_OF[name]
        self.layout = games.get(game).layout
        self.num_actions = num_actions
        self._memory = TrickMemory
        self.requests: list = []     # (row index, dds position, points table, legal) per card decision

    def note(self, row: int, env, observation: dict) -> bool:
        """Record decision ``row`` if it is a card decision with a choice; True if recorded."""
        play = getattr(env.unwrapped.deal, "play", None)
        if play is None:                       # the auction (Vint): no card to value
            return False
        o = self.layout.decode(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"])
        pos = self.position_of(o, self._memory())
        won = pos.side_tricks[0]
        points = {t: pos.points(t) for t in range(won, 14)}
        trick = tuple(play.trick)
        self.requests.append((row, (tuple(play.hands), play.trump, play.leader, trick), won, points,
                              [int(a) for a in legal]))
        return True

    def solve(self) -> dict[int, np.ndarray]:
        from vint_env.agents.dds_batch import solve_positions
        out: dict[int, np.ndarray] = {}
        todo = [r for r in self.requests if len(r[4]) > 1]
        solved = solve_positions([r[1] for r in todo]) if todo else []
        by_row = {r[0]: s for r, s in zip(todo, solved)}
        for row, _pos, won, points, legal in self.requests:
            v = np.full(self.num_actions, np.nan, dtype=np.float32)
            if len(legal) == 1:
                v[legal[0]] = 0.0
            else:
                tricks = by_row[row]
                if set(tricks) != set(legal):
                    raise RuntimeError(f"double-dummy cards {sorted(tricks)} are not the legal cards {legal}")
                for a in legal:
                    v[a] = points[won + tricks[a]]
            out[row] = v
        self.requests = []
        return out


__all__ = ["VALUE_KINDS", "value_games", "check_values", "DealValues"]
