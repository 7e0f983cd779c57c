"""The imitation warm start: clone a teacher before the first PPO update, then hold PPO near the clone.

The teacher plays ``teacher_deals`` deals (``teacher_data.py``) and the network clones its decisions
(``imitation.py``; :func:`clone_teacher`), or the network starts from another checkpoint's weights
(:func:`init_weights`); with ``kl_coef > 0`` a frozen copy of that start is kept as the reference that
``kl_coef * KL(start || policy)`` pulls toward, a weight falling linearly to 0 at ``kl_decay`` of the
budget.  These are functions of what they need; the trainer applies what they return.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

from torch import nn


def frozen_copy(net: nn.Module) -> nn.Module:
    """An eval-mode copy of ``net`` whose parameters take no gradient."""
    net = copy.deepcopy(net).eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def kl_coef_at(cfg, frac: float) -> float:
    """The KL-to-teacher weight at budget fraction ``frac``: ``kl_coef`` falling linearly to 0 at ``kl_decay``."""
    return cfg.init.kl_coef * max(0.0, 1.0 - frac / cfg.init.kl_decay)


def wanted(cfg, state) -> bool:
    """Whether the run still has its warm start to do (a teacher, cloning epochs, nothing trained yet)."""
    return bool(cfg.teacher_data.teacher) and cfg.cloning.bc_epochs > 0 and not state.pretrained and state.update == 0


def init_weights(cfg, game) -> dict:
    """The weights (a state_dict) of the network in the checkpoint ``init_from`` (a clone, a previous best): the
    same game, observation size and network (name and kwargs) as the run's, or a ValueError naming what
    differs."""
    from vint_env.agents.learned.policy import CheckpointError, load_checkpoint, network_from_checkpoint
    try:
        ckpt = load_checkpoint(cfg.init.init_from, game=game)
        net = network_from_checkpoint(ckpt, cfg.init.init_from)
    except CheckpointError as e:
        raise ValueError(f"init_from: {e}") from None
    theirs = (ckpt["network"].get("name"), ckpt["network"].get("kwargs"))
    if theirs != (cfg.model.network, cfg.model.network_kwargs):
        raise ValueError(f"init_from={cfg.init.init_from!r} holds network {theirs[0]!r} with {theirs[1]!r}; this run "
                         f"trains {cfg.model.network!r} with {cfg.model.network_kwargs!r}: set network and network_kwargs "
                         f"to the checkpoint's")
    return net.state_dict()


def clone_teacher(cfg, game, net: nn.Module, seconds, say, progress=None) -> tuple[list[dict], list[dict]]:
    """Clone the teacher into ``net`` (in place), on deals of ``game`` (the run's record); ``(history, rows)``:
    the cloning's history (one entry per epoch, epoch 0: the network before cloning) and the ``bc/...`` and
    ``teacher/...`` rows to log at update 0.

    ``seconds()`` is the run's training time so far (teacher data included): cloning stops between
    two minibatches once it reaches ``max_minutes``, as the PPO updates would; ``say`` takes progress notes,
    ``progress`` (:mod:`vint_env.training.progress`) the stages ``teacher data`` and ``cloning``."""
    from .imitation import behaviour_clone
    from .engine_teacher import generate_on_engine
    from .teacher_data import teacher_data
    t0 = time.perf_counter()
    data, _, cached = teacher_data(game, cfg.run.env_kwargs, cfg.teacher_data.teacher, cfg.run.seed,
                                   cfg.teacher_data.teacher_deals, cfg.teacher_data.teacher_workers,
                                   Path(cfg.run.runs_dir) / "teacher_cache" if cfg.teacher_data.teacher_cache else None,
                                   say=say, values=cfg.value_targets.teacher_values, progress=progress,
                                   engine_generate=generate_on_engine if cfg.teacher_data.teacher_engine else None)
    t1 = time.perf_counter()

    def stop() -> bool:   # the clock only: no env step is taken while cloning (total_timesteps may be 0)
        return cfg.run.max_minutes > 0 and seconds() >= 60.0 * cfg.run.max_minutes

    history = behaviour_clone(net, data, cfg.cloning.bc_epochs, cfg.cloning.bc_batch_size, cfg.cloning.bc_learning_rate,
                              cfg.run.seed, value_coef=cfg.cloning.bc_value_coef, max_grad_norm=cfg.ppo.max_grad_norm,
                              holdout=cfg.cloning.bc_holdout, say=say, value_scale=cfg.value_targets.bc_value_scale,
                              teacher_bonus=cfg.value_targets.bc_teacher_bonus, value_unit=cfg.value_targets.bc_value_unit,
                              stop=stop, measure_start=True, progress=progress,
                              margins=(cfg.residual.residual_margin,) if cfg.residual.residual_base else ())
    done = sum(h.get("epoch_done", 1.0) for h in history if h["epoch"] > 0)
    stopped = done < cfg.cloning.bc_epochs
    if stopped:
        say(f"behaviour cloning: stopped by the budget (max_minutes={cfg.run.max_minutes:g}) after {done:.2f} "
            f"of {cfg.cloning.bc_epochs} epochs")
    rows = [{f"bc/{k}": v for k, v in h.items()} for h in history]
    rows.append({"teacher/decisions": len(data), "teacher/seconds": t1 - t0, "teacher/cached": int(cached),
                 "bc/total_seconds": time.perf_counter() - t1, "bc/epochs_done": done,
                 "bc/stopped_by_budget": int(stopped)})
    return history, rows


WARM_START_FILE = "warm_start.pt"   # in the run's checkpoints/: the agent before RL, never pruned


def save_warm_start(ckpt_dir: Path, payload: dict) -> Path:
    """Keep the clone (the policy ``payload``) as ``checkpoints/warm_start.pt`` (an agent: ``ppo:<path>``), so
    that the final evaluation can play the agent after RL against the same agent before it."""
    from vint_env.agents.learned.policy import save_checkpoint
    return save_checkpoint(Path(ckpt_dir) / WARM_START_FILE, payload)


def warm_start_checkpoint(ckpt_dir: Path) -> Path | None:
    """The run's warm start checkpoint (:func:`save_warm_start`), or None if it had none."""
    path = Path(ckpt_dir) / WARM_START_FILE
    return path if path.exists() else None
