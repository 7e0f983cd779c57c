"""Training throughput: env steps and PPO samples per second, per game source.

    python -m training.bench --config configs/vint_ppo.yaml --sources aec vector --updates 6

Runs a few updates of the config (no evaluation, no files) for each source
and prints the medians over updates (the first update, which warms caches
and compiles numba kernels, is left out):

- collection env steps/s: env steps (all seats) / time collecting the rollout;
- PPO samples/s: learner transitions / (collection + PPO update) time;
- update seconds: time of the PPO update alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time

from vint_env.training.config import load_config
from vint_env.training.ppo import Trainer


def bench(config: str, source: str, updates: int, overrides: list[str]) -> dict:
    cfg = load_config(config, overrides + [f"env_source={source}", "eval_opponents=[]",
                                           "total_timesteps=1000000000"])
    with tempfile.TemporaryDirectory() as tmp:
        t = Trainer(cfg, tmp)
        rows = []
        for _ in range(updates + 1):
            t0 = time.perf_counter()
            s = t.update_once()
            s["wall"] = time.perf_counter() - t0
            rows.append(s)
    rows = rows[1:]
    med = lambda k: statistics.median(r[k] for r in rows)
    return {"source": source, "game": cfg.game, "num_envs": cfg.num_envs, "updates": updates,
            "env_steps_per_s": med("env_steps_per_s"), "samples_per_s": med("samples_per_s"),
            "update_seconds": med("update_seconds"), "rollout_env_steps": med("rollout_env_steps"),
            "rollout_samples": med("rollout_samples"), "wall_per_update": med("wall")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/vint_ppo.yaml")
    p.add_argument("--sources", nargs="+", default=["aec", "vector"])
    p.add_argument("--updates", type=int, default=6)
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    print("| source | game | games | collection env steps/s | PPO samples/s | update s | "
          "env steps / update | samples / update |")
    print("|---|---|---|---|---|---|---|---|")
    for source in args.sources:
        r = bench(args.config, source, args.updates, args.overrides)
        print(f"| {r['source']} | {r['game']} | {r['num_envs']} | {r['env_steps_per_s']:.0f} | "
              f"{r['samples_per_s']:.0f} | {r['update_seconds']:.2f} | {r['rollout_env_steps']:.0f} | "
              f"{r['rollout_samples']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
