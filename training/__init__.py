"""The repository's training scripts, run from a clone: ``python -m training.baseline`` (train, measure and ship a
game's baseline), ``python -m training.vint_bidder`` and the others in this folder.

The training library they use is installed as :mod:`vint_env.training` (``vint-train`` is its command line). This
folder is not installed, so it never shadows another distribution's ``training`` module. The scripts' one shared
helper is here: :func:`recipe_log`, the timed log of a script's recipe.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def recipe_log(out: Path, module: str, argv=None):
    """A ``say(msg)`` that prints ``[HH:MM:SS +M.M min] msg`` and appends it to ``out/recipe.log`` (``out`` made
    if missing); its first line is the command (``python -m MODULE`` and ``argv``, else the process's)."""
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    log = open(out / "recipe.log", "a", encoding="utf-8")

    def say(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')} +{(time.perf_counter() - start) / 60:.1f} min] {msg}"
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    say(f"command: python -m {module} " + " ".join(argv if argv is not None else sys.argv[1:]))
    return say
