"""The run's random streams: one (NumPy, torch) generator pair per ``(seed, update, stream)``.

The learner and its collectors draw from streams of their own, so a run is reproducible however
its rollouts are collected: stream 0 is the learner's own rollout, ``10 + k`` collector ``k``'s
(:mod:`vint_env.training.collectors`), 1000 the minibatch order of the update.

>>> rng, gen = seeded(0, 3, 10)
>>> rng2, gen2 = seeded(0, 3, 10)
>>> bool(rng.integers(1 << 30) == rng2.integers(1 << 30)) and gen.initial_seed() == gen2.initial_seed()
True
"""

from __future__ import annotations

import numpy as np
import torch


def seeded(seed: int, update: int, stream: int) -> tuple[np.random.Generator, torch.Generator]:
    """The generators of ``stream`` in update ``update`` of the run seeded ``seed``."""
    ss = np.random.SeedSequence([seed, update, stream])
    gen = torch.Generator()
    gen.manual_seed(int(ss.generate_state(1, dtype=np.uint64)[0] >> 1))
    return np.random.default_rng(ss), gen
