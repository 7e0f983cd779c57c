"""Summaries of a match: margin with its confidence interval, boards won,
and for Vint the contracts, par and declarer-play figures; Markdown and JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..atomic import atomic_write
from ..games import DealOutcome
from ..points import ci_parts, format_ci, format_points
from .match import MatchResult
from .replay import replay_json
from .stats import mean_ci, share_ci


def summarize(match: MatchResult) -> dict:
    """Figures of a match, as a JSON-ready dict."""
    scores = match.scores
    n = len(scores)
    ci = mean_ci(scores)
    won = sum(s > 0 for s in scores)
    lost = sum(s < 0 for s in scores)
    share, lo, hi = share_ci(won, n)
    out = {
        "game": match.game, "episode": match.episode, "agent_a": match.agent_a, "agent_b": match.agent_b,
        "boards": n, "seed": match.seed, "env_options": dict(getattr(match, "env_options", {}) or {}),
        "tables_per_board": len(match.boards[0].tables),
        "margin_per_board": ci.as_dict(),
        "boards_won": won, "boards_lost": lost, "boards_tied": n - won - lost,
        "share_won": {"share": share, "low": lo, "high": hi},
        "seconds": match.seconds, "cpu_seconds": match.cpu_seconds, "workers": match.workers,
        # torch's threads in each process that played (absent where no network played)
        "torch_threads": [n for _, n in sorted(getattr(match, "torch_threads", {}).items()) if n is not None],
        "seconds_per_1000_boards": 1000 * match.seconds / n,
        "cpu_seconds_per_1000_boards": 1000 * match.cpu_seconds / n,
        **decision_cost(match),
    }
    if match.episode == "rubber":
        out["rubbers"] = _rubber_summary(match)
    out.update(match.record.summary_sections(match))
    return out


def decision_cost(match: MatchResult) -> dict:
    """Each side's decisions and its agent's wall seconds per decision (time inside ``act``, summed over
    every seat the side held at every table, divided by its decisions): ``{"decisions": {"a": N, "b": M},
    "seconds_per_decision": {"a": x, "b": y}}``; None for a side whose decisions were not timed."""
    decisions = {"a": 0, "b": 0}
    seconds = {"a": 0.0, "b": 0.0}
    timed = {"a": False, "b": False}
    for board in match.boards:
        for t in board.tables:
            for team, n, sec in zip(t.seats, t.decisions, t.think_seconds):
                side = team.lower()
                decisions[side] += n
                seconds[side] += sec
                timed[side] = True
    return {"decisions": decisions,
            "seconds_per_decision": {k: seconds[k] / decisions[k] if timed[k] and decisions[k] else None
                                     for k in ("a", "b")}}


def vint_contract_sections(match: MatchResult) -> dict:
    """Vint deal matches: contracts declared, made and their points, per team."""
    if match.episode != "deal":
        return {}
    return {"contracts": {team: _vint_team_summary(match, team) for team in ("A", "B")}}


def solo_contract_sections(match: MatchResult) -> dict:
    """Solo Whist: the contracts declared and made, per team."""
    return {"solo_contracts": _solo_contracts(match)}


def _solo_contracts(match: MatchResult) -> dict:
    """Solo Whist: per team, contract name -> [declared, made] (the declarer's team)."""
    out: dict = {"A": {}, "B": {}, "thrown_in": 0}
    for b in match.boards:
        for t in b.tables:
            o = _outcome(match, t)
            if o.contract_name is None:
                out["thrown_in"] += 1
                continue
            entry = out[t.seats[o.declarer]].setdefault(o.contract_name, [0, 0])
            entry[0] += 1
            entry[1] += int(bool(o.made))
    return out


def _outcome(match: MatchResult, table) -> DealOutcome:
    """What the deal at ``table`` came to: its outcome, or (a table read back from a log with its details
    only) the game's outcome type read from its details."""
    if table.outcome is not None:
        return table.outcome
    return match.record.outcome.from_details(table.details)


def _rubber_summary(match: MatchResult) -> dict:
    tables = [t for b in match.boards for t in b.tables]
    won = {"A": 0, "B": 0, "unfinished": 0}
    for t in tables:
        w = t.details.get("rubber_winner")
        if w is None:
            won["unfinished"] += 1
        else:
            won[t.seats[w]] += 1          # side w = seats w, w + 2
    return {"rubbers": len(tables), "won_by_A": won["A"], "won_by_B": won["B"],
            "unfinished": won["unfinished"],
            "mean_rubber_result_A": mean_ci([t.team_points("A") for t in tables]).as_dict()}


def _vint_team_summary(match: MatchResult, team: str) -> dict:
    declared = made = 0
    levels, over, under, vs_dd, level_vs_dd = [], 0, 0, [], []
    par_dev = []
    have_dd = False
    for b in match.boards:
        for t in b.tables:
            d = t.details          # the double-dummy analysis (vint_analysis) is written there
            o = _outcome(match, t)
            if "value_vs_par" in d:
                have_dd = True
                # team's view: N/S seats 0 and 2
                sign = 1 if t.seats[0] == team else -1
                par_dev.append(sign * d["value_vs_par"])
            if o.contract is None or t.seats[o.declarer] != team:
                continue
            declared += 1
            levels.append(o.contract.level)
            made += bool(o.made)
            if "dd_tricks" in d:
                vs_dd.append(d["tricks_vs_dd"])
                level_vs_dd.append(d["level_vs_dd"])
                over += d["level_vs_dd"] > 0
                under += d["level_vs_dd"] < 0
    tables = sum(len(b.tables) for b in match.boards)
    out = {
        "tables": tables,
        "declared": declared,
        "made": made,
        "share_made": made / declared if declared else math.nan,
        "mean_level": sum(levels) / len(levels) if levels else math.nan,
    }
    if have_dd:
        out.update({
            "overbid_vs_dd": over, "underbid_vs_dd": under,
            "mean_level_minus_dd_level": sum(level_vs_dd) / len(level_vs_dd) if level_vs_dd else math.nan,
            "declarer_tricks_minus_dd": mean_ci(vs_dd).as_dict() if len(vs_dd) > 1 else None,
            "auction_vs_par_points": mean_ci(par_dev).as_dict() if len(par_dev) > 1 else None,
        })
    return out


def format_seconds(x) -> str:
    """Seconds for people: ``0.42 ms``, ``12.3 ms``, ``1.25 s``; ``n/a`` for None."""
    if not isinstance(x, (int, float)) or not math.isfinite(x):
        return "n/a"
    return f"{x * 1e6:.3g} µs" if x < 1e-3 else f"{x * 1000:.3g} ms" if x < 1 else f"{x:.3g} s"


def _num(x, spec: str) -> str:
    """``x`` formatted, or ``n/a`` where there is no number (None in strict JSON, NaN in memory)."""
    return format(x, spec) if isinstance(x, (int, float)) and math.isfinite(x) else "n/a"


def _fmt_ci(d: dict | None) -> str:
    if not d or not all(isinstance(d.get(k), (int, float)) and math.isfinite(d[k]) for k in ("mean", "low", "high")):
        return "n/a"
    return format_ci(d["mean"], d["low"], d["high"])


def summary_markdown(s: dict, command: str | None = None) -> str:
    """A human-readable Markdown report of :func:`summarize`'s dict."""
    m = s["margin_per_board"]
    lines = [
        f"## {s['agent_a']} (A) vs {s['agent_b']} (B): {s['game']}"
        + "".join(f", {k}={v}" for k, v in s.get("env_options", {}).items()) + f", {s['episode']} mode",
        "",
        f"- boards: {s['boards']} (seed {s['seed']}), {s['tables_per_board']} tables each "
        + ("(duplicate, seats swapped)" if s["tables_per_board"] == 2 else "(A rotated through the seats)"),
        ("- A minus B, points per board: " if s["tables_per_board"] == 2 else
         "- A's points per board (A alone against three B, at each seat in turn, summed): ")
        + "**{}**, 95% CI [{}, {}]".format(*ci_parts(m["mean"], m["low"], m["high"]))
        + f" (sd {format_points(m['sd'], sign=False)})" + (f" ({m['interval']})" if m.get("interval") else ""),
        f"- boards won by A: {s['boards_won']}, lost: {s['boards_lost']}, tied: {s['boards_tied']} "
        f"(share won {_num(s['share_won']['share'], '.3f')}, 95% CI [{_num(s['share_won']['low'], '.3f')}, "
        f"{_num(s['share_won']['high'], '.3f')}])",
        f"- time: {s['seconds']:.1f} s wall with {s['workers']} worker(s), {s['cpu_seconds']:.1f} s CPU "
        f"({s['seconds_per_1000_boards']:,.0f} s wall / {s['cpu_seconds_per_1000_boards']:,.0f} s CPU "
        "per 1,000 boards" + (f"; torch threads per process: {', '.join(map(str, s['torch_threads']))}"
                              if s.get("torch_threads") else "") + ")",
    ]
    if s.get("seconds_per_decision"):
        per, n = s["seconds_per_decision"], s.get("decisions", {})
        lines.append("- thinking time per decision (wall, inside the agent): "
                     + ", ".join(f"{team} ({s['agent_' + k]}) {format_seconds(per.get(k))} over "
                                 f"{n.get(k, 0):,} decisions" for team, k in (("A", "a"), ("B", "b"))))
    if command:
        lines.insert(2, f"- command: `{command}`")
    if "rubbers" in s:
        r = s["rubbers"]
        lines.append(f"- rubbers: {r['rubbers']} played, won by A {r['won_by_A']}, by B {r['won_by_B']}, "
                     f"unfinished {r['unfinished']}; A's mean rubber result "
                     f"{_fmt_ci(r['mean_rubber_result_A'])}")
    if "solo_contracts" in s:
        sc = s["solo_contracts"]
        for team in ("A", "B"):
            name = s["agent_a"] if team == "A" else s["agent_b"]
            items = ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(sc[team].items())) or "none"
            lines.append(f"- contracts declared by {team} ({name}), made/declared: {items}")
        lines.append(f"- thrown in (all passed): {sc['thrown_in']} tables")
    if "contracts" in s:
        lines += ["", "| team | declared | made | made % | mean level | over / under vs DD | "
                      "level - DD level | declarer tricks - DD | auction vs par (pts/table) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for team in ("A", "B"):
            c = s["contracts"][team]
            name = s["agent_a"] if team == "A" else s["agent_b"]
            dd = "overbid_vs_dd" in c and c["declared"] > 0
            made = _num(100 * c['share_made'], ".1f") if c["declared"] else "-"
            level = _num(c['mean_level'], ".2f") if c["declared"] else "-"
            lines.append(
                f"| {team} {name} | {c['declared']} | {c['made']} | {made} | {level} | "
                + (f"{c['overbid_vs_dd']} / {c['underbid_vs_dd']} | {_num(c['mean_level_minus_dd_level'], '.2f')} | "
                   f"{_fmt_ci(c['declarer_tricks_minus_dd'])} | {_fmt_ci(c['auction_vs_par_points'])} |"
                   if dd else "- | - | - | "
                   + (f"{_fmt_ci(c['auction_vs_par_points'])} |" if c.get("auction_vs_par_points") else "- |")))
    return "\n".join(lines) + "\n"


def match_json(match: MatchResult, summary: dict) -> dict:
    """The results file of a match: its summary, and per board the score and each table's seats,
    points, details and replay (every deal's hands and actions: what the HTML viewer shows)."""
    text = match.record.action_text
    return {"summary": summary, "boards": [board_entry(b, text) for b in match.boards]}


#: The keys of a table's entry in a results file besides its deal's details.
TABLE_KEYS = ("seats", "points", "replay", "decisions", "think_seconds")


def board_entry(board, action_text) -> dict:
    """A board of a results file: its number, score and each table's seats, points, details, replay and
    decisions with their seconds (what the viewer shows and :mod:`~vint_env.evaluation.board_log` keeps)."""
    return {"board": board.number, "score": board.score,
            "tables": [{"seats": "".join(t.seats), "points": t.points, **t.details,
                        "replay": replay_json(t.replay, action_text),
                        "decisions": t.decisions, "think_seconds": t.think_seconds} for t in board.tables]}


def write_text(path, text: str) -> Path:
    """Write a text file atomically (:func:`vint_env.atomic.atomic_write`: a temporary file made safely
    in its folder, never one a link points at, then renamed), creating its folder."""
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", shared=True) as f:
        f.write(text)
    return path


def strict_json(data, **kwargs) -> str:
    """JSON text of ``data`` as RFC 8259 has it: NaN and infinities become null (Python's ``NaN`` and
    ``Infinity`` are not JSON; browsers' and most languages' parsers refuse them)."""
    return json.dumps(finite(json.loads(json.dumps(data, default=_json_default))), allow_nan=False, **kwargs)


def finite(o):
    """``o`` with NaN and infinities as None, through dicts and lists."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [finite(v) for v in o]
    return o


def write_json(path, data) -> Path:
    """Write strict JSON (:func:`strict_json`) atomically (temporary file, then rename)."""
    return write_text(path, strict_json(data, indent=1))


def _json_default(o):
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, tuple)):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
