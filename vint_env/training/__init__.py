"""Baseline PPO training with self-play (PyTorch) for Vint, Whist, Solo Whist and two-player Vint.

- ``config.py``: every hyper-parameter in :class:`PPOConfig`, a dataclass of sections by job, each key declared
  with its type and range; ``config_files.py``: reading ``configs/*.yaml`` (safe YAML, ``base:`` inheritance);
- ``sources.py``: the batch of games a rollout plays (the ``GameBatch`` protocol; AEC envs, or the batched
  engine in ``vector_source.py``);
- ``seating.py``: who sits where (each deal's opponents: itself, past snapshots, scripted bots);
- ``selfplay.py``: collection, the learner's per-seat transitions of a rollout;
- ``ppo.py``: the algorithm, top to bottom: collect a rollout, GAE, the clipped PPO update, log;
- ``trainer.py``: the :class:`~vint_env.training.trainer.Trainer`, the run loop around the iterations;
- ``warm_start.py``, ``pool.py``, ``eval_schedule.py``, ``checkpoints.py``: the run's other jobs;
- ``collectors.py``: collection in processes (or Ray actors) beside the learner;
- ``runner.py``: one run as a library call (what ``vint-train`` and the baseline recipe call);
- ``evaluation.py``: periodic evaluation through ``vint_env.evaluation``;
- ``schedule.py``: the share of the budget used, which annealing follows;
- ``device.py``: the torch device the learner uses (``run.device``);
- ``teacher_data.py``, ``imitation.py``: the imitation warm start (teacher's games, cloning, KL term);
- ``shaping.py``: training-only reward shaping; ``critic.py``: the centralised critic;
- ``logs.py``: CSV, TensorBoard and the learning-curve plot;
- ``cli.py``: the ``vint-train`` command.
"""

from .config import ConfigError, PPOConfig, load_config

__all__ = ["ConfigError", "PPOConfig", "load_config"]
