"""When a run evaluates, and how an evaluation survives a kill.

The trainer evaluates every ``eval_every`` updates, once at the end, and (with a warm start) the
untrained network and the clone at update 0; with a warm start the final evaluation also plays the
agent against the clone (``checkpoints/warm_start.pt``): RL's gain over its start.  ``trainer.evaluate(checkpoint_path, update, deals)``
plays a checkpoint (``evaluation.py`` wires the harness in).  The checkpoint saved before playing
(the file the harness loads) marks the evaluation pending, the one saved after it is logged clears
that, so ``--resume`` after a kill in between plays it again and its row is neither lost nor doubled.
"""

from __future__ import annotations

from vint_env.agents.learned.policy import save_checkpoint
from vint_env.points import format_points

from .logs import FINAL_EVALUATION
from .warm_start import warm_start_checkpoint

BEFORE_CLONING = "eval_before_cloning/"   # log prefix of the untrained network's evaluation (warm start)


def margins(scalars: dict) -> str:
    """``vs random +11,141, vs rule -141,952 points a board`` from an evaluation's ``eval/...`` scalars."""
    opps = [k[len("eval/"):-len("/mean")] for k in scalars if k.startswith("eval/") and k.endswith("/mean")]
    return ", ".join(f"vs {o} {format_points(scalars[f'eval/{o}/mean'])}" for o in opps) + " points a board (duplicate)"


def due(cfg, update: int) -> bool:
    """Whether a periodic evaluation falls after ``update`` (the final one is the loop's)."""
    return bool(cfg.evaluation.eval_every) and update % cfg.evaluation.eval_every == 0


def run_evaluation(trainer, deals: int, final: bool = False) -> dict:
    """Have ``trainer.evaluate`` play the current weights; log and return its scalars."""
    st = trainer.state
    if trainer.evaluate is None:
        if final:
            st.final_eval_update = st.update
        return {}
    st.pending_eval_deals, st.pending_eval_final = deals, final
    path = trainer.save()
    if trainer.logger is not None and hasattr(trainer.logger, "drop_rows"):
        # a row of this very evaluation, logged by a run killed before its checkpoint: replaced
        trainer.logger.drop_rows(st.update, prefix="eval/")
    scalars = trainer.evaluate(path, st.update, deals)
    before = warm_start_checkpoint(trainer) if final else None
    if before is not None and hasattr(trainer.evaluate, "against_warm_start"):
        # what RL did: the agent after it against the same agent before it (the clone), same boards
        scalars.update(trainer.evaluate.against_warm_start(path, before, deals))
    trainer.last_eval = dict(scalars)
    if trainer.logger is not None:
        trainer.logger.log(st.update, st.global_step, {**scalars, FINAL_EVALUATION: 1} if final else scalars)
    st.pending_eval_deals, st.pending_eval_final = 0, False
    if final:
        st.final_eval_update = st.update
    trainer.save()
    return scalars


def evaluate_before_cloning(trainer, deals: int) -> dict:
    """Evaluate the untrained network before the warm start clones the teacher, logged at update 0 as
    ``eval_before_cloning/<opponent>/...``: where the learning curves start.

    The checkpoint saved first leaves this evaluation undone, so a run killed while it plays does it
    again on ``--resume`` (its row is dropped and logged again); the harness plays a copy of the
    weights in ``checkpoints/before_cloning.pt``, removed afterwards."""
    st = trainer.state
    if trainer.evaluate is None:
        return {}
    trainer.save()
    path = save_checkpoint(trainer.ckpt_dir / "before_cloning.pt", trainer.checkpoint_payload())
    if trainer.logger is not None and hasattr(trainer.logger, "drop_rows"):
        trainer.logger.drop_rows(0, prefix=BEFORE_CLONING)
    trainer.say(f"evaluating the untrained network ({deals} boards per opponent) ...")
    found = trainer.evaluate(path, 0, deals)
    trainer.say(f"the untrained network: {margins(found)}")
    scalars = {BEFORE_CLONING + k.removeprefix("eval/"): v for k, v in found.items()}
    path.unlink(missing_ok=True)
    if trainer.logger is not None:
        trainer.logger.log(0, 0, scalars)
    st.evaluated_before_cloning = True
    trainer.save()
    return scalars
