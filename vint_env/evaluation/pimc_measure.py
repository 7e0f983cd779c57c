"""Long duplicate matches for the PIMC agent that survive a stop: board by board to a log.

    python -m vint_env.evaluation.pimc_measure --game vint --a pimc --b rule --boards 1000 \\
        --log results/pimc/vint_pimc_rule.jsonl          # play (resumes where the log ends)
    python -m vint_env.evaluation.pimc_measure --log results/pimc/vint_pimc_rule.jsonl --summary

Plays ``vint-eval``'s duplicate match (:func:`~vint_env.evaluation.match.run_match`,
one process) a few boards at a time and appends each board's result to a
JSON-lines log, so a long measurement on a busy machine can be stopped and
resumed, and summarised at any point (the same figures and Markdown as
``vint-eval match``, on the boards played so far).  Board ``i`` of a match
depends only on the seeds and ``i``, so the boards played in pieces are the
boards ``vint-eval match`` plays in one go.  PIMC's speed (decisions per
second of its own thinking) is logged with every piece.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from .. import games
from . import match as match_mod
from .deals import generate_boards
from .match import BoardResult, MatchResult, TableResult, run_match
from .report import summarize, summary_markdown


STAT_KEYS = ("decisions", "seconds", "cpu_seconds")


def _team_stats() -> dict:
    """Each team's agents' counters (``agent.stats``: card decisions, the wall and CPU seconds spent on them,
    and the agent's own counts), summed over its seats."""
    out = {}
    for table in match_mod._WORKER_TABLE.values():
        for team, agents in table.agents.items():
            totals = out.setdefault(team, {})
            for agent in agents:
                for k, v in getattr(agent, "stats", {}).items():
                    totals[k] = totals.get(k, 0) + v
    return out


def _pimc_stats() -> dict:
    """Every agent's counters summed (the logs' ``pimc`` entry)."""
    out = {"decisions": 0, "sampled": 0, "samples": 0, "seconds": 0.0, "cpu_seconds": 0.0}
    for totals in _team_stats().values():
        for k, v in totals.items():
            out[k] = out.get(k, 0) + v
    return out


def play(args) -> None:
    log = Path(args.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["board"] for line in log.read_text().splitlines()
            if line.startswith('{"board"')} if log.exists() else set()
    boards = [b for b in generate_boards(args.boards, seed=args.deal_seed) if b.number not in done]
    for i in range(0, len(boards), args.piece):
        piece = boards[i:i + args.piece]
        start = time.perf_counter()
        result = run_match(args.game, args.a, args.b, piece, seed=args.seed, workers=1,
                           analysis=not args.no_dd)
        stats = _pimc_stats()
        teams = _team_stats()
        with log.open("a") as f:
            for b in result.boards:
                f.write(json.dumps({"board": b.number, "score": b.score, "game": args.game, "a": args.a,
                                    "b": args.b, "seed": args.seed,
                                    "tables": [{"seats": t.seats, "points": t.points, "details": t.details}
                                               for t in b.tables]}, default=_plain) + "\n")
            f.write(json.dumps({"piece": [b.number for b in piece], "seconds": time.perf_counter() - start,
                                "cpu_seconds": result.cpu_seconds, "pimc": stats, "teams": teams}) + "\n")
        print(f"{len(done) + i + len(piece)}/{args.boards} boards, piece {time.perf_counter() - start:.0f} s, "
              f"pimc {stats}", flush=True)


def _plain(o):
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(type(o).__name__)


def load(log) -> tuple[MatchResult, dict]:
    boards, wall, cpu = [], 0.0, 0.0
    stats = {"decisions": 0, "sampled": 0, "samples": 0, "seconds": 0.0, "cpu_seconds": 0.0, "teams": {}}
    head = None
    for line in Path(log).read_text().splitlines():
        row = json.loads(line)
        if "board" in row:
            head = row
            outcome = games.get(row["game"]).outcome      # the table's outcome, read back from its details
            tables = [TableResult(t["seats"], t["points"], t["details"], outcome=outcome.from_details(t["details"]))
                      for t in row["tables"]]
            boards.append(BoardResult(row["board"], row["score"], tables))
        else:
            wall += row["seconds"]
            cpu += row["cpu_seconds"]
            for k, v in row["pimc"].items():
                stats[k] = stats.get(k, 0) + v
            for team, counts in row.get("teams", {}).items():
                mine = stats["teams"].setdefault(team, {})
                for k, v in counts.items():
                    mine[k] = mine.get(k, 0) + v
    if head is None:
        raise ValueError(f"{log}: no boards yet")
    boards.sort(key=lambda b: b.number)
    return MatchResult(head["game"], head["a"], head["b"], "deal", head["seed"], boards, wall, cpu, 1), stats


def summary(args) -> None:
    result, stats = load(args.log)
    s = summarize(result)
    text = summary_markdown(s, f"python -m vint_env.evaluation.pimc_measure --log {args.log}")
    if stats["seconds"]:
        text += (f"- PIMC: {stats['decisions']} card decisions ({stats['sampled']} sampled, "
                 f"{stats['samples']} deals solved) in {stats['seconds']:.0f} s: "
                 f"{stats['decisions'] / stats['seconds']:.2f} decisions/s wall"
                 + (f", {stats['decisions'] / stats['cpu_seconds']:.2f} decisions per CPU-second, "
                    f"{stats['sampled'] / stats['cpu_seconds']:.2f} sampled decisions per CPU-second"
                    if stats.get("cpu_seconds") else "") + "\n")
    for team in sorted(stats["teams"]):
        t = stats["teams"][team]
        if t.get("decisions") and t.get("cpu_seconds"):
            spec = result.agent_a if team == "A" else result.agent_b
            text += (f"- {team} (`{spec}`): {t['decisions']} card decisions, "
                     f"{t['cpu_seconds'] / t['decisions']:.4f} CPU seconds a decision "
                     f"({t['seconds'] / t['decisions']:.4f} s wall)\n")
    print(text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vint_env.evaluation.pimc_measure", description=__doc__.split("\n\n")[0])
    p.add_argument("--log", required=True, type=Path)
    p.add_argument("--summary", action="store_true", help="summarise the log and exit")
    games.add_game_option(p, default="vint")
    p.add_argument("--a", default="pimc")
    p.add_argument("--b", default="rule")
    p.add_argument("--boards", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--deal-seed", type=int, default=0)
    p.add_argument("--piece", type=int, default=5, help="boards per logged piece")
    p.add_argument("--no-dd", action="store_true", help="skip the Vint double-dummy analysis")
    args = p.parse_args(argv)
    if args.summary:
        summary(args)
    else:
        play(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
