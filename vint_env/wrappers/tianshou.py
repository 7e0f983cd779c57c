"""Tianshou: a game as Tianshou's ``PettingZooEnv`` (needs ``pip install tianshou``).

>>> from vint_env.wrappers.tianshou import tianshou_env        # doctest: +SKIP
>>> env = tianshou_env("vint_v0")                              # doctest: +SKIP
>>> obs, info = env.reset()     # {"agent_id", "obs", "mask"}   # doctest: +SKIP

Tianshou's wrapper returns every agent's reward of the step as a list in seat
order (its multi-agent policy manager picks each agent's own entry), the
observation vector as ``obs`` and the legal actions as a bool ``mask``.
"""

from __future__ import annotations

from .. import games
from .aec import ScalarInfoWrapper


def tianshou_env(game: str = "vint_v0", **env_kwargs):
    """Tianshou ``PettingZooEnv`` around ``game``'s ``env(**env_kwargs)``.

    Infos are reduced to their scalar entries (:class:`ScalarInfoWrapper`) so that
    Tianshou's replay buffer can stack them.
    """
    record = games.get(game)
    try:
        from tianshou.env import PettingZooEnv
    except ImportError:
        raise ImportError('vint_env.wrappers.tianshou needs Tianshou: pip install "torch==2.13.0" '
                          '-e ".[wrappers]"') from None
    return PettingZooEnv(ScalarInfoWrapper(record.env(**env_kwargs)))
