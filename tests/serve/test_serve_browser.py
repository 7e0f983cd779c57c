"""vint-serve end to end: the real command serving, a real headless Chromium (Debian's `chromium`, driven by
Playwright) playing a whole deal of each game by clicking, and the score the page shows checked against the
rules' result for that deal, replayed through the env alone."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="vint-serve needs the serve extra: pip install 'vint-env[serve]'")
pytest.importorskip("uvicorn", reason="vint-serve needs the serve extra: pip install 'vint-env[serve]'")
playwright_api = pytest.importorskip("playwright.sync_api", reason="the browser tests drive Chromium with "
                                     "Playwright's python package (the test extra)")

from serve_helpers import replay_points  # noqa: E402
from vint_env import games  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get "
                                "install -y chromium); vint-serve's page is not played in a browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SEED = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """`vint-serve` in its own process (the command's own code: python -m vint_env.serve.cli)."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "vint_env.serve.cli", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/api/games", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("vint-serve exited: " + proc.stdout.read())
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _api(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _settle(page):
    page.wait_for_function("document.body.dataset.busy === '0' && document.body.dataset.status !== 'setup'")


def _play_by_clicking(page) -> int:
    """Click the first legal card, else the first call, until the deal is over; the clicks made."""
    clicks = 0
    while True:
        _settle(page)
        if page.evaluate("document.body.dataset.status") == "deal_over":
            return clicks
        card = page.locator("#felt button.card.legal")
        target = card.first if card.count() else page.locator("#actions button.call").first
        target.click()
        clicks += 1
        assert clicks < 150


@pytest.mark.parametrize("game", games.names())
def test_a_whole_deal_played_by_clicking_scores_as_the_rules_say(server, browser, game):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", game)
    page.fill("#seed", str(SEED))
    page.click("#start")
    _settle(page)
    page.click("#hint")                                  # the rule bot's advice names a legal action, marked
    hint = page.inner_text("#hint-text").removeprefix("the rule bot would play ")
    assert hint in page.evaluate("table.deal.legal.map(a => a.text)")
    assert page.locator(".hinted").count() == 1
    clicks = _play_by_clicking(page)
    shown = float(page.get_attribute("#yours", "data-points"))
    assert page.locator("#felt").is_hidden() and page.locator("#actions button").count() == 0
    assert page.inner_text("#yours").startswith("Your points this deal: ")
    assert page.locator("#breakdown table").count() >= 1 or page.inner_text("#breakdown")   # the scoring items
    table_id = page.evaluate("table.id")
    state = _api(f"{server}/api/tables/{table_id}")
    result = state["result"]
    points, rules = replay_points(game, SEED, 1, result["actions"])
    scale = games.get(game).points_scale
    assert shown == pytest.approx(points[state["seat"]]) == pytest.approx(rules[state["seat"]] * scale)
    assert clicks == sum(1 for player, _, _ in result["actions"] if player == state["seat"])
    assert sum(1 for _, _, is_card in result["actions"] if is_card) >= 8          # cards were played, not just calls
    assert float(page.get_attribute("#total", "data-points")) == pytest.approx(shown)
    assert not errors
    page.close()


def test_a_finished_deal_opens_in_the_match_viewer_and_the_next_deal_starts(server, browser):
    page = browser.new_page()
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", "whist")
    page.select_option("#seat", "N")
    page.fill("#seed", "8")
    page.click("#start")
    _play_by_clicking(page)
    with page.context.expect_page() as opened:
        page.click("#open-viewer")
    viewer = opened.value
    viewer.wait_for_selector("body[data-ready='1']")
    assert not viewer.locator("#replay").is_hidden()                 # the board is picked from the address
    assert "Board 1" in viewer.inner_text("#replay-title")
    viewer.click("#last")
    assert "Deal over" in viewer.inner_text("#tables")
    viewer.close()
    page.click("#next")
    _settle(page)
    assert page.evaluate("document.body.dataset.status") == "your_turn"
    assert "deal 2" in page.inner_text("#deal-no")
    assert page.locator("#history-table tbody tr").count() == 1
    page.close()
