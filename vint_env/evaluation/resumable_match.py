"""Long duplicate matches that survive a stop: played board by board to a log, resumed where it ends.

    python -m vint_env.evaluation.resumable_match --game vint --a pimc --b rule --boards 1000 \\
        --log results/pimc/vint_pimc_rule.jsonl          # play (resumes where the log ends)
    python -m vint_env.evaluation.resumable_match --log results/pimc/vint_pimc_rule.jsonl --summary

Plays ``vint-eval``'s duplicate match (:func:`~vint_env.evaluation.match.run_match`,
one process) logged board by board (:mod:`~vint_env.evaluation.board_log`, as
``vint-eval ladder`` does), so a long measurement on a busy machine can be stopped and
resumed, and summarised at any point (the same figures and Markdown as
``vint-eval match``, on the boards played so far).  Board ``i`` of a match
depends only on the seeds and ``i``, so the boards played in pieces are the
boards ``vint-eval match`` plays in one go.  The log keeps the SHA-256 of the files each side plays
from (as ``vint-eval ladder``'s): a side whose network changed is another match, never resumed into
it.  With one worker (the default) the search agents' counters (PIMC's and ``search``'s decisions
and seconds of their own thinking) are logged with every piece.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from .. import games
from ..cli_args import positive_int
from . import match as match_mod
from .board_log import load_log, play_logged
from .deals import generate_boards
from .ladder import agent_files
from .report import summarize, summary_markdown

_COUNTERS = ("decisions", "sampled", "samples", "seconds", "cpu_seconds")


def _pimc_totals() -> dict:
    """PIMC's counters summed over the agents of this process's table (they count from the match's start)."""
    out = dict.fromkeys(_COUNTERS, 0)
    for table in match_mod._WORKER_TABLE.values():
        for agents in table.agents.values():
            for agent in agents:
                for k, v in getattr(agent, "stats", {}).items():
                    out[k] = out.get(k, 0) + v
    return out


def play(args) -> None:
    boards = generate_boards(args.boards, seed=args.deal_seed)
    before = [_pimc_totals()]
    start = time.perf_counter()

    def piece_info() -> dict:
        """The chunk's own PIMC counters (the agents' counters since the last chunk)."""
        now = _pimc_totals()
        delta = {k: now.get(k, 0) - before[0].get(k, 0) for k in now}
        before[0] = now
        print(f"{time.perf_counter() - start:.0f} s, pimc {delta}", flush=True)
        return {"pimc": delta}

    # as the ladder's logs: the SHA-256 of the files each side plays from, so that an agent whose network
    # changed is never resumed into its old log (a log written without them is another match too)
    files = {**agent_files(args.a, args.game), **agent_files(args.b, args.game)}
    # the search agents' counters live in the process that plays: read only with one worker (the thinking
    # time a decision is in every board's record, whatever the workers)
    logged = play_logged(args.log, args.game, args.a, args.b, boards, seed=args.seed, workers=args.workers,
                         analysis=not args.no_dd, chunk_size=args.piece, progress=True,
                         header_extra={"deal_seed": args.deal_seed, "files": files},
                         piece_info=piece_info if args.workers == 1 else None)
    print(f"{len(logged.entries)}/{args.boards} boards in {args.log}", flush=True)


def load(log):
    """The logged match (the harness's MatchResult) and PIMC's counters summed over its pieces."""
    logged = load_log(log)
    stats = dict.fromkeys(_COUNTERS, 0)
    for piece in logged.pieces:
        for k, v in piece.get("info", {}).get("pimc", {}).items():
            stats[k] = stats.get(k, 0) + v
    return logged.result, stats


def summary(args) -> None:
    result, stats = load(args.log)
    s = summarize(result)
    text = summary_markdown(s, f"python -m vint_env.evaluation.resumable_match --log {args.log}")
    if stats["seconds"]:
        text += (f"- PIMC: {stats['decisions']} card decisions ({stats['sampled']} sampled, "
                 f"{stats['samples']} deals solved) in {stats['seconds']:.0f} s: "
                 f"{stats['decisions'] / stats['seconds']:.2f} decisions/s wall"
                 + (f", {stats['decisions'] / stats['cpu_seconds']:.2f} decisions per CPU-second, "
                    f"{stats['sampled'] / stats['cpu_seconds']:.2f} sampled decisions per CPU-second"
                    if stats.get("cpu_seconds") else "") + "\n")
    print(text)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vint_env.evaluation.resumable_match",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--log", required=True, type=Path)
    p.add_argument("--summary", action="store_true", help="summarise the log and exit")
    games.add_game_option(p, default="vint")
    p.add_argument("--a", default="pimc")
    p.add_argument("--b", default="rule")
    p.add_argument("--boards", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--deal-seed", type=int, default=0)
    p.add_argument("--piece", type=int, default=5, help="boards per logged piece")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="processes playing boards (the PIMC counters of each piece are logged with 1 only)")
    p.add_argument("--no-dd", action="store_true", help="skip the Vint double-dummy analysis")
    args = p.parse_args(argv)
    if args.summary:
        summary(args)
    else:
        play(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
