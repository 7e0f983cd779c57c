"""Moved: the observation layout and encoders of `vint_v0` live in :mod:`vint_env.games.vint`.

This module re-exports them so that old imports keep working.
"""

from ..games.vint import *  # noqa: F401,F403
from ..games.vint import GAME_TARGET, MAX_MARKS, VINT_LAYOUT, D, O, STATE_LAYOUT, STATE_SIZE, encode_observation, encode_state  # noqa: F401
