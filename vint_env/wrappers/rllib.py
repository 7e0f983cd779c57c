"""RLlib: the multi-agent games through RLlib's PettingZoo wrapper, with action masking.

Needs the ``rllib`` extra (``pip install "torch==2.13.0" -e ".[rllib]"``).

- :func:`rllib_env` builds RLlib's ``PettingZooEnv`` around a game's AEC env,
  with the observation dict renamed to the keys RLlib's action-masking RLModule
  expects: ``{"observations": Box, "action_mask": Box(int8)}``.
- :func:`ppo_config` is a ready ``PPOConfig``: every seat mapped to one shared
  policy (self-play) using RLlib's ``ActionMaskingTorchRLModule``.

>>> from vint_env.wrappers.rllib import ppo_config      # doctest: +SKIP
>>> algo = ppo_config("vint_v0").build_algo()            # doctest: +SKIP
>>> algo.train()["env_runners"]["episode_return_mean"]   # doctest: +SKIP

Rewards arrive the way RLlib's ``PettingZooEnv`` delivers them: each agent's
reward accumulated since its last move, given when it next moves or, at the end
of the deal, in the final (dead) step of every agent; so every seat gets its
own deal result.
"""

from __future__ import annotations

import importlib.util

from .. import games
from .aec import ObservationKeysWrapper
from .single_agent import GAMES, make_aec_env

#: The shared policy's id in :func:`ppo_config`.
SHARED_POLICY = "shared"

#: Observation keys of RLlib's ``ActionMaskingTorchRLModule``.
RLLIB_KEYS = {"observation": "observations"}


def require_rllib() -> None:
    """Raise a clear ImportError when Ray RLlib (or torch) is not installed."""
    missing = [m for m in ("ray", "torch") if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(f"vint_env.wrappers.rllib needs {' and '.join(missing)}: "
                          'pip install "torch==2.13.0" -e ".[rllib]"')


def rllib_env(env_config: dict | None = None):
    """RLlib ``MultiAgentEnv`` (its ``PettingZooEnv``) of a game.

    ``env_config``: ``{"game": "vint_v0", **raw_env keyword arguments}``.
    """
    require_rllib()
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    config = dict(env_config or {})
    game = config.pop("game", "vint_v0")
    aec = make_aec_env(game, **config)
    return PettingZooEnv(ObservationKeysWrapper(aec, RLLIB_KEYS))


def register_rllib_envs() -> list[str]:
    """Register each game under its name (``"vint_v0"``, ...) with Ray Tune's env registry."""
    require_rllib()
    from ray.tune.registry import register_env

    names = []
    for game in GAMES:
        register_env(game, lambda cfg, game=game: rllib_env({"game": game, **(cfg or {})}))
        names.append(game)
    return names


def shared_policy(agent_id, episode=None, **kwargs) -> str:
    """Policy mapping: every seat plays the one shared policy (self-play)."""
    return SHARED_POLICY


def ppo_config(game: str = "vint_v0", env_config: dict | None = None,
               hidden: tuple[int, ...] = (256, 256), train_batch_size: int = 4000,
               minibatch_size: int = 500, num_epochs: int = 4, num_env_runners: int = 0,
               lr: float = 3e-4):
    """A ``PPOConfig`` for ``game``: one shared masked policy for all four seats.

    ``num_env_runners=0`` samples in the driver process (a laptop, a test);
    raise it to spread sampling over Ray workers or a cluster.
    """
    game = games.get(game).env_name
    require_rllib()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    register_rllib_envs()
    return (
        PPOConfig()
        # RLlib's env pre-check steps with unmasked random actions, which the env rejects.
        .environment(game, env_config=dict(env_config or {}), disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            SHARED_POLICY: RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                        model_config={"head_fcnet_hiddens": list(hidden),
                                                      "head_fcnet_activation": "relu"}),
        }))
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr)
    )
