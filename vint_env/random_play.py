"""Random legal play through PettingZoo's AEC loop, as the throughput benchmarks of the repository's
``benchmarks/`` folder run it (the AEC envs', the wrapper's and the batched engine's).

>>> import numpy as np
>>> from vint_env import whist_v0
>>> env = whist_v0.env()
>>> env.reset(seed=0)
>>> random_episode(env, np.random.default_rng(0).integers)        # 52 cards, no auction in Whist
52
"""

from __future__ import annotations

import numpy as np


def random_episode(env, pick) -> int:
    """Play out the episode ``env`` was reset to through the AEC loop, each live step the legal action
    ``legal[pick(len(legal))]`` (``pick=rng.integers``: uniformly random); returns the live steps."""
    steps = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[pick(legal.size)]))
        steps += 1
    return steps
