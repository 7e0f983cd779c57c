"""The agents a `vint-serve` request may name: an allow-list read from the kinds' declarations.

Any web page the person opens can send requests to a server on 127.0.0.1, so a request is trusted
with nothing but what the page offers anyway:

- only the kinds declared ``web`` in :mod:`vint_env.agents.spec` (the built-in bots and the shipped
  baselines; never ``py:`` or a kind that runs an outside program, never ``human``, never a kind
  whose decisions have no time limit);
- a file or folder a spec names (``ppo:PATH``, ``bidder:PATH``, ``baseline:DIR``, and any kind
  declared later with a path) only inside the folders named on the command line with
  ``--agents-dir``, after resolving links; without ``--agents-dir`` no path at all;
- the option a kind declares as its time per decision (``pimc``'s ``time``) set to at most the
  server's ``--decision-seconds``, so every decision of every bot is bounded;
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

    def check(self, text) -> AgentSpec:
        """The parsed spec of ``text`` as this server plays it (its time option capped), or
        :class:`SpecRefused` / :class:`AgentSpecError` saying why not (never where a file is)."""
        spec = parse_spec(text)
        declared = spec.declaration
        if not declared.web:
            served = ", ".join(self.kinds)
            raise SpecRefused(f"agent kind {spec.kind!r} is not served to web requests; this server plays "
                              f"{served}")
        for label, path, _ in spec.paths(defaults=False):
            if not self._inside(path):
                where = ("the folders named by its --agents-dir" if self.folders
                         else "no folder: it was started without --agents-dir")
                raise SpecRefused(f"agent spec {spec.kind}: this server reads checkpoints only from {where}")
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
