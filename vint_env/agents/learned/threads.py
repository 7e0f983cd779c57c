"""Torch's threads where a network plays outside training: one per process by default.

A policy network of this size answers one observation in well under a
millisecond; torch's default of one thread per core only makes the processes
of a match (or a training job beside it) fight over the cores.  ``vint-eval``
gives each worker process one thread (``--threads``), and so do ``vint-play``
and the evaluation inside ``vint-train`` (its own ``torch_threads``).
"""

from __future__ import annotations

import os
import sys

#: The variables the thread pools of torch (OpenMP, MKL) read when they start.
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def limit_torch_threads(threads: int = 1) -> None:
    """Give this process's torch ``threads`` intra-op threads, whether torch is loaded yet or not.

    If torch is loaded, ``torch.set_num_threads``; either way the thread
    variables are set, so a torch this process loads later, and every
    process it starts, begins with ``threads`` threads.  Torch is not
    imported here: a match of rule bots never loads it.
    """
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise ValueError(f"torch threads must be a positive integer, got {threads!r}")
    for name in _THREAD_VARIABLES:
        os.environ[name] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def torch_threads() -> int | None:
    """The intra-op threads of this process's torch, or None if torch is not loaded."""
    torch = sys.modules.get("torch")
    return torch.get_num_threads() if torch is not None else None
