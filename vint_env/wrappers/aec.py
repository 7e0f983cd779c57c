"""Library-neutral PettingZoo AEC adapters (PettingZoo and Gymnasium only)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper


class ObservationKeysWrapper(BaseWrapper):
    """Renames the keys of the observation dict, e.g. ``observation`` -> ``observations``.

    RLlib's action-masking RLModule reads ``{"observations", "action_mask"}``
    while PettingZoo's convention (ours) is ``{"observation", "action_mask"}``.

    >>> from vint_env import vint_v0
    >>> env = ObservationKeysWrapper(vint_v0.env(), {"observation": "observations"})
    >>> env.reset(seed=0)
    >>> sorted(env.observe(env.agent_selection))
    ['action_mask', 'observations']
    >>> sorted(env.observation_space("player_0").spaces)
    ['action_mask', 'observations']
    """

    def __init__(self, env, rename: dict[str, str]):
        super().__init__(env)
        space = env.observation_space(env.possible_agents[0])
        unknown = set(rename) - set(space.spaces)
        if unknown:
            raise ValueError(f"observation keys {sorted(unknown)} not in {sorted(space.spaces)}")
        self.rename = dict(rename)
        self._spaces = {a: self._renamed_space(env.observation_space(a)) for a in env.possible_agents}

    def _renamed_space(self, space: spaces.Dict) -> spaces.Dict:
        return spaces.Dict({self.rename.get(k, k): v for k, v in space.spaces.items()})

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {self.rename.get(k, k): v for k, v in obs.items()}

    def last(self, observe: bool = True):
        obs, reward, termination, truncation, info = self.env.last(observe=False)
        return (self.observe(self.agent_selection) if observe else None,
                reward, termination, truncation, info)


def _is_scalar(value) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


class ScalarInfoWrapper(BaseWrapper):
    """Keeps only the scalar (number or bool) entries of each agent's info.

    Tianshou stacks infos into arrays in its replay buffer and fails on entries
    whose shape changes between steps, such as the auction (a list as long as
    the deal's calls).  With this wrapper the end-of-deal info keeps e.g.
    ``points`` (N/S minus E/W) and drops the nested breakdown.

    >>> from vint_env import vint_v0
    >>> env = ScalarInfoWrapper(vint_v0.env())
    >>> env.reset(seed=0, options={"deal": "N:AKQJT98765432... ...AKQJT98765432 "
    ...                                    "..AKQJT98765432. .AKQJT98765432..", "dealer": 0})
    >>> for action in (52, 52, 52, 52):   # four passes: a pass-out
    ...     env.step(action)
    >>> env.last()[4]
    {'points': 0}
    """

    @property
    def infos(self):
        return {agent: {k: v for k, v in info.items() if _is_scalar(v)}
                for agent, info in self.env.infos.items()}

    def last(self, observe: bool = True):
        obs, reward, termination, truncation, info = self.env.last(observe=observe)
        return obs, reward, termination, truncation, {k: v for k, v in info.items() if _is_scalar(v)}
