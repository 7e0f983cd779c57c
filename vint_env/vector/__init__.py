"""Fast batched Vint, Whist, Solo Whist and two-player Vint: B deals at once in NumPy arrays, stepped by
numba-compiled loops.

- :class:`VintEngine`, :class:`WhistEngine`, :class:`SoloWhistEngine` and
  :class:`Vint2pEngine` (``init`` / ``step`` / ``reset`` / ``observe``,
  PGX-style) play B games; observations, masks and rewards are ``vint_v0``'s /
  ``whist_v0``'s / ``solo_whist_v0``'s / ``vint2p_v0``'s (any of its five
  ways), bit for bit.

Training plays the engine through :class:`vint_env.training.vector_source.VectorGameBatch`
(self-play, per-seat transitions and GAE are ``vint_env.training``'s).
"""

from .engine import BACKENDS, BatchEngine, SoloWhistEngine, Vint2pEngine, VintEngine, WhistEngine
from .state import EngineStateError, VintBatchState

__all__ = ["VintEngine", "WhistEngine", "SoloWhistEngine", "Vint2pEngine", "BatchEngine", "VintBatchState",
           "BACKENDS", "EngineStateError"]
