"""``vint-train``: train a PPO self-play agent from a YAML config.

    vint-train --config configs/vint_ppo.yaml [--set key=value ...]
    vint-train --resume runs/vint_ppo            # continue a stopped run

The run folder (``<runs_dir>/<name>`` unless ``--run-dir``) gets
``config.yaml`` (the resolved config), ``metrics.csv``, TensorBoard events in
``tb/``, checkpoints in ``checkpoints/`` (``latest.pt`` and numbered ones,
all written atomically) and ``learning_curves.png``.  The run ends by
printing the final evaluation table and the plot's path.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
from pathlib import Path

import yaml

from .config import (
    RESUME_OVERRIDABLE,
    ConfigError,
    PPOConfig,
    apply_overrides,
    code_specs,
    config_from_dict,
    load_config,
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="vint-train",
        description="Masked PPO with self-play for vint_v0, whist_v0 and solo_whist_v0.",
        epilog="example: vint-train --config configs/smoke.yaml --set num_envs=8 --set opponent_mix.self=0.7 "
               "--set opponent_mix.pool=0.1")
    p.add_argument("--config", help="YAML config file (see configs/)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (YAML value; dotted keys for mappings); repeatable")
    p.add_argument("--run-dir", help="run folder (default: <runs_dir>/<name> of the config, or <name>-2, -3 ... "
                                     "when that holds a run already)")
    p.add_argument("--resume", nargs="?", const=True, default=None, metavar="RUN_DIR",
                   help="continue the run in RUN_DIR (default: the config's latest run folder) from its latest "
                        "checkpoint")
    p.add_argument("--overwrite", action="store_true",
                   help="start afresh in the run folder, deleting the run it holds")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (one line per evaluation instead)")
    return p


def has_checkpoints(run_dir: Path) -> bool:
    return (run_dir / "checkpoints").is_dir() and any((run_dir / "checkpoints").glob("*.pt"))


def numbered_runs(base: Path) -> list[Path]:
    """``base``, ``base-2``, ``base-3`` ... that hold checkpoints, in number order."""
    found = [base] if has_checkpoints(base) else []
    if base.parent.is_dir():
        extra = []
        for p in base.parent.glob(f"{base.name}-*"):
            suffix = p.name[len(base.name) + 1:]
            if suffix.isdigit() and has_checkpoints(p):
                extra.append((int(suffix), p))
        found += [p for _, p in sorted(extra)]
    return found


def fresh_run_dir(base: Path) -> Path:
    """``base`` if it holds no run yet, else the next free ``base-N`` (a new run never overwrites one)."""
    if not has_checkpoints(base):
        return base
    k = 2
    while has_checkpoints(base.with_name(f"{base.name}-{k}")):
        k += 1
    return base.with_name(f"{base.name}-{k}")


def _resume_config(run_dir: Path, args) -> tuple[PPOConfig, Path]:
    from vint_env.agents.learned.policy import load_checkpoint
    ckpt_path = run_dir / "checkpoints" / "latest.pt"
    if not ckpt_path.exists():
        raise ConfigError(f"nothing to resume in {str(run_dir)!r}: no checkpoints/latest.pt")
    ckpt = load_checkpoint(ckpt_path)
    saved = config_from_dict(ckpt["config"], str(ckpt_path))
    if args.config:
        given = load_config(args.config).to_dict()
        differs = {k: (saved.to_dict()[k], v) for k, v in given.items()
                   if saved.to_dict()[k] != v and k not in RESUME_OVERRIDABLE}
        if differs:
            raise ConfigError(f"--config {args.config} differs from the run being resumed "
                              f"(run's value, file's value): {differs}")
    bad = [o.partition("=")[0] for o in args.overrides
           if o.partition("=")[0].partition(".")[0] not in RESUME_OVERRIDABLE]
    if bad:
        raise ConfigError(f"--set {bad} cannot change when resuming; allowed: {', '.join(RESUME_OVERRIDABLE)}")
    cfg = config_from_dict(apply_overrides(saved.to_dict(), args.overrides))
    # Nothing read from a checkpoint decides an import: code named by the stored config needs the user's word.
    given = load_config(args.config).to_dict() if args.config else {}
    overridden = {o.partition("=")[0].partition(".")[0].strip() for o in args.overrides}
    unvouched = {k: v for k, v in code_specs(cfg).items()
                 if k not in overridden and given.get(k) != getattr(cfg, k)}
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
            out[f"eval_{opp}"] = f"{v:+.0f}"
    out["ent"] = f"{scalars.get('entropy', 0):.2f}"
    return out


def _delete_run(run_dir: Path, config) -> None:
    """``--overwrite``: delete the run in ``run_dir``, unless the config being read lies inside it."""
    from vint_env.file_roles import OutputOverInputError, check_file_roles
    try:
        check_file_roles({"--config": config}, {}, folders={"the run folder --overwrite deletes": run_dir})
    except OutputOverInputError as e:
        raise ConfigError(str(e)) from None
    shutil.rmtree(run_dir)


def run(args) -> int:
    from .evaluation import HarnessEvaluator
    from .logs import RunLogger, plot_learning_curves
    from .ppo import Trainer

    if args.resume is not None:
        if isinstance(args.resume, str):
            run_dir = Path(args.resume)
        elif args.run_dir:
            run_dir = Path(args.run_dir)
        elif args.config:
            c = load_config(args.config)
            runs = numbered_runs(Path(c.runs_dir) / c.name)
            if not runs:
                raise ConfigError(f"no run of {c.name!r} to resume in {c.runs_dir!r}")
            run_dir = runs[-1]    # the latest of runs/<name>, runs/<name>-2, ...
        else:
            raise ConfigError("--resume without a folder needs --config or --run-dir to find the run")
        cfg, ckpt_path = _resume_config(run_dir, args)
    else:
        if not args.config:
            raise ConfigError("give --config FILE (e.g. configs/smoke.yaml) or --resume RUN_DIR")
        cfg = load_config(args.config, args.overrides)
        ckpt_path = None
        if args.run_dir:
            run_dir = Path(args.run_dir)
            if has_checkpoints(run_dir):
                if not args.overwrite:
                    raise ConfigError(f"run folder {str(run_dir)!r} already has checkpoints: pass --resume to "
                                      f"continue it, --overwrite to start again, or another --run-dir")
                _delete_run(run_dir, args.config)
        else:
            base = Path(cfg.runs_dir) / cfg.name
            if args.overwrite and has_checkpoints(base):
                _delete_run(base, args.config)
            run_dir = fresh_run_dir(base)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    except OSError as e:   # a path through a file, no permission, a read-only disk
        raise ConfigError(f"cannot create the run folder {str(run_dir)!r}: {e.strerror or e}") from None

    evaluator = HarnessEvaluator.from_config(cfg) if cfg.eval_opponents else None
    try:
        trainer = Trainer(cfg, run_dir, evaluate=evaluator, say=lambda msg: print(msg, flush=True))
    except ValueError as e:  # an unknown game, network, env option or teacher
        raise ConfigError(str(e)) from None
    resume_update = None
    if ckpt_path is not None:
        trainer.restore(ckpt_path)
        resume_update = trainer.state.update
        print(f"resuming {run_dir} from update {trainer.state.update} "
              f"({trainer.state.global_step} env steps)", flush=True)
    trainer.logger = RunLogger(run_dir, resume_update=resume_update, resume_step=trainer.state.global_step)
    print(f"vint-train: {cfg.game}, {cfg.total_timesteps} env steps in updates of >= {cfg.rollout_steps} "
          f"({cfg.num_envs} games x {cfg.num_steps} steps, source {cfg.env_source})"
          + (f", at most {cfg.max_minutes:g} min" if cfg.max_minutes else "") + f"; run folder {run_dir}",
          flush=True)

    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=cfg.total_timesteps, initial=min(trainer.state.global_step, cfg.total_timesteps),
                   unit="step", unit_scale=True, dynamic_ncols=True, file=sys.stderr)

        def progress(st, scalars, last_eval):
            bar.update(min(st.global_step, cfg.total_timesteps) - bar.n)
            bar.set_postfix(format_progress(scalars, last_eval, cfg.eval_opponents), refresh=False)
    else:
        def progress(st, scalars, last_eval):
            if (any(k.startswith("eval/") for k in scalars) or st.update % cfg.checkpoint_every == 0
                    or st.global_step >= cfg.total_timesteps):
                print(f"update {st.update}, step {st.global_step}/{cfg.total_timesteps}, "
                      f"{st.train_seconds / 60:.1f} min: "
                      + " ".join(f"{k}={v}" for k, v in format_progress(scalars, last_eval,
                                                                        cfg.eval_opponents).items()),
                      flush=True)
    try:
        final = trainer.train(progress=progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"\ninterrupted; continue with: vint-train --resume {run_dir}", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()
        trainer.logger.close()

    st = trainer.state
    if final.get("already_finished"):
        print(f"\n{run_dir} had finished: {st.update} updates, {st.global_step} env steps, its final evaluation "
              f"logged in {run_dir / 'metrics.csv'}; nothing to do. To train on: vint-train --resume {run_dir} "
              f"--set total_timesteps=<more> (or max_minutes=<more>)")
        return 0
    plot = plot_learning_curves(trainer.logger, cfg.eval_opponents, run_dir / "learning_curves.png",
                                f"{cfg.name} ({cfg.game})")
    print(f"\ntrained {st.update} updates, {st.global_step} env steps, {st.samples} PPO samples "
          f"in {st.train_seconds / 60:.1f} min"
          + (f" (stopped by max_minutes; to go on: vint-train --resume {run_dir} --set max_minutes=<more>)"
             if final.get("stopped_early") else ""))
    print(f"checkpoint: {run_dir / 'checkpoints' / 'latest.pt'}")
    if evaluator is not None:
        print(f"\nfinal evaluation of the trained agent (A) through the harness: "
              f"{cfg.final_eval_deals} duplicate boards per opponent (B), margin in raw points per board "
              f"(A's points summed over the board's tables; seats swapped between tables):")
        print(evaluator.table())
    print(f"learning curves: {plot if plot else '(no evaluation data to plot)'}")
    if evaluator is not None:
        viewer = evaluator.write_viewer(run_dir / "final_evaluation.html",
                                        f"{cfg.name} ({cfg.game}): final evaluation")
        if viewer is not None:
            print(f"match viewer (open in a browser; replays every board): {viewer}")
    return 0


def main(argv=None) -> int:
    from vint_env.agents.learned.policy import CheckpointError
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (ConfigError, CheckpointError) as e:
        print(f"vint-train: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
