"""vint-serve under hostile input, round 5 (issue 49 High 1, Medium 12 and its Low items; issue 48 item 6).

Each test reproduces what the adversarial run sent and checks the answer: bounded work per decision
(counted, not timed, where it can be), no seed or anything that determines one sent to the page, a 403
for a malformed Host or Origin, bounded echoes, links in an agent folder resolved, half-sent requests
dropped, and a favicon.  Only 127.0.0.1 is ever contacted; every loop is bounded.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("starlette", reason="vint-serve needs the serve extra: pip install 'vint-env[serve]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from vint_env.baselines import DIR as SHIPPED  # noqa: E402
from vint_env.cards import hand_cards  # noqa: E402
from vint_env.evaluation.deals import generate_board  # noqa: E402
from vint_env.serve import tables as tables_module  # noqa: E402
from vint_env.serve.app import MAX_ERROR, create_app  # noqa: E402
from vint_env.serve.tables import RequestError  # noqa: E402

ORIGIN = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}


def local(app) -> TestClient:
    return TestClient(app, base_url=ORIGIN, raise_server_exceptions=False)


@pytest.fixture
def client():
    with local(create_app()) as c:
        yield c


# ---------------------------------------------------------------- High 1: bounded work per served decision
def test_a_served_table_refuses_more_candidates_than_a_web_table_allows(client):
    """`"opponents": "search:candidates=5000"`: 11 s a move and 2.4 GB at --decision-seconds 0.5."""
    r = client.post("/api/tables", json={"game": "whist", "seat": "N", "opponents": "search:candidates=5000"})
    assert r.status_code == 400, r.text
    assert "candidates may be at most 1000 at a served table, got 5000" in r.json()["error"]
    assert len(client.app.state.tables) == 0


class _StepClock:
    """A clock that moves on ``step`` seconds at every reading: a decision's work counted, not timed."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step
        self.lock = threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            self.now += self.step
            return self.now


def test_the_most_candidates_a_served_table_allows_are_weighed_within_the_decision_time(monkeypatch):
    """The cap bounds the whole decision: the candidates are weighed a batch at a time until half the
    time is spent, then deals solved until all of it is; no replay or network batch is larger than a
    batch of candidates, whatever ``candidates`` is (memory bounded by the batch, not the option)."""
    pytest.importorskip("torch")
    from vint_env.agents.search import search as search_module
    from vint_env.agents.search.replay import WorldReplay
    # every reading of the decision clock is 0.1 s on: with time=0.5 the weighing stops after its third
    # batch (0.3 s >= half of 0.5) and the solving after its second deal (0.5 s)
    monkeypatch.setattr(search_module, "clock", _StepClock(0.1))
    rows, real_run = [], WorldReplay.run

    def counted_run(self, dealt, *args, **kwargs):
        rows.append(len(dealt))
        return real_run(self, dealt, *args, **kwargs)
    monkeypatch.setattr(WorldReplay, "run", counted_run)
    with local(create_app(decision_seconds=0.5)) as c:
        r = c.post("/api/tables", json={"game": "whist", "seat": "N", "seed": 5, "opponents": "search:candidates=1000"})
        assert r.status_code == 201, r.text
        table = c.app.state.tables.get(r.json()["id"])
        for _ in range(2):                  # two moves of the person: the bots' decisions between them
            state = c.get(f"/api/tables/{table.id}").json()
            if state["status"] != "your_turn":
                break
            assert c.post(f"/api/tables/{table.id}/moves", json={"action": state["deal"]["legal"][0]["action"]}
                          ).status_code == 200
        bots = [b for b in table.driver.seating.bots.values() if getattr(b, "name", "") == "search"]
        assert {b.budget for b in bots} == {0.5}
        searched = sum(b.stats["searched"] for b in bots)
        assert searched >= 2
        weighed = sum(b.stats["weighed"] for b in bots)
        batch = search_module.WEIGH_BATCH
        assert 0 < weighed <= 3 * batch * searched < 1000 * searched        # 1000 asked for, at most 384 weighed
        assert sum(b.stats["samples"] for b in bots) <= 2 * searched        # deals solved within the rest
        assert rows and max(rows) <= batch                                  # no batch above WEIGH_BATCH rows


def test_a_direct_search_weighs_every_candidate_without_a_time_budget():
    """The counterpart of the served test: with no ``time``, every candidate asked for is weighed (the
    batches change the memory a decision takes, not what it computes)."""
    pytest.importorskip("torch")
    from vint_env import games
    from vint_env.agents.search.search import WEIGH_BATCH, SearchAgent
    from vint_env.evaluation.tables import make_env
    from vint_env.agents.base import RandomAgent
    record = games.get("whist")
    env = make_env(record, "deal")
    env.reset(seed=3)
    agent = SearchAgent("whist", candidates=WEIGH_BATCH + 7, seed=1)
    others = RandomAgent(4)
    for _ in range(24):                     # the first six tricks at most
        name = env.agent_selection
        obs = env.observe(name)
        player = agent if name.endswith("_0") else others
        env.step(int(player.act(obs, agent=name)))
        if agent.stats["searched"] - agent.stats["unordered"] >= 2:
            break
    weighed_decisions = agent.stats["searched"] - agent.stats["unordered"]
    assert weighed_decisions >= 1
    assert agent.stats["weighed"] == weighed_decisions * (WEIGH_BATCH + 7)


# ---------------------------------------------------------------- Medium 12: nothing sent determines a hidden card
def _numbers_and_texts(value, out_numbers, out_texts):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        out_numbers.add(value)
    elif isinstance(value, str):
        out_texts.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _numbers_and_texts(k, out_numbers, out_texts)
            _numbers_and_texts(v, out_numbers, out_texts)
    elif isinstance(value, list):
        for v in value:
            _numbers_and_texts(v, out_numbers, out_texts)


def test_the_page_never_receives_the_seed_of_the_deals(client):
    """The state carried ``seed`` and ``generate_board(seed, n)`` gave every hidden hand; the default seed
    came from 10^6 values, so one's own 13 cards found it.  Now: a secret seed of 64 bits, never sent."""
    seeds = []
    for _ in range(6):
        r = client.post("/api/tables", json={"game": "whist", "seat": "S"})
        assert r.status_code == 201
        state = r.json()
        table = client.app.state.tables.get(state["id"])
        seed = table.driver.seed
        seeds.append(seed)
        # the premise: the seed gives the hidden hands of the deal in progress
        board = generate_board(seed, table.driver.number)
        assert board.deal.split()[0].startswith(("N:", "E:", "S:", "W:"))
        assert state["seed"] is None
        answers = [state, client.get(f"/api/tables/{state['id']}").json()]
        # play the deal out (a bounded number of moves), looking at every answer
        for _ in range(60):
            now = answers[-1]
            if now["status"] != "your_turn":
                break
            answers.append(client.post(f"/api/tables/{state['id']}/moves",
                                       json={"action": now["deal"]["legal"][0]["action"]}).json())
        assert answers[-1]["status"] == "deal_over"
        answers.append(client.get(f"/api/tables/{state['id']}/deals/1").json())
        viewer = client.get(f"/api/tables/{state['id']}/viewer").text
        derived = {seed, seed * 1000 + table.driver.number, *(seed * 10 + s for s in range(4))}
        numbers, texts = set(), [viewer]
        for a in answers:
            assert "error" not in a, a
            _numbers_and_texts(a, numbers, texts)
        assert not numbers & derived
        assert not any(str(d) in t for t in texts for d in derived)
        assert str(seed) not in json.dumps(answers)
        client.delete(f"/api/tables/{state['id']}")
    assert len(set(seeds)) == len(seeds)
    assert max(seeds) >= 2**40                    # 64 random bits: all six below 2^40 has odds 2^-144


def test_a_seed_the_person_gave_is_theirs_to_see(client):
    state = client.post("/api/tables", json={"game": "whist", "seat": "S", "seed": 77}).json()
    assert state["seed"] == 77
    table = client.app.state.tables.get(state["id"])
    south = sorted(hand_cards(table.driver.raw.deal.hands[2]))
    # (the person's own seed reproduces the deal, by design: they chose it)
    assert generate_board(77, 1).deal and len(south) == 13


# ---------------------------------------------------------------- Low: malformed Host and Origin, echoes
MALFORMED_HOSTS = ["localhost:\u00b2", "localhost:\u0663\u0660\u0660\u0660", "127.0.0.1:\uff18\uff10\uff10\uff10",
                   "localhost:", "localhost:80000000", "local host:8000", "[::1", "[::1]x:8000", "127.0.0.1:8000:1",
                   "\u1e37ocalhost:8000", "localhost:8000\u00a0"]


def _raw(text: str) -> bytes:
    """A header value as a hostile client sends it: latin-1 where it can be (the server reads headers as
    latin-1, so "\u00b2" arrives as itself), else UTF-8."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


@pytest.mark.parametrize("host", MALFORMED_HOSTS)
def test_a_malformed_host_or_origin_is_refused_by_the_guard(host):
    from vint_env.serve.guard import Refused, allowed_hosts, check_host, check_origin
    allowed = allowed_hosts("127.0.0.1", 8000)
    for check, value in ((check_host, host), (check_origin, "http://" + host)):
        with pytest.raises(Refused) as refused:
            check(value, allowed)
        assert refused.value.status == 403


def _status_of(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        answer = b""
        while b"\r\n" not in answer and (chunk := s.recv(4096)):
            answer += chunk
    return answer.split(b"\r\n", 1)[0]


def test_a_malformed_host_or_origin_is_403_never_500(live_server):
    """`Host: localhost:\u00b2` (a superscript digit) gave a 500 and a traceback in the log: sent over a
    socket, as the run sent it (a test client re-encodes headers as UTF-8)."""
    port = live_server
    for host in MALFORMED_HOSTS:
        status = _status_of(port, b"GET /api/games HTTP/1.1\r\nHost: " + _raw(host) + b"\r\nConnection: close\r\n\r\n")
        assert status == b"HTTP/1.1 403 Forbidden", (host, status)
        origin = _raw("http://" + host.replace("127.0.0.1", "localhost"))
        status = _status_of(port, f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()
                            + b"Origin: " + origin + b"\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 17\r\nConnection: close\r\n\r\n" + b'{"game": "whist"}')
        assert status == b"HTTP/1.1 403 Forbidden", (origin, status)
    assert _status_of(port, f"GET /api/games HTTP/1.1\r\nHost: localhost:{port}\r\n"
                            "Connection: close\r\n\r\n".encode()) == b"HTTP/1.1 200 OK"


def test_a_refused_move_quotes_an_excerpt_of_it(client):
    """A refused move echoed the whole action text (16,033 characters)."""
    state = client.post("/api/tables", json={"game": "whist", "seat": "S"}).json()
    r = client.post(f"/api/tables/{state['id']}/moves", json={"action": "S" + "A" * 16_032})
    assert r.status_code == 400 and "names no call or card" in r.json()["error"]
    assert len(r.text) < 400 and "16033 characters" in r.text
    for body in ({"action": ["x" * 10_000]}, {"game": "x" * 10_000}, {"game": "whist", "seat": "x" * 10_000},
                 {"game": "whist", "episode": "x" * 10_000}):
        url = f"/api/tables/{state['id']}/moves" if "action" in body else "/api/tables"
        r = client.post(url, json=body)
        assert r.status_code == 400 and len(r.text) < 600, (list(body), len(r.text))


def test_every_error_answer_is_bounded(client, monkeypatch):
    """Whatever a message quotes, the answer is at most MAX_ERROR characters of it (the one place every
    error passes)."""
    def long_refusal(body, served=None):
        raise RequestError(400, "y" * 100_000)
    monkeypatch.setattr(tables_module, "build_driver", long_refusal)
    r = client.post("/api/tables", json={"game": "whist"})
    assert r.status_code == 400 and MAX_ERROR < len(r.json()["error"]) < MAX_ERROR + 40


# ---------------------------------------------------------------- Low: links in an agent folder
def test_a_folder_whose_checkpoint_links_out_of_the_agent_folders_is_refused(tmp_path):
    """`baseline:DIR` with DIR inside --agents-dir but DIR/whist.pt a link to a file outside it."""
    pytest.importorskip("torch")
    agents, outside = tmp_path / "agents", tmp_path / "elsewhere"
    linked, copied = agents / "linked", agents / "copied"
    for folder in (linked, copied, outside):
        folder.mkdir(parents=True)
    shutil.copy(SHIPPED / "whist.pt", outside / "whist.pt")
    for folder in (linked, copied):
        shutil.copy(SHIPPED / "whist.json", folder / "whist.json")
    (linked / "whist.pt").symlink_to(outside / "whist.pt")
    shutil.copy(SHIPPED / "whist.pt", copied / "whist.pt")
    with local(create_app(agents_dirs=[agents])) as c:
        r = c.post("/api/tables", json={"game": "whist", "opponents": f"baseline:{linked}"})
        assert r.status_code == 403 and str(tmp_path) not in r.text, r.text
        assert "only from the folders named by its --agents-dir" in r.json()["error"]
        (linked / "whist.pt").unlink()
        (linked / "whist.pt").symlink_to(copied / "whist.pt")          # a link that stays inside is fine
        assert c.post("/api/tables", json={"game": "whist", "opponents": f"baseline:{linked}"}).status_code == 201
        assert c.post("/api/tables", json={"game": "whist", "opponents": f"baseline:{copied}"}).status_code == 201


# ---------------------------------------------------------------- issue 48 item 6: the favicon
def test_the_page_has_an_icon(client):
    """`/favicon.ico` was a 404: a console error on every page load."""
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<svg")
    page = client.get("/").text
    assert '<link rel="icon" href="/static/favicon.svg"' in page
    linked = client.get("/static/favicon.svg")
    assert linked.status_code == 200 and linked.content == r.content


# ---------------------------------------------------------------- Low: header and body read timeouts
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def live_server():
    """vint-serve's app under uvicorn with 0.5 s read timeouts, on a free port of 127.0.0.1, in a thread."""
    import uvicorn

    from vint_env.serve.connections import timed_protocol
    port = _free_port()
    app = create_app(host="127.0.0.1", port=port)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            http=timed_protocol(header_seconds=0.5, body_seconds=0.5))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(30)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """The server closed ``sock`` (end of file or a reset) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_half_sent_requests_are_dropped_after_the_read_timeouts(live_server):
    """300 half-sent requests were still held open after 60 s; here 20 of each kind, at 0.5 s timeouts."""
    port = live_server
    host = f"Host: 127.0.0.1:{port}\r\n".encode()
    socks = []
    try:
        for i in range(20):                 # a request line and part of the headers, no end to them
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /api/games HTTP/1.1\r\n" + host + b"X-Slow: " + b"a" * i)
            socks.append(s)
        for i in range(20):                 # whole headers, part of a body
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"POST /api/tables HTTP/1.1\r\n" + host + b"Content-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n" + b'{"game": "whist"' [:i % 10 + 1])
            socks.append(s)
        time.sleep(1.0)
        started = time.monotonic()
        assert all(_closed_by_server(s, 20.0) for s in socks)
        assert time.monotonic() - started < 20
        # a whole request still gets its answer
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")
    finally:
        for s in socks:
            s.close()


def test_the_read_timeouts_are_checked():
    from vint_env.serve.connections import timed_protocol
    for bad in (0, -1, float("inf"), float("nan"), True, "5"):
        with pytest.raises(ValueError, match="must be a finite positive number of seconds"):
            timed_protocol(header_seconds=bad)
    assert timed_protocol(2, 3).body_seconds == 3.0
