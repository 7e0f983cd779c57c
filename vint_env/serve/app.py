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
inside the server a 500 with the same shape and no traceback (that goes to the
server's log).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..evaluation.viewer import DOM_JS
from .tables import RequestError, TableRegistry, game_catalogue, one_torch_thread
from .view import deal_result

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("vint_env.serve")


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request):
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(400, f"the request body is not JSON: {exc}") from None


def create_app(idle_timeout: float = 1800.0, max_tables: int = 32, clock=None) -> Starlette:
    """The app; ``idle_timeout``: seconds after which an untouched table is dropped (``clock``: the
    registry's clock, default ``time.monotonic``)."""
    tables = TableRegistry(idle_timeout, max_tables, **({"clock": clock} if clock else {}))

    def locked(table, job):
        # (torch's thread count is per thread: set it in the thread the agents act in)
        one_torch_thread()
        with table.lock:
            return job(table)

    async def games(request: Request):
        return JSONResponse(game_catalogue())

    async def create(request: Request):
        body = await _body(request)
        table = await asyncio.to_thread(tables.create, body)
        return JSONResponse(await asyncio.to_thread(locked, table, lambda t: t.state()), status_code=201)

    async def state(request: Request):
        table = tables.get(request.path_params["table"])
        return JSONResponse(await asyncio.to_thread(locked, table, lambda t: t.state()))

    async def move(request: Request):
        table = tables.get(request.path_params["table"])
        body = await _body(request)

        def job(t):
            t.move(body)
            return t.state()
        return JSONResponse(await asyncio.to_thread(locked, table, job))

    async def next_deal(request: Request):
        table = tables.get(request.path_params["table"])

        def job(t):
            t.next()
            return t.state()
        return JSONResponse(await asyncio.to_thread(locked, table, job))

    async def deal(request: Request):
        table = tables.get(request.path_params["table"])
        text = request.path_params["number"]
        finished = table.driver.finished
        if not text.isdigit() or not 1 <= int(text) <= len(finished):
            raise RequestError(404, f"no finished deal {text!r} at this table; finished: {len(finished)}")
        return JSONResponse(await asyncio.to_thread(locked, table, lambda t: deal_result(t.driver, int(text) - 1)))

    async def viewer(request: Request):
        table = tables.get(request.path_params["table"])
        return HTMLResponse(await asyncio.to_thread(locked, table, lambda t: t.viewer()))

    async def leave(request: Request):
        tables.remove(request.path_params["table"])
        return JSONResponse({"left": request.path_params["table"]})

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def dom_js(request: Request):
        return Response(DOM_JS, media_type="text/javascript")

    async def request_error(request: Request, exc: RequestError):
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: HTTPException):
        message = {404: f"no such page or API route: {request.method} {request.url.path}",
                   405: f"{request.method} is not allowed on {request.url.path}"}.get(exc.status_code, exc.detail)
        return _error(exc.status_code, message)

    async def server_error(request: Request, exc: Exception):
        log.exception("error serving %s %s", request.method, request.url.path)
        return _error(500, f"internal error ({type(exc).__name__}): {exc}; the server's log has the details")

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
        Route("/static/dom.js", dom_js),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={RequestError: request_error, HTTPException: http_error,
                                        Exception: server_error})
    app.state.tables = tables
    return app

