"""vint-serve's JSON API (Starlette's TestClient): tables of every game played to the end and checked
against the rules, the seat's view against its observation (no hidden card), idle tables cleaned up,
and every bad request a 4xx with a JSON message."""

import json
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="vint-serve needs the serve extra: pip install 'vint-env[serve]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from serve_helpers import replay_points  # noqa: E402
from vint_env import games  # noqa: E402
from vint_env.agents.base import RandomAgent  # noqa: E402
from vint_env.rules.solo_whist_calls import OPEN_MISERE, PASS  # noqa: E402
from vint_env.play.table import TableDriver, seat_bots  # noqa: E402
from vint_env.serve.app import create_app  # noqa: E402
from vint_env.serve.cli import build_parser  # noqa: E402
from vint_env.serve.view import deal_view  # noqa: E402

GAMES = games.names()


def local(app) -> TestClient:
    """A client of ``app`` addressing it as a browser on this machine does (the server checks the Host)."""
    return TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False)


@pytest.fixture
def client():
    with local(create_app()) as c:
        yield c


def _play_deal(client, state, pick=lambda legal: legal[0]["text"]):
    """Play the person's seat until the deal is over; the state then."""
    moves = 0
    while state["status"] == "your_turn":
        assert state["deal"]["hint"] in [a["text"] for a in state["deal"]["legal"]]     # the rule bot's advice
        r = client.post(f"/api/tables/{state['id']}/moves", json={"action": pick(state["deal"]["legal"])})
        assert r.status_code == 200, r.text
        state = r.json()
        moves += 1
        assert moves < 200
    assert state["status"] == "deal_over"
    return state


def test_the_catalogue_lists_every_game_with_its_seats(client):
    data = client.get("/api/games").json()
    assert [g["name"] for g in data["games"]] == list(GAMES)
    seats = {g["name"]: g["seats"] for g in data["games"]}
    assert seats["vint"] == ["N", "E", "S", "W"] and seats["vint2p"] == ["player_0", "player_1"]
    assert "rule" in data["agents"] and "human" not in data["agents"]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_deal_scores_as_the_rules_say(client, game):
    r = client.post("/api/tables", json={"game": game, "seed": 5, "opponents": "random"})
    assert r.status_code == 201, r.text
    state = _play_deal(client, r.json())
    result = state["result"]
    points, rules_points = replay_points(game, 5, 1, result["actions"])
    assert result["points"] == pytest.approx(points)
    scale = games.get(game).points_scale
    assert result["points"] == pytest.approx([p * scale for p in rules_points])
    assert result["yours"] == result["points"][state["seat"]] and state["total"] == result["yours"]
    assert sorted(len(h) for h in result["hands"]) == [13] * 4          # the hands as dealt are shown now
    assert result["info"]["deal"]                                        # the env's scoring breakdown
    # the same record at /deals/1, and the next deal starts
    assert client.get(f"/api/tables/{state['id']}/deals/1").json() == result
    nxt = client.post(f"/api/tables/{state['id']}/next", json={}).json()
    assert nxt["status"] == "your_turn" and nxt["episode_number"] == 2 and len(nxt["deals"]) == 1


def test_one_server_plays_several_tables_at_once(client):
    """Four tables, one of each game, played at the same time from four threads: each deal scores as
    the rules say for its own seed."""
    from concurrent.futures import ThreadPoolExecutor

    def play(game_seed):
        game, seed = game_seed
        state = client.post("/api/tables", json={"game": game, "seed": seed, "opponents": "random"}).json()
        return game, seed, _play_deal(client, state)

    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(play, [(g, 20 + i) for i, g in enumerate(GAMES)]))
    assert len({state["id"] for _, _, state in done}) == len(GAMES) == len(client.app.state.tables)
    for game, seed, state in done:
        assert state["game"] == game and state["seed"] == seed
        points, _ = replay_points(game, seed, 1, state["result"]["actions"])
        assert state["result"]["points"] == pytest.approx(points)


def _observed_cards(record, observation) -> set[str]:
    """The cards the seat's observation holds of present hands (the leak-tested encoder's blocks)."""
    parts = record.layout.decode(observation["observation"])
    bits = np.zeros(52)
    for block in ("hand", "exposed", "hands"):
        if block in parts:
            bits = bits + np.asarray(parts[block]).reshape(-1, 52).sum(axis=0)
    from vint_env.cards import card_text
    return {card_text(c) for c in np.flatnonzero(bits)}


@pytest.mark.parametrize("game", GAMES)
def test_the_view_shows_exactly_the_cards_the_seats_observation_holds(game):
    record = games.get(game)
    players = 2 if record.format == games.TWO_PLAYER else 4
    rng_person = RandomAgent(3)
    checked = 0
    for human in range(players):
        seating = seat_bots(game, human, "random" if record.partnership else None, "random")
        driver = TableDriver(game, seating, seed=human + 7)
        for number in (1, 2):
            driver.start(number)
            while not driver.deal_ended:
                view = deal_view(driver)
                shown = {c for s in view["seats"] if s["cards"] is not None for c in s["cards"]}
                assert shown == _observed_cards(record, driver.observation())
                assert view["seats"][view["you"]]["cards"] is not None
                hidden = [s for s in view["seats"] if s["cards"] is None]
                assert all(s["count"] >= 0 for s in hidden)
                text = json.dumps({k: v for k, v in view.items() if k not in ("seats", "legal")})
                played = {p["card"] for p in view["trick"]} | ({p["card"] for p in view["last_trick"]["cards"]}
                                                               if view["last_trick"] else set())
                for s in hidden:
                    cards = driver.raw.deal.play.hands if driver.raw.deal.play else driver.raw.deal.hands
                    from vint_env.cards import card_text, hand_cards
                    for c in hand_cards(cards[s["seat"]]):
                        assert card_text(c) not in played and f'"{card_text(c)}"' not in text.replace(
                            f'"turned": "{view["turned"]}"', "")
                assert {a["text"] for a in view["legal"] if a["card"]} <= shown
                driver.play(rng_person.act(driver.observation()))
                checked += 1
    assert checked > 20


class _OpenMisere(RandomAgent):
    """Calls open misère when it may, passes in the rest of the auction, then plays at random."""

    def act(self, observation, env=None, agent=None):
        legal = np.flatnonzero(observation["action_mask"])
        for call in (OPEN_MISERE, PASS):
            if call in legal:
                return int(call)
        return super().act(observation)


def test_an_open_misere_hand_is_shown_once_the_rules_lay_it_down():
    """Solo Whist: the open-misère declarer's cards appear in the other seats' views after trick one, as
    their observations hold them, and never before."""
    shown_after = 0
    for seed in range(4):
        seating = seat_bots("solo_whist", 2, None, "rule")
        seating.bots = {s: _OpenMisere(seed) for s in (0, 1, 3)}
        driver = TableDriver("solo_whist", seating, seed=seed)
        driver.start(1)
        while not driver.deal_ended:
            deal, view = driver.raw.deal, deal_view(driver)
            shown = {c for s in view["seats"] if s["cards"] is not None for c in s["cards"]}
            assert shown == _observed_cards(games.get("solo_whist"), driver.observation())
            if deal.contract == OPEN_MISERE:
                assert deal.declarer != 2                      # the person only passes
                declarer_seen = view["seats"][deal.declarer]["cards"] is not None
                assert declarer_seen == bool(deal.hand_shown)
                shown_after += declarer_seen
            legal = driver.legal()
            driver.play(PASS if PASS in legal else legal[seed % len(legal)])
    assert shown_after > 0


def test_an_idle_table_is_cleaned_up():
    with local(create_app(idle_timeout=0.2)) as c:
        tid = c.post("/api/tables", json={"game": "whist", "seed": 1}).json()["id"]
        time.sleep(0.4)
        r = c.get(f"/api/tables/{tid}")
        assert r.status_code == 404 and "cleaned up after 0.2 s idle" in r.json()["error"]
        assert len(c.app.state.tables) == 0


def test_only_the_idle_table_goes_a_played_one_is_kept():
    now = [0.0]
    with local(create_app(idle_timeout=10, clock=lambda: now[0])) as c:
        idle = c.post("/api/tables", json={"game": "whist", "seed": 1}).json()["id"]
        busy = c.post("/api/tables", json={"game": "whist", "seed": 2}).json()
        for _ in range(4):                      # 24 s in all, the busy table asked about every 6 s
            now[0] += 6
            busy = c.post(f"/api/tables/{busy['id']}/moves", json={"action": busy["deal"]["legal"][0]["text"]})
            assert busy.status_code == 200
            busy = busy.json()
        assert c.get(f"/api/tables/{idle}").status_code == 404
        assert c.get(f"/api/tables/{busy['id']}").status_code == 200 and len(c.app.state.tables) == 1
        now[0] += 10.5
        assert c.app.state.tables.sweep() == [busy["id"]]


def test_a_table_that_is_left_is_gone(client):
    tid = client.post("/api/tables", json={"game": "vint"}).json()["id"]
    assert client.delete(f"/api/tables/{tid}").status_code == 200
    assert client.get(f"/api/tables/{tid}").status_code == 404


def test_more_tables_than_the_limit_are_refused():
    with local(create_app(max_tables=1)) as c:
        assert c.post("/api/tables", json={"game": "whist"}).status_code == 201
        r = c.post("/api/tables", json={"game": "whist"})
        assert r.status_code == 503 and "max-tables" in r.json()["error"]


@pytest.mark.parametrize("body, status, words", [
    ({"game": "chess"}, 400, "unknown game 'chess'"),
    ({"game": 3}, 400, "game must be a name"),
    ({}, 400, "which game"),
    ({"game": "vint", "colour": "red"}, 400, "unknown field(s) colour"),
    ({"game": "vint", "seat": "X"}, 400, "seat must be N, E, S or W"),
    ({"game": "vint", "seat": 7}, 400, "seat must be one of"),
    ({"game": "vint", "seat": True}, 400, "seat must be one of"),
    ({"game": "vint2p", "seat": 2}, 400, "seat must be one of player_0, player_1"),
    ({"game": "vint", "opponents": "nonsense"}, 400, "unknown kind 'nonsense'"),
    ({"game": "vint", "partner": "network:/no/such/checkpoint.pt"}, 403, "reads checkpoints only from no folder"),
    ({"game": "vint", "opponents": "human"}, 403, "agent kind 'human' is not served"),
    ({"game": "vint", "opponents": "py:this:x"}, 403, "agent kind 'py' is not served"),
    ({"game": "vint", "opponents": "pimc:samples=99999999999999999"}, 400, "samples must be a positive integer"),
    ({"game": "vint", "opponents": 5}, 400, "opponents must be an agent spec string"),
    ({"game": "solo_whist", "opponents": "pimc"}, 400, "PIMC agent does not play 'solo_whist'"),
    ({"game": "solo_whist", "partner": "rule"}, 400, "no fixed partner"),
    ({"game": "solo_whist", "episode": "rubber"}, 400, "episode must be one of deal"),
    ({"game": "vint", "seed": -1}, 400, "seed must be a non-negative integer"),
    ({"game": "vint", "seed": 2**70}, 400, "seed must be a non-negative integer"),
    ({"game": "vint2p", "options": {"way": 9}}, 400, "way must be one of"),
    ({"game": "vint", "options": {"bogus": 1}}, 400, "bogus"),
    ({"game": "vint", "options": {"reward_scale": 1}}, 400, "set by the table itself"),
    ({"game": "vint", "options": [1]}, 400, "options must be an object"),
    ([1, 2], 400, "a table is a JSON object"),
])
def test_a_bad_table_request_is_a_4xx_naming_the_problem(client, body, status, words):
    r = client.post("/api/tables", json=body)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert "Traceback" not in r.text and "/no/such" not in r.text


def test_malformed_json_unknown_tables_and_routes_get_json_errors(client):
    r = client.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    for body in (b'{"game": "vint", "seed": Infinity}', b'{"game": "vint", "seed": NaN}',
                 b'{"game": "vint", "options": {"game_bonus": Infinity}}', b'\xff\xfe'):
        r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"], body
    r = client.get("/api/tables/nope")
    assert r.status_code == 404 and "no table 'nope'" in r.json()["error"]
    assert client.post("/api/tables/nope/moves", json={"action": "SA"}).status_code == 404
    assert client.get("/api/nothing").json()["error"].startswith("no such page")
    r = client.get("/api/tables")
    assert r.status_code == 405 and "GET is not allowed" in r.json()["error"]


def test_bad_and_illegal_moves_are_refused_and_the_table_goes_on(client):
    state = client.post("/api/tables", json={"game": "whist", "seed": 4}).json()
    tid = state["id"]
    legal = [a["text"] for a in state["deal"]["legal"]]
    illegal = next(c for c in ("SA", "S2", "HA", "H2", "DA", "CA") if c not in legal)
    cases = [({"action": "zz"}, 400, "names no call or card"), ({"action": 999}, 400, "out of range"),
             ({"action": True}, 400, "action must be"), ({"move": "SA"}, 400, "a move is"),
             ({"action": illegal}, 409, "is not legal now; legal: "), ({"action": "pass"}, 400, "names no call")]
    for body, status, words in cases:
        r = client.post(f"/api/tables/{tid}/moves", json=body)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    r = client.post(f"/api/tables/{tid}/moves", content=b"[", headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert client.post(f"/api/tables/{tid}/next", json={}).status_code == 409         # the deal is not over
    assert client.get(f"/api/tables/{tid}/viewer").status_code == 404       # nothing finished yet
    assert client.get(f"/api/tables/{tid}/deals/1").status_code == 404
    state = _play_deal(client, client.get(f"/api/tables/{tid}").json())
    r = client.post(f"/api/tables/{tid}/moves", json={"action": legal[0]})
    assert r.status_code == 409 and "the deal is over" in r.json()["error"]


def test_a_finished_deal_opens_in_the_match_viewer(client):
    state = _play_deal(client, client.post("/api/tables", json={"game": "vint", "seed": 3}).json())
    page = client.get(f"/api/tables/{state['id']}/viewer")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    import re
    data = json.loads(re.search(r'<script type="application/json" id="match-data">(.*?)</script>',
                                page.text, re.S).group(1))
    [match] = data["matches"]
    [board] = match["boards"]
    [table] = board["tables"]
    assert table["seats"] == "ABAB" and board["score"] == state["result"]["yours"]     # you (S) and your partner (N): A
    assert table["replay"][0]["actions"] == state["result"]["actions"]
    assert match["summary"]["agent_a"] == "you + rule" and match["summary"]["agent_b"] == "rule"


def test_a_rubber_is_played_deal_by_deal_to_its_end(client):
    state = client.post("/api/tables", json={"game": "whist", "episode": "rubber", "seed": 2}).json()
    for _ in range(12):
        state = _play_deal(client, state)
        rubber = state["result"]["info"]["rubber"]
        if state["episode_over"]:
            break
        assert not rubber["over"]
        state = client.post(f"/api/tables/{state['id']}/next", json={}).json()
        assert state["episode_number"] == 1
    assert state["episode_over"] and rubber["over"] and len(state["deals"]) >= 2
    new = client.post(f"/api/tables/{state['id']}/next", json={}).json()
    assert new["episode_number"] == 2 and new["status"] == "your_turn"


def test_the_page_and_its_static_files_come_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    for name in ("app.js", "style.css", "table.js"):
        assert client.get(f"/static/{name}").status_code == 200
    from vint_env.evaluation.viewer import asset_text
    assert client.get("/static/table.js").text == asset_text("table.js")     # the viewer's drawing, one file
    assert '<script src="/static/table.js">' in page.text


def test_a_network_agent_runs_on_one_torch_thread(client):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(2)
    r = client.post("/api/tables", json={"game": "whist", "opponents": "baseline", "seed": 1})
    assert r.status_code == 201, r.text
    [table] = client.app.state.tables._tables.values()
    seen = []
    for bot in table.driver.seating.bots.values():
        act = bot.act
        bot.act = lambda *a, _act=act, **k: (seen.append(torch.get_num_threads()), _act(*a, **k))[1]
    _play_deal(client, r.json())
    assert len(seen) >= 20 and set(seen) == {1}        # in the server's threads, as the agents act


def test_the_server_listens_on_this_machine_only_by_default():
    args = build_parser().parse_args([])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert build_parser().parse_args(["--host", "0.0.0.0", "--port", "9001"]).port == 9001
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--idle-timeout", "0"])


def test_the_docs_example_plays_a_deal_through_the_api(client, monkeypatch, capsys):
    import re
    from pathlib import Path

    import httpx2
    page = (Path(__file__).resolve().parents[2] / "docs" / "serve.md").read_text()
    [code] = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "httpx2" in b]
    monkeypatch.setattr(httpx2, "Client", lambda base_url: client)     # the app in-process, not a real server
    exec(compile(code, "docs/serve.md", "exec"), {})
    yours, breakdown = capsys.readouterr().out.split(" ", 1)
    [table] = client.app.state.tables._tables.values()
    state = table.state()
    assert state["status"] == "deal_over" and float(yours) == state["result"]["yours"]
    assert "scores" in breakdown


_json = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70)
                     | st.floats(allow_nan=False, allow_infinity=False)     # (JSON has neither)
                     | st.text(max_size=8), lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.text(max_size=6), kids, max_size=3), max_leaves=6)
_field_values = {"game": st.sampled_from(list(GAMES) + ["chess", ""]) | _json,
                 "seat": st.sampled_from(["N", "s", "west", "player_1", "3", 1, 5, -1]) | _json,
                 "partner": st.sampled_from(["rule", "random", "pimc:samples=x", "dd", "network:", "py:os:path"]) | _json,
                 "opponents": st.sampled_from(["rule", "random", "baseline:/nowhere", "py:nope:x", ""]) | _json,
                 "episode": st.sampled_from(["deal", "rubber", "game"]) | _json,
                 "seed": st.integers(-5, 2**70) | _json,
                 "options": st.dictionaries(st.sampled_from(["way", "game_bonus", "honours", "max_deals", "x"]),
                                            _json, max_size=2) | _json}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.fixed_dictionaries({}, optional=_field_values), move=_json)
def test_no_request_body_makes_the_server_fail(client, body, move):
    r = client.post("/api/tables", json=body)
    assert r.status_code in (201, 400, 403), r.text
    assert "error" in r.json() if r.status_code != 201 else r.json()["status"] in ("your_turn", "deal_over")
    if r.status_code == 201:
        tid = r.json()["id"]
        for payload in ({"action": move}, move):
            m = client.post(f"/api/tables/{tid}/moves", content=json.dumps(payload),
                            headers={"content-type": "application/json"})
            assert m.status_code in (200, 400, 409), m.text
        client.delete(f"/api/tables/{tid}")
