"""Moved: the observation layout and encoders of `solo_whist_v0` live in :mod:`vint_env.games.solo_whist`.

This module re-exports them so that old imports keep working.
"""

from ..games.solo_whist import *  # noqa: F401,F403
from ..games.solo_whist import (CALL_COLUMNS, SOLO_WHIST_LAYOUT, STATE_LAYOUT, STATE_SIZE, D, O,  # noqa: F401
                                encode_observation, encode_seat_tricks, encode_state)
