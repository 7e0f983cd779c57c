"""The tables of one `vint-serve` process: created from a request, played move by move, cleaned up when idle.

Each table is a :class:`~vint_env.play.table.TableDriver` (one env, the
bots at the other seats) behind a lock; the registry drops a table nobody
has asked about for ``idle_timeout`` seconds, and refuses a new one beyond
``max_tables`` (a slot is reserved under the registry's lock before the
table is built, so concurrent requests cannot exceed it).  A table's bots
are the agents :class:`~vint_env.serve.agents.ServedAgents` allows, each
decision bounded in time; a table that is left or dropped is stopped, so
no bot acts for it afterwards.  Everything a request can get wrong is a
:class:`RequestError` with an HTTP status and a message naming it.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time

from .. import games
from ..agents.registry import load_agent
from ..agents.spec import AgentSpecError
from ..evaluation.match import BoardResult, MatchResult, TableResult
from ..evaluation.report import match_json, summarize
from ..evaluation.viewer import viewer_html
from ..games import TWO_PLAYER
from ..play.session import seat_number
from ..inputs import excerpt
from ..play.table import TableDriver, seat_bots
from .agents import ServedAgents, SpecRefused
from .view import deal_result, deal_view

CREATE_FIELDS = ("game", "seat", "partner", "opponents", "episode", "seed", "options")
#: The largest seed a table takes.
MAX_SEED = 2**63 - 1
#: Bits of the secret seed a table draws when the request gives none: the deals follow from the seed
#: (:func:`~vint_env.evaluation.deals.generate_board`), so it must be beyond guessing from one's own cards.
SECRET_SEED_BITS = 64
#: Env options a table sets itself (points as rewards, the person's view, the episode kind).
RESERVED_OPTIONS = ("reward_scale", "viewer", "render_mode", "episode")


class RequestError(Exception):
    """A request the server cannot follow: ``status`` (4xx) and a message saying why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _bad(message: str) -> RequestError:
    return RequestError(400, message)


def players_of(record) -> int:
    return 2 if record.format == TWO_PLAYER else 4


def seat_names(record) -> list[str]:
    """How a seat is named in requests: N E S W, or two-player Vint's player_0, player_1."""
    return [f"player_{p}" for p in range(2)] if record.format == TWO_PLAYER else list("NESW")


def parse_seat(record, value) -> int:
    """A seat of ``record``'s env from a request: 0..3 or N/E/S/W (two-player Vint: 0, 1, player_0, player_1)."""
    names = seat_names(record)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise _bad(f"seat must be one of {', '.join(names)} (or its number), got {excerpt(value)}")
    if isinstance(value, str) and value in names:
        return names.index(value)
    if record.format != TWO_PLAYER and isinstance(value, str):
        try:
            return seat_number(value)
        except ValueError as exc:
            raise _bad(str(exc)) from None
    if isinstance(value, int) and 0 <= value < len(names) or isinstance(value, str) and value in ("0", "1"):
        return int(value)
    raise _bad(f"{record.name}: seat must be one of {', '.join(names)} (or 0..{len(names) - 1}), got {excerpt(value)}")


def game_catalogue(served: ServedAgents | None = None) -> dict:
    """`GET /api/games`: every game with its seats and episode kinds, and the agent specs a request may name."""
    served = served or ServedAgents()
    return {"games": [{"name": g.name, "title": g.title, "format": g.format, "partnership": g.partnership,
                       "players": players_of(g), "seats": seat_names(g), "episodes": list(g.episodes),
                       "default_seat": seat_names(g)[0 if g.format == TWO_PLAYER else 2]}
                      for g in games.all_games()],
            "agents": served.kinds, "decision_seconds": served.decision_seconds}


class ServedTable:
    """One table: its driver, who sits where, and when it was last used."""

    def __init__(self, table_id: str, driver: TableDriver, partner: str | None, opponents: str,
                 seed_shown: bool = False):
        self.id = table_id
        self.driver = driver
        self.seed_shown = seed_shown        # the request gave the seed (a secret one is never sent)
        self.partner = partner
        self.opponents = opponents
        self.lock = threading.Lock()
        self.last_used = time.monotonic()

    # ------------------------------------------------------------------ state
    def state(self) -> dict:
        d = self.driver
        record = d.record
        me = d.seating.human
        status = "deal_over" if d.deal_ended else "your_turn" if d.human_to_move else "waiting"
        return {
            "id": self.id, "game": record.name, "title": record.title, "format": record.format,
            "episode": d.episode, "seed": self.shown_seed, "options": d.env_options,
            "seat": me, "seat_name": seat_names(record)[me],
            "labels": [d.seating.labels.get(p, "?") for p in range(players_of(record))],
            "episode_number": d.number, "status": status, "episode_over": d.over,
            "deal": None if d.deal_ended else deal_view(d),
            "result": deal_result(d, len(d.finished) - 1) if d.deal_ended and d.finished else None,
            "deals": [{"number": i + 1, "yours": deal.points[me], "points": deal.points,
                       "contract": deal.outcome.contract_name}
                      for i, deal in enumerate(d.finished)],
            "total": sum(deal.points[me] for deal in d.finished),
        }

    @property
    def shown_seed(self) -> int | None:
        """The seed as the page may see it: the one the request gave, else None (the deals of a drawn seed
        follow from it, hidden cards included: it stays on the server)."""
        return self.driver.seed if self.seed_shown else None

    # ------------------------------------------------------------------ moves
    def move(self, body) -> None:
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise _bad('a move is {"action": TEXT or ID}, e.g. {"action": "SA"} or {"action": "pass"}')
        d = self.driver
        record = d.record
        value = body["action"]
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise _bad(f"action must be a call or card text ('SA', 'pass') or an action id, got {excerpt(value)}")
        if isinstance(value, int):
            if not 0 <= value < record.num_actions:
                raise _bad(f"action id {value} is out of range 0..{record.num_actions - 1} for {record.name}")
            action = value
        else:
            try:
                action = int(record.parse_action(value.strip()))
            except (ValueError, KeyError):
                raise _bad(f"{excerpt(value)} names no call or card of {record.name}") from None
        if d.deal_ended:
            raise RequestError(409, f"the deal is over: POST /api/tables/{self.id}/next to go on")
        legal = d.legal()
        if not legal:
            raise RequestError(409, "it is not your turn")
        if action not in legal:
            raise RequestError(409, f"{record.action_name(action)} is not legal now; legal: "
                                    + ", ".join(record.action_text(a) for a in legal))
        d.play(action)

    def next(self) -> None:
        """After a deal: the next deal (of the rubber, or a new episode once this one is over)."""
        d = self.driver
        if not d.deal_ended:
            raise RequestError(409, "the deal is still being played: finish it first")
        d.advance()
        if d.over:
            d.start()

    # ------------------------------------------------------------------ the match viewer
    def match_record(self) -> dict:
        """The finished deals as a match record of :mod:`vint_env.evaluation.report` (one board each)."""
        d = self.driver
        if not d.finished:
            raise RequestError(404, "no deal of this table is finished yet")
        record, me = d.record, d.seating.human
        teams = ["A" if s == me or (record.partnership and s % 2 == me % 2) else "B"
                 for s in range(players_of(record))]
        boards = [BoardResult(i + 1, deal.points[me],
                              [TableResult(teams, list(deal.points), deal.outcome.details, [deal], deal.outcome)])
                  for i, deal in enumerate(d.finished)]
        you = "you" + (f" + {self.partner or 'rule'}" if record.partnership else "")
        match = MatchResult(record.name, you, self.opponents, d.episode, self.shown_seed, boards, 0.0, 0.0, 1,
                            dict(d.env_options))
        return match_json(match, summarize(match))

    def viewer(self) -> str:
        m = self.match_record()
        return viewer_html([m], f"{self.driver.record.title}: your table {self.id}")


class TableRegistry:
    """The tables of a server process (thread-safe)."""

    def __init__(self, idle_timeout: float = 1800.0, max_tables: int = 32, clock=time.monotonic,
                 served: ServedAgents | None = None):
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be positive seconds, got {idle_timeout!r}")
        if not isinstance(max_tables, int) or max_tables < 1:
            raise ValueError(f"max_tables must be a positive integer, got {max_tables!r}")
        self.idle_timeout = float(idle_timeout)
        self.max_tables = max_tables
        self.clock = clock                  # seconds; a test may pass its own
        self.served = served or ServedAgents()
        self._tables: dict[str, ServedTable] = {}
        self._reserved = 0                  # slots taken by tables being built
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def sweep(self) -> list[str]:
        """Drop the tables idle for longer than the timeout; their ids."""
        now = self.clock()
        with self._lock:
            gone = [k for k, t in self._tables.items() if now - t.last_used > self.idle_timeout]
            for k in gone:
                self._tables.pop(k).driver.stop()
        return gone

    def get(self, table_id: str) -> ServedTable:
        self.sweep()
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise RequestError(404, f"no table {excerpt(table_id, 40)} (it may have been cleaned up after "
                                    f"{self.idle_timeout:g} s idle): create one with POST /api/tables")
        table.last_used = self.clock()
        return table

    def remove(self, table_id: str) -> None:
        """Drop the table and stop its bots (a decision being made is their last)."""
        self.get(table_id)
        with self._lock:
            table = self._tables.pop(table_id, None)
        if table is not None:
            table.driver.stop()

    def stop_all(self) -> None:
        """Stop every table's bots (the server is shutting down)."""
        with self._lock:
            for table in self._tables.values():
                table.driver.stop()

    def create(self, body) -> ServedTable:
        self.sweep()
        with self._lock:                   # the slot is taken now, before the table is built
            if len(self._tables) + self._reserved >= self.max_tables:
                raise RequestError(503, f"this server already has {self.max_tables} tables (its --max-tables); "
                                        "leave one (DELETE /api/tables/ID) or wait for an idle one to be cleaned up")
            self._reserved += 1
        try:
            driver, partner, opponents = build_driver(body, self.served)
            table = ServedTable(secrets.token_hex(6), driver, partner, opponents,
                                seed_shown=isinstance(body, dict) and body.get("seed") is not None)
            table.last_used = self.clock()
            with self._lock:
                self._tables[table.id] = table
        finally:
            with self._lock:
                self._reserved -= 1
        return table


def build_driver(body, served: ServedAgents | None = None) -> tuple[TableDriver, str | None, str]:
    """A started :class:`TableDriver` from a `POST /api/tables` body, its agents those ``served`` allows
    (default: the built-in bots and the shipped baselines; RequestError naming what is wrong)."""
    served = served or ServedAgents()
    if not isinstance(body, dict):
        raise _bad('a table is a JSON object: {"game": "vint", "seat": "S", "partner": "rule", "opponents": "rule"}')
    unknown = sorted(set(body) - set(CREATE_FIELDS))
    if unknown:
        raise _bad(f"unknown field(s) {', '.join(unknown)}; a table takes {', '.join(CREATE_FIELDS)}")
    if "game" not in body:
        raise _bad(f"which game? 'game' is one of {', '.join(games.names())}")
    try:
        record = games.get(body["game"]) if isinstance(body["game"], str) else None
    except ValueError as exc:
        raise _bad(str(exc)) from None
    if record is None:
        raise _bad(f"game must be a name, one of {', '.join(games.names())}, got {excerpt(body['game'])}")
    seat = parse_seat(record, body.get("seat", 0 if record.format == TWO_PLAYER else 2))
    episode = body.get("episode", "deal")
    if episode not in record.episodes:
        raise _bad(f"{record.name}: episode must be one of {', '.join(record.episodes)}, got {excerpt(episode)}")
    seed = body.get("seed")
    if seed is None:                        # a secret: nothing the page receives may determine it
        seed = secrets.randbits(SECRET_SEED_BITS)
    elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise _bad(f"seed must be a non-negative integer (at most {MAX_SEED}), got {excerpt(seed)}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise _bad(f"options must be an object of env options (two-player Vint: {{\"way\": 1}}), got {excerpt(options)}")
    reserved = sorted(set(options) & set(RESERVED_OPTIONS))
    if reserved:
        raise _bad(f"option(s) {', '.join(reserved)} are set by the table itself")
    partner, opponents = body.get("partner"), body.get("opponents", "rule")
    for name, value in (("partner", partner), ("opponents", opponents)):
        if value is not None and not isinstance(value, str):
            raise _bad(f"{name} must be an agent spec string, got {excerpt(value)}")
    try:                                    # only what this server serves, its time per decision capped
        specs = [None if partner is None else served.check(partner), served.check(opponents)]
    except SpecRefused as exc:
        raise RequestError(403, str(exc)) from None
    except AgentSpecError as exc:
        raise _bad(str(exc)) from None
    try:
        seating = seat_bots(record, seat, specs[0], specs[1])
    except Exception as exc:                # a checkpoint refused, an extra missing, a game the bot does not play
        spec = next((s for s in specs if s is not None and s.paths()), specs[1])
        raise _bad(served.load_error(spec, exc)) from None
    try:
        driver = TableDriver(record, seating, episode=episode, seed=seed, env_options=options,
                             hint_agent=load_agent("rule", game=record))
    except TypeError as exc:                 # an option the env does not take
        raise _bad(f"{record.name}: bad env option: {exc}") from None
    except ValueError as exc:
        raise _bad(str(exc)) from None
    one_torch_thread()
    driver.start(1)
    return driver, None if specs[0] is None else str(specs[0]), str(specs[1])


def one_torch_thread() -> None:
    """Agents that run networks use one torch thread (when an agent has loaded torch at all).

    Torch keeps the count per thread: called in every thread that lets agents act."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)
