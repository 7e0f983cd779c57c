"""Duplicate matches between agents, played over processes.

Partnership games (Vint, Whist): each board is played at two tables, team A
at seats (0, 2) and team B at (1, 3), then the same deal and dealer with the
seats swapped; the board's score is A's points summed over both tables
(= A's points minus B's, since each table is zero-sum), so the luck of the
cards cancels.  Solo Whist: agent A sits at one seat against three copies of
B, rotated through the four seats; the board's score is A's points summed
over the four tables.

Every table is seeded from ``(match seed, board number, table)`` only, so a
match gives the same results whatever the number of worker processes.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import pickle
import signal
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import games
from ..agents.base import Agent
from ..agents.learned.threads import limit_torch_threads, torch_threads
from ..agents.spec import AgentSpec
from ..envs.playing import Decision, play_episode, start_episode
from ..games import PARTNERSHIP, TWO_PLAYER, DealOutcome, Game
from ..seeds import check_seed
from .deals import Board
from .players import Player, player
from .tables import make_env, reset_options, table_outcome
from .replay import DealReplay, TableRecorder


@dataclass
class TableResult:
    """One table: who sat where, points per seat, what its (last) deal came to and the game's details.

    ``outcome`` is the game's outcome type (:mod:`vint_env.games.outcome`) of the table's deal (in a rubber,
    its last deal): what the reports read.  ``details`` is what the results file holds for the table:
    the outcome's ``details``, then the per-board analysis (Vint's double-dummy par) and, in a rubber,
    the rubber's result.
    """

    seats: list[str]            # "A" / "B" per seat
    points: list[float]         # raw points per seat over the episode
    details: dict = field(default_factory=dict)
    replay: list[DealReplay] = field(default_factory=list)   # what happened, action by action
    outcome: DealOutcome | None = None
    #: the decisions each seat made and the seconds (wall) its agent took over them; empty where not measured
    decisions: list[int] = field(default_factory=list)
    think_seconds: list[float] = field(default_factory=list)

    def team_points(self, team: str) -> float:
        """Points of one seat of ``team`` (partners score alike); in Solo
        Whist the points of the single seat of A."""
        return next(p for s, p in zip(self.seats, self.points) if s == team)


@dataclass
class BoardResult:
    number: int
    score: float                 # A's points summed over the tables of this board
    tables: list[TableResult]


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from integers (order-sensitive, stable across runs)."""
    return int(np.random.SeedSequence([int(p) & 0xFFFFFFFF for p in parts]).generate_state(1)[0])


def seat_plans(fmt: str) -> list[list[str]]:
    """Team letter per seat for each table of a board."""
    if fmt == PARTNERSHIP:
        return [["A", "B", "A", "B"], ["B", "A", "B", "A"]]
    if fmt == TWO_PLAYER:
        return [["A", "B"], ["B", "A"]]
    return [["A" if s == k else "B" for s in range(4)] for k in range(4)]


@dataclass
class DecisionClock:
    """The decisions of each seat at a table and the wall seconds its agent's ``act`` took over them."""

    decisions: list[int] = field(default_factory=lambda: [0] * 4)
    seconds: list[float] = field(default_factory=lambda: [0.0] * 4)


def play_table(env, seat_agents: list[Agent], options: dict, env_seed: int,
               agent_seeds: list[int], recorder: TableRecorder | None = None,
               clock: DecisionClock | None = None) -> tuple[list[float], int]:
    """Play one episode (:func:`~vint_env.envs.playing.play_episode`); returns the points per seat (the sum
    of each agent's rewards: make the env with the reward scale that gives points) and the number of
    steps.  A ``recorder`` keeps every deal's actions for replays; a ``clock`` counts each seat's
    decisions and the time its agent took over them."""
    start_episode(env, seat_agents, env_seed, agent_seeds, options)
    raw = env.unwrapped

    def before(decision: Decision) -> None:
        if recorder is not None:
            recorder.before(raw)

    def after(decision: Decision) -> None:
        if clock is not None:
            clock.seconds[decision.seat] += decision.seconds
            clock.decisions[decision.seat] += 1
        if recorder is not None:
            recorder.after(raw, decision.seat, decision.action)

    played = play_episode(env, seat_agents, before=before, after=after)
    return played.points, played.decisions


class Table:
    """Agents and env of one worker, reused across the boards it plays."""

    def __init__(self, game: Game | str, player_a: Player | str | Agent, player_b: Player | str | Agent,
                 episode: str = "deal", analysis: bool = True, env_options: dict | None = None):
        """``player_a``/``player_b``: :class:`Player` (what :func:`run_match` hands its workers), or a spec or an
        ``Agent`` object, made a ``Player`` here as :func:`run_match` does."""
        self.record = record = games.get(game)
        player_a, player_b = (p if isinstance(p, Player) else player(p, record, side)
                              for p, side in ((player_a, "agent_a"), (player_b, "agent_b")))
        self.game = record.name
        self.episode = episode
        self.env = make_env(record, episode, **(env_options or {}))
        # one agent object per seat and team (rule bots keep per-deal memory)
        self.agents = {team: [p.seat_agent(record) for _ in range(4)]
                       for team, p in (("A", player_a), ("B", player_b))}
        self.extra = _extra_metrics(record) if analysis else None

    def close(self) -> None:
        """Close every agent (an outside program's process ends with it)."""
        for agents in self.agents.values():
            for agent in agents:
                agent.close()

    def play_board(self, board: Board, seed: int) -> BoardResult:
        tables = []
        options = reset_options(self.record, board)
        for t, plan in enumerate(seat_plans(self.record.format)):
            seat_agents = [self.agents[team][seat] for seat, team in enumerate(plan)]
            env_seed = derive_seed(seed, board.number, 0)     # same at every table: duplicate
            agent_seeds = [derive_seed(seed, board.number, t + 1, seat) for seat in range(4)]
            recorder = TableRecorder(self.record)
            clock = DecisionClock()
            points, _ = play_table(self.env, seat_agents, dict(options), env_seed, agent_seeds, recorder, clock)
            seats = len(plan)
            outcome = table_outcome(self.record, self.env.unwrapped)
            details = outcome.details
            if self.episode == "rubber":
                details.update(_rubber_details(self.env.unwrapped))
            tables.append(TableResult(plan, points, details, recorder.deals, outcome,
                                      clock.decisions[:seats], clock.seconds[:seats]))
        if self.extra is not None and self.episode == "deal":
            self.extra(board, tables)
        score = sum(t.team_points("A") for t in tables)
        return BoardResult(board.number, score, tables)


def _rubber_details(raw) -> dict:
    if raw.rubber is None:        # called in rubber episodes only; every partnership env has these
        return {}
    sheet = raw.rubber.sheet
    return {"rubber_over": bool(sheet.is_over), "rubber_winner": sheet.winner,
            "deals_played": int(raw.deals_played)}


def _extra_metrics(record: Game):
    """Per-board analysis added to the tables (the game record's ``analysis``: Vint's double-dummy par)."""
    try:
        return record.analysis_function()
    except ImportError:        # endplay missing: reports leave the double-dummy columns out
        return None


# ------------------------------------------------------------------ workers

def _worker_main(conn, threads: int) -> None:
    """A match worker: play the chunks it is sent (a job, or None to stop) and send back each result,
    or the exception that stopped it.  SIGINT is ignored from the first instruction: a Ctrl-C reaches
    the whole process group, and the parent alone handles it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_torch_threads(threads)
    try:
        while (job := conn.recv()) is not None:
            try:
                reply = ("ok", _play_chunk(job))
            except Exception as exc:  # noqa: BLE001 - the parent raises it, with the worker's traceback
                reply = ("error", _picklable(exc, traceback.format_exc()))
            conn.send(reply)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):     # the parent has gone
        pass
    finally:
        _close_tables()


def _picklable(exc: BaseException, trace: str) -> BaseException:
    """``exc`` if it survives pickling, else a RuntimeError that says what it was; the worker's traceback
    rides along as its ``__cause__`` (as ``multiprocessing.Pool`` does)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure to pickle
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    exc.worker_traceback = trace
    return exc


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a match worker (shown as the cause of the one raised here)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class WorkerError(RuntimeError):
    """A match worker process died (killed, out of memory) instead of answering."""


def _play_over_workers(jobs: list, workers: int, threads: int):
    """Yield ``_play_chunk(job)`` of every job, in the order they finish, from ``workers`` spawned processes.

    One pipe a worker and nothing shared: when the caller stops (Ctrl-C, an error, a worker's exception),
    the workers are killed and joined at once.  ``multiprocessing.Pool`` is not used: after a Ctrl-C its
    ``terminate`` hung about once in 200 stops on a loaded machine (it joins handler threads that
    share queue locks with the workers it kills); 160 stops of this one under the same load all
    ended within a second."""
    ctx = mp.get_context("spawn")
    procs, conns = [], []
    main = threading.current_thread() is threading.main_thread()
    # the parent ignores SIGINT while it starts them (an ignored signal stays ignored in a new process)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        for _ in range(min(workers, len(jobs))):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(theirs, threads), daemon=True)
            proc.start()
            theirs.close()
            procs.append(proc)
            conns.append(ours)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    finished = False
    try:
        todo = iter(jobs)
        busy = {}
        for conn, proc in zip(conns, procs):
            job = next(todo)
            conn.send(job)
            busy[conn] = proc
        while busy:
            for conn in mp_connection.wait(list(busy)):
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    proc = busy[conn]
                    proc.join(timeout=5)
                    raise WorkerError(f"a match worker (pid {proc.pid}) died with exit code {proc.exitcode}") \
                        from None
                if kind == "error":
                    raise payload from RemoteTraceback(payload.worker_traceback)
                job = next(todo, None)
                if job is None:
                    conn.send(None)
                    del busy[conn]
                else:
                    conn.send(job)
                yield payload
        finished = True
    finally:
        for proc in procs:
            if not finished:
                proc.kill()
            proc.join(timeout=None if not finished else 30)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in conns:
            conn.close()


def _played_chunks(jobs: list, workers: int, threads: int):
    """Yield ``_play_chunk(job)`` of every job: in this process, in order, with one worker; else from
    ``workers`` processes (:func:`_play_over_workers`), in the order they finish."""
    if workers > 1:
        yield from _play_over_workers(jobs, workers, threads)
        return
    _close_tables()        # a new match loads its agents afresh: a checkpoint may have changed since the last one
    try:
        for job in jobs:
            yield _play_chunk(job)
    finally:
        _close_tables()    # the agents played here: outside programs end with the match


_WORKER_TABLE: dict = {}


def _play_chunk(args) -> tuple[list[BoardResult], float, tuple[int, int | None]]:
    """Play some boards; returns their results, the CPU seconds and (process id, torch threads)."""
    game, player_a, player_b, episode, analysis, boards, seed, env_options = args
    key = (game, player_a, player_b, episode, analysis, env_options)
    table = _WORKER_TABLE.get(key)
    if table is None:
        _close_tables()
        table = _WORKER_TABLE[key] = Table(game, player_a, player_b, episode, analysis, dict(env_options))
    cpu0 = time.process_time()
    try:
        results = [table.play_board(b, seed) for b in boards]
    except BaseException:
        _close_tables()               # an agent's error or a Ctrl-C: no outside program outlives the match
        raise
    return results, time.process_time() - cpu0, (os.getpid(), torch_threads())


def _close_tables() -> None:
    """Close and forget this process's tables."""
    while _WORKER_TABLE:
        _, table = _WORKER_TABLE.popitem()
        table.close()


@dataclass
class MatchResult:
    game: str
    agent_a: str
    agent_b: str
    episode: str
    seed: int
    boards: list[BoardResult]
    seconds: float
    cpu_seconds: float
    workers: int
    env_options: dict = field(default_factory=dict)
    #: torch's threads in each process that played boards (process id -> threads; None: torch not loaded)
    torch_threads: dict = field(default_factory=dict)

    @property
    def scores(self) -> list[float]:
        return [b.score for b in self.boards]

    @property
    def record(self) -> Game:
        """The game's record (``game`` is its name, as the results file writes it)."""
        return games.get(self.game)


def run_match(game: Game | str, agent_a: str | AgentSpec | Agent, agent_b: str | AgentSpec | Agent, boards: list[Board],
              seed: int = 0,
              workers: int = 1, episode: str = "deal", progress: bool = False,
              chunk_size: int | None = None, analysis: bool = True,
              env_options: dict | None = None, threads: int = 1,
              on_chunk: Callable[[list[BoardResult], float], None] | None = None) -> MatchResult:
    """Play ``agent_a`` against ``agent_b`` in duplicate on ``boards`` of ``game`` (its record, or its name or env
    name: the result's ``game`` is then that string).  Each side is an agent spec (text or parsed) or an
    :class:`~vint_env.agents.base.Agent` object held in memory (e.g. a trained network,
    :meth:`PPOAgent.from_network <vint_env.agents.learned.policy.PPOAgent.from_network>`); each seat gets its
    own copy of an object, pickled once here (:mod:`~vint_env.evaluation.players`).  The result names a spec
    by its text (:class:`~vint_env.agents.spec.AgentSpec`, options in their declared order), an object by its
    ``name``.  A side that is neither, or an object of another game, is an
    :class:`~vint_env.evaluation.players.AgentObjectError`.

    ``workers > 1`` splits the boards over processes (started with
    ``spawn``, so a script that calls this with workers must guard its entry
    point with ``if __name__ == "__main__":``); the results are the same as
    with one process.  ``analysis=False`` skips the per-board
    double-dummy analysis (Vint par, declarer play), the slow part of a
    match between fast agents.  ``env_options``: further options of the
    game's env (two-player Vint: ``{"way": 1}``).  ``threads``: torch threads of each worker
    process (default 1, the fastest for these networks); with one worker the boards are played
    in this process, whose threads are the caller's (``vint-eval --threads`` sets them).
    ``on_chunk(results, cpu_seconds)`` is called in this process with each chunk of boards as it
    finishes (in the order they finish), e.g. to log them (:mod:`~vint_env.evaluation.board_log`).
    """
    record = games.get(game)
    game = game if isinstance(game, str) else record.name
    check_seed(seed, allow_none=False)
    if episode not in record.episodes:
        raise ValueError(f"{game}: episode must be one of {record.episodes}, got {episode!r}")
    if not boards:
        raise ValueError("no boards to play")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    # Fail early, in this process, on a bad spec (e.g. a missing checkpoint) or agent object; the workers
    # get each side as a spec's text or an object's pickle (both pickle anywhere)
    players = player(agent_a, record, "agent_a"), player(agent_b, record, "agent_b")
    agent_a, agent_b = (p.label for p in players)
    if any(p.kind == "human" for p in players):
        if workers > 1:
            raise ValueError("the human agent answers at this terminal, which worker processes cannot read: "
                             "pass --workers 1, or play with `vint-play`")
        progress = False          # a progress bar would break the table the person reads
    env_options = dict(env_options or {})
    make_env(record, episode, **env_options)        # a bad option fails here, with the env's message
    frozen_options = tuple(sorted(env_options.items()))
    size = chunk_size or max(1, min(25, len(boards) // (workers * 4) or 1))
    chunks = [boards[i:i + size] for i in range(0, len(boards), size)]
    # the game travels to the workers by name (a string pickles anywhere; each worker resolves it once)
    jobs = [(record.name, *players, episode, analysis, chunk, seed, frozen_options) for chunk in chunks]
    bar = _progress_bar(len(boards), f"{agent_a} vs {agent_b} ({game})", progress)
    start = time.perf_counter()
    results: list[BoardResult] = []
    cpu = 0.0
    threads_seen: dict = {}
    try:
        with contextlib.closing(_played_chunks(jobs, workers, threads)) as finished_chunks:
            for res, c, (pid, n) in finished_chunks:
                if on_chunk is not None:
                    on_chunk(res, c)
                results.extend(res)
                cpu += c
                threads_seen[pid] = n
                bar.update(len(res))
    finally:
        bar.close()
    results.sort(key=lambda r: r.number)
    return MatchResult(game, agent_a, agent_b, episode, seed, results,
                       time.perf_counter() - start, cpu, workers, env_options, threads_seen)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="board", dynamic_ncols=True)


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
