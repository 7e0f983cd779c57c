"""The HTML match viewer: one self-contained file (inline CSS, JS and data; no network).

Its script and styles are files shipped with the package (``static/table.js``, ``static/viewer.js``,
``static/viewer.css``), inlined into the page when it is written; ``table.js`` draws the cards, hands and
tricks, and `vint-serve`'s page loads the same file.

For each match: the summary, a chart of A's cumulative margin over the boards
(inline SVG), a sortable table of the boards (each table's contract and A's
points, the double-dummy par where it was computed) and, for the board picked,
a replay of every table side by side, card by card: the hands, the auction,
each trick, the tricks taken and the running score, and at the end of each deal
the env's score breakdown.  A two-player Vint table is laid out for its two
players: each seat labelled as a player's own hand, his dummy (open or closed)
or a pile, the widow of way 5 on the table until it is taken, the exchanges and
give-aways among the calls, two-card tricks where only the players play
(ways 2, 3), and the tricks, calls and points per player.

The page reads ``#match=I&sort=C&board=N&step=K`` from its address on load
(it clicks column C's header, then shows step K), so a replay position can be
linked to.  Each value must be a plain decimal integer; a step past the
board's last is clamped to it, anything else is ignored (a crafted link
cannot make the page loop).

Build it from a match (:func:`write_html` with :func:`~vint_env.evaluation.report.match_json`
records) or from saved results (``vint-eval view results.json``).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from .. import games
from .report import write_text

#: The page's script and styles, package data beside this module (``static/``), inlined when a page is written:
#: ``table.js`` draws the cards, hands and tricks (vint-serve's page loads the same file), ``viewer.js`` the rest.
ASSETS = resources.files(__package__) / "static"
SCRIPTS = ("table.js", "viewer.js")
STYLES = ("viewer.css",)


def asset_text(name: str) -> str:
    """The text of the viewer's asset file ``name`` (``table.js``, ``viewer.js``, ``viewer.css``)."""
    return (ASSETS / name).read_text(encoding="utf-8")


def _inline(names: tuple[str, ...], closing: str) -> str:
    """The assets ``names`` joined, to sit inside a ``<script>`` or ``<style>`` element: none may hold its
    closing tag or ``<!--`` (which would end the element early, or change how it is read)."""
    text = "\n".join(asset_text(n) for n in names)
    for bad in (closing, "<!--"):
        if bad in text.lower():
            raise ValueError(f"a viewer asset of {names} holds {bad!r}: it cannot be inlined")
    return text


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}</style>
</head>
<body>
<header><h1 id="title">{title}</h1></header>
<main>
<nav id="matches"></nav>
<section class="panel" id="summary"></section>
<section class="panel" id="chart"></section>
<section class="panel"><h2>Boards</h2>
<p class="muted">Click a column to sort (twice to reverse; sort by A's score to find the biggest swings),
click a board to replay it. Points are A's, summed over the tables for the board's score.</p>
<div id="boards-wrap"></div></section>
<section class="panel" id="replay" hidden>
<h2 id="replay-title"></h2>
<div id="controls">
<button id="first" title="start">|&#x25C0;</button><button id="prev" title="back (left arrow)">&#x25C0;</button>
<button id="next" title="forward (right arrow)">&#x25B6;</button><button id="next-trick" title="to the end of the next trick">trick &#x25B6;&#x25B6;</button>
<button id="last" title="end">&#x25B6;|</button><span id="step-label"></span>
</div>
<p class="muted">All tables of the board step together: step k is the k-th action at each table.</p>
<div id="tables"></div>
</section>
</main>
<script type="application/json" id="match-data">{data}</script>
<script>
{js}</script>
</body>
</html>
"""


def _script_json(data) -> str:
    """JSON safe inside a <script> element (no ``</script>`` or ``<!--`` can end it early)."""
    from .report import strict_json
    text = strict_json(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def outcome_views(match: dict) -> list[list[dict]]:
    """Per board and table of a match record, what its deal came to as the game's outcome type shows it
    (:meth:`~vint_env.games.outcome.DealOutcome.view`, read back from the table's details)."""
    outcome = games.get(match["summary"]["game"]).outcome
    return [[outcome.from_details(t).view() for t in b["tables"]] for b in match["boards"]]


def viewer_html(matches: list[dict], title: str) -> str:
    """The page for ``matches``: records of :func:`~vint_env.evaluation.report.match_json` (with an
    optional ``"markdown"`` report each)."""
    if not matches:
        raise ValueError("the viewer needs at least one match")
    for m in matches:
        if "summary" not in m or "boards" not in m:
            raise ValueError("a match record needs 'summary' and 'boards' (the JSON of `vint-eval match --out`)")
    shown = [{**m, "outcomes": outcome_views(m)} for m in matches]
    return _PAGE.format(title=html.escape(title), css=_inline(STYLES, "</style"), js=_inline(SCRIPTS, "</script"),
                        data=_script_json({"title": title, "matches": shown}))


def write_html(path, matches: list[dict], title: str | None = None) -> Path:
    """Write the viewer for ``matches`` to ``path`` (atomically)."""
    if title is None:
        s = matches[0]["summary"]
        title = f"{s['game']}: {s['agent_a']} vs {s['agent_b']}" if len(matches) == 1 else f"{s['game']}: matches"
    return write_text(path, viewer_html(matches, title))


class ResultsFileError(ValueError):
    """A results file that is not a match results file of ``vint-eval match --out`` (or is damaged)."""


def load_results(path) -> list[dict]:
    """Match records from a results file of ``vint-eval match --out`` (one match) or a viewer data
    file (``{"matches": [...]}``), checked for the structure the viewer reads."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"results file {path} does not exist" if not path.exists()
                                else f"results file {path} is not a file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"{path} is not JSON text: {exc}") from None
    except RecursionError:
        raise ResultsFileError(f"{path} is nested too deeply to be a results file") from None
    matches = data.get("matches", [data]) if isinstance(data, dict) else None
    if not isinstance(matches, list) or not matches or not all(
            isinstance(m, dict) and isinstance(m.get("summary"), dict) and isinstance(m.get("boards"), list)
            for m in matches):
        raise ResultsFileError(f"{path} is not a match results file (write one with `vint-eval match ... --out FILE`)")
    for m in matches:
        for i, b in enumerate(m["boards"]):
            if not (isinstance(b, dict) and isinstance(b.get("tables"), list)
                    and all(isinstance(t, dict) for t in b["tables"])):
                raise ResultsFileError(f"{path}: board entry {i} is not a board with a list of tables")
    if not any("replay" in t for m in matches for b in m["boards"] for t in b["tables"]):
        raise ResultsFileError(f"{path} holds no replays (it was written by an older vint-eval); play the match again")
    return matches


def render_results(path, matches: list[dict], summary_markdown) -> str:
    """The viewer page of loaded results; a field of the wrong kind anywhere is a :class:`ResultsFileError`
    naming the file (never a traceback from deep in the page builder)."""
    try:
        for m in matches:
            m.setdefault("markdown", summary_markdown(m["summary"], m["summary"].get("command")))
        s = matches[0]["summary"]
        title = f"{s['game']}: {s['agent_a']} vs {s['agent_b']}" if len(matches) == 1 else f"{s['game']}: matches"
        return viewer_html(matches, title)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError) as exc:
        raise ResultsFileError(f"{path} is not a well-formed match results file "
                               f"({type(exc).__name__}: {exc})") from None
