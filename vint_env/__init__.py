"""vint-env: PettingZoo environments for Vint, Whist and Solo Whist.

>>> from vint_env import vint_v0
>>> env = vint_v0.env()
>>> env.reset(seed=0)
"""

__version__ = "0.1.0"

from .envs import solo_whist_v0, vint2p_v0, vint_v0, whist_v0
from . import wrappers as _wrappers  # registers the Gymnasium ids (vint_env/Vint-v0, ...): numpy + gymnasium only

__all__ = ["vint_v0", "vint2p_v0", "whist_v0", "solo_whist_v0", "__version__"]
