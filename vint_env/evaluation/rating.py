"""One rating for every player of a ladder: a Bradley-Terry fit on board outcomes, on the Elo scale.

Every board of every duplicate match is one game between its two sides: won by the side with the
higher duplicate score, a tie half a win each.  The Bradley-Terry model gives player *i* a rating
*r_i* such that *i* wins a board against *j* with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``:
400 points apart, the stronger wins ten boards for each one it loses.  The ratings are the model's
maximum-likelihood fit over all the matches at once (Newton's method on the log-likelihood, which is
concave), with one point fixed (the ``anchor``: the random player, at 0).

Why board outcomes and not the margins in points: the games' points have heavy tails (a Vint board
against a random player is worth a hundred thousand points, one against a peer a few hundred; a slam
outweighs a session of part scores), so a fit on margins would be the fit of a few boards, and margins
do not add up along a ladder (a margin over random says little about one over the rule bot).  Won or
lost boards weigh every board alike, mean the same in every game, and are what bridge's and
DouDizhu's benchmarks also count.  The margins stay beside the rating, in points, with their own
intervals.

A side that wins every board against another would have an infinite rating; one virtual win and one
virtual loss are added to every pair that played (``prior_draws=2``, the add-one rule of
Laplace), so that a 1,000-0 match puts ``400 * log10(1001)`` (about 1,200) between the two, a finite
figure that more boards would raise.

The interval of each rating is a bootstrap over boards: the board set is drawn again with
replacement (the same draw for every match, since all of them play the same boards, which keeps the
matches' correlation), every rating is fitted again, and the 2.5% and 97.5% quantiles of the fits
over ``bootstrap`` draws bound it.

>>> r = fit([("a", "b", [1.0] * 75 + [0.0] * 25)], anchor="b", prior_draws=0)
>>> round(r["a"], 2), r["b"]
(190.85, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)      # rating points per unit of log-odds


class RatingError(ValueError):
    """Matches that cannot rate their players (none, or a player no match links to the anchor)."""


def board_outcomes(scores) -> np.ndarray:
    """Side A's result on each board: 1 won, 0.5 tied, 0 lost (NaN for a board not played)."""
    s = np.asarray(scores, dtype=float)
    return np.where(np.isnan(s), np.nan, np.where(s > 0, 1.0, np.where(s < 0, 0.0, 0.5)))


def _players(matches, anchor: str) -> list[str]:
    players = []
    for a, b, _ in matches:
        for p in (a, b):
            if p not in players:
                players.append(p)
    if anchor not in players:
        raise RatingError(f"the anchor {anchor!r} played no match (players: {', '.join(players)})")
    linked, frontier = {anchor}, [anchor]
    while frontier:
        p = frontier.pop()
        for a, b, _ in matches:
            for x, y in ((a, b), (b, a)):
                if x == p and y not in linked:
                    linked.add(y)
                    frontier.append(y)
    alone = [p for p in players if p not in linked]
    if alone:
        raise RatingError(f"no match links {', '.join(alone)} to {anchor!r}: their ratings are not on its scale")
    return players


def _newton(wins: np.ndarray, games: np.ndarray, anchor: int) -> np.ndarray:
    """Log-strengths maximising sum_ij wins[i, j] log sigma(t_i - t_j), with t[anchor] = 0."""
    k = wins.shape[0]
    free = [i for i in range(k) if i != anchor]
    t = np.zeros(k)

    def loglik(t):
        d = t[:, None] - t[None, :]
        return float(np.sum(wins * -np.logaddexp(0.0, -d)))

    current = loglik(t)
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(-(t[:, None] - t[None, :])))
        grad = (wins - games * p).sum(axis=1)
        w = games * p * (1.0 - p)
        hess = np.diag(w.sum(axis=1)) - w           # minus the Hessian: positive definite on the free players
        step = np.zeros(k)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        scale = 1.0
        while True:                                  # step halving keeps every step uphill
            trial = t + scale * step
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        t, previous, current = trial, current, value
        if np.max(np.abs(scale * step)) < 1e-10 or abs(current - previous) < 1e-13:
            break
    return t


def _tally(players, matches, weights=None):
    """wins[i, j]: boards i won against j (ties half), over the matches, boards weighted by ``weights``."""
    index = {p: i for i, p in enumerate(players)}
    k = len(players)
    wins = np.zeros((k, k))
    for a, b, outcomes in matches:
        o = np.asarray(outcomes, dtype=float)
        present = ~np.isnan(o)
        w = np.ones(o.size) if weights is None else weights[:o.size]
        won = float(np.sum(w[present] * o[present]))
        played = float(np.sum(w[present]))
        wins[index[a], index[b]] += won
        wins[index[b], index[a]] += played - won
    return wins


def _fit_tally(wins: np.ndarray, pairs: np.ndarray, anchor: int, prior_draws: float) -> np.ndarray:
    wins = wins + pairs * prior_draws / 2.0
    games = wins + wins.T
    return ELO * _newton(wins, games, anchor)


def fit(matches, anchor: str = "random", prior_draws: float = 2.0) -> dict[str, float]:
    """Ratings from ``matches``: ``(player_a, player_b, outcomes)`` with A's outcome per board (1 won,
    0.5 tied, 0 lost, NaN not played; :func:`board_outcomes` of the scores), ``anchor`` at 0."""
    players = _players(matches, anchor)
    wins = _tally(players, matches)
    r = _fit_tally(wins, _pairs(players, matches), players.index(anchor), prior_draws)
    return {p: float(x) for p, x in zip(players, r)}


def _pairs(players, matches) -> np.ndarray:
    index = {p: i for i, p in enumerate(players)}
    pairs = np.zeros((len(players),) * 2)
    for a, b, _ in matches:
        pairs[index[a], index[b]] = pairs[index[b], index[a]] = 1.0
    return pairs


@dataclass
class Rating:
    rating: float
    low: float
    high: float
    boards: int        # boards this player played, over all its matches

    def as_dict(self) -> dict:
        return {"rating": self.rating, "low": self.low, "high": self.high, "boards": self.boards}


def rate(matches, anchor: str = "random", prior_draws: float = 2.0, bootstrap: int = 1000, seed: int = 0,
         level: float = 0.95) -> dict[str, Rating]:
    """:func:`fit`, each rating with its bootstrap interval over boards (module docstring).

    The matches' outcomes are indexed by board alike (entry ``i`` is board ``i`` of the set, in every
    match): a draw of the bootstrap takes the same boards in every match."""
    players = _players(matches, anchor)
    a = players.index(anchor)
    pairs = _pairs(players, matches)
    point = _fit_tally(_tally(players, matches), pairs, a, prior_draws)
    n = max(len(o) for _, _, o in matches)
    rng = np.random.default_rng(seed)
    draws = np.empty((bootstrap, len(players)))
    for i in range(bootstrap):
        weights = rng.multinomial(n, np.full(n, 1.0 / n)).astype(float)
        draws[i] = _fit_tally(_tally(players, matches, weights), pairs, a, prior_draws)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0) if bootstrap else (point, point)
    played = {p: 0 for p in players}
    for pa, pb, o in matches:
        count = int(np.sum(~np.isnan(np.asarray(o, dtype=float))))
        played[pa] += count
        played[pb] += count
    return {p: Rating(float(point[i]), float(low[i]), float(high[i]), played[p]) for i, p in enumerate(players)}
