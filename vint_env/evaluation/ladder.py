"""The benchmark's ladder: an agent against every rung of a game, on a frozen board set, with one rating.

``vint-eval ladder --game G --agent SPEC`` plays, in duplicate on a frozen set
(:mod:`~vint_env.evaluation.bench_sets`), the agent against each of the game's rungs
(:func:`rungs`: random, the rule bot, PIMC and the double-dummy agent where they play the game, the
shipped baseline where one ships), and the rungs against each other; in Solo Whist, where one
agent sits alone against three copies of the other, each pair plays both ways.  Each match is
logged board by board in the ladder's folder (:mod:`~vint_env.evaluation.board_log`): a stopped
ladder resumes where it stopped, and the rungs' own matches, played once, serve every agent rated
in that folder after (or come from another ladder's results file, ``rungs_from``).  The ratings are
one Bradley-Terry fit over every board of every match (:mod:`~vint_env.evaluation.rating`: Elo scale,
random at 0, 95% bootstrap intervals).

The matches run cheapest first (random and the rule bot, then the baseline and the double-dummy
agent, PIMC last), so an interrupted ladder has what costs least to have.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import games
from ..agents.learned.baseline import RESIDUAL_SUFFIX, checkpoint_path, file_sha256, shipped
from ..agents.registry import load_agent
from ..agents.spec import parse_spec
from ..games import SOLO, Game
from ..points import format_ci
from .bench_sets import SPLITS, VERSION, bench_boards, set_name, sha256_of
from .board_log import file_key, mean_load, play_logged, portable_files
from .rating import board_outcomes, rate
from .report import format_seconds, summarize, summary_markdown, write_json, write_text
from .stats import mean_ci
from .viewer import write_html

LADDER_FORMAT = "vint-env/ladder"
LADDER_VERSION = 1
#: The match seed of every ladder match (the agents' randomness; the boards come from the set).
MATCH_SEED = 0
ANCHOR = "random"
#: Virtual draws added to every pair that played (:mod:`~vint_env.evaluation.rating`).
PRIOR_DRAWS = 2
#: Rough cost of a rung's decisions, for the order of play (cheapest first); an agent counts as 1.
_COST = {"random": 0, "rule": 1, "baseline": 1, "dd": 2, "pimc": 3}


class LadderError(ValueError):
    """A ladder that cannot be played as asked (a results file of another set, an unknown rung ...)."""


def rungs(game: Game | str) -> list[str]:
    """The game's rungs, weakest first as a rule: random, rule, then pimc, dd and baseline where the
    game has them."""
    record = games.get(game)
    out = ["random", "rule"]
    if record.pimc_agent is not None:
        out.append("pimc")
    if record.dd_agent is not None:
        out.append("dd")
    if record.name in shipped():
        out.append("baseline")
    return out


def ladder_key(game: Game | str, env_options: dict | None = None) -> str:
    """The ladder's name in files: the game's name and its options (``vint2p_way4``)."""
    return "_".join([games.get(game).name] + [f"{k}{v}" for k, v in sorted((env_options or {}).items())])


def pairs(game: Game | str, agent: str, rung_list: list[str]) -> list[tuple[str, str]]:
    """The ladder's matches, cheapest first: every pair of rungs, then the agent against each rung (none
    when the agent is a rung); in the solo format each pair both ways."""
    out = [(a, b) for i, a in enumerate(rung_list) for b in rung_list[i + 1:]]
    if agent not in rung_list:
        out += [(agent, r) for r in rung_list]
    if games.get(game).format == SOLO:
        out += [(b, a) for a, b in out]
    return sorted(out, key=lambda p: max(_COST.get(p[0], 1), _COST.get(p[1], 1)))


def slug(spec: str) -> str:
    """A spec as a file name: itself when it is one, else its safe characters and a hash of it."""
    safe = re.sub(r"[^A-Za-z0-9._=-]+", "_", spec).strip("._")[:40]
    return spec if safe == spec else f"{safe}-{hashlib.sha256(spec.encode()).hexdigest()[:8]}"


@dataclass
class LadderMatch:
    agent_a: str
    agent_b: str
    summary: dict
    scores: list[float]              # A's score on each board, in the set's order
    command: str | None
    source: str                      # "played" (its log in this folder) or the results file it came from
    entries: list[dict] | None = None    # the boards with their replays (played here), for the viewer
    files: dict | None = None        # SHA-256 of the files its players played from (:func:`agent_files`), by path


@dataclass
class Ladder:
    game: str
    env_options: dict
    split: str
    boards: int
    agent: str
    rungs: list[str]
    matches: list[LadderMatch]
    ratings: dict
    command: str | None
    bootstrap: int

    def match(self, a: str, b: str) -> tuple[LadderMatch, int] | None:
        """The match of ``a`` (alone, in the solo format) against ``b``, and +1, or -1 when it was played
        the other way round (partnership games only: there swapping the sides negates every score)."""
        for m in self.matches:
            if (m.agent_a, m.agent_b) == (a, b):
                return m, 1
        if games.get(self.game).format != SOLO:
            for m in self.matches:
                if (m.agent_a, m.agent_b) == (b, a):
                    return m, -1
        return None


def ladder_from_json(data: dict) -> Ladder:
    """A ladder read back from its results file (:func:`ladder_json`)."""
    if not isinstance(data, dict) or data.get("format") != LADDER_FORMAT:
        raise LadderError("not a ladder results file (write one with `vint-eval ladder`)")
    matches = [LadderMatch(m["agent_a"], m["agent_b"], m["summary"], m["scores"], m.get("command"),
                           m.get("source", "played"), files=portable_files(m.get("files"))) for m in data["matches"]]
    return Ladder(data["game"], data["env_options"], data["set"].rsplit("/", 1)[1], data["boards"], data["agent"],
                  data["rungs"], matches, data["ratings"], data.get("command"), data["rating"]["bootstrap"])


def _match_record(logged, command: str | None) -> LadderMatch:
    summary = summarize(logged.result)
    summary["command"] = logged.header.get("command")
    summary["load_average"] = mean_load(logged)        # the cost figures' context: the machine's load
    summary["commit"] = logged.header.get("commit")
    return LadderMatch(logged.result.agent_a, logged.result.agent_b, summary, logged.result.scores,
                       logged.header.get("command"), "played", logged.entries,
                       portable_files(logged.header.get("files")))


def _cached_matches(path, record: Game, env_options: dict, split: str, boards: int, say=print) -> dict:
    """The complete matches of another ladder's results file on the same boards whose players still play
    from the files they played from then (a retrained baseline's matches are played again), (a, b) ->
    LadderMatch."""
    game = record.name
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LadderError(f"--rungs-from {path}: not a ladder results file ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != LADDER_FORMAT:
        raise LadderError(f"--rungs-from {path}: not a ladder results file (write one with `vint-eval ladder`)")
    want = {"set": set_name(game, split), "sha256": sha256_of(game, split), "game": game, "env_options": env_options,
            "seed": MATCH_SEED}
    wrong = [k for k, v in want.items() if data.get(k) != v]
    if wrong:
        raise LadderError(f"--rungs-from {path}: another ladder (its {', '.join(wrong)} differ: "
                          + "; ".join(f"{k} {data.get(k)!r} there, {want[k]!r} here" for k in wrong) + ")")
    out = {}
    for m in data.get("matches", []):
        if len(m.get("scores", ())) != boards:
            continue
        a, b = m["agent_a"], m["agent_b"]
        files = {**agent_files(a, record), **agent_files(b, record)}
        if portable_files(m.get("files")) != files:   # a file written before matches kept theirs: {} (no files) only
            say(f"{a} vs {b}: not taken from {path}: its players' files are not the ones they play from now")
            continue
        out[a, b] = LadderMatch(a, b, m["summary"], m["scores"], m.get("command"), str(path), files=files)
    return out


def agent_files(spec: str, game: Game | str) -> dict[str, str]:
    """SHA-256 of the files an agent spec plays from (a checkpoint, the shipped baseline, a program), by
    :func:`~vint_env.evaluation.board_log.file_key` (a shipped baseline by its place in the package, any
    other file by its path): a log keeps them, so that a match of a changed agent is never resumed into its old log.
    (Once agent specs declare their files, :meth:`AgentSpec.paths` names them.)"""
    record = games.get(game)
    kind, _, rest = spec.strip().partition(":")
    arg = rest.split(",")[0].strip() or None
    if kind == "baseline":
        paths = [checkpoint_path(record, arg)]
    elif kind == "residual":
        paths = [checkpoint_path(record, arg, RESIDUAL_SUFFIX), checkpoint_path(record, arg)]
    elif kind == "search":                       # it plays from its game's shipped networks
        plan = record.search_plan()
        parsed = parse_spec(spec)
        model = parsed.option("model") or plan.models[0]
        return {**agent_files(parsed.option("blueprint") or plan.blueprint, record), **agent_files(model, record)}
    else:
        paths = [Path(arg)] if arg else []
    for item in rest.split(",")[1:]:             # a program's arguments may name its script
        key, _, value = item.partition("=")
        if key.strip() == "args":
            paths += [Path(word) for word in shlex.split(value)]
    return {file_key(p): file_sha256(p) for p in paths if p.is_file()}


def run_ladder(game: Game | str, agent: str, split: str = "test", boards: int | None = None,
               env_options: dict | None = None, workers: int = 1, threads: int = 1, progress: bool = False,
               out_dir=None, command: str | None = None, rungs_from=None, bootstrap: int = 1000,
               only_rungs: list[str] | None = None, say=print) -> Ladder:
    """Play (or resume) the ladder of ``agent`` in ``out_dir`` (see the module docstring); ``boards``:
    the first boards of the set only, ``only_rungs``: some of the game's rungs only (quick checks, or a
    ladder whose costly rungs are left for later; a result on the benchmark has them all)."""
    record = games.get(game)
    env_options = dict(env_options or {})
    if split not in SPLITS:
        raise LadderError(f"the set must be one of {', '.join(SPLITS)}, got {split!r}")
    board_list = bench_boards(record, split)
    if boards is not None:
        if boards > len(board_list):
            raise LadderError(f"{set_name(record, split)} holds {len(board_list)} boards, asked for {boards}")
        board_list = board_list[:boards]
    if out_dir is None:
        raise LadderError("a ladder needs a folder for its match logs (out_dir)")
    rung_list = rungs(record)
    if only_rungs is not None:
        unknown = [r for r in only_rungs if r not in rung_list]
        if unknown or ANCHOR not in only_rungs:
            raise LadderError(f"{record.name}: the rungs are {', '.join(rung_list)}, and {ANCHOR} (the rating's "
                              f"zero) is always one; got {' '.join(only_rungs)}")
        rung_list = [r for r in rung_list if r in only_rungs]
    for spec in [agent] + rung_list:             # a bad spec fails here, before any match
        load_agent(spec, game=record)
    cached = _cached_matches(rungs_from, record, env_options, split, len(board_list), say) if rungs_from else {}
    plan = pairs(record, agent, rung_list)
    commit = _commit()                    # the code that plays the matches (each log keeps its first)
    matches = []
    for k, (a, b) in enumerate(plan, 1):
        if (a, b) in cached and a in rung_list and b in rung_list:
            say(f"[{k}/{len(plan)}] {a} vs {b}: from {rungs_from}")
            matches.append(cached[a, b])
            continue
        log = Path(out_dir) / "matches" / f"{slug(a)}__{slug(b)}.jsonl"
        say(f"[{k}/{len(plan)}] {a} vs {b}: {len(board_list)} boards, log {log}")
        logged = play_logged(log, record, a, b, board_list, seed=MATCH_SEED, workers=workers, threads=threads,
                             env_options=env_options, progress=progress,
                             header_extra={"set": set_name(record, split), "sha256": sha256_of(record, split),
                                           "files": {**agent_files(a, record), **agent_files(b, record)},
                                           "command": command, "commit": commit})
        matches.append(_match_record(logged, command))
    outcomes = [(m.agent_a, m.agent_b, board_outcomes(m.scores)) for m in matches]
    ratings = rate(outcomes, anchor=ANCHOR, prior_draws=PRIOR_DRAWS, bootstrap=bootstrap, seed=0)
    return Ladder(record.name, env_options, split, len(board_list), agent, rung_list, matches,
                  {p: r.as_dict() for p, r in ratings.items()}, command, bootstrap)


# ------------------------------------------------------------------ reports

def ladder_json(ladder: Ladder) -> dict:
    """The ladder's results file: the set, every match's summary and per-board scores, the ratings."""
    return {"format": LADDER_FORMAT, "version": LADDER_VERSION, "benchmark": VERSION,
            "set": set_name(ladder.game, ladder.split), "sha256": sha256_of(ladder.game, ladder.split),
            "game": ladder.game, "env_options": ladder.env_options, "seed": MATCH_SEED, "boards": ladder.boards,
            "agent": ladder.agent, "rungs": ladder.rungs, "command": ladder.command,
            "package": {"version": _version(), "commit": _commit()},      # the code that wrote this file
            "machine": {"system": platform.platform(), "processor": platform.machine(), "cpus": os.cpu_count()},
            "rating": {"model": "Bradley-Terry on board outcomes (won 1, tied 1/2, lost 0), Elo scale",
                       "anchor": ANCHOR, "prior_draws": PRIOR_DRAWS, "bootstrap": ladder.bootstrap, "level": 0.95},
            "ratings": ladder.ratings,
            "matches": [{"agent_a": m.agent_a, "agent_b": m.agent_b, "command": m.command, "source": m.source,
                         "files": m.files or {}, "summary": m.summary, "scores": [_compact(s) for s in m.scores]}
                        for m in ladder.matches]}


def _version() -> str | None:
    try:
        return importlib.metadata.version("vint-env")
    except importlib.metadata.PackageNotFoundError:
        return None


def _commit() -> str | None:
    """The git commit of the package's checkout (None when it is not one), "+dirty" with changes."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _compact(x: float):
    return int(x) if float(x).is_integer() else x


def margin_of(ladder_or_data, a: str, b: str) -> dict | None:
    """``a``'s margin a board against ``b`` (mean, low, high, won/lost/tied from a's side), or None."""
    found = ladder_or_data.match(a, b)
    if found is None:
        return None
    m, sign = found
    ci = mean_ci([sign * s for s in m.scores])
    s = m.summary
    won, lost = (s["boards_won"], s["boards_lost"]) if sign > 0 else (s["boards_lost"], s["boards_won"])
    per = s.get("seconds_per_decision") or {}
    ours, theirs = (per.get("a"), per.get("b")) if sign > 0 else (per.get("b"), per.get("a"))
    return {"mean": ci.mean, "low": ci.low, "high": ci.high, "won": won, "lost": lost,
            "tied": s["boards_tied"], "seconds": ours, "rung_seconds": theirs, "boards": len(m.scores),
            "load": s.get("load_average")}


def _rating_text(r: dict) -> str:
    return f"{r['rating']:+.0f} [{r['low']:+.0f}, {r['high']:+.0f}]"


def ladder_markdown(ladder: Ladder) -> str:
    record = games.get(ladder.game)
    options = "".join(f", {k}={v}" for k, v in ladder.env_options.items())
    lines = [f"## Ladder of {ladder.agent}: {record.title}{options}, {set_name(ladder.game, ladder.split)} "
             f"({ladder.boards:,} boards{'' if ladder.boards == SPLITS[ladder.split] else ': the first only, not the benchmark'})",
             ""]
    missing = [r for r in rungs(ladder.game) if r not in ladder.rungs]
    if missing:
        lines += [f"- rungs left out: {', '.join(missing)} (not the whole benchmark)"]
    if ladder.command:
        lines += [f"- command: `{ladder.command}`"]
    lines += [""] if missing or ladder.command else []
    what = (f"{ladder.agent} minus rung, points a board" if record.format != SOLO else
            f"{ladder.agent}'s points a board, alone against three of the rung")
    lines += [f"| rung | {what} (95% CI) | boards won / lost / tied | "
              f"seconds per decision ({ladder.agent} / rung) |", "|---|---|---|---|"]
    for rung in ladder.rungs:
        if rung == ladder.agent:
            continue
        m = margin_of(ladder, ladder.agent, rung)
        lines.append(f"| {rung} | {format_ci(m['mean'], m['low'], m['high'])} | {m['won']} / {m['lost']} / "
                     f"{m['tied']} | {format_seconds(m['seconds'])} / {format_seconds(m['rung_seconds'])}"
                     + (f" (load {m['load']:.1f})" if m["load"] is not None else "") + " |")
    swept = _swept(ladder)
    lines += ["", f"Ratings (Bradley-Terry on board outcomes, Elo scale, {ANCHOR} = 0; 95% bootstrap interval over "
                  f"boards, {ladder.bootstrap} draws; fitted over all {len(ladder.matches)} matches):", "",
              "| player | rating [95% interval] | boards |", "|---|---|---|"]
    for p, r in sorted(ladder.ratings.items(), key=lambda kv: -kv[1]["rating"]):
        name = f"**{p}**" if p == ladder.agent else p
        lines.append(f"| {name} | {_rating_text(r)} | {r['boards']:,} |")
    if swept:
        lines += ["", "Won every board: " + ", ".join(f"{w} against {l}" for w, l in swept)
                  + ": the rating gap of such a pair is set by the virtual draws (a clean sweep of n boards puts "
                    "400 log10(n + 1) between them), a floor that more boards would raise."]
    return "\n".join(lines) + "\n"


def seconds_per_decision(ladder: Ladder, player: str) -> float | None:
    """A player's wall seconds per decision over all its matches (weighted by its decisions)."""
    seconds = decisions = 0.0
    for m in ladder.matches:
        for side, name in (("a", m.agent_a), ("b", m.agent_b)):
            per = (m.summary.get("seconds_per_decision") or {}).get(side)
            n = (m.summary.get("decisions") or {}).get(side, 0)
            if name == player and per is not None:
                seconds += per * n
                decisions += n
    return seconds / decisions if decisions else None


def ladder_command(ladder: Ladder, player: str) -> str:
    """The command whose ladder rates ``player`` on the same boards, rungs and options as ``ladder``."""
    parts = ["vint-eval ladder --game", ladder.game]
    parts += [f"--env-option {k}={v}" for k, v in sorted(ladder.env_options.items())]
    parts += ["--agent", player, "--set", ladder.split]
    if ladder.boards != SPLITS[ladder.split]:
        parts += ["--boards", str(ladder.boards)]
    if ladder.rungs != rungs(ladder.game):
        parts += ["--rungs", *ladder.rungs]
    return " ".join(parts + ["--workers 1"])


def results_table(data: dict) -> str:
    """The benchmark page's tables of a ladder results file: every player's rating with its cost and the
    command that rates it, then the margins between every two players."""
    lad = ladder_from_json(data)
    record = games.get(lad.game)
    order = sorted(lad.ratings, key=lambda p: -lad.ratings[p]["rating"])
    loads = [m.summary.get("load_average") for m in lad.matches if m.summary.get("load_average") is not None]
    missing = [r for r in rungs(lad.game) if r not in lad.rungs]
    lines = [f"{data['set']} ({lad.boards:,} boards, SHA-256 `{data['sha256'][:16]}...`), match seed {data['seed']}"
             + (f", code {data['package']['commit'][:10]}" if (data.get("package") or {}).get("commit") else "")
             + (f", load average {min(loads):.1f} to {max(loads):.1f} while playing" if loads else "")
             + (f"; rungs not yet played: {', '.join(missing)}" if missing else "") + ".", "",
             "| player | rating [95% interval] | seconds per decision | command |", "|---|---|---|---|"]
    for p in order:
        lines.append(f"| {p} | {_rating_text(lad.ratings[p])} | {format_seconds(seconds_per_decision(lad, p))} "
                     f"| `{ladder_command(lad, p)}` |")
    what = ("points a board, row minus column" if record.format != SOLO else
            "the row's points a board, alone against three of the column, at each seat in turn")
    lines += ["", f"Margins ({what}; 95% interval):", "", "| | " + " | ".join(order) + " |",
              "|---" * (len(order) + 1) + "|"]
    for a in order:
        cells = []
        for b in order:
            m = margin_of(lad, a, b) if a != b else None
            cells.append(format_ci(m["mean"], m["low"], m["high"]) if m else "")
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    swept = _swept(lad)
    if swept:
        lines += ["", "Won every board: " + ", ".join(f"{w} against {l}" for w, l in swept)
                  + f" (the rating gap of such a pair is the floor set by the virtual draws, "
                    f"{400 * math.log10(lad.boards + 1):,.0f})."]
    return "\n".join(lines) + "\n"


def _swept(ladder: Ladder) -> list[tuple[str, str]]:
    """(winner, loser) of every match in which one side won every board."""
    out = []
    for m in ladder.matches:
        n, won, lost = len(m.scores), m.summary["boards_won"], m.summary["boards_lost"]
        if won == n:
            out.append((m.agent_a, m.agent_b))
        elif lost == n:
            out.append((m.agent_b, m.agent_a))
    return out


def write_ladder(ladder: Ladder, out_dir) -> dict[str, Path]:
    """The ladder's JSON, Markdown and viewer (the agent's matches played here) in ``out_dir``."""
    out_dir = Path(out_dir)
    stem = f"ladder_{slug(ladder.agent)}"
    paths = {"json": write_json(out_dir / f"{stem}.json", ladder_json(ladder)),
             "markdown": write_text(out_dir / f"{stem}.md", ladder_markdown(ladder))}
    shown = [m for m in ladder.matches if ladder.agent in (m.agent_a, m.agent_b) and m.entries]
    if shown:
        records = [{"summary": m.summary, "boards": m.entries,
                    "markdown": summary_markdown(m.summary, m.command)} for m in shown]
        paths["html"] = write_html(out_dir / f"{stem}.html", records,
                                   title=f"{ladder.game}: the ladder of {ladder.agent}")
    return paths


def ladder_files(agent: str, out_dir) -> dict[str, Path]:
    """The files :func:`write_ladder` writes for ``agent`` (for the command's checks before it plays)."""
    stem = Path(out_dir) / f"ladder_{slug(agent)}"
    return {k: stem.with_suffix(s) for k, s in (("json", ".json"), ("markdown", ".md"), ("html", ".html"))}
