"""When a run evaluates, what an evaluation plays, and how it survives a kill.

The trainer evaluates every ``eval_every`` updates (:func:`due`), once at the end, and (with a warm
start) the untrained network and the clone at update 0; with a warm start the final evaluation also
plays the agent against the clone (``checkpoints/warm_start.pt``): RL's gain over its start.
``evaluate(agent, update, deals)`` plays an agent: the trainer's network as a frozen copy in memory, no file
(``evaluation.py`` wires the harness in; :func:`play`).  The trainer saves a checkpoint before playing that
marks the evaluation pending (the run's resume point: the harness does not read it), and one after it is
logged that clears it, so ``--resume`` after a kill in between plays it again; :func:`play` drops the row a
killed run may have logged, so it is neither lost nor doubled.
"""

from __future__ import annotations

from pathlib import Path

from vint_env.agents.base import Agent
from vint_env.points import format_points

BEFORE_CLONING = "eval_before_cloning/"   # log prefix of the untrained network's evaluation (warm start)


def margins(scalars: dict) -> str:
    """``vs random +11,141, vs rule -141,952 points a board`` from an evaluation's ``eval/...`` scalars."""
    opps = [k[len("eval/"):-len("/mean")] for k in scalars if k.startswith("eval/") and k.endswith("/mean")]
    return ", ".join(f"vs {o} {format_points(scalars[f'eval/{o}/mean'])}" for o in opps) + " points a board (duplicate)"


def due(cfg, update: int) -> bool:
    """Whether a periodic evaluation falls after ``update`` (the final one is the loop's)."""
    return bool(cfg.evaluation.eval_every) and update % cfg.evaluation.eval_every == 0


def play(evaluate, agent: Agent, update: int, deals: int, logger=None, warm_start: Path | None = None,
         prefix: str = "eval/") -> dict:
    """The ``eval/...`` scalars of ``evaluate`` playing ``agent`` for ``deals`` boards per opponent, and
    with ``warm_start`` (a final evaluation after a warm start: the clone's checkpoint) also against it, on the
    same boards.  A row of this very evaluation (``update``, scalars under ``prefix``) that a run killed before
    its next checkpoint logged is dropped from ``logger`` first: the caller logs it again."""
    if logger is not None and hasattr(logger, "drop_rows"):
        logger.drop_rows(update, prefix=prefix)
    scalars = evaluate(agent, update, deals)
    if warm_start is not None and hasattr(evaluate, "against_warm_start"):
        # what RL did: the agent after it against the same agent before it (the clone), same boards
        scalars.update(evaluate.against_warm_start(agent, warm_start, deals))
    return scalars


def before_cloning(scalars: dict) -> dict:
    """An evaluation's ``eval/<opponent>/...`` scalars as the untrained network's, ``eval_before_cloning/...``."""
    return {BEFORE_CLONING + k.removeprefix("eval/"): v for k, v in scalars.items()}
