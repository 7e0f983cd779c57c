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
import sys
from pathlib import Path

from ..cli_args import add_version
from .config import DEVICES, ConfigError, load_config
from .runner import resume_config, run_training


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="vint-train",
        description="Masked PPO with self-play for vint_v0, whist_v0 and solo_whist_v0.",
        epilog="example: vint-train --config configs/smoke.yaml --set num_envs=8 --set opponent_mix.self=0.7 "
               "--set opponent_mix.pool=0.1")
    add_version(p)
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
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--no-progress", action="store_true",
                       help="no progress bars: plain log lines (one per evaluation and checkpoint) instead")
    shown.add_argument("--progress", action="store_true",
                       help="progress bars on stderr even when it is not a terminal (the default shows them on a "
                            "terminal only)")
    p.add_argument("--collectors", type=int, metavar="N",
                   help="collect in N processes beside the learner (sets collectors; 0: in the learner)")
    p.add_argument("--device", choices=DEVICES,
                   help="the torch device the learner uses (sets device; auto: cuda, else mps, else cpu)")
    p.add_argument("--ray-address", metavar="ADDRESS",
                   help="run the collectors as Ray actors on this cluster ('local': start a Ray here; 'auto': the "
                        "running one); sets ray_address, and collectors=2 unless given")
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


def run(args) -> int:
    if args.collectors is not None:
        args.overrides.append(f"collectors={args.collectors}")
    if args.device is not None:
        args.overrides.append(f"device={args.device}")
    if args.ray_address:
        args.overrides.append(f"ray_address={args.ray_address}")
        if args.collectors is None and args.resume is None:
            args.overrides.append("collectors=2")
    replace = None        # --overwrite: the config file whose run replaces the one in the folder
    if args.resume is not None:
        if isinstance(args.resume, str):
            run_dir = Path(args.resume)
        elif args.run_dir:
            run_dir = Path(args.run_dir)
        elif args.config:
            c = load_config(args.config)
            runs = numbered_runs(Path(c.run.runs_dir) / c.run.name)
            if not runs:
                raise ConfigError(f"no run of {c.run.name!r} to resume in {c.run.runs_dir!r}")
            run_dir = runs[-1]    # the latest of runs/<name>, runs/<name>-2, ...
        else:
            raise ConfigError("--resume without a folder needs --config or --run-dir to find the run")
        cfg, ckpt_path = resume_config(run_dir, args.overrides, args.config)
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
                replace = args.config
        else:
            base = Path(cfg.run.runs_dir) / cfg.run.name
            if args.overwrite and has_checkpoints(base):
                run_dir, replace = base, args.config
            else:
                run_dir = fresh_run_dir(base)
    show = False if args.no_progress else True if args.progress else None    # None: bars on a terminal
    return run_training(cfg, run_dir, ckpt_path, show_progress=show, replace=replace)


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
