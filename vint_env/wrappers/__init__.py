"""Adapters to RL pipelines: Gymnasium single-agent env (SB3), RLlib, TorchRL, Tianshou.

Importing this package registers the Gymnasium ids (``import vint_env`` does it),
each a :class:`SingleAgentEnv` (``gymnasium.make(id, seats=0, opponents="random", ...)``):

- ``vint_env/Vint-v0``: ``vint_v0``;
- ``vint_env/Whist-v0``: ``whist_v0``;
- ``vint_env/SoloWhist-v0``: ``solo_whist_v0``.

Adapters: :mod:`~vint_env.wrappers.aec` (PettingZoo wrappers: observation key
renaming, scalar infos), :mod:`~vint_env.wrappers.rllib`,
:mod:`~vint_env.wrappers.tianshou`, :mod:`~vint_env.wrappers.sb3`; the games as OpenSpiel
games: :mod:`~vint_env.wrappers.openspiel` (and OpenSpiel's ISMCTS as an agent,
:mod:`~vint_env.wrappers.openspiel_agent`).
Only Gymnasium, PettingZoo and NumPy are imported here; the library adapters
import their library only when used.
"""

import gymnasium

from .. import games
from .single_agent import GAMES, PolicyAgent, SingleAgentEnv, make_aec_env

#: Gymnasium id -> env name (from the games' records).
GYM_IDS = {g.gym_id: g.env_name for g in games.all_games()}


def register_envs() -> list[str]:
    """Register the Gymnasium ids of the games; returns the registered ids."""
    done = []
    for env_id, game in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="vint_env.wrappers.single_agent:SingleAgentEnv",
                               kwargs={"game": game})
        done.append(env_id)
    return done


REGISTERED_IDS = register_envs()

__all__ = ["GAMES", "GYM_IDS", "REGISTERED_IDS", "PolicyAgent", "SingleAgentEnv", "make_aec_env",
           "register_envs"]
