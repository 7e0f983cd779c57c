"""Throughput of the AEC environments under random legal play.

    python -m benchmarks.aec_throughput                 # every game, default settings
    python -m benchmarks.aec_throughput --games vint_v0 --steps 20000 --repeats 7
    python -m benchmarks.aec_throughput --games vint2p_v0:way=1 vint2p_v0:way=5   # env options after a colon

For each env: a random agent plays whole episodes through the standard AEC
loop (``agent_iter`` / ``last`` / ``step``), so every step builds the acting
agent's observation and action mask, as a learner would.  Prints env steps
per second (wall clock, and per CPU-second of this process, which a busy
machine disturbs less) and episodes (deals) per second, the median over the
repeats and the spread.  This is a benchmark, not a test: the machine's load moves it.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import numpy as np

from vint_env import games as _games
from vint_env.random_play import random_episode

GAMES = _games.env_names()


def run_random(env, steps: int, seed: int) -> tuple[int, int, float, float]:
    """Play random legal episodes for at least ``steps`` live steps.

    Returns (steps, episodes, wall seconds, CPU seconds of this process).
    """
    rng = np.random.default_rng(seed)
    done_steps = 0
    episodes = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while done_steps < steps:
        env.reset(seed=int(rng.integers(2**31)))
        done_steps += random_episode(env, rng.integers)
        episodes += 1
    return done_steps, episodes, time.perf_counter() - start, time.process_time() - cpu_start


def bench_game(name: str, steps: int, repeats: int, seed: int = 0) -> dict:
    env = _games.get(name).env()
    run_random(env, min(steps, 2000), seed)            # warm-up
    sps, cps, eps, lengths = [], [], [], []
    for r in range(repeats):
        n, episodes, secs, cpu = run_random(env, steps, seed + r + 1)
        sps.append(n / secs)
        cps.append(n / cpu)
        eps.append(episodes / secs)
        lengths.append(n / episodes)
    return {"game": name, "steps_per_s": statistics.median(sps), "min": min(sps), "max": max(sps),
            "steps_per_cpu_s": statistics.median(cps), "episodes_per_s": statistics.median(eps), "steps_per_episode": statistics.median(lengths)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.aec_throughput", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    _games.add_game_option(parser, "--games", env_name=True, nargs="+", default=None,
                           help=f"envs to measure (default: all of {GAMES})")
    parser.add_argument("--steps", type=int, default=20000, help="live env steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats; the median is reported")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    games = args.games or list(GAMES)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
          f"random legal play, observation + mask built every step; median of {args.repeats} x {args.steps} steps")
    print(f"{'env':<16}{'steps/s':>12}{'(min..max)':>22}{'steps/CPU-s':>13}{'episodes/s':>13}{'steps/episode':>15}")
    for g in games:
        r = bench_game(g, args.steps, args.repeats, args.seed)
        spread = f"{r['min']:,.0f}..{r['max']:,.0f}"
        print(f"{g:<18}{r['steps_per_s']:>12,.0f}{spread:>22}{r['steps_per_cpu_s']:>13,.0f}{r['episodes_per_s']:>13,.1f}"
              f"{r['steps_per_episode']:>15.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
