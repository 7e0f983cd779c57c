"""The repository's training scripts, run from a clone: ``python -m training.baseline`` (train, measure and ship a
game's baseline), ``python -m training.vint_bidder`` and the others in this folder.

The training library they use is installed as :mod:`vint_env.training` (``vint-train`` is its command line). This
folder is not installed, so it never shadows another distribution's ``training`` module.
"""
