"""PettingZoo AEC environments of the whist family."""

from . import vint_v0, whist_v0

__all__ = ["vint_v0", "whist_v0"]
