"""Moved: :mod:`vint_env.games.obs_blocks` (re-exported here so that old imports keep working)."""

from ..games.obs_blocks import *  # noqa: F401,F403
