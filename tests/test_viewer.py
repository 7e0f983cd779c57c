"""The HTML match viewer: built by `vint-eval match --html` and `vint-eval view`, self-contained,
and, loaded in headless Chromium, it replays a board card by card as the match record says."""

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from vint_env.evaluation.cli import main as cli_main
from vint_env.evaluation.viewer import load_results

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                    "(Debian: apt-get install -y chromium); the page's DOM is not checked")


@pytest.fixture(scope="module")
def match_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("viewer")
    assert cli_main(["match", "--game", "vint", "--a", "rule", "--b", "random", "--boards", "3", "--seed", "4",
                     "--workers", "1", "--no-progress", "--out", str(d / "m.json"), "--html", str(d / "m.html")]) == 0
    return d


def _embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="match-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


def test_match_html_is_one_self_contained_file(match_files):
    page = (match_files / "m.html").read_text()
    assert not re.search(r"""\b(src|href)\s*=|@import|url\(|fetch\(|XMLHttpRequest""", page)
    assert re.findall(r"https?://[^\s\"'<>]+", page) == ["http://www.w3.org/2000/svg"]   # a namespace, not a fetch
    data = _embedded(page)
    [match] = data["matches"]
    assert match["summary"]["boards"] == 3 and "markdown" in match
    table = match["boards"][0]["tables"][0]
    assert "par_value" in table                      # the double-dummy par of the board
    [deal] = table["replay"]
    assert sorted(len(h) for h in deal["hands"]) == [13] * 4
    cards = [a for a in deal["actions"] if a[2]]
    assert len(cards) == 4 * len(deal["trick_winners"])
    assert deal["points"][table["seats"].index("A")] == table["points"][table["seats"].index("A")]


def test_view_rebuilds_the_page_from_saved_results(match_files, capsys):
    assert cli_main(["view", str(match_files / "m.json"), "--html", str(match_files / "v.html")]) == 0
    assert f"wrote {match_files / 'v.html'}" in capsys.readouterr().out
    saved = json.loads((match_files / "m.json").read_text())
    [rebuilt] = _embedded((match_files / "v.html").read_text())["matches"]
    assert rebuilt["boards"] == json.loads(json.dumps(saved["boards"]).replace("NaN", "null"))


def test_view_refuses_files_that_are_not_results(tmp_path, capsys):
    (tmp_path / "x.json").write_text('{"a": 1}')
    assert cli_main(["view", str(tmp_path / "x.json")]) == 2
    assert "not a match results file" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError):
        load_results(tmp_path / "missing.json")


class _Dom(HTMLParser):
    """Cards in each table's hands, the trick, the calls; the boards table's rows; the step label."""

    VOID = {"meta", "br", "img", "input", "link", "hr"}

    def __init__(self):
        super().__init__()
        self.stack: list[dict] = []
        self.hands: dict[tuple[int, int], list[str]] = {}
        self.trick: dict[int, list[str]] = {}
        self.calls: dict[int, list[str]] = {}
        self.rows: list[int] = []
        self.text: dict[str, str] = {}

    def _inside(self, key):
        return next((a[key] for a in reversed(self.stack) if key in a), None)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "").split()
        table = self._inside("data-table")
        if tag == "span" and "card" in cls and table is not None:
            seat = self._inside("data-seat")
            if seat is not None:
                self.hands.setdefault((int(table), int(seat)), []).append(a["data-card"])
            elif any("trick" in s.get("class", "").split() for s in self.stack):
                self.trick.setdefault(int(table), []).append(a["data-card"])
        if tag == "tr" and "data-board" in a:
            self.rows.append(int(a["data-board"]))
        if tag not in self.VOID:
            self.stack.append({**a, "_tag": tag, "_cls": cls})

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["_tag"] == tag:
                break

    def handle_data(self, data):
        if not self.stack:
            return
        top = self.stack[-1]
        if "call" in top["_cls"]:
            self.calls.setdefault(int(self._inside("data-table")), []).append(data)
        if "id" in top:
            self.text[top["id"]] = self.text.get(top["id"], "") + data


def _dump(page: Path, fragment: str) -> _Dom:
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          f"{page.as_uri()}#{fragment}"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'data-ready="1"' in out.stdout, "the page's script did not finish: " + out.stderr[-2000:]
    dom = _Dom()
    dom.feed(out.stdout)
    return dom


def _expected(deal: dict, step: int):
    """Hands, trick in progress and calls after ``step`` actions, from the record."""
    hands = [list(h) for h in deal["hands"]]
    trick, calls = [], []
    for seat, text, is_card in deal["actions"][:step]:
        if is_card:
            hands[seat].remove(text)
            trick = [] if len(trick) == 4 else trick
            trick.append(text)
        else:
            calls.append(text)
    return hands, trick, calls


@needs_chromium
def test_replay_in_chromium_steps_card_by_card_as_the_record_says(match_files, tmp_path):
    page = match_files / "m.html"
    [match] = _embedded(page.read_text())["matches"]
    board = match["boards"][1]
    deals = [t["replay"][0] for t in board["tables"]]
    n_calls = min(sum(1 for a in d["actions"] if not a[2]) for d in deals)
    for step in (0, n_calls + 6, max(len(d["actions"]) for d in deals)):
        dom = _dump(page, f"board={board['board']}&step={step}")
        longest = max(len(d["actions"]) for d in deals)
        assert dom.text["step-label"] == f"step {step} / {longest}"
        assert dom.text["replay-title"].startswith(f"Board {board['board']}")
        for t, deal in enumerate(deals):
            hands, trick, calls = _expected(deal, min(step, len(deal["actions"])))
            for seat in range(4):
                assert sorted(dom.hands.get((t, seat), [])) == sorted(hands[seat]), (step, t, seat)
            assert dom.calls.get(t, []) == calls
            assert sorted(dom.trick.get(t, [])) == sorted(trick)      # in progress, or the last one


@needs_chromium
def test_boards_table_sorts_by_a_column_in_chromium(match_files):
    page = match_files / "m.html"
    [match] = _embedded(page.read_text())["matches"]
    dom = _dump(page, "sort=1")                 # a click on the "A's score" header: biggest first
    by_score = sorted(match["boards"], key=lambda b: -b["score"])
    assert dom.rows == [b["board"] for b in by_score]


@needs_chromium
def test_screenshot_of_a_replay(match_files, tmp_path):
    shot = tmp_path / "viewer.png"
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--window-size=1400,1800", f"--screenshot={shot}",
                          f"{(match_files / 'm.html').as_uri()}#board=2&step=20"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000


@needs_chromium
@pytest.mark.parametrize("fragment, label", [
    ("board=2&step=50000000", "last"),        # issue 23 item 4: stepped once per requested step, for minutes
    ("board=2&step=1e309", "step 0"),         # parsed as Infinity: never finished
    ("board=2&step=-3", "step 0"),
    ("board=2&step=0x10", "step 0"),
    ("board=abc&step=4", None),
    ("match=7&sort=-1&board=2&step=3", "step 3"),
    ("sort=1e3", None),
])
def test_a_crafted_link_is_parsed_strictly_and_clamped(match_files, fragment, label):
    import time
    start = time.perf_counter()
    dom = _dump(match_files / "m.html", fragment)       # asserts the page's script finished
    assert time.perf_counter() - start < 60
    shown = dom.text.get("step-label", "")
    if label == "last":
        current, last = shown.removeprefix("step ").split(" / ")
        assert current == last and int(last) > 10
    elif label is not None:
        assert shown.startswith(label + " / "), shown
