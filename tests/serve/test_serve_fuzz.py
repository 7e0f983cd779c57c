"""Fuzzing `vint-serve` (issue 31, "Also"): every endpoint with what a hostile page or script may send.

The contract, for any request: a 2xx the API documents, or a 4xx with ``{"error": TEXT}`` (bounded text),
never a 500, never a hang, and a refused request changes nothing.  No request makes the server import a
module or open a file outside the folders it was given (an audit hook watches every import and open of
the process while the requests are served).  Bounded in count and time for the default run; ``-m slow``
runs the heavier variants.
"""

from __future__ import annotations

import gc
import json
import re
import sys
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette", reason="vint-serve needs the serve extra: pip install 'vint-env[serve]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the test extra)")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from serve_helpers import replay_points  # noqa: E402
from vint_env import games  # noqa: E402
from vint_env.agents.spec import KINDS  # noqa: E402
from vint_env.serve.app import create_app  # noqa: E402

ORIGIN = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
HEAVY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])


def local(app) -> TestClient:
    return TestClient(app, base_url=ORIGIN, raise_server_exceptions=False)


@pytest.fixture(scope="module")
def app_and_client():
    app = create_app(max_tables=200, decision_seconds=0.5)
    with local(app) as c:
        yield app, c


@pytest.fixture
def client(app_and_client):
    return app_and_client[1]


@pytest.fixture
def table(client):
    state = client.post("/api/tables", json={"game": "whist", "seed": 7}).json()
    yield state
    client.delete(f"/api/tables/{state['id']}")


def _refused_cleanly(r, allowed=(400, 403, 404, 405, 409, 410, 413, 415)):
    assert r.status_code in allowed, (r.status_code, r.text[:300])
    assert isinstance(r.json()["error"], str) and 0 < len(r.text) < 2000


# ---------------------------------------------------------------- what a body may hold
_scalar = st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(max_size=20)
_json = st.recursive(_scalar, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                                       max_size=4), max_leaves=12)
_specs = st.sampled_from([f"{k.name}" for k in KINDS.values()] + [
    "py:os:system", " py:this:x", "\tpy:json:dumps", "human", "openspiel:ismcts", "network:/etc/passwd", "network:/dev/zero",
    "bidder:/dev/zero,cards=rule", "baseline:/", "residual:/tmp", "pimc:samples=1000000", "pimc:time=1e308",
    "pimc:samples=2,samples=3", "pimc:seed=-1", "pimc:samples=1", "random", "rule", "dd:x", ""]) | st.text(max_size=30)
_raw_bodies = st.one_of(
    _json.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 3000).map(lambda n: b'{"a":' * n + b"0" + b"}" * n),
    st.sampled_from([b"{", b"[1,", b'{"game": NaN}', b'{"game": Infinity}', b"\xff\xfe", b"null", b'"x"', b"1e999",
                     b'{"game": "whist", "seed": 1e999}', b" " * 20000, b"x" * 20000]),
)
_content_types = st.sampled_from(["application/json", "application/json; charset=utf-8", "APPLICATION/JSON",
                                  "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", "", "application/jsonx"])


@FUZZ
@given(body=st.fixed_dictionaries({}, optional={
    "game": st.sampled_from(list(games.names()) + ["chess"]) | _json,
    "seat": st.sampled_from(["N", "S", "player_0", "0", 1, 9]) | _json,
    "partner": _specs | _json, "opponents": _specs | _json,
    "episode": st.sampled_from(["deal", "rubber"]) | _json, "seed": st.integers(-3, 2**70) | _json,
    "options": st.dictionaries(st.sampled_from(["way", "game_bonus", "viewer", "x"]), _json, max_size=2) | _json,
    "extra": _json}))
def test_create_takes_any_object_and_answers_201_or_a_named_4xx(client, body):
    before = len(client.app.state.tables)
    r = client.post("/api/tables", json=body)
    if r.status_code == 201:
        assert r.json()["status"] in ("your_turn", "deal_over")
        client.delete(f"/api/tables/{r.json()['id']}")
    else:
        _refused_cleanly(r)
        assert len(client.app.state.tables) == before


@FUZZ
@given(raw=_raw_bodies, content_type=_content_types,
       path=st.sampled_from(["/api/tables", "/api/tables/{id}/moves", "/api/tables/{id}/next"]))
def test_every_post_takes_any_bytes_and_any_type(client, table, raw, content_type, path):
    before = len(client.app.state.tables)
    r = client.post(path.format(id=table["id"]), content=raw, headers={"content-type": content_type})
    if r.status_code < 300:                                      # a well-formed request that happens to be right
        assert content_type.split(";")[0].strip().lower() == "application/json"
    else:
        _refused_cleanly(r, (400, 403, 404, 409, 413, 415))
    if path == "/api/tables" and r.status_code == 201:
        client.delete(f"/api/tables/{r.json()['id']}")
    assert len(client.app.state.tables) == before
    assert client.get(f"/api/tables/{table['id']}").status_code == 200      # the table is still there


@FUZZ
@given(host=st.sampled_from(["evil.example:8000", "127.0.0.1:8001", "localhost", "127.0.0.1:8000.evil", "", "[::2]:8000",
                             "127.0.0.1:08000", "LOCALHOST:8000", "localhost:\u00b2", "127.0.0.1:\u00b9\u00b2",
                             "localhost:8000\u00a0"]) | st.text(max_size=30)
       | st.text(st.characters(max_codepoint=255), max_size=30),
       origin=st.none() | st.sampled_from(["http://evil.example", "null", "https://127.0.0.1:8000",
                                           "http://127.0.0.1:8000", "http://localhost:8000", "file://",
                                           "http://localhost:\u00b2", "http://127.0.0.1:8000\u00a0"])
       | st.text(st.characters(max_codepoint=255), max_size=30).map(lambda t: "http://" + t),
       method=st.sampled_from(["GET", "POST", "DELETE"]),
       path=st.sampled_from(["/", "/api/games", "/api/tables", "/api/tables/{id}", "/api/tables/{id}/moves",
                             "/static/app.js"]))
def test_requests_for_another_host_or_from_another_page_are_refused(client, table, host, origin, method, path):
    # sent as bytes, as a hostile client sends them (the server reads headers as latin-1: "²" is 0xB2)
    def raw(text):
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            return text.encode("utf-8")
    headers = {**JSON, "host": raw(host)}
    if origin is not None:
        headers["origin"] = raw(origin)
    from vint_env.serve.guard import allowed_hosts, split_host
    def ours(text):
        try:
            return text.isascii() and split_host(text, 80) in allowed_hosts("127.0.0.1", 8000)
        except Exception:
            return False
    host_ok = ours(host)
    origin_ok = origin is None or origin.strip().lower().startswith("http://") and ours(origin.strip()[7:])
    url = path.format(id=table["id"])
    try:
        r = client.request(method, url, headers=headers, content=b'{"action": "pass"}' if method == "POST" else None)
    except Exception:               # a Host the HTTP client itself will not send
        return
    if host_ok and origin_ok:
        assert r.status_code != 403 or "addressed to" not in r.text
    else:
        assert r.status_code == 403, (host, origin, r.status_code)
    assert client.get(f"/api/tables/{table['id']}").status_code in (200, 404)


@FUZZ
@given(table_id=st.text(max_size=40) | st.sampled_from(["", "x" * 3000, "..", "%2e%2e", "0" * 12]),
       number=st.text(max_size=12) | st.sampled_from(["9" * 5000, "1", "0", "-1"]),
       suffix=st.sampled_from(["", "/moves", "/next", "/deals/{n}", "/viewer"]))
def test_unknown_ids_and_odd_path_parts_are_404(client, table_id, number, suffix):
    from urllib.parse import quote
    url = "/api/tables/" + quote(table_id, safe="") + suffix.format(n=quote(number, safe=""))
    for method in ("GET", "POST", "DELETE"):
        r = client.request(method, url, headers=JSON, content=b"{}" if method == "POST" else None)
        _refused_cleanly(r, (400, 404, 405))


def test_concurrent_moves_on_one_table_play_one_legal_deal(client):
    """Eight clients clicking at once: each move is played or refused as a whole, and the deal the table
    finishes replays through the env alone to the same points."""
    state = client.post("/api/tables", json={"game": "whist", "seed": 11, "opponents": "random"}).json()
    tid = state["id"]

    def clicker(k):
        codes = []
        for _ in range(40):
            now = client.get(f"/api/tables/{tid}").json()
            if now["status"] != "your_turn":
                break
            legal = now["deal"]["legal"]
            codes.append(client.post(f"/api/tables/{tid}/moves", json={"action": legal[k % len(legal)]["text"]})
                         .status_code)
        return codes

    with ThreadPoolExecutor(8) as pool:
        codes = [c for cs in pool.map(clicker, range(8)) for c in cs]
    assert set(codes) <= {200, 409} and 200 in codes
    final = client.get(f"/api/tables/{tid}").json()
    assert final["status"] == "deal_over"
    points, _ = replay_points("whist", 11, 1, final["result"]["actions"])
    assert final["result"]["points"] == pytest.approx(points)
    client.delete(f"/api/tables/{tid}")


def _loops(client, n, leak=None):
    for i in range(n):
        state = client.post("/api/tables", json={"game": ("solo_whist", "vint2p", "vint", "whist")[i % 4],
                                                 "seed": i, "opponents": "random"}).json()
        if state["status"] == "your_turn":
            client.post(f"/api/tables/{state['id']}/moves", json={"action": state["deal"]["legal"][0]["text"]})
        if leak is not None:                    # what a leak would keep: the table's driver
            leak.append(client.app.state.tables.get(state["id"]).driver)
        assert client.delete(f"/api/tables/{state['id']}").status_code == 200


def _growth(client, loops, leak=None) -> int:
    """Bytes still allocated after ``loops`` tables were made, played a move and left."""
    _loops(client, 4)                           # warm up: imports, caches
    gc.collect()
    tracemalloc.start()
    try:
        _loops(client, 4)
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        _loops(client, loops, leak)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("loops, bound", [pytest.param(8, 250_000, id="8"),
                                          pytest.param(200, 1_000_000, id="200", marks=pytest.mark.slow)])
def test_create_and_delete_loops_keep_the_memory_flat(client, loops, bound):
    grown = _growth(client, loops)
    assert len(client.app.state.tables) == 0
    assert grown < bound, f"{grown} bytes kept after {loops} tables were made and left"


@pytest.mark.slow
def test_the_memory_check_sees_a_leak(client):
    """The bound above is tight enough to see tables kept after they are left."""
    assert _growth(client, 8, leak=[]) > 250_000


# ---------------------------------------------------------------- no import, no file outside the agent folders
_WATCH = {"active": False, "opened": [], "imported": [], "forbidden": (), "modules": ()}


def _audit(event, args):
    if not _WATCH["active"]:
        return
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        path = args[0].decode(errors="replace") if isinstance(args[0], bytes) else args[0]
        if any(path.startswith(f) for f in _WATCH["forbidden"]):
            _WATCH["opened"].append(path)
    elif event == "import" and args and args[0] in _WATCH["modules"]:
        _WATCH["imported"].append(args[0])


sys.addaudithook(_audit)        # (an audit hook stays for the process: it acts only while a test sets it active)


@pytest.fixture
def watched(tmp_path, monkeypatch):
    """A folder of checkpoints the server was not given, a module a request might name, and the watch."""
    import shutil
    from vint_env.baselines import DIR
    secret = tmp_path / "secret"
    secret.mkdir()
    for name in ("whist.pt", "whist.json"):
        shutil.copy(DIR / name, secret / name)
    (secret / "bidder.pt").write_bytes(b"x")
    code = tmp_path / "code"
    code.mkdir()
    (code / "vint_fuzz_payload.py").write_text("raise SystemExit('imported')\n")
    monkeypatch.syspath_prepend(str(code))
    agents = tmp_path / "agents"
    agents.mkdir()
    _WATCH.update(opened=[], imported=[], forbidden=(str(secret), str(code)), modules=("vint_fuzz_payload", "this",
                                                                                       "antigravity"))
    yield secret, agents
    _WATCH["active"] = False


def _hostile_spec(secret):
    paths = [str(secret), str(secret / "whist.pt"), str(secret / "bidder.pt"), f"{secret}/../secret/whist.pt",
             str(secret / "missing.pt")]
    kinds_with_paths = [k.name for k in KINDS.values() if k.argument is not None and k.argument.path]
    return st.one_of(
        st.tuples(st.sampled_from(kinds_with_paths), st.sampled_from(paths), st.sampled_from(["", ",cards=rule"]))
        .map(lambda t: f"{t[0]}:{t[1]}{t[2]}"),
        st.tuples(st.sampled_from(["", " ", "\t", "\n", "  \t"]),
                  st.sampled_from(["vint_fuzz_payload:make", "this:x", "antigravity:x", "os:system"]))
        .map(lambda t: f"{t[0]}py:{t[1]}"),
        st.sampled_from([f"{k.name}:{p}" for k in KINDS.values() for p in paths[:2]]))


@pytest.mark.parametrize("heavy", [pytest.param(False, id="default"), pytest.param(True, id="heavy",
                                                                                   marks=pytest.mark.slow)])
def test_no_request_imports_a_module_or_opens_a_file_outside_the_agent_folders(watched, heavy):
    secret, agents = watched
    app = create_app(agents_dirs=[agents], decision_seconds=0.5)

    @(HEAVY if heavy else FUZZ)
    @given(spec=_hostile_spec(secret), field=st.sampled_from(["opponents", "partner"]),
           game=st.sampled_from(list(games.names())))
    def check(client, spec, field, game):
        _WATCH["active"] = True
        try:
            r = client.post("/api/tables", json={"game": game, field: spec})
        finally:
            _WATCH["active"] = False
        assert r.status_code in (400, 403), (spec, r.text)
        said = re.sub(r"'[^']*'", "", r.json()["error"])        # what it says besides quoting the request
        assert str(secret) not in said and "exist" not in said and "corrupt" not in said
        assert not _WATCH["opened"] and not _WATCH["imported"], (spec, _WATCH)

    with local(app) as client:
        check(client)
    assert "vint_fuzz_payload" not in sys.modules and len(app.state.tables) == 0
