"""Agent spec ``program:PATH``: a bot in any language, a program that plays over stdin and stdout.

The harness starts the program (``PATH``, an executable file, with the blank-separated ``args`` option as
its arguments; one process a seat, started at the seat's first deal) and talks to it in JSON lines,
protocol ``vint-env-bot/1`` (docs/bots.md): it sends ``hello`` (the game, its actions' names, the
observation's blocks) and waits for ``ready``; at each deal ``reset``; at each decision ``act`` with
the observation as named blocks and the legal actions, and reads back ``{"action": ID}``; at the end
``quit``.  The program writes its own messages to stderr (it is this process's stderr).

Each failure is its own error, raised from the decision it broke, after the program is killed:
:class:`BotTimeout` (no answer within ``time`` seconds, ``start`` for the greeting),
:class:`BotIllegalAction` (an action that is not legal now), :class:`BotProtocolError` (a line that is
not the protocol's) and :class:`BotCrashed` (the program ended).  A program is never left behind: it
runs in its own process group under a small guard (:mod:`~vint_env.agents.program_guard`, on Linux a
child subreaper), and the guard kills the program and every process below it, in its process session
or another, when the program ends, when its agent is closed or collected, or (Linux) when the process
that started it dies, however it dies.

`vint-serve` never runs this kind from a request: a web page must not choose programs to run.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import numpy as np

from .. import games
from ..games import Game
from .base import Agent, legal_actions
from .spec import AgentSpec, AgentSpecError

PROTOCOL = "vint-env-bot/1"
#: The kind's name in specs.
KIND = "program"
#: The longest line read from a program (a decision's answer is a few bytes).
MAX_LINE = 1 << 16
#: Seconds a program has to leave after ``quit`` before its group is killed (the match is over by then).
QUIT_GRACE = 0.2
#: Seconds the guard has to kill what the bot started after SIGTERM, before its group is killed outright.
GUARD_GRACE = 5.0

class BotError(RuntimeError):
    """An outside program that broke the protocol; the subclass says how."""


class BotTimeout(BotError):
    """The program did not answer in time."""


class BotIllegalAction(BotError):
    """The program answered an action that is not legal now."""


class BotProtocolError(BotError):
    """The program wrote a line that is not the protocol's (not JSON, not an object, no action ...)."""


class BotCrashed(BotError):
    """The program ended (or closed its output) while the harness waited for it."""


class BotSpecError(AgentSpecError):
    """A ``program:`` spec whose file is not there or cannot be run (the grammar's own errors, an option out
    of its declared range, are :class:`~vint_env.agents.spec.AgentSpecError` from the parser)."""


def make_program(record: Game, spec: AgentSpec, seed: int | None = None) -> "ProgramAgent":
    """The agent of a parsed ``program:`` spec (the factory its declaration in :mod:`~vint_env.agents.spec`
    names; the options ``time``, ``start`` and ``args`` are declared there)."""
    path = Path(spec.argument)
    if not path.is_file():
        raise BotSpecError(f"agent spec '{KIND}:{spec.argument}': no such file" if not path.exists()
                           else f"agent spec '{KIND}:{spec.argument}': not a file")
    if not os.access(path, os.X_OK):
        raise BotSpecError(f"agent spec '{KIND}:{spec.argument}': the file is not executable (chmod +x it, or run "
                           f"its interpreter: '{KIND}:/usr/bin/python3,args={spec.argument}')")
    command = [str(path.resolve())] + spec.declaration.option("args").words_of(spec.option("args"))
    return ProgramAgent(record, command, spec.option("time"), spec.option("start"))


def hello(record: Game) -> dict:
    """The first message to a program: the protocol, the game, its actions' names and observation blocks."""
    return {"type": "hello", "protocol": PROTOCOL, "game": record.name, "title": record.title,
            "format": record.format, "num_actions": record.num_actions,
            "actions": [record.action_name(a) for a in range(record.num_actions)],
            "blocks": [{"name": b.name, "shape": list(b.shape), "doc": b.description} for b in record.layout.blocks.values()]}


def observation_blocks(record: Game, vector) -> dict:
    """The observation as the game's named blocks, as nested lists (integers where every value is one)."""
    out = {}
    for name, block in record.layout.decode(np.asarray(vector)).items():
        out[name] = block.astype(np.int64).tolist() if np.all(block == np.round(block)) else block.tolist()
    return out


#: The guard that runs a bot in its own process group and kills that group if this process dies.
GUARD = Path(__file__).with_name("program_guard.py")


def _kill(proc: subprocess.Popen) -> None:
    """End the bot and everything it started, and reap the guard (a finalizer: never raises).

    SIGTERM to the guard first: it kills every process below it, those that left the process group
    (``setsid``) included (:mod:`~vint_env.agents.program_guard`); then SIGKILL to the process group,
    for whatever is left of it (a guard that did not answer, a system without ``/proc``)."""
    try:
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=GUARD_GRACE)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)      # the group outlives its leader while a member lives
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait(timeout=5)
    except Exception:  # noqa: BLE001 - at interpreter exit anything may be gone
        pass
    for stream in (proc.stdin, proc.stdout):
        try:
            stream.close()
        except Exception:  # noqa: BLE001
            pass


class ProgramAgent(Agent):
    """A seat played by an outside program (see the module docstring)."""

    name = KIND

    def __init__(self, game: Game | str, command: list[str], time_limit: float = 10.0, start_limit: float = 30.0):
        self.record = games.get(game)
        self.command = list(command)
        self.time_limit = float(time_limit)
        self.start_limit = float(start_limit)
        self.proc: subprocess.Popen | None = None
        self._buffer = b""
        self._line = b""             # the last line read, as the program wrote it (for messages)
        self._finalizer = None
        self.bot_name: str | None = None

    # ------------------------------------------------------------ the process
    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen([sys.executable, "-I", str(GUARD), str(os.getpid()), *self.command],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise BotCrashed(f"{self._who()}: could not start: {exc.strerror or exc}") from None
        self._finalizer = weakref.finalize(self, _kill, self.proc)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._buffer = b""
        self._send(hello(self.record))
        reply = self._receive(self.start_limit, "its answer to hello")
        if reply.get("type") != "ready":
            self._fail(BotProtocolError, f"answered hello with {_short(self._line)}, not {{\"type\": \"ready\"}}")
        name = reply.get("name")
        if name is not None and not isinstance(name, str):
            self._fail(BotProtocolError, f"answered hello with {_short(self._line)}: its name must be text")
        self.bot_name = (name or "")[:80] or None

    def _who(self) -> str:
        return f"bot {shlex.join(self.command)}" + (f" ({self.bot_name})" if self.bot_name else "")

    def _fail(self, kind: type[BotError], message: str):
        """Kill the program at once (it broke the protocol) and raise ``kind``."""
        who = self._who()
        if self.proc is not None:
            self.proc = None
            self._finalizer()
        raise kind(f"{who}: {message}")

    def _send(self, message: dict) -> None:
        try:
            self.proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._fail(BotCrashed, f"ended{self._exit_text()} (its input is closed)")

    def _exit_text(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        if code is None:
            try:
                code = self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                return ""
        return f" with exit code {code}" if code >= 0 else f", killed by signal {-code}"

    def _receive(self, limit: float, waiting_for: str) -> dict:
        """The program's next line, as a JSON object, within ``limit`` seconds (a line of at most
        :data:`MAX_LINE` bytes; anything else it writes is a :class:`BotProtocolError`)."""
        deadline = time.monotonic() + limit
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer[:MAX_LINE + 1]:
                if len(self._buffer) > MAX_LINE:
                    self._fail(BotProtocolError, f"wrote a line longer than {MAX_LINE} bytes for {waiting_for}")
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self._fail(BotTimeout, f"gave no answer within {limit:g} s ({waiting_for})")
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    self._fail(BotCrashed, f"ended{self._exit_text()} before {waiting_for}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        self._line = line
        message = parse_line(line)
        if isinstance(message, str):
            self._fail(BotProtocolError, f"wrote {_short(line)} for {waiting_for}: {message}")
        return message

    def close(self) -> None:
        """Ask the program to quit, then kill its process group (what is left of it after a moment)."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            try:
                proc.stdin.write(b'{"type":"quit"}\n')
                proc.stdin.close()
                proc.wait(timeout=QUIT_GRACE)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        if self._finalizer is not None:
            self._finalizer()            # kills the group if anything is left, reaps, closes the pipes

    # ------------------------------------------------------------ the agent
    def reset(self, seed: int | None = None) -> None:
        if self.proc is None:
            self._start()
        self._send({"type": "reset", "seed": seed})

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        if self.proc is None:
            self._start()
        legal = [int(a) for a in legal_actions(observation)]
        self._send({"type": "act", "player": agent,
                    "observation": observation_blocks(self.record, observation["observation"]), "legal": legal})
        reply = self._receive(self.time_limit, f"the action of {agent or 'its seat'}")
        action = reply.get("action")
        if isinstance(action, bool) or not isinstance(action, int):
            self._fail(BotProtocolError, f"answered {_short(self._line)}: expected {{\"action\": ID}} with an integer ID")
        if not 0 <= action < self.record.num_actions:
            self._fail(BotIllegalAction, f"answered action {_short(action)}, which is no action of {self.record.name} "
                                         f"(0 to {self.record.num_actions - 1}); legal now for {agent or 'its seat'}: "
                                         + " ".join(self.record.action_name(a) for a in legal))
        if action not in legal:
            self._fail(BotIllegalAction, f"answered action {action} ({self.record.action_name(action)}), which is "
                                         f"not legal now for {agent or 'its seat'}; legal: "
                                         + " ".join(self.record.action_name(a) for a in legal))
        return action


def parse_line(line: bytes) -> dict | str:
    """A line of the protocol as its JSON object, or what is wrong with it (text): not UTF-8, not JSON,
    not an object, or JSON that Python refuses to read (an integer of more than 4300 digits, brackets
    nested deeper than its recursion allows)."""
    try:
        message = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return "not a line of JSON (not UTF-8)"
    except json.JSONDecodeError:
        return "not a line of JSON"
    except (ValueError, RecursionError) as e:   # int digits over the limit; nesting too deep to parse
        return f"not a line of JSON this harness reads ({type(e).__name__}: {str(e).splitlines()[0][:80]})"
    if not isinstance(message, dict):
        return "not a JSON object"
    return message


def _short(value) -> str:
    """At most 80 characters of what a bot wrote (its raw line, or a value read from it), quoted."""
    if isinstance(value, bytes):
        text = value[:400].decode("utf-8", "replace")
    elif isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if value.bit_length() < 400 else f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    else:
        try:
            text = json.dumps(value)[:400]
        except (ValueError, RecursionError, TypeError):
            text = f"a {type(value).__name__}"
    return repr(text if len(text) <= 80 else text[:77] + "...")
