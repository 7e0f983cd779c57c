"""``python -m training.baseline``: train, measure and ship the baseline agent of a game.

    python -m training.baseline --game whist                 # configs/baseline_whist.yaml -> vint_env/baselines/
    python -m training.baseline --game whist --minutes 25 --boards 500 --out vint_env/baselines/
    python -m training.baseline --game whist ...             # the same command again after a stop: it resumes

Three steps, each resumable:

1. **Train** with the trainer library (``vint_env.training.runner``, what ``vint-train`` runs) on the game's config (``configs/baseline_<game>.yaml``:
   behaviour cloning from the rule bot, then PPO fine-tuning with a KL term toward the clone) in
   the run folder (``<runs_dir>/<name>`` of the config).  A run folder that holds the same run
   is resumed from its latest checkpoint; one that holds another config is refused (``--fresh``
   starts again).  ``--minutes`` sets the wall-clock budget (``max_minutes``: teacher data and
   cloning included).
2. **Measure** the trained policy (greedy) in duplicate against ``random`` and ``rule`` on
   ``--boards`` boards of ``--measure-seed``, boards the run never played (training deals come from
   the config's ``seed``; the measurement seed must differ from it), through the evaluation
   harness.  Each opponent's result is saved in ``<run>/measure/<opponent>.json`` with the
   checkpoint's SHA-256, so a stop loses at most the match in progress.
3. **Ship** ``<out>/<game>.pt`` (the policy only: no optimizer, pool or teacher) and
   ``<out>/<game>.json`` (the manifest: commands, resolved config, budget spent, machine, git
   commit, observation layout, results), each written to a temporary file and renamed; the
   manifest holds the checkpoint's SHA-256, so a pair left half-updated is refused by the loader.

Everything the recipe says is also appended to ``<run>/baseline.log``.
"""

from __future__ import annotations

import argparse
import re
import datetime as dt
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from vint_env import games
from vint_env.points import format_ci
from vint_env.atomic import atomic_write

from vint_env.training.config import (RESUME_OVERRIDABLE, ConfigError, PPOConfig, config_from_checkpoint, flat_keys,
                                      load_config)
from vint_env.evaluation.report import strict_json

DEFAULT_BOARDS = 500
DEFAULT_MEASURE_SEED = 1001
OPPONENTS = ("random", "rule")
ROOT = Path(__file__).resolve().parents[1]


def _ci(m: dict) -> dict:
    return {"mean": m["mean"], "low": m["low"], "high": m["high"]}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.baseline",
        description="Train the baseline agent of a game, measure it in duplicate against the random and rule "
                    "bots on fresh boards, and write its checkpoint and manifest (resumes after a stop).",
        epilog="example: python -m training.baseline --game whist --minutes 25 --boards 500")
    games.add_game_option(p, required=True)
    p.add_argument("--config", help="training config (default configs/baseline_<game>.yaml)")
    p.add_argument("--minutes", type=float, help="wall-clock training budget (sets max_minutes)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a training config key, as in vint-train; repeatable")
    p.add_argument("--boards", type=int, default=DEFAULT_BOARDS,
                   help=f"duplicate boards per opponent in the measurement (default {DEFAULT_BOARDS})")
    p.add_argument("--measure-seed", type=int, default=DEFAULT_MEASURE_SEED,
                   help=f"seed of the measurement boards; must differ from the training seed "
                        f"(default {DEFAULT_MEASURE_SEED})")
    p.add_argument("--opponents", nargs="+", default=list(OPPONENTS), metavar="SPEC",
                   help=f"agent specs to measure against (default {' '.join(OPPONENTS)}; e.g. random rule dd "
                        f"pimc:samples=32,time=0.5: dd and pimc are slow, use fewer --boards)")
    p.add_argument("--workers", type=int, default=1, help="processes of the measurement (default 1)")
    p.add_argument("--out", help="folder of the shipped checkpoint and manifest (default: the package's "
                                 "vint_env/baselines/)")
    p.add_argument("--run-dir", help="training run folder (default <runs_dir>/<name> of the config)")
    p.add_argument("--fresh", action="store_true", help="delete the run folder's run and train from scratch")
    p.add_argument("--no-progress", action="store_true", help="no progress bars (one line per evaluation)")
    return p


# ----------------------------------------------------------------------------- small helpers
class Log:
    """Print a line and append it, time-stamped, to ``<run>/baseline.log``."""

    def __init__(self, path: Path):
        self.path = path

    def __call__(self, msg: str) -> None:
        print(msg, flush=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(f"{now()} {msg}\n")


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json(path: Path, data) -> Path:
    """Write ``data`` (any JSON value) as JSON to ``path`` atomically (temporary file in the folder, then renamed)."""
    with atomic_write(path, "w", encoding="utf-8", shared=True) as f:   # shipped and shared: world-readable
        f.write(strict_json(data, indent=1, sort_keys=False) + "\n")   # NaN/inf as null: strict JSON
    return path


def git_commit() -> dict:
    """The commit of the code that runs (and whether its tree had changes), or nulls outside git."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)
    try:
        head = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if head.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def machine() -> dict:
    import numba
    import numpy
    import torch
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "torch": torch.__version__, "numpy": numpy.__version__,
            "numba": numba.__version__}


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def verdict(margin: dict) -> str:
    if margin["low"] > 0:
        return "above (95% CI excludes 0)"
    if margin["high"] < 0:
        return "below (95% CI excludes 0)"
    return "not separated (95% CI includes 0)"


# ----------------------------------------------------------------------------- the steps
def resolve(args) -> tuple[PPOConfig, Path, Path, Path]:
    """``(config, config file, run folder, out folder)`` of the command line, checked."""
    game = games.get(args.game)
    config_file = Path(args.config or f"configs/baseline_{game.name}.yaml")
    if not config_file.is_file() and not args.config and (ROOT / config_file).is_file():
        config_file = ROOT / config_file
    overrides = list(args.overrides) + ([f"max_minutes={args.minutes}"] if args.minutes is not None else [])
    cfg = load_config(config_file, overrides)
    if cfg.run.game != game.name:
        raise ConfigError(f"{config_file} trains {cfg.run.game!r}, not {game.name!r} (--game {game.name})")
    if args.boards < 1:
        raise ConfigError(f"--boards must be >= 1, got {args.boards}")
    if args.measure_seed == cfg.run.seed:
        raise ConfigError(f"--measure-seed {args.measure_seed} is the training seed: measure on boards of "
                          f"another seed")
    if args.minutes is not None and args.minutes <= 0:
        raise ConfigError(f"--minutes must be > 0, got {args.minutes}")
    if args.workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {args.workers}")
    from vint_env.agents.registry import load_agent
    from vint_env.agents.spec import parse_spec
    specs = []
    for opp in args.opponents:
        try:
            specs.append(parse_spec(opp))
            load_agent(specs[-1], game=game)
        except (ValueError, ImportError) as e:
            raise ConfigError(f"--opponents: {opp!r}: {e}") from None
    args.opponents = [str(spec) for spec in specs]          # each by its parsed spec's text
    run_dir = Path(args.run_dir) if args.run_dir else Path(cfg.run.runs_dir) / cfg.run.name
    if args.out:
        out = Path(args.out)
    else:
        from vint_env.agents.learned.baseline import default_folder
        out = default_folder()
    return cfg, config_file, run_dir, out


def train(args, cfg: PPOConfig, config_file: Path, run_dir: Path, say: Log) -> int:
    """Train (or resume, or find finished) the run with the trainer library; its exit code."""
    from vint_env.agents.learned.policy import load_checkpoint
    from vint_env.training.runner import resume_config, run_training

    latest = run_dir / "checkpoints" / "latest.pt"
    if latest.is_file():
        # read as a config, so a run that wrote its game as the env id (vint_v0) is the same run
        saved = config_from_checkpoint(load_checkpoint(latest, game=cfg.run.game)["config"], str(latest)).to_flat()
        wanted = cfg.to_flat()
        differs = {k: (saved.get(k), v) for k, v in wanted.items()
                   if saved.get(k) != v and k not in RESUME_OVERRIDABLE}
        if differs:
            raise ConfigError(f"{run_dir} holds a run of another config (run's value, this command's value): "
                              f"{differs}; pass --fresh to train again from scratch, or another --run-dir")
        budget = [f"{k}={json.dumps(wanted[k])}" for k in RESUME_OVERRIDABLE if saved.get(k) != wanted[k]]
        say(f"train: resuming the run in {run_dir}" + (f" with {', '.join(budget)}" if budget else ""))
        cfg, resume_from = resume_config(run_dir, budget)
    else:
        say(f"train: {cfg.run.game} with {config_file}, budget "
            + (f"{cfg.run.max_minutes:g} min or " if cfg.run.max_minutes else "")
            + f"{cfg.run.total_timesteps} env steps, run folder {run_dir}")
        resume_from = None
    return run_training(cfg, run_dir, resume_from, show_progress=False if args.no_progress else None)


def measure(args, cfg: PPOConfig, run_dir: Path, say: Log) -> dict:
    """The trained policy against each opponent on the measurement boards: opponent -> saved record."""
    from vint_env.agents.learned.baseline import file_sha256
    from vint_env.evaluation import generate_boards, run_match, summarize

    game = cfg.run.game                    # the game's name: the config's one spelling of it
    ckpt = run_dir / "checkpoints" / "latest.pt"
    sha = file_sha256(ckpt)
    env_options = {k: v for k, v in cfg.run.env_kwargs.items() if k not in ("reward_scale", "episode")}
    boards = None
    results = {}
    for opp in args.opponents:
        path = run_dir / "measure" / f"{re.sub(r'[^A-Za-z0-9_.=-]+', '_', opp)}.json"
        if path.is_file():
            try:
                saved = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                saved = {}
            if (saved.get("checkpoint_sha256"), saved.get("boards"), saved.get("seed")) == \
                    (sha, args.boards, args.measure_seed):
                say(f"measure: vs {opp}: {saved['boards']} boards measured before ({path}); kept")
                results[opp] = saved
                continue
        boards = boards or generate_boards(args.boards, seed=args.measure_seed)
        say(f"measure: the trained policy vs {opp}, {args.boards} duplicate boards of seed {args.measure_seed} ...")
        t0 = time.perf_counter()
        match = run_match(game, f"network:{ckpt}", opp, boards, seed=args.measure_seed, workers=args.workers,
                          progress=not args.no_progress, analysis=False, env_options=env_options)
        s = summarize(match)
        m = s["margin_per_board"]
        record = {
            "opponent": opp, "boards": s["boards"], "seed": args.measure_seed, "checkpoint_sha256": sha,
            "margin_per_board": {"mean": m["mean"], "low": m["low"], "high": m["high"], "sd": m.get("sd")},
            "verdict": verdict(m),
            "boards_won": s["boards_won"], "boards_lost": s["boards_lost"], "boards_tied": s["boards_tied"],
            "seconds": round(time.perf_counter() - t0, 1), "load_average": load_average(),
            "command": measure_command(game, opp, args.boards, args.measure_seed, env_options),
        }
        for key in ("contracts", "solo_contracts"):
            if key in s:
                record[key] = s[key]
        write_json(path, record)
        say(f"measure: vs {opp}: {m['mean']:+.2f} points a board, 95% CI [{m['low']:+.2f}, {m['high']:+.2f}] "
            f"({record['verdict']}; {s['boards_won']} won / {s['boards_lost']} lost / {s['boards_tied']} tied)")
        results[opp] = record
    return results


def measure_command(game: str, opponent: str, boards: int, seed: int, env_options: dict) -> str:
    """The ``vint-eval`` command that repeats a measurement with the shipped checkpoint."""
    extra = "".join(f" --env-option {k}={v}" for k, v in sorted(env_options.items()))
    return (f"vint-eval match --game {game} --a baseline --b {opponent} --boards {boards} --seed {seed} "
            f"--no-dd{extra}")


def command_history(run_dir: Path) -> list[str]:
    """The recipe's command lines that ran on this run folder, first one first."""
    path = run_dir / "baseline_commands.json"
    try:
        seen = json.loads(path.read_text()) if path.is_file() else []
    except (OSError, json.JSONDecodeError):
        seen = []
    return [c for c in seen if isinstance(c, str)] if isinstance(seen, list) else []


def warm_start_budget(run_dir: Path) -> dict:
    """What the run's teacher data and cloning cost, from its ``metrics.csv`` (``teacher_cached``: the data
    came from ``runs/teacher_cache``, made by an earlier run, and its making is not in ``train_minutes``);
    empty for a run with no teacher."""
    import csv
    try:
        with open(run_dir / "metrics.csv", newline="") as f:
            row = next((r for r in csv.DictReader(f) if r.get("teacher/cached")), None)
    except OSError:
        row = None
    if row is None:
        return {}
    return {"teacher_cached": row["teacher/cached"] == "1",
            "teacher_minutes": round(float(row["teacher/seconds"]) / 60, 2),
            "cloning_minutes": round(float(row["bc/total_seconds"]) / 60, 2)}


def ship(args, cfg_file: Path, run_dir: Path, out: Path, results: dict, commands: list[str], started: dict,
         say: Log) -> tuple[Path, Path]:
    """Write ``<out>/<game>.pt`` (the policy only) and ``<out>/<game>.json`` (the manifest)."""
    from vint_env.agents.learned.baseline import (MANIFEST_FORMAT, MANIFEST_VERSION, checkpoint_path, file_sha256,
                                          layout_signature, manifest_path)
    from vint_env.agents.learned.policy import load_checkpoint, save_checkpoint
    ckpt = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    game = games.get(ckpt["game"]).name
    trainer = ckpt.get("trainer") or {}
    cfg = flat_keys(ckpt["config"])          # sectioned, or flat in a run of an earlier release
    policy = {k: ckpt[k] for k in ("game", "env_kwargs", "obs_size", "num_actions", "network", "model", "config")}
    if ckpt.get("residual") is not None:
        policy["residual"] = ckpt["residual"]
    pt, js = checkpoint_path(game, out), manifest_path(game, out)
    save_checkpoint(pt, policy)
    os.chmod(pt, 0o644)
    manifest = {
        "format": MANIFEST_FORMAT, "version": MANIFEST_VERSION,
        "game": game, "env_name": ckpt["game"],
        "checkpoint": {"file": pt.name, "sha256": file_sha256(pt), "bytes": pt.stat().st_size},
        "observation": layout_signature(game), "num_actions": ckpt["num_actions"],
        "network": ckpt["network"],
        "standalone": ckpt.get("residual") is None,   # the network chooses every action (else: the rule bot
                                                      # corrected by it, agent spec residual)
        "command": commands[0], "commands": commands,
        "config_file": str(cfg_file if not cfg_file.is_absolute() or ROOT not in cfg_file.parents
                           else cfg_file.relative_to(ROOT)),
        "config": ckpt["config"],
        "budget": {
            "max_minutes": cfg.get("max_minutes"), "total_timesteps": cfg.get("total_timesteps"),
            "train_minutes": round(float(trainer.get("train_seconds", 0.0)) / 60, 2),
            "updates": trainer.get("update"), "env_steps": trainer.get("global_step"),
            "ppo_samples": trainer.get("samples"),
            "teacher": cfg.get("teacher"), "teacher_deals": cfg.get("teacher_deals"),
            **warm_start_budget(run_dir),
        },
        "machine": {**machine(), "load_average_at_start": started.get("load_average"),
                    "load_average_at_end": load_average(),
                    "note": "2 cores shared with other jobs: wall-clock budgets buy less work under load"},
        "git": started["git"],
        "trained_until": now(),
        "results": {
            "boards": args.boards, "seed": args.measure_seed, "agent": "greedy policy",
            "margin_unit": "raw points per duplicate board (A's points summed over the board's tables)",
            "vs": results,
        },
    }
    write_json(js, manifest)
    say(f"ship: {pt} ({pt.stat().st_size / 1e6:.1f} MB) and {js}")
    return pt, js


def run(args, argv: list[str]) -> int:
    cfg, config_file, run_dir, out = resolve(args)
    if args.fresh and run_dir.exists():
        print(f"--fresh: deleting the run in {run_dir}", flush=True)
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    say = Log(run_dir / "baseline.log")
    line = "python -m training.baseline " + shlex.join(argv)
    history = command_history(run_dir)
    if not history or history[-1] != line:
        history.append(line)
    write_json(run_dir / "baseline_commands.json", history)
    started = {"load_average": load_average(), "git": git_commit()}
    say(f"{line}  (git {started['git']['commit'] or 'unknown'}"
        f"{', uncommitted changes' if started['git']['dirty'] else ''}; load average {started['load_average']})")
    code = train(args, cfg, config_file, run_dir, say)
    if code != 0:
        if code == 130:
            again = "python -m training.baseline " + shlex.join(a for a in argv if a != "--fresh")
            say(f"stopped; to resume: {again}")
        return code
    results = measure(args, cfg, run_dir, say)
    ship(args, config_file, run_dir, out, results, history, started, say)
    say("done: " + "; ".join(f"vs {o}: {format_ci(**_ci(r['margin_per_board']))} over {r['boards']} boards"
                             for o, r in results.items()))
    return 0


def main(argv=None) -> int:
    from vint_env.agents.learned.policy import CheckpointError
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        return run(args, argv)
    except KeyboardInterrupt:
        print("\ninterrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except (ConfigError, CheckpointError) as e:
        print(f"training.baseline: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
