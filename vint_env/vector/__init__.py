"""Fast batched Vint, Whist, Solo Whist and two-player Vint: B deals at once in NumPy arrays, stepped by
numba-compiled loops.

- :class:`VintEngine`, :class:`WhistEngine`, :class:`SoloWhistEngine` and
  :class:`Vint2pEngine` (``init`` / ``step`` / ``reset`` / ``observe``,
  PGX-style) play B games; observations, masks and rewards are ``vint_v0``'s /
  ``whist_v0``'s / ``solo_whist_v0``'s / ``vint2p_v0``'s (any of its five
  ways), bit for bit.
- :class:`SelfPlayVecEnv` is the thin adapter for training: "the player to
  move" of B games, one shared policy for every seat, with the rewards
  credited to each seat (see its docstring), and :func:`seat_gae` turns a
  rollout into per-seat advantages.
"""

from .engine import BACKENDS, BatchEngine, SoloWhistEngine, Vint2pEngine, VintEngine, WhistEngine
from .selfplay import SelfPlayStep, SelfPlayVecEnv, seat_gae
from .state import EngineStateError, VintBatchState

__all__ = ["VintEngine", "WhistEngine", "SoloWhistEngine", "Vint2pEngine", "BatchEngine", "VintBatchState",
           "SelfPlayVecEnv", "SelfPlayStep", "seat_gae", "BACKENDS", "EngineStateError"]
