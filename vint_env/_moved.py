"""Old module names kept as deprecated aliases of their new homes, for one release.

A moved module is not copied: importing its old name warns (``DeprecationWarning``) and returns the module at the
new name itself, so both names are one object.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``old`` module names and loads them as the module at the ``new`` name."""

    def __init__(self, resolve):
        self.resolve = resolve          # old full name -> new full name, or None if not an alias

    def find_spec(self, name, path=None, target=None):
        new = self.resolve(name)
        return None if new is None else importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        new = self.resolve(spec.name)
        warnings.warn(f"{spec.name} is now {new}; the old name is deprecated and goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        pass                            # the module at the new name is already executed


def alias_modules(moves: dict[str, str]) -> None:
    """Make each old full module name in ``moves`` an alias of its new full name."""
    sys.meta_path.append(_AliasFinder(moves.get))


def alias_package(old: str, new: str) -> None:
    """Make every ``old.X`` an alias of ``new.X`` (``old`` itself stays the package that calls this)."""
    prefix = old + "."

    def resolve(name):
        if not name.startswith(prefix):
            return None
        target = new + "." + name[len(prefix):]
        return target if importlib.util.find_spec(target) is not None else None

    sys.meta_path.append(_AliasFinder(resolve))


def renamed_attributes(module: str, renames: dict[str, str]):
    """A module ``__getattr__`` (PEP 562) that keeps renamed or moved names of ``module`` for one release.

    ``renames``: old attribute name -> the new one's full dotted path (``"vint_env.games.AGENTS"``).  Reading
    an old name warns (``DeprecationWarning``) and gives the object at the new path itself.
    """
    def __getattr__(name):
        new = renames.get(name)
        if new is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is now {new}; the old name is deprecated and goes in the next release",
                      DeprecationWarning, stacklevel=2)
        parts = new.split(".")
        for cut in range(len(parts) - 1, 0, -1):         # the longest importable module, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            return obj
        raise ModuleNotFoundError(new)
    return __getattr__
