"""Duplicate training: every deal at two tables, the learner's result taken relative to the other table's.

With ``collection.duplicate: true`` the trainer's ``num_envs`` games are ``num_envs // 2`` pairs of
tables: game ``i`` and its :func:`twin` ``i + num_envs // 2`` start every deal from the same seed (the
same cards at the same seats, the same dealer and turned card), and at the twin every controller
(the learner, the pool snapshot, the bots) sits one seat on (:func:`rotate_seats`): the cards the
learner held at the first table are held by the player to its left there.

When both tables have finished the deal, the learner's return at each table becomes its *paired
return*: its result there minus the result of the same seat (the same cards) at the other table.
In a partnership game the learner's partnership holds its opponents' cards at the twin, and the
paired return is the board's duplicate score, the learner's points summed over the two tables, the
same at both; honours, coronets and strong hands, which score whoever plays them, cancel.  In Solo
Whist the learner sits alone (``seating.learner_sides``) and its paired return is its result minus
what its opponent at the other table made with the same cards against the same field, as the harness
scores a board.  The subtracted term was played at the other table, so it does not depend on this
table's actions: a baseline that leaves the policy gradient unbiased and takes the deal's luck out of
its variance.

:func:`vint_env.training.variance.return_variance` measures what it buys: the variance of the
learner's return a deal, alone and paired (``python -m training.variance``).
"""

from __future__ import annotations

import numpy as np

from vint_env.games import Game


def check_pairs(num_envs: int) -> None:
    """ValueError unless ``num_envs`` games make pairs of tables."""
    if num_envs < 2 or num_envs % 2:
        raise ValueError(f"duplicate training plays pairs of tables: num_envs must be even and >= 2, "
                         f"got {num_envs}")


def twin(i: int, num_envs: int) -> int:
    """The other table of game ``i``'s pair (games ``i`` and ``i + num_envs // 2``)."""
    half = num_envs // 2
    return i + half if i < half else i - half


def rotate_seats(per_seat: np.ndarray) -> np.ndarray:
    """What sits at each seat of the second table: the first table's seat ``s + 1`` moves to ``s``
    (``[a, b, c, d]`` -> ``[b, c, d, a]``), so each side's controllers hold the other side's cards."""
    return np.roll(np.asarray(per_seat), -1)


def check_game(game: Game) -> None:
    """ValueError unless duplicate training pairs ``game``'s tables (four seats: the partnership games and
    Solo Whist)."""
    from vint_env import games
    from vint_env.games.record import PARTNERSHIP, SOLO
    if game.format not in (PARTNERSHIP, SOLO):
        known = [g.name for g in games.all_games() if g.format in (PARTNERSHIP, SOLO)]
        raise ValueError(f"duplicate training rotates four seats; {game.name} is a {game.format} game; "
                         f"it trains {', '.join(known)}")


def variance_figures(side_returns: np.ndarray) -> dict:
    """``{return_var, paired_return_var, variance_ratio, n}`` of rows ``(return, paired return)``."""
    rows = np.asarray(side_returns, dtype=np.float64).reshape(-1, 2)
    n = len(rows)
    single = float(np.var(rows[:, 0], ddof=1)) if n > 1 else float("nan")
    paired = rows[:, 1][~np.isnan(rows[:, 1])]
    pv = float(np.var(paired, ddof=1)) if len(paired) > 1 else float("nan")
    return {"return_var": single, "paired_return_var": pv,
            "variance_ratio": pv / single if single and not np.isnan(pv) else float("nan"), "n": n}
