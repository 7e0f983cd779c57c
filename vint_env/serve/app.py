"""The `vint-serve` web app (Starlette): the page at ``/`` and its JSON API under ``/api/``.

==========================================  ==================================================
``GET /api/games``                          the games, their seats and episode kinds; the agent specs
``POST /api/tables``                        a new table: ``{game, seat, partner, opponents, episode,
                                            seed, options}`` -> its state (201)
``GET /api/tables/ID``                      the table as your seat sees it
``POST /api/tables/ID/moves``               your call or card: ``{"action": "SA"}`` (text or id)
``POST /api/tables/ID/next``                after a deal: the next one
``GET /api/tables/ID/deals/N``              finished deal N (1, 2, ...): hands, actions, scoring
``GET /api/tables/ID/viewer``               the finished deals in the match viewer (HTML; ``#board=N``)
``DELETE /api/tables/ID``                   leave the table
==========================================  ==================================================

A bad request gets a 4xx status and ``{"error": "what was wrong"}``; an error
inside the server a 500 with the same shape and no details (they go to the
server's log).  Every request passes :mod:`.guard` first (its Host and Origin,
a POST body's type, size and depth); the agents a table may seat are those
:class:`~vint_env.serve.agents.ServedAgents` allows, every decision bounded in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..evaluation.viewer import asset_text
from ..inputs import excerpt
from ..play.table import TableStopped
from .agents import ServedAgents
from .guard import MAX_BODY, Refused, allowed_hosts, check_content_type, check_host, check_origin, parse_body
from .tables import RequestError, TableRegistry, game_catalogue, one_torch_thread
from .view import deal_result
from .workers import Workers

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("vint_env.serve")


#: The longest error message an answer carries: messages quote what a request sent only in excerpts
#: (:func:`~vint_env.inputs.excerpt`), and every answer passes here, so no message echoes a request whole.
MAX_ERROR = 2000


def _error(status: int, message: str) -> JSONResponse:
    if len(message) > MAX_ERROR:
        message = message[:MAX_ERROR] + f"... ({len(message)} characters)"
    return JSONResponse({"error": message}, status_code=status)


#: Seconds a request waits for a table another request is playing before it is told the table is busy.
BUSY_WAIT = 30.0


async def _body(request: Request):
    """The JSON body of a POST: declared application/json, at most MAX_BODY bytes, nested at most
    MAX_DEPTH deep (guard.Refused otherwise, checked before the JSON is parsed)."""
    check_content_type(request.headers.get("content-type"))
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise Refused(413, f"the request body may be at most {MAX_BODY} bytes")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise Refused(413, f"the request body may be at most {MAX_BODY} bytes")
            chunks.append(chunk)
    except ClientDisconnect:        # the client went, or its body was late (the server's read timeout)
        raise Refused(408, "the request body did not arrive in time") from None
    return parse_body(b"".join(chunks))


class Guard:
    """ASGI middleware: every HTTP request's Host and Origin checked (:mod:`.guard`) before the app sees it."""

    def __init__(self, app, allowed: frozenset):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                check_host(headers.get("host"), self.allowed)
                check_origin(headers.get("origin"), self.allowed)
            except Refused as exc:
                await _error(exc.status, exc.message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(idle_timeout: float = 1800.0, max_tables: int = 32, clock=None, host: str = "127.0.0.1",
               port: int = 8000, agents_dirs=(), decision_seconds: float | None = None,
               allowed_host_names=()) -> Starlette:
    """The app, for a server listening on ``host``:``port`` (requests must be addressed to it: its Host
    and Origin are checked); ``idle_timeout``: seconds after which an untouched table is dropped
    (``clock``: the registry's clock, default ``time.monotonic``); ``agents_dirs``: the folders a request's
    checkpoints may come from; ``decision_seconds``: the time a bot's decision may take;
    ``allowed_host_names``: more names the server may be addressed by."""
    served = ServedAgents(agents_dirs, **({"decision_seconds": decision_seconds} if decision_seconds else {}))
    tables = TableRegistry(idle_timeout, max_tables, served=served, **({"clock": clock} if clock else {}))
    workers = Workers()                     # the tables' jobs: daemon threads, never waited for on shutdown

    def locked(table, job):
        # (torch's thread count is per thread: set it in the thread the agents act in)
        one_torch_thread()
        if not table.lock.acquire(timeout=BUSY_WAIT):
            raise RequestError(503, "the bots at this table are still playing: ask again in a moment")
        try:
            if table.driver.stopped:
                raise RequestError(410, f"table {table.id} was left or cleaned up")
            return job(table)
        except TableStopped:
            raise RequestError(410, f"table {table.id} was left or cleaned up while its bots played") from None
        finally:
            table.lock.release()

    async def games(request: Request):
        return JSONResponse(game_catalogue(served))

    async def create(request: Request):
        body = await _body(request)
        table = await workers.run(tables.create, body)
        return JSONResponse(await workers.run(locked, table, lambda t: t.state()), status_code=201)

    async def state(request: Request):
        table = tables.get(request.path_params["table"])
        return JSONResponse(await workers.run(locked, table, lambda t: t.state()))

    async def move(request: Request):
        table = tables.get(request.path_params["table"])
        body = await _body(request)

        def job(t):
            t.move(body)
            return t.state()
        return JSONResponse(await workers.run(locked, table, job))

    async def next_deal(request: Request):
        table = tables.get(request.path_params["table"])
        await _body(request)                # a POST like the others: JSON, bounded (its content is not used)

        def job(t):
            t.next()
            return t.state()
        return JSONResponse(await workers.run(locked, table, job))

    async def deal(request: Request):
        table = tables.get(request.path_params["table"])
        text = request.path_params["number"]
        finished = table.driver.finished
        if not (text.isascii() and text.isdigit() and len(text) <= 9) or not 1 <= int(text) <= len(finished):
            raise RequestError(404, f"no finished deal {excerpt(text, 20)} at this table; finished: {len(finished)}")
        return JSONResponse(await workers.run(locked, table, lambda t: deal_result(t.driver, int(text) - 1)))

    async def viewer(request: Request):
        table = tables.get(request.path_params["table"])
        return HTMLResponse(await workers.run(locked, table, lambda t: t.viewer()))

    async def leave(request: Request):
        tables.remove(request.path_params["table"])
        return JSONResponse({"left": request.path_params["table"]})

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request):        # what a browser asks for when a page names no icon
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def table_js(request: Request):      # the match viewer's drawing of cards, hands and tricks
        return Response(asset_text("table.js"), media_type="text/javascript")

    async def request_error(request: Request, exc: RequestError):
        return _error(exc.status, exc.message)

    async def refused(request: Request, exc: Refused):
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: HTTPException):
        path = excerpt(request.url.path, 80)
        message = {404: f"no such page or API route: {request.method} {path}",
                   405: f"{request.method} is not allowed on {path}"}.get(exc.status_code, exc.detail)
        return _error(exc.status_code, message)

    async def server_error(request: Request, exc: Exception):
        log.exception("error serving %s %s", request.method, request.url.path)
        return _error(500, "internal error; the server's log has the details")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async def sweeper():
            while True:
                await asyncio.sleep(min(60.0, tables.idle_timeout / 2))
                tables.sweep()
        task = asyncio.create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()
            tables.stop_all()           # shutting down: no bot starts another decision

    routes = [
        Route("/", index),
        Route("/api/games", games),
        Route("/api/tables", create, methods=["POST"]),
        Route("/api/tables/{table}", state, methods=["GET"]),
        Route("/api/tables/{table}", leave, methods=["DELETE"]),
        Route("/api/tables/{table}/moves", move, methods=["POST"]),
        Route("/api/tables/{table}/next", next_deal, methods=["POST"]),
        Route("/api/tables/{table}/deals/{number}", deal),
        Route("/api/tables/{table}/viewer", viewer),
        Route("/favicon.ico", favicon),
        Route("/static/table.js", table_js),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(Guard, allowed=allowed_hosts(host, port, allowed_host_names))],
                    exception_handlers={RequestError: request_error, Refused: refused, HTTPException: http_error,
                                        Exception: server_error})
    app.state.tables = tables
    app.state.served = served
    return app

