"""The torch device a run learns on (``run.device``: ``auto``, ``cpu``, ``cuda``, ``mps``).

The network, its optimizer and the learner's minibatches live on it.  Collection's forward passes stay
on the CPU whatever the device (``ppo.collect_rollout``): they answer one observation per game a step,
batches of tens of rows, where a copy to an accelerator and back costs more than the pass.  Checkpoints
are always written with CPU tensors (``save_checkpoint``) and read onto the CPU, so a run trained on a
GPU loads, plays and resumes on a machine without one.
"""

from __future__ import annotations

import copy

import torch
from torch import nn

from .config import DEVICES


class DeviceError(ValueError):
    """A device asked for that this machine's torch does not have."""


def available(name: str) -> bool:
    """Whether this machine's torch can use device ``name`` (``cpu``, ``cuda``, ``mps``)."""
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        return bool(getattr(torch.backends, "mps", None)) and torch.backends.mps.is_available()
    return name == "cpu"


def resolve_device(name: str) -> torch.device:
    """The device of ``run.device``: ``auto`` is cuda if available, else mps if available, else cpu; a named
    device that is not available is a :class:`DeviceError`."""
    if name not in DEVICES:
        raise DeviceError(f"device must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "auto":
        return torch.device(next(d for d in ("cuda", "mps", "cpu") if available(d)))
    if not available(name):
        raise DeviceError(f"device {name!r} is not available on this machine (torch {torch.__version__}"
                          f"{', built without CUDA' if name == 'cuda' and torch.version.cuda is None else ''}); "
                          f"use device: cpu, or auto to take the best there is")
    return torch.device(name)


def on_cpu(module: nn.Module | None) -> nn.Module | None:
    """``module`` if it lives on the CPU (or is None), else a copy of it there: what collection plays."""
    if module is None or all(p.device.type == "cpu" for p in module.parameters()):
        return module
    return copy.deepcopy(module).to("cpu")
