"""The trained agents shipped with the package: one checkpoint per game and its manifest.

``<game>.pt`` is a PPO checkpoint (the format of :mod:`vint_env.agents.learned.policy`, policy only, no
trainer state) and ``<game>.json`` its manifest: the command that produced it, its config, the
wall-clock budget and machine, the git commit, the observation layout it was trained for, and its
measured duplicate results against the random and rule bots.  Agent spec ``baseline`` loads them
(:mod:`vint_env.agents.learned.baseline`); ``python -m training.baseline --game GAME`` makes them.

This folder holds data only: no code here imports another layer.
"""

from pathlib import Path

#: The folder of the shipped checkpoints and manifests.
DIR = Path(__file__).resolve().parent
