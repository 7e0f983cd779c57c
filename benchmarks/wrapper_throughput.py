"""Throughput of the Gymnasium single-agent wrapper against the raw AEC env.

    python -m benchmarks.wrapper_throughput                        # every game, random opponents
    python -m benchmarks.wrapper_throughput --games vint_v0 --deals 2000 --repeats 5

For each game: random legal play of whole deals, (a) through the AEC env's own
loop (``agent_iter`` / ``last`` / ``step``), (b) through ``SingleAgentEnv``
with a random learner at seat 0 and random opponents (each ``step`` covers the
learner's move and the opponents' moves that follow it).  Prints deals per
second for both (median over the repeats), the ratio, and the wrapper's
learner decisions per second.  A benchmark, not a test: the machine's load
moves it.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from vint_env import games
from vint_env.random_play import random_episode
from vint_env.wrappers.single_agent import GAMES, SingleAgentEnv


def aec_deals(game: str, deals: int, seed: int) -> float:
    """Seconds for ``deals`` random deals through the AEC loop."""
    env = games.get(game).env()
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    for _ in range(deals):
        env.reset(seed=int(rng.integers(2**31)))
        random_episode(env, rng.integers)
    return time.perf_counter() - start


def wrapper_deals(game: str, deals: int, seed: int) -> tuple[float, int]:
    """Seconds and learner decisions for ``deals`` random deals through ``SingleAgentEnv``."""
    env = SingleAgentEnv(game, seats=0, opponents="random")
    rng = np.random.default_rng(seed)
    decisions = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(deals):
        while True:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
            if term or trunc:
                break
        env.reset()
    return time.perf_counter() - start, decisions


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wrapper_throughput", description=__doc__.splitlines()[0])
    games.add_game_option(parser, "--games", env_name=True, nargs="+", default=list(GAMES), help="the games")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{'game':<15}{'AEC deals/s':>14}{'wrapper deals/s':>17}{'ratio':>8}{'learner steps/s':>17}")
    for game in args.games:
        aec, wrap, steps = [], [], []
        for r in range(args.repeats):
            aec.append(args.deals / aec_deals(game, args.deals, seed=r))
            seconds, decisions = wrapper_deals(game, args.deals, seed=r)
            wrap.append(args.deals / seconds)
            steps.append(decisions / seconds)
        a, w = statistics.median(aec), statistics.median(wrap)
        print(f"{game:<15}{a:>14.0f}{w:>17.0f}{w / a:>8.2f}{statistics.median(steps):>17.0f}", flush=True)


if __name__ == "__main__":
    main()
