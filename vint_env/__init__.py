"""vint-env: PettingZoo environments for Vint, Whist, Solo Whist and two-player Vint.

>>> from vint_env import vint_v0
>>> env = vint_v0.env()
>>> env.reset(seed=0)

The env modules (``vint_v0``, ``whist_v0``, ``solo_whist_v0``, ``vint2p_v0``) are imported on
first use, so that ``import vint_env.vector`` or ``import vint_env.games``
does not load PettingZoo.
"""

__version__ = "0.1.0"

from . import games as _games
from . import wrappers as _wrappers  # registers the Gymnasium ids (vint_env/Vint-v0, ...): numpy + gymnasium only


def __getattr__(name):
    if name in _games.env_names():
        return _games.get(name).env_module()
    raise AttributeError(f"module 'vint_env' has no attribute {name!r}")


__all__ = ["vint_v0", "whist_v0", "solo_whist_v0", "vint2p_v0", "__version__"]
