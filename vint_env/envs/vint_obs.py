"""Moved: the observation layout and encoders of `vint_v0` live in :mod:`vint_env.games.vint`.

This module re-exports them so that old imports keep working.
"""

from ..games.vint import *  # noqa: F401,F403
from ..games.vint import (GAME_TARGET, MAX_MARKS, STATE_LAYOUT, STATE_SIZE, VINT_LAYOUT, D, O,  # noqa: F401
                          encode_observation, encode_state)
