"""Random legal play through the package's AEC loop (:func:`~vint_env.envs.playing.play_episode`), as the
throughput benchmarks of the repository's ``benchmarks/`` folder run it (the AEC envs', the wrapper's and
the batched engine's).

>>> import numpy as np
>>> from vint_env import whist_v0
>>> env = whist_v0.env()
>>> env.reset(seed=0)
>>> random_episode(env, np.random.default_rng(0).integers)        # 52 cards, no auction in Whist
52
"""

from __future__ import annotations

import numpy as np

from .envs.playing import play_episode


class RandomLegal:
    """An agent for :func:`~vint_env.envs.playing.play_episode` that takes ``legal[pick(len(legal))]``."""

    needs_env = False

    def __init__(self, pick):
        self.pick = pick

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.pick(legal.size)])


def random_episode(env, pick) -> int:
    """Play out the episode ``env`` was reset to (:func:`~vint_env.envs.playing.play_episode`), each live
    step the legal action ``legal[pick(len(legal))]`` (``pick=rng.integers``: uniformly random); returns
    the live steps."""
    player = RandomLegal(pick)
    return play_episode(env, [player] * len(env.possible_agents)).decisions
