"""A league: every pair of agents plays a duplicate match on the same boards;
ratings from the board results (OpenSkill's Plackett-Luce model), written as
Markdown, JSON and a PNG chart.

Each board of each match counts as one game between the two agents, won by
the side with the higher duplicate score (a tie is a draw).  Games are rated
board by board, interleaving the matches, so the order is fixed and the
ratings are reproducible.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from ..agents.base import Agent
from ..agents.spec import AgentSpec, parse_spec
from ..atomic import atomic_write
from ..games import Game
from ..points import format_ci, format_points
from .match import MatchResult, run_match
from .players import agent_label
from .report import summarize, write_json, write_text
from .stats import mean_ci


@dataclass
class League:
    game: str
    agents: list[str]
    matches: list[MatchResult]
    ratings: dict[str, dict]

    def pair(self, a: str, b: str) -> tuple[MatchResult, int]:
        """The match of a and b, and +1 if a was team A there, else -1."""
        for m in self.matches:
            if (m.agent_a, m.agent_b) == (a, b):
                return m, 1
            if (m.agent_a, m.agent_b) == (b, a):
                return m, -1
        raise KeyError((a, b))


def rate(agents: list[str], matches: list[MatchResult]) -> dict[str, dict]:
    """OpenSkill (Plackett-Luce) ratings from every board of every match."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError("league ratings need openskill: pip install 'vint-env[eval]'") from exc
    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    games = {a: 0 for a in agents}
    n = max(len(m.boards) for m in matches)
    for i in range(n):
        for m in matches:
            if i >= len(m.boards):
                continue
            s = m.boards[i].score
            a, b = m.agent_a, m.agent_b
            ranks = [0, 1] if s > 0 else [1, 0] if s < 0 else [0, 0]
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
            games[a] += 1
            games[b] += 1
    return {a: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(), "games": games[a]}
            for a, r in ratings.items()}


def run_league(game: Game | str, agents: list[str | AgentSpec | Agent], boards, seed: int = 0, workers: int = 1,
               progress: bool = False, analysis: bool = False, env_options: dict | None = None,
               threads: int = 1) -> League:
    """Every pair of ``agents`` in a duplicate match on ``boards`` of ``game`` (its record, or its name:
    the league's ``game`` is then that string), and their ratings.  An agent is a spec or an ``Agent`` object,
    as :func:`~vint_env.evaluation.match.run_match` takes them; the league names each as the match results
    do (a spec by its text, an object by its ``name``), and two agents of one name are an error."""
    if len(agents) < 2:
        raise ValueError("a league needs at least two agents")
    # specs by their text (" rule" is "rule"); objects stay objects, named by their name
    # (anything else reaches run_match, which names the problem)
    sides = [str(parse_spec(a)) if isinstance(a, (str, AgentSpec)) else a for a in agents]
    names = [agent_label(a) if isinstance(a, Agent) else str(a) for a in sides]
    if len(set(names)) != len(names):
        raise ValueError(f"agents repeat in {names}")
    matches = [run_match(game, a, b, boards, seed=seed, workers=workers, progress=progress, analysis=analysis,
                         env_options=env_options, threads=threads)
               for a, b in itertools.combinations(sides, 2)]
    return League(game if isinstance(game, str) else game.name, names, matches, rate(names, matches))


def league_markdown(league: League, command: str | None = None) -> str:
    order = sorted(league.agents, key=lambda a: -league.ratings[a]["ordinal"])
    n_boards = len(league.matches[0].boards)
    lines = [f"# League: {league.game}, {n_boards} duplicate boards per match", ""]
    if command:
        lines += [f"Command: `{command}`", ""]
    lines += ["| rank | agent | mu | sigma | ordinal (mu - 3 sigma) | games |", "|---|---|---|---|---|---|"]
    for i, a in enumerate(order, 1):
        r = league.ratings[a]
        lines.append(f"| {i} | {a} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | {r['games']} |")
    lines += ["", "Mean points per board, row minus column, with 95% CI (paired over boards):", "",
              "| | " + " | ".join(order) + " |", "|---" * (len(order) + 1) + "|"]
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append("")
                continue
            m, sign = league.pair(a, b)
            ci = mean_ci([sign * s for s in m.scores])
            cells.append(format_ci(ci.mean, ci.low, ci.high))
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def text_color(rgba) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgba`` (relative luminance,
    WCAG): white on the dark ends of the colour map, black on the light middle."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(float(c)) for c in rgba[:3])
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    # contrast with white (1.05 / (L + 0.05)) beats contrast with black ((L + 0.05) / 0.05)
    return "white" if luminance < 0.179 else "black"


def league_chart(league: League, path) -> Path:
    """Ratings (mu with a ±2 sigma bar) and the pairwise margin matrix as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    order = sorted(league.agents, key=lambda a: league.ratings[a]["mu"])
    mus = [league.ratings[a]["mu"] for a in order]
    sig = [2 * league.ratings[a]["sigma"] for a in order]
    k = len(order)
    margin = np.zeros((k, k))
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if a != b:
                m, sign = league.pair(a, b)
                margin[i, j] = sign * sum(m.scores) / len(m.scores)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 0.6 * k + 2.5))
    ax1.barh(range(k), mus, xerr=sig, color="#4477aa", capsize=4)
    ax1.set_yticks(range(k), order)
    ax1.set_xlabel("OpenSkill mu (bar: ±2 sigma)")
    ax1.set_title(f"{league.game}: ratings")
    lim = np.abs(margin).max() or 1.0
    im = ax2.imshow(margin, cmap="RdBu", vmin=-lim, vmax=lim)
    ax2.set_xticks(range(k), order, rotation=30, ha="right")
    ax2.set_yticks(range(k), order)
    for i in range(k):
        for j in range(k):
            if i != j:
                ax2.text(j, i, format_points(margin[i, j], sign=False), ha="center", va="center", fontsize=8,
                         color=text_color(im.cmap(im.norm(margin[i, j]))))
    ax2.set_title("points per board, row minus column")
    fig.colorbar(im, ax=ax2, shrink=0.8)
    fig.tight_layout()
    path = Path(path)
    try:
        with atomic_write(path, shared=True) as f:
            fig.savefig(f, dpi=110, format="png")
    finally:
        plt.close(fig)
    return path


#: The files ``write_league`` writes into its folder.
LEAGUE_FILES = ("league.md", "league.json", "league.png")


def write_league(league: League, out_dir, command: str | None = None) -> dict[str, Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / LEAGUE_FILES[0]
    write_text(md, league_markdown(league, command))
    data = {"game": league.game, "agents": league.agents, "ratings": league.ratings, "command": command,
            "matches": [summarize(m) for m in league.matches]}
    js = write_json(out_dir / LEAGUE_FILES[1], data)
    png = league_chart(league, out_dir / LEAGUE_FILES[2])
    return {"markdown": md, "json": js, "chart": png}


__all__ = ["League", "rate", "run_league", "league_markdown", "league_chart", "text_color", "write_league",
           "json"]
