"""PettingZoo AEC environments of the whist family."""

from . import solo_whist_v0, vint2p_v0, vint_v0, whist_v0

__all__ = ["vint_v0", "vint2p_v0", "whist_v0", "solo_whist_v0"]
