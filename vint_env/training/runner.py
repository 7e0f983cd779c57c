"""One training run as a library call: what ``vint-train`` and ``python -m training.baseline`` both do.

:func:`run_training` builds the :class:`~vint_env.training.trainer.Trainer` of a config in a run folder
(resuming from a checkpoint when given one), trains it with a progress bar per stage or progress lines, and
ends with the final evaluation table, the learning-curve plot and the match viewer;
:func:`resume_config` is the config a stopped run continues with.
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import yaml

from vint_env import games
from vint_env.points import format_points

from .config import (RESUME_OVERRIDABLE, ConfigError, PPOConfig, agent_spec_texts, apply_overrides, code_specs,
                     config_from_checkpoint, config_from_dict, load_config, override_key)


def resume_config(run_dir: Path, overrides: list[str] = (), config_file: str | None = None) -> tuple[PPOConfig, Path]:
    """``(config, checkpoint)`` to continue the run in ``run_dir``: the checkpoint's config with
    ``overrides`` (keys of :data:`RESUME_OVERRIDABLE` only); ``config_file``, when given, must agree with
    the run's config up to those keys."""
    from vint_env.agents.learned.policy import load_checkpoint
    ckpt_path = Path(run_dir) / "checkpoints" / "latest.pt"
    if not ckpt_path.exists():
        raise ConfigError(f"nothing to resume in {str(run_dir)!r}: no checkpoints/latest.pt")
    ckpt = load_checkpoint(ckpt_path)
    saved = config_from_checkpoint(ckpt["config"], str(ckpt_path))
    if config_file:
        given, stored = load_config(config_file).to_flat(), saved.to_flat()
        differs = {k: (stored[k], v) for k, v in given.items() if stored[k] != v and k not in RESUME_OVERRIDABLE}
        if differs:
            raise ConfigError(f"--config {config_file} differs from the run being resumed "
                              f"(run's value, file's value): {differs}")
    bad = [o.partition("=")[0] for o in overrides if override_key(o) not in RESUME_OVERRIDABLE]
    if bad:
        raise ConfigError(f"--set {bad} cannot change when resuming; allowed: {', '.join(RESUME_OVERRIDABLE)}")
    cfg = config_from_dict(apply_overrides(saved.to_dict(), list(overrides)))
    # Nothing read from a checkpoint decides an import: code named by the stored config needs the user's word.
    given = load_config(config_file).to_flat() if config_file else {}
    overridden = {override_key(o) for o in overrides}
    unvouched = {k: v for k, v in code_specs(cfg).items()
                 if k not in overridden and given.get(k) != cfg.to_flat()[k]}
    if unvouched:
        raise ConfigError(f"the config stored in {str(ckpt_path)!r} names code to import "
                          + "; ".join(f"{k}: {v}" for k, v in unvouched.items())
                          + ". A checkpoint never decides an import: name it yourself to resume, with --config "
                            "FILE (the run's config, naming the same) or, for eval_opponents, --set "
                            "eval_opponents=[...]")
    return cfg, ckpt_path


def format_progress(scalars: dict, last_eval: dict, opponents) -> dict:
    out = {"sps": f"{scalars.get('env_steps_per_s', 0):.0f}"}
    for kind in ("random", "rule"):
        v = scalars.get(f"return_vs_{kind}")
        if v is not None and not math.isnan(v):
            out[f"r_{kind}"] = f"{v:+.3f}"
    for opp in opponents:
        v = last_eval.get(f"eval/{opp}/mean")
        if v is not None:
            out[f"eval_{opp}"] = format_points(v)
    out["ent"] = f"{scalars.get('entropy', 0):.2f}"
    return out


def run_inputs(cfg: PPOConfig, config_file: str | Path | None = None) -> tuple[dict, dict]:
    """``(files, folders)`` a run reads, by label: its config file and the files it inherits from,
    ``init_from``, and the paths its agent specs declare (a ``network:PATH`` teacher, evaluation opponents;
    ``baseline:DIR`` folders)."""
    from vint_env.file_roles import spec_inputs

    from .config_files import config_layers
    files, folders = spec_inputs([text for _, text in agent_spec_texts(cfg)])
    bases = {f"base {p}": p for p, _ in config_layers(Path(config_file))[1:]} if config_file else {}
    files = {"--config": config_file, **bases, "init_from": cfg.init.init_from or None, **files}
    return files, folders


def delete_run(run_dir: Path, config_file: str | Path | None, cfg: PPOConfig) -> None:
    """``--overwrite``: delete the run in ``run_dir``, unless an input of the new run lies inside it (its
    config file or a base of it, ``init_from``, a teacher's or an opponent's checkpoint or folder)."""
    from vint_env.file_roles import OutputOverInputError, check_file_roles
    files, folders = run_inputs(cfg, config_file)
    try:
        check_file_roles({**files, **folders}, {}, folders={"the run folder --overwrite deletes": run_dir})
    except OutputOverInputError as e:
        raise ConfigError(str(e)) from None
    shutil.rmtree(run_dir)


def run_training(cfg: PPOConfig, run_dir: Path, resume_from: Path | None = None, show_progress: bool | None = None,
                 replace: str | Path | None = None) -> int:
    """Train ``cfg`` in ``run_dir`` (continuing from the checkpoint ``resume_from``), print the final
    evaluation, plot and viewer; 0 when done, 130 when interrupted (the run resumes later).

    ``show_progress``: a bar per stage on stderr (teacher data, cloning, each evaluation match, the PPO
    updates; ``vint_env/training/progress.py``) when True, plain lines when False; ``None``: bars when
    stderr is a terminal.

    ``replace``: delete the run ``run_dir`` holds first (``--overwrite``; the value is the config file
    given, ``""`` for none), once the new run is built and none of its inputs lies inside the folder."""
    from .evaluation import HarnessEvaluator
    from .logs import RunLogger, plot_learning_curves
    from .progress import StageBars, progress_sink
    from .trainer import Trainer

    run_dir = Path(run_dir)
    ckpt_path = resume_from
    # Everything is built (and so checked) before the run folder is made, or an old run in it deleted.
    game = games.get(cfg.run.game)     # the validated config names a known game
    evaluator = HarnessEvaluator.from_config(cfg, game) if cfg.evaluation.eval_opponents else None
    stages = progress_sink(show_progress)
    if evaluator is not None:
        evaluator.progress = stages
    try:
        trainer = Trainer(cfg, run_dir, evaluate=evaluator, progress=stages)
    except ValueError as e:  # an unknown game, network, env option or teacher
        raise ConfigError(str(e)) from None
    if replace is not None:
        delete_run(run_dir, replace, cfg)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    except OSError as e:   # a path through a file, no permission, a read-only disk
        raise ConfigError(f"cannot create the run folder {str(run_dir)!r}: {e.strerror or e}") from None
    resume_update = None
    if ckpt_path is not None:
        trainer.restore(ckpt_path)
        resume_update = trainer.state.update
        print(f"resuming {run_dir} from update {trainer.state.update} "
              f"({trainer.state.global_step} env steps)", flush=True)
    trainer.logger = RunLogger(run_dir, resume_update=resume_update, resume_step=trainer.state.global_step)
    print(f"vint-train: {cfg.run.game}, {cfg.run.total_timesteps} env steps in updates of >= {cfg.rollout_steps} "
          f"({cfg.collection.num_envs} games x {cfg.collection.num_steps} steps, source {cfg.collection.env_source})"
          + (f", at most {cfg.run.max_minutes:g} min" if cfg.run.max_minutes else "") + f"; run folder {run_dir}",
          flush=True)

    if isinstance(stages, StageBars):
        def progress(st, scalars, last_eval):     # the trainer advances the PPO updates' bar; its figures
            stages.postfix(format_progress(scalars, last_eval, cfg.evaluation.eval_opponents))
    else:
        def progress(st, scalars, last_eval):
            if (any(k.startswith("eval/") for k in scalars) or st.update % cfg.checkpoints.checkpoint_every == 0
                    or st.global_step >= cfg.run.total_timesteps):
                print(f"update {st.update}, step {st.global_step}/{cfg.run.total_timesteps}, "
                      f"{st.train_seconds / 60:.1f} min: "
                      + " ".join(f"{k}={v}" for k, v in format_progress(scalars, last_eval,
                                                                        cfg.evaluation.eval_opponents).items()),
                      flush=True)
    try:
        final = trainer.train(progress=progress)
    except KeyboardInterrupt:              # the trainer's stages closed their bars on the way out
        print(f"\ninterrupted; continue with: vint-train --resume {run_dir}", file=sys.stderr)
        return 130
    finally:
        trainer.logger.close()

    st = trainer.state
    if final.get("already_finished"):
        print(f"\n{run_dir} had finished: {st.update} updates, {st.global_step} env steps, its final evaluation "
              f"logged in {run_dir / 'metrics.csv'}; nothing to do. To train on: vint-train --resume {run_dir} "
              f"--set total_timesteps=<more> (or max_minutes=<more>)")
        return 0
    plot = plot_learning_curves(trainer.logger, cfg.evaluation.eval_opponents, run_dir / "learning_curves.png",
                                f"{cfg.run.name} ({cfg.run.game})")
    print(f"\ntrained {st.update} updates, {st.global_step} env steps, {st.samples} PPO samples "
          f"in {st.train_seconds / 60:.1f} min"
          + (f" (stopped by max_minutes; to go on: vint-train --resume {run_dir} --set max_minutes=<more>)"
             if final.get("stopped_early") else ""))
    print(f"checkpoint: {run_dir / 'checkpoints' / 'latest.pt'} (the same weights as "
          f"update_{st.update:06d}.pt, the name the evaluation and the match viewer show)")
    if evaluator is not None:
        print(f"\nfinal evaluation of the trained agent (A) through the harness: "
              f"{cfg.evaluation.final_eval_deals} duplicate boards per opponent (B), margin in raw points per board "
              f"(A's points summed over the board's tables; seats swapped between tables):")
        print(evaluator.table())
    print(f"learning curves: {plot if plot else '(no evaluation data to plot)'}")
    if evaluator is not None:
        viewer = evaluator.write_viewer(run_dir / "final_evaluation.html",
                                        f"{cfg.run.name} ({cfg.run.game}): final evaluation")
        if viewer is not None:
            print(f"match viewer (open in a browser; replays every board): {viewer}")
    return 0


