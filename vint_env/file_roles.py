"""Refuse a command whose output would land on one of its inputs or on another of its outputs.

``vint-eval match --deals boards.pbn --out boards.pbn`` once replaced the
deal file with JSON.  Every command line that writes files names its inputs
and outputs here first, before any work; paths are compared after resolving
links (and, for files that exist, by device and inode, so hard links count).

>>> check_file_roles({"--deals": "a.pbn"}, {"--out": "b.json"})
>>> check_file_roles({"--deals": "a.pbn"}, {"--out": "a.pbn"})
Traceback (most recent call last):
...
vint_env.file_roles.OutputOverInputError: --out a.pbn is the same file as --deals a.pbn: it would be overwritten; choose another path
"""

from __future__ import annotations

import os
from pathlib import Path


class OutputOverInputError(ValueError):
    """An output path that is an input, or another output, of the same command."""


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def check_file_roles(inputs: dict, outputs: dict, folders: dict | None = None,
                     input_folders: dict | None = None) -> None:
    """Raise :class:`OutputOverInputError` if two of ``outputs`` are one file, or one is an input.

    ``inputs`` and ``outputs`` map a label (the flag, e.g. ``"--deals"``) to
    a path or ``None`` (not given); ``folders`` maps a label to an output
    folder that the command fills or deletes: no input may lie inside it;
    ``input_folders`` maps a label to a folder the command reads (a
    ``baseline:DIR`` agent's): no output may lie inside it.
    """
    given_in = [(k, Path(v)) for k, v in inputs.items() if v is not None]
    given_out = [(k, Path(v)) for k, v in outputs.items() if v is not None]
    for i, (label, path) in enumerate(given_out):
        for other, other_path in given_in + given_out[:i]:
            if _same(path, other_path):
                raise OutputOverInputError(f"{label} {path} is the same file as {other} {other_path}: it would be "
                                           f"overwritten; choose another path")
    for label, folder in ((k, Path(v)) for k, v in (folders or {}).items() if v is not None):
        for other, path in given_in:
            if _inside(path, folder):
                raise OutputOverInputError(f"{other} {path} lies inside {label} {folder}, which this command "
                                           f"writes over; move it or choose another folder")
    for label, folder in ((k, Path(v)) for k, v in (input_folders or {}).items() if v is not None):
        for other, path in given_out:
            if _inside(path, folder) or _same(path, folder):
                raise OutputOverInputError(f"{other} {path} lies inside {folder}, the folder {label} reads; "
                                           f"choose a path outside it")


def spec_inputs(specs) -> tuple[dict, dict]:
    """``(files, folders)``: the files and the folders the agents of ``specs`` (texts or parsed
    :class:`~vint_env.agents.spec.AgentSpec`) read, by label, from their parsed specs' declared paths
    (``network:PATH``, ``bidder:PATH``, ``baseline[:DIR]``, the source file of ``py:MODULE:NAME``'s module,
    and any kind declared later), for :func:`check_file_roles`."""
    from .agents.spec import parse_spec
    files, folders = {}, {}
    for spec in specs:
        for label, path, kind in parse_spec(spec).paths():
            (folders if kind == "folder" else files)[label] = path
    return files, folders
