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



def test_the_page_inlines_the_packaged_script_and_styles(match_files):
    """The script and styles are files shipped with the package, inlined whole into the page when it is written:
    the page reaches for nothing outside itself."""
    import tomllib

    from vint_env.evaluation import viewer
    page = (match_files / "m.html").read_text()
    static = Path(viewer.__file__).with_name("static")
    for name in ("table.js", "viewer.js", "viewer.css"):
        text = (static / name).read_text()
        assert viewer.asset_text(name) == text and len(text) > 1500
        assert text in page, f"{name} is not inlined whole"
    assert page.index("function suitLines") < page.index("function renderReplay")   # table.js first
    assert not re.search(r"<script[^>]*\bsrc\b|<link\b|<iframe|<img|@import|url\(", page)
    pyproject = tomllib.loads((Path(viewer.__file__).parents[2] / "pyproject.toml").read_text())
    assert "static/*" in pyproject["tool"]["setuptools"]["package-data"]["vint_env.evaluation"]


def test_an_asset_that_would_end_its_element_is_refused(match_files, monkeypatch):
    from vint_env.evaluation import viewer
    real = viewer.asset_text
    monkeypatch.setattr(viewer, "asset_text",
                        lambda name: real(name) + ("\n// </SCRIPT>" if name == "viewer.js" else ""))
    with pytest.raises(ValueError, match="holds '</script'"):
        viewer.viewer_html(load_results(match_files / "m.json"), "t")


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
        self.widow: dict[int, list[str]] = {}
        self.who: dict[tuple[int, int], str] = {}
        self.tricks: dict[int, str] = {}

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
            elif any("widow" in s.get("_cls", []) for s in self.stack):
                self.widow.setdefault(int(table), []).append(a["data-card"])
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
        if any("who" in s["_cls"] for s in self.stack) and self._inside("data-seat") is not None:
            key = (int(self._inside("data-table")), int(self._inside("data-seat")))
            self.who[key] = self.who.get(key, "") + data
        if "tricks-taken" in top["_cls"]:
            self.tricks[int(self._inside("data-table"))] = data
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
def test_tabs_show_the_active_match_and_figures_read_as_points(match_files, tmp_path):
    from vint_env.evaluation.viewer import write_html
    [match] = load_results(match_files / "m.json")
    page = write_html(tmp_path / "two.html", [match, match], "two tabs")
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    buttons = re.findall(r"<button[^>]*>[^<]*</button>", out.split('id="matches"', 1)[1].split("</nav>", 1)[0])
    assert len(buttons) == 2
    assert 'class="active"' in buttons[0] and 'aria-pressed="true"' in buttons[0]
    assert "active" not in buttons[1] and not any("disabled" in b for b in buttons)   # a tab, not a dead button
    # rule vs random at Vint: a six-figure margin, with thousands separators, its CI rounded alike
    margin = re.search(r"<dd>([+-][\d,]+)  95% CI \[([+-][\d,]+), ([+-][\d,]+)\]</dd>", out)
    assert margin and all("," in g for g in margin.groups()), out[:2000]
    # the chart's axis labels: separators, and none closer than a line of text to another
    labels = re.findall(r'<text x="\d+" y="([\d.]+)" text-anchor="end" class="axis-label">([^<]*)</text>', out)
    assert labels and all("." not in text for _, text in labels)
    ys = sorted(float(y) for y, _ in labels)
    assert all(b - a >= 14 for a, b in zip(ys, ys[1:]))


# ------------------------------------------------------------ two-player Vint: the two-seat layout

@pytest.fixture(scope="module")
def two_player_files(tmp_path_factory):
    """Matches of two-player Vint in way 1 (dummies opposite), 2 (exchange of the whole hand, two-card
    tricks), 3 (card by card) and 5 (open dummy and widow)."""
    d = tmp_path_factory.mktemp("viewer2p")
    for way in (1, 2, 3, 5):
        assert cli_main(["match", "--game", "vint2p", "--env-option", f"way={way}", "--a", "rule", "--b", "random",
                         "--boards", "2", "--seed", "3", "--workers", "1", "--no-progress",
                         "--out", str(d / f"w{way}.json"), "--html", str(d / f"w{way}.html")]) == 0
    return d


def _expected_two_player(deal: dict, step: int):
    """Hands of the four seats, the trick shown, the calls and the widow after ``step`` actions, from the
    record: a card played leaves the seat it was played for; other moves come from the holdings."""
    hands = [list(h) for h in deal["hands"]]
    widow = list(deal["table"]["widow"])
    held = {h["at"]: h for h in deal.get("holdings", [])}
    size = deal["table"]["trick_size"]
    trick, calls = [], []
    for k, (_, text, is_card) in enumerate(deal["actions"][:step]):
        if is_card:
            hands[deal["seats_for"][k]].remove(text)
            trick = [] if len(trick) == size else trick
            trick.append(text)
        else:
            calls.append(text)
        if k + 1 in held:
            hands, widow = [list(h) for h in held[k + 1]["hands"]], list(held[k + 1]["widow"])
    return hands, trick, calls, widow


@pytest.mark.parametrize("way", [1, 2, 3, 5])
def test_two_player_replay_record_follows_the_rules_step_by_step(two_player_files, way):
    """The same deal through the env (the match's seed: the same widow and piles), the record's actions
    one by one: the hands and widow the record gives are the rules' at every step, for both tables."""
    from vint_env.cards import card_text, hand_cards
    from vint_env.envs import vint2p_v0
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.tables import reset_options
    from vint_env.evaluation.match import derive_seed
    [match] = load_results(two_player_files / f"w{way}.json")
    board = match["boards"][0]
    env = vint2p_v0.raw_env(way=way)
    names = {env.action_text(a): a for a in range(env.NUM_ACTIONS)}
    moved = 0
    for table in board["tables"]:
        deal = table["replay"][0]
        assert len(deal["points"]) == 2 and deal["table"]["trick_size"] == (2 if way in (2, 3) else 4)
        env.reset(seed=derive_seed(3, board["board"], 0),
                  options=reset_options("vint2p", generate_boards(1, seed=3)[0]))
        for k, (player, text, _) in enumerate(deal["actions"]):
            rules = env.deal
            now = rules.play.hands if rules.play is not None else rules.hands
            hands, _, _, widow = _expected_two_player(deal, k)
            assert [sorted(h) for h in hands] == [sorted(card_text(c) for c in hand_cards(m)) for m in now], (k, text)
            on_table = hand_cards(rules.widow) if way == 5 and rules.widow_to < 0 else []
            assert sorted(widow) == sorted(card_text(c) for c in on_table)
            assert deal["seats_for"][k] == rules.current_player and player == rules.current_controller
            env.step(names[text.split(" ")[-1]])           # "give SA", "exchange SA": the card
        assert env.deal.is_over and [env.rewards[a] / env.reward_scale for a in env.agents] == \
            pytest.approx(deal["points"])
        moved += len(deal.get("holdings", []))
    if way in (2, 5):
        assert moved > 0                                    # exchanges, the widow, give-aways were recorded


@pytest.mark.parametrize("way", [2, 3])
def test_two_player_replay_record_of_the_exchanges_ends_with_every_card_played(two_player_files, way):
    [match] = load_results(two_player_files / f"w{way}.json")
    for table in match["boards"][0]["tables"]:
        deal = table["replay"][0]
        hands, _, _, _ = _expected_two_player(deal, len(deal["actions"]))
        if deal["table"]["controllers"].count(-1) == 2 and deal["trick_winners"]:
            assert hands[0] == [] and hands[2] == []           # the players' hands were played out
            played = [t for _, t, c in deal["actions"] if c]
            assert len(played) == 26 == len(set(played))


@needs_chromium
@pytest.mark.parametrize("way", [1, 2, 3, 5])
def test_two_player_replay_in_chromium_shows_players_dummies_piles_and_widow(two_player_files, way):
    page = two_player_files / f"w{way}.html"
    [match] = _embedded(page.read_text())["matches"]
    board = match["boards"][0]
    deals = [t["replay"][0] for t in board["tables"]]
    for step in (0, 4, 12, max(len(d["actions"]) for d in deals)):
        dom = _dump(page, f"board={board['board']}&step={step}")
        for t, deal in enumerate(deals):
            hands, trick, calls, widow = _expected_two_player(deal, min(step, len(deal["actions"])))
            for seat in range(4):
                assert sorted(dom.hands.get((t, seat), [])) == sorted(hands[seat]), (way, step, t, seat)
            assert dom.calls.get(t, []) == calls
            assert sorted(dom.trick.get(t, [])) == sorted(trick)
            assert sorted(dom.widow.get(t, [])) == sorted(widow)
            roles = [dom.who[(t, s)] for s in range(4)]
            own = deal["table"]["player_seats"]
            assert "player_0" in roles[own[0]] and "player_1" in roles[own[1]]
            for s in range(4):
                if s not in own:
                    assert ("pile" if way in (2, 3) else "dummy") in roles[s], roles
            assert dom.tricks[t].startswith("tricks: player_0 ") and "N/S" not in dom.tricks[t]
        assert dom.text["replay-title"].startswith(f"Board {board['board']}")
    if way == 5:
        assert any(d["table"]["widow"] for d in deals)


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
