"""A run's checkpoints: what they hold, how they are written, and the counters they carry.

``checkpoints/update_NNNNNN.pt`` and ``checkpoints/latest.pt`` are written atomically
(``agents/learned/policy.save_checkpoint``); a checkpoint is a policy file (game, sizes, network,
weights: what :class:`~vint_env.agents.learned.policy.PPOAgent` loads) plus a ``trainer`` section
(optimizer, opponent pool, the KL reference, the critic, the counters of :class:`TrainState`), so
``--resume`` continues exactly as an uninterrupted run would.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from vint_env import games
from vint_env.agents.learned.policy import load_checkpoint, save_checkpoint

from .config import RESUME_OVERRIDABLE, PPOConfig, config_from_checkpoint


@dataclass
class TrainState:
    """Counters that a checkpoint carries across ``--resume``."""

    update: int = 0            # updates done
    global_step: int = 0       # env steps taken
    samples: int = 0           # learner transitions trained on
    train_seconds: float = 0.0  # wall time spent in train() so far (all sessions)
    # An evaluation saves a checkpoint before it plays (the harness plays that file) and again after it
    # is logged; a checkpoint saved before carries the evaluation as pending, so a run killed while
    # evaluating plays it again on --resume instead of losing its row.
    pending_eval_deals: int = 0     # deals of the evaluation in progress at this checkpoint; 0 = none
    pending_eval_final: bool = False
    final_eval_update: int = -1     # the update whose final evaluation is logged; -1 = none yet
    pretrained: bool = False        # the imitation warm start is done
    evaluated_before_cloning: bool = False   # the untrained network's evaluation (warm start) is logged

    @classmethod
    def from_checkpoint(cls, t: dict) -> TrainState:
        """The counters of a checkpoint's ``trainer`` section (older checkpoints lack the later ones)."""
        defaults = cls()
        return cls(**{f.name: type(getattr(defaults, f.name))(t.get(f.name, getattr(defaults, f.name)))
                      for f in dataclasses.fields(cls)})


def policy_payload(cfg: PPOConfig, obs_size: int, num_actions: int, model: dict) -> dict:
    """The policy part of a checkpoint: what an agent needs to play.  Its ``game`` is the env name, as the
    checkpoint format has always stored it (``cfg.run.game`` is the game's name)."""
    return {
        "game": games.get(cfg.run.game).env_name,
        "env_kwargs": dict(cfg.run.env_kwargs),
        "obs_size": obs_size,
        "num_actions": num_actions,
        "network": {"name": cfg.model.network, "kwargs": dict(cfg.model.network_kwargs)},
        "model": model,
        "residual": ({"base": cfg.residual.residual_base, "margin": float(cfg.residual.residual_margin),
                      "actions": cfg.residual.residual_actions}
                     if cfg.residual.residual_base else None),
        "config": cfg.to_dict(),
    }


def run_payload(cfg: PPOConfig, obs_size: int, num_actions: int, net, optimizer, pool, state: TrainState,
                reference=None, critic=None, behaviour: dict | None = None, last_eval: dict | None = None) -> dict:
    """A whole checkpoint: the policy (:func:`policy_payload`) and the ``trainer`` section that ``--resume``
    restores (the counters, the optimizer, the opponent pool, the KL reference, the critic, the behaviour
    weights of the collectors, the last evaluation)."""
    return {
        **policy_payload(cfg, obs_size, num_actions, net.state_dict()),
        "trainer": {
            **dataclasses.asdict(state),
            "optimizer": optimizer.state_dict(),
            "pool": pool.state(),
            "reference": None if reference is None else reference.state_dict(),
            "critic": None if critic is None else critic.state_dict(),
            "behaviour": behaviour,
            "last_eval": last_eval or {},
        },
    }


def write_checkpoints(ckpt_dir: Path, update: int, payload: dict, keep: int) -> Path:
    """Write ``update_NNNNNN.pt`` and ``latest.pt`` (atomically), keep the ``keep`` newest numbered ones
    (0: all); remove temporary files left by a run killed in the middle of a write."""
    for stale in ckpt_dir.glob(".*.tmp"):
        stale.unlink(missing_ok=True)
    path = save_checkpoint(ckpt_dir / f"update_{update:06d}.pt", payload)
    save_checkpoint(ckpt_dir / "latest.pt", payload)
    if keep > 0:
        for old in sorted(ckpt_dir.glob("update_*.pt"))[:-keep]:
            old.unlink(missing_ok=True)
    return path


def read_resumable(path: str | Path, cfg: PPOConfig) -> dict:
    """The checkpoint at ``path``, checked to be a trainer checkpoint of a run with this config (up to the
    keys that may change on resume, :data:`~vint_env.training.config.RESUME_OVERRIDABLE`)."""
    ckpt = load_checkpoint(path, game=cfg.run.game)
    if "trainer" not in ckpt:
        raise ValueError(f"{path} holds a policy only, no trainer state to resume from")
    saved, now = config_from_checkpoint(ckpt["config"], str(path)).to_flat(), cfg.to_flat()
    diff = {k: (v, now[k]) for k, v in saved.items() if now[k] != v and k not in RESUME_OVERRIDABLE}
    if diff:
        raise ValueError(f"cannot resume {path}: config differs from the checkpoint's (checkpoint, now): {diff}")
    return ckpt
