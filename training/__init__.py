"""The repository's training scripts, run from a clone: ``python -m training.baseline`` (train, measure and ship a
game's baseline) and ``python -m training.bench`` (training throughput).

The training library they use is installed as :mod:`vint_env.training` (``vint-train`` is its command line). This
folder is not installed, so it never shadows another distribution's ``training`` module; the old ``training.<module>``
names still import here, as deprecated aliases of ``vint_env.training.<module>``, for one release.
"""

from vint_env._moved import alias_package

alias_package("training", "vint_env.training")
