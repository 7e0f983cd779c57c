"""The agents a `vint-serve` request may name: an allow-list read from the kinds' declarations.

Any web page the person opens can send requests to a server on 127.0.0.1, so a request is trusted
with nothing but what the page offers anyway:

- only the kinds declared ``web`` in :mod:`vint_env.agents.spec` (the built-in bots and the shipped
  baselines; never ``py:`` or a kind that runs an outside program, never ``human``, never a kind
  whose decisions have no time limit);
- a file or folder a spec names (``network:PATH``, ``bidder:PATH``, ``baseline:DIR``, and any kind
  declared later with a path) only inside the folders named on the command line with
  ``--agents-dir``, after resolving links; for a folder, every entry in it too (the files an agent
  reads from a folder, ``DIR/whist.pt``, may be links: each must resolve inside those folders);
  without ``--agents-dir`` no path at all;
- the option a kind declares as its time per decision (``pimc``'s and ``search``'s ``time``) set to at
  most the server's ``--decision-seconds``, so every decision of every bot is bounded (the kind's agent
  keeps its whole decision to it: ``search`` weighs its candidates within it too);
- no option above the ``web_maximum`` its kind declares (``search``'s ``candidates``): a web table
  bounds the work and the memory a request can set a bot, whatever its time;
- errors that never say whether a file exists or where: the request learns that a spec was refused
  or could not be loaded, the server's log why.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ..agents.spec import KINDS, AgentSpec, AgentSpecError, parse_spec

log = logging.getLogger("vint_env.serve")

#: Seconds a bot's decision may take at a served table, by default.
DEFAULT_DECISION_SECONDS = 5.0
#: The most entries a folder a spec names may hold (each is checked to resolve inside the agent folders).
MAX_FOLDER_ENTRIES = 10_000


class SpecRefused(ValueError):
    """A spec a request may not name (its kind is not served, or a path outside the agent folders)."""


class ServedAgents:
    """What a request may ask for (see the module docstring): ``folders`` the user's checkpoint folders
    (``--agents-dir``), ``decision_seconds`` the time a bot's decision may take."""

    def __init__(self, folders=(), decision_seconds: float = DEFAULT_DECISION_SECONDS):
        if not decision_seconds > 0 or decision_seconds == float("inf"):
            raise ValueError(f"decision_seconds must be a finite positive number, got {decision_seconds!r}")
        self.folders = tuple(Path(os.path.realpath(f)) for f in folders)
        for folder in self.folders:
            if not folder.is_dir():
                raise ValueError(f"--agents-dir {folder}: not a folder")
        self.decision_seconds = float(decision_seconds)

    @property
    def kinds(self) -> list[str]:
        """How each served kind is written (``GET /api/games``)."""
        return [k.usage() for k in KINDS.values() if k.web]

    def _inside(self, path: Path) -> bool:
        real = Path(os.path.realpath(path))
        return any(real == folder or folder in real.parents for folder in self.folders)

    def _contained(self, path: Path, what: str) -> bool:
        """``path`` resolves inside the agent folders and, for a folder, so does every entry in it (links
        resolved: an agent opens ``DIR/<game>.pt`` by name, whatever it points to)."""
        if not self._inside(path):
            return False
        if what != "folder" or not os.path.isdir(path):
            return True                     # (a file that is missing fails to load, saying nothing of where)
        try:
            with os.scandir(path) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_FOLDER_ENTRIES or not self._inside(Path(entry.path)):
                        return False
        except OSError:
            return False
        return True

    def check(self, text) -> AgentSpec:
        """The parsed spec of ``text`` as this server plays it (its time option capped), or
        :class:`SpecRefused` / :class:`AgentSpecError` saying why not (never where a file is)."""
        spec = parse_spec(text)
        declared = spec.declaration
        if not declared.web:
            served = ", ".join(self.kinds)
            raise SpecRefused(f"agent kind {spec.kind!r} is not served to web requests; this server plays "
                              f"{served}")
        for label, path, what in spec.paths(defaults=False):
            if not self._contained(path, what):
                where = ("the folders named by its --agents-dir" if self.folders
                         else "no folder: it was started without --agents-dir")
                raise SpecRefused(f"agent spec {spec.kind}: this server reads checkpoints only from {where}")
        for o in declared.options:
            value = spec.given.get(o.name)
            if o.web_maximum is not None and value is not None and value > o.web_maximum:
                raise AgentSpecError(f"agent spec {spec}: {spec.kind} option {o.name} may be at most "
                                     f"{o.web_maximum:g} at a served table, got {value:g}")
        if declared.time_option is not None:
            given = spec.option(declared.time_option)
            limit = self.decision_seconds if given is None else min(given, self.decision_seconds)
            spec = spec.with_options(**{declared.time_option: limit})
        return spec

    def load_error(self, spec: AgentSpec, exc: Exception) -> str:
        """What a request is told when ``spec``'s agent does not load: the reason, unless the spec names a
        file (then only that it was refused: the reason may say where a file is, or whether it exists)."""
        names_files = bool(spec.paths())
        if isinstance(exc, (AgentSpecError, SpecRefused)):
            return str(exc)
        log.warning("agent %s did not load: %s: %s", spec, type(exc).__name__, exc)
        if names_files or isinstance(exc, OSError):
            return f"agent {spec.kind}: its checkpoint could not be loaded (the server's log says why)"
        return str(exc)
