"""Doctest collection of the package and the scripts on any install.

``--doctest-modules`` imports every module of ``vint_env/`` and ``training/``.  A module that exists for an
optional integration (OpenSpiel, RLlib, Ray, ...) fails to import without its package, and a failed import
is a collection error: the README's install (the ``all`` extra) would not pass the README's test command.
Such a module is left out of the collection instead, and only such a module: one whose import fails
because a package from outside the project is missing.  Any other import error is reported as usual.  The
tests of the integration itself (tests/wrappers/...) skip, saying which package they need.
"""

from __future__ import annotations

import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOURCES = ("vint_env", "training")      # the folders whose modules are collected for their doctests


def missing_package(error: BaseException) -> str | None:
    """The package outside the project whose absence caused ``error`` (an ImportError, or one it was
    raised from), or None."""
    while error is not None:
        if isinstance(error, ModuleNotFoundError) and error.name \
                and error.name.partition(".")[0] not in SOURCES:
            return error.name
        error = error.__cause__ or error.__context__
    return None


def pytest_ignore_collect(collection_path: Path, config):
    path = Path(collection_path)
    if path.suffix != ".py" or path.name == "conftest.py":
        return None
    try:
        parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    except ValueError:
        return None
    if parts[0] not in SOURCES:
        return None
    name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(name)
    except Exception as exc:     # noqa: BLE001 - anything but a missing package: the collection reports it
        if isinstance(exc, ImportError) and missing_package(exc):
            return True
    return None
