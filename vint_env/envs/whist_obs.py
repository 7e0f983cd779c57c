"""Moved: the observation layout and encoders of `whist_v0` live in :mod:`vint_env.games.whist`.

This module re-exports them so that old imports keep working.
"""

from ..games.whist import *  # noqa: F401,F403
from ..games.whist import (STATE_LAYOUT, STATE_SIZE, WHIST_LAYOUT, D, O,  # noqa: F401
                           encode_observation, encode_state)
