"""Stable-Baselines3 models as :class:`~vint_env.agents.Agent` players.

:class:`SB3Agent` seats a trained (or training) sb3-contrib ``MaskablePPO``
model at the table: as the opponents of :class:`~vint_env.wrappers.SingleAgentEnv`
(self-play against the live or a frozen model), or in the evaluation harness.

>>> from vint_env.wrappers import SingleAgentEnv                          # doctest: +SKIP
>>> from vint_env.wrappers.sb3 import SB3Agent                             # doctest: +SKIP
>>> env = SingleAgentEnv("vint_v0", seats="random")                         # doctest: +SKIP
>>> model = MaskablePPO("MlpPolicy", env)                                  # doctest: +SKIP
>>> env.set_opponents(SB3Agent(model))   # opponents play the model being trained  # doctest: +SKIP
>>> model.learn(100_000)                                                   # doctest: +SKIP

On a ``SubprocVecEnv`` each worker gets a pickled copy: a frozen snapshot.
"""

from __future__ import annotations

import numpy as np

from ..agents.base import Agent, legal_actions


class SB3Agent(Agent):
    """Plays an sb3-contrib ``MaskablePPO`` model (any policy with ``get_distribution(obs, action_masks)``).

    ``deterministic=False`` samples from the masked policy with the agent's own
    generator, seeded by :meth:`reset`, so seeded episodes reproduce;
    ``deterministic=True`` plays the most likely legal action.
    """

    def __init__(self, model, deterministic: bool = False, name: str = "sb3", seed: int | None = None):
        if not hasattr(model, "policy") or not hasattr(model.policy, "get_distribution"):
            raise TypeError(f"SB3Agent needs a Stable-Baselines3 model with a policy, got {model!r}")
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def action_probabilities(self, observation: dict) -> np.ndarray:
        """The policy's probabilities over the actions (zero outside the mask)."""
        import torch

        legal = legal_actions(observation)
        mask = np.zeros(observation["action_mask"].shape, dtype=bool)
        mask[legal] = True
        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation["observation"])
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        probs = self.action_probabilities(observation)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))
