"""A duplicate match logged board by board, so that a stopped one resumes where it stopped.

:func:`play_logged` plays the harness's match (:func:`~vint_env.evaluation.match.run_match`, with its
workers and progress bar) on the boards its JSON-lines log does not hold yet, and appends each chunk
of boards to the log as it finishes.  The log's first line says which match it is (game, agents,
seed, env options, the boards and whatever the caller adds, such as the board set's name and
SHA-256); a log of another match is refused, never mixed in.  Then one line a board, as a results
file writes it (:func:`~vint_env.evaluation.report.board_entry`: score, tables, replays, decisions),
and one line a chunk (its boards, wall and CPU seconds, and the caller's ``piece_info``).  A line cut
short by a stop is dropped when the log is read again.  Board ``i`` of a match depends only on the
seeds and ``i``, so boards played in pieces are the boards one uninterrupted match plays.

:func:`load_log` reads a log back as a :class:`LoggedMatch`: the harness's
:class:`~vint_env.evaluation.match.MatchResult` (what :func:`~vint_env.evaluation.report.summarize`
reads) and the boards' entries (what the viewer shows).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import games
from ..games import Game
from .deals import Board
from .match import BoardResult, MatchResult, TableResult, run_match
from .report import TABLE_KEYS, board_entry, strict_json

LOG_FORMAT = "vint-env/match-log"
LOG_VERSION = 1


#: Header keys that say how a match was started, not which match it is: kept from the first run, not compared.
NOT_COMPARED = ("command", "commit")


class MatchLogError(ValueError):
    """A log that is not a match log, or the log of another match than the one asked for."""


@dataclass
class LoggedMatch:
    header: dict
    result: MatchResult
    entries: list[dict]                      # the boards as the results file writes them (with replays)
    pieces: list[dict] = field(default_factory=list)


def match_header(game: Game | str, agent_a: str, agent_b: str, seed: int = 0, env_options: dict | None = None,
                 analysis: bool = False, **extra) -> dict:
    """The first line of a match's log: what makes it this match.  ``extra`` must name where the boards
    come from (a board set's name and SHA-256, a deal seed): a log holds boards by their numbers."""
    return {"log": LOG_FORMAT, "version": LOG_VERSION, "game": games.get(game).name, "agent_a": agent_a,
            "agent_b": agent_b, "episode": "deal", "seed": seed, "env_options": dict(env_options or {}),
            "analysis": analysis, **extra}


def play_logged(path, game: Game | str, agent_a: str, agent_b: str, boards: list[Board], seed: int = 0,
                workers: int = 1, analysis: bool = False, env_options: dict | None = None, threads: int = 1,
                progress: bool = False, chunk_size: int | None = None, header_extra: dict | None = None,
                piece_info: Callable[[], dict] | None = None) -> LoggedMatch:
    """Play the boards of a match that its log at ``path`` lacks, appending them as they finish; return
    the logged match on ``boards``.  ``header_extra``: more facts that make the match, among them where
    the boards come from (set name and SHA-256, or deal seed), and the command and code that started it
    (keys ``command`` and ``commit``: kept from the first run and not compared); ``piece_info()``: what to note with
    each chunk (PIMC's counters).  A log may hold more boards than asked for (a longer run of the same
    match): the result has the boards asked for."""
    record = games.get(game)
    path = Path(path)
    if not boards:
        raise ValueError("no boards to play")
    header = match_header(record, agent_a, agent_b, seed, env_options, analysis, **(header_extra or {}))
    done = _resume(path, header)
    todo = [b for b in boards if b.number not in done]
    if todo:
        text = record.action_text
        last = [time.perf_counter()]

        def append(results: list[BoardResult], cpu: float) -> None:
            now = time.perf_counter()
            lines = [strict_json(board_entry(b, text)) for b in results]
            lines.append(strict_json({"piece": [b.number for b in results], "seconds": now - last[0],
                                      "cpu_seconds": cpu, "workers": workers, "load": _load_average(),
                                      **({"info": piece_info()} if piece_info else {})}))
            with path.open("a", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            last[0] = now

        run_match(record, agent_a, agent_b, todo, seed=seed, workers=workers, progress=progress,
                  chunk_size=chunk_size, analysis=analysis, env_options=env_options, threads=threads,
                  on_chunk=append)
    return load_log(path, only=[b.number for b in boards])


def _load_average() -> float | None:
    """The machine's load average over the last minute (None where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def mean_load(logged: LoggedMatch) -> float | None:
    """The mean of the load averages logged with the match's chunks (the machine's business meanwhile)."""
    loads = [p["load"] for p in logged.pieces if p.get("load") is not None]
    return sum(loads) / len(loads) if loads else None


def file_key(path: str | Path) -> str:
    """The name a log keeps a file's SHA-256 under: a shipped baseline by its place in the package
    (``vint_env/baselines/whist.pt``), wherever the package is installed or checked out, so that a log or a
    results file made in one place resumes or is reused in another; any other file by the path as given."""
    parts = Path(path).parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "vint_env" and parts[i + 1] == "baselines":
            return "/".join(parts[i:])
    return str(path)


def portable_files(files: dict | None) -> dict[str, str]:
    """A log's or results file's ``files`` (SHA-256 by path) keyed by :func:`file_key`: those written with
    a shipped baseline's absolute path compare equal to the same bytes shipped elsewhere."""
    return {file_key(k): v for k, v in (files or {}).items()}


def _resume(path: Path, header: dict) -> set[int]:
    """The boards the log already holds (after checking it is this match's log); a new log gets its header."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(strict_json(header) + "\n", encoding="utf-8")
        tmp.replace(path)
        return set()
    _drop_cut_line(path)
    logged = load_log(path, allow_empty=True)
    theirs = {k: v for k, v in logged.header.items() if k not in NOT_COMPARED}
    ours = {k: v for k, v in header.items() if k not in NOT_COMPARED}
    for side in (theirs, ours):
        if "files" in side:
            side["files"] = portable_files(side["files"])
    if theirs != ours:
        diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise MatchLogError(f"{path} is the log of another match (it differs in {', '.join(diff)}: "
                            + "; ".join(f"{k} {_short(theirs.get(k))} there, {_short(ours.get(k))} here"
                                        for k in diff[:3]) + "); move it away or choose another folder")
    return {e["board"] for e in logged.entries}


def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _drop_cut_line(path: Path) -> None:
    """Cut a last line that a stop left without its end (it is played again)."""
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(raw.rfind(b"\n") + 1)


def load_log(path, allow_empty: bool = False, only: list[int] | None = None) -> LoggedMatch:
    """A match log read back (boards in order; a board logged twice counts once); ``only``: those boards."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("log") != LOG_FORMAT:
        raise MatchLogError(f"{path} is not a match log (its first line is not a {LOG_FORMAT} header)")
    if header.get("version") != LOG_VERSION:
        raise MatchLogError(f"{path}: match log version {header.get('version')!r}, this package reads {LOG_VERSION}")
    record = games.get(header["game"])
    entries: dict[int, dict] = {}
    wanted = set(only or ())
    pieces = []
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MatchLogError(f"{path}:{number}: not a JSON line ({exc})") from None
        if "board" in row:
            if only is None or row["board"] in wanted:
                entries.setdefault(row["board"], row)
        elif "piece" in row:
            pieces.append(row)
        else:
            raise MatchLogError(f"{path}:{number}: neither a board nor a piece")
    if not entries and not allow_empty:
        raise MatchLogError(f"{path}: no boards played yet")
    ordered = [entries[n] for n in sorted(entries)]
    boards = [board_result(e, record) for e in ordered]
    share = [1.0 if only is None else sum(n in wanted for n in p["piece"]) / max(1, len(p["piece"]))
             for p in pieces]                     # the part of each chunk's time spent on the boards asked for
    result = MatchResult(record.name, header["agent_a"], header["agent_b"], header["episode"], header["seed"],
                         boards, sum(p["seconds"] * w for p, w in zip(pieces, share)),
                         sum(p["cpu_seconds"] * w for p, w in zip(pieces, share)),
                         max((p.get("workers", 1) for p in pieces), default=1), dict(header["env_options"]))
    return LoggedMatch(header, result, ordered, pieces)


def board_result(entry: dict, game: Game | str) -> BoardResult:
    """A board of a results file (:func:`~vint_env.evaluation.report.board_entry`) as the harness's
    :class:`BoardResult` (replays stay in the entry)."""
    outcome = games.get(game).outcome
    tables = []
    for t in entry["tables"]:
        details = {k: v for k, v in t.items() if k not in TABLE_KEYS}
        tables.append(TableResult(list(t["seats"]), t["points"], details, outcome=outcome.from_details(details),
                                  decisions=t.get("decisions", []), think_seconds=t.get("think_seconds", [])))
    return BoardResult(entry["board"], entry["score"], tables)
