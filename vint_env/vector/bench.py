"""Side-by-side speed of the batched engine, the `vint_v0` AEC env and other card-game engines.

``python -m vint_env.vector.bench`` (or ``python -m vint_env.bench --vector``)
plays random legal moves, with the observation and the legal-action mask of
the player to move produced at every step, and prints steps per second
(median of ``--repeats`` runs of about ``--seconds`` each, all in one run so
the figures share the machine's conditions) for:

- the batched engine (:class:`~vint_env.vector.VintEngine`) at several batch
  sizes (numba on all its threads and on one);
- `vint_v0` through PettingZoo's AEC API (``env.last()`` / ``env.step``);
- where installed: OpenSpiel's C++ bridge ``bridge(use_double_dummy_result=false)``
  with and without an observation tensor read each step, and RLCard's bridge.

A step is one player action (call or card); deals, resets and the random
choice of the action are inside the timed loop for every engine.  Peak
memory: traced Python/NumPy allocations of one short run per batch size,
and the process's peak resident size at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc

import numpy as np


def _median_rate(run, repeats: int, seconds: float) -> tuple[float, float]:
    """``run(seconds) -> (steps, elapsed)``; median steps per wall second and per CPU second of this process.

    On a machine shared with other work the wall figure drops; the CPU figure
    (steps per second of CPU time this process got, all its threads) does not.
    """
    wall, cpu = [], []
    for _ in range(repeats):
        c0 = time.process_time()
        steps, elapsed = run(seconds)
        wall.append(steps / elapsed)
        cpu.append(steps / max(time.process_time() - c0, 1e-9))
    return statistics.median(wall), statistics.median(cpu)


# ---------------------------------------------------------------- the engines

def engine_runner(batch: int, parallel, obs_dtype, game: str = "vint"):
    from .. import games
    engine = games.get(game).engine_class()(parallel=parallel, obs_dtype=obs_dtype)
    state = engine.init(seed=0, batch_size=batch)
    rng = np.random.default_rng(0)
    for _ in range(3):                       # compile / warm up
        state = engine.step(state, engine.random_actions(state, rng))

    def run(seconds):
        nonlocal state
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            for _ in range(10):
                state = engine.step(state, engine.random_actions(state, rng))
            n += 10
            now = time.perf_counter()
            if now >= deadline:
                return n * batch, now - t0
    return run, engine, state


def engine_peak_memory(batch: int, parallel, obs_dtype, steps: int = 30) -> int:
    from .engine import VintEngine
    engine = VintEngine(parallel=parallel, obs_dtype=obs_dtype)
    rng = np.random.default_rng(0)
    tracemalloc.start()
    state = engine.init(seed=0, batch_size=batch)
    for _ in range(steps):
        state = engine.step(state, engine.random_actions(state, rng))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def aec_runner(game: str = "vint"):
    from .. import games
    env = games.get(game).env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(seconds):
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                if not env.agents or all(env.terminations.values()):
                    env.reset(seed=int(rng.integers(1 << 31)))
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            n += 1
            if n % 100 == 0 and time.perf_counter() >= deadline:
                return n, time.perf_counter() - t0
    return run


def openspiel_runner(read_observation: bool):
    import pyspiel
    game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
    rnd = random.Random(0)

    def run(seconds):
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        state = game.new_initial_state()
        while True:
            if state.is_terminal():
                state = game.new_initial_state()
                if time.perf_counter() >= deadline:
                    return n, time.perf_counter() - t0
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rnd.randrange(len(outcomes))][0])
                continue
            if read_observation:
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
            n += 1
    return run


def rlcard_runner():
    import rlcard
    env = rlcard.make("bridge", config={"seed": 0})
    rnd = random.Random(0)

    def run(seconds):
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        state, _ = env.reset()
        while True:
            if env.is_over():
                if time.perf_counter() >= deadline:
                    return n, time.perf_counter() - t0
                state, _ = env.reset()
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rnd.randrange(len(legal))])
            n += 1
    return run


# ---------------------------------------------------------------- where the time goes

def profile_engine(batch: int, obs_dtype, calls: int = 300) -> None:
    """CPU time per game-step of each part of a batched step (single thread)."""
    from .engine import VintEngine
    engine = VintEngine(obs_dtype=obs_dtype)
    impl = engine._impl
    state = engine.init(seed=0, batch_size=batch)
    rng = np.random.default_rng(0)
    parts = {"random action choice": 0.0, "legality check of the actions": 0.0,
             "step kernel (act, deal, observation, mask)": 0.0, "  of which observation + mask alone": 0.0}
    for _ in range(calls):
        c0 = time.process_time()
        actions = engine.random_actions(state, rng)
        c1 = time.process_time()
        acts = engine._check_actions(state, actions)
        c2 = time.process_time()
        impl.step(state, acts, engine.spec, True, False)
        c3 = time.process_time()
        impl.write_views(state, engine.spec, False)
        c4 = time.process_time()
        for k, dt in zip(parts, (c1 - c0, c2 - c1, c3 - c2, c4 - c3)):
            parts[k] += dt
    total = sum(v for k, v in parts.items() if not k.startswith(" "))
    print(f"# where the time goes: numba kernel, B={batch}, CPU ns per game-step")
    for k, v in parts.items():
        print(f"#   {k:<46} {v / (calls * batch) * 1e9:8.0f} ns  ({v / total:5.1%})")


def profile_aec(seconds: float) -> None:
    """cProfile of the vint_v0 AEC loop (the functions with the most own time)."""
    import cProfile
    import pstats
    run = aec_runner()
    prof = cProfile.Profile()
    prof.enable()
    run(seconds)
    prof.disable()
    print("# where the time goes: vint_v0 AEC loop (cProfile, top own time)")
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(15)


# ---------------------------------------------------------------- report

def _fmt(rate: float) -> str:
    return f"{rate:>13,.0f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vint_env.vector.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--batch-sizes", default="1,64,1024,4096,16384",
                   help="comma-separated batch sizes of the batched engine (default %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="runs per measurement; the median is printed")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one run in seconds")
    p.add_argument("--obs-dtype", choices=("float32", "uint8"), default="float32")
    p.add_argument("--no-peers", action="store_true", help="skip vint_v0, OpenSpiel and RLCard")
    p.add_argument("--no-whist", action="store_true", help="skip the Whist rows (WhistEngine, whist_v0)")
    p.add_argument("--quick", action="store_true", help="3 repeats of 0.3 s, fewer batch sizes (a smoke run)")
    p.add_argument("--profile", action="store_true",
                   help="also print where the time goes (batched step parts; cProfile of the AEC loop)")
    args = p.parse_args(argv)
    if args.quick:
        args.repeats, args.seconds = 3, 0.3
        args.batch_sizes = "1,1024"
    if args.repeats < 1 or args.seconds <= 0:
        p.error("--repeats must be >= 1 and --seconds > 0")
    try:
        sizes = [int(x) for x in args.batch_sizes.split(",") if x]
    except ValueError:
        p.error("batch sizes must be comma-separated integers")
    if any(b < 1 for b in sizes):
        p.error("batch sizes must be positive")

    import numba
    rows: list[tuple[str, float, float, str]] = []
    print("# vint_env.vector.bench: random legal play, observation + mask of the player to move every step")
    print(f"# {os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, "
          f"median of {args.repeats} x {args.seconds:g} s, obs dtype {args.obs_dtype}")
    print(f"{'engine':<58} {'steps/s':>13} {'steps/CPU-s':>13}   {'peak traced MB':>14}")

    def report(name, run, memory=""):
        med, cpu = _median_rate(run, args.repeats, args.seconds)
        rows.append((name, med, cpu, memory))
        print(f"{name:<58} {_fmt(med)} {_fmt(cpu)}   {memory:>14}", flush=True)
        return med

    threads = numba.get_num_threads()
    configs = [(b, True, f"{threads} threads") for b in sizes if b >= 256]
    configs += [(b, False, "1 thread") for b in sizes]
    best = 0.0
    for b, parallel, label in configs:
        run, _, _ = engine_runner(b, parallel, args.obs_dtype)
        mem = engine_peak_memory(b, parallel, args.obs_dtype) / 2**20
        best = max(best, report(f"VintEngine {label}, B={b}", run, f"{mem:.1f}"))

    if not args.no_whist:
        b = max(sizes) if sizes else 1024
        run, _, _ = engine_runner(b, False, args.obs_dtype, game="whist")
        report(f"WhistEngine 1 thread, B={b}", run)
    aec = openspiel = None
    if not args.no_peers:
        aec = report("vint_v0 AEC env (env.last + env.step)", aec_runner())
        if not args.no_whist:
            report("whist_v0 AEC env (env.last + env.step)", aec_runner("whist"))
        for read in (True, False):
            name = f"OpenSpiel bridge(use_double_dummy_result=false){', obs tensor' if read else ', no obs'}"
            try:
                r = report(name, openspiel_runner(read))
                if read:
                    openspiel = r
            except ImportError:
                print(f"{name:<58} {'skipped':>13}   (not importable: pip install open_spiel)")
                break
        try:
            report("RLCard bridge (state dict every step)", rlcard_runner())
        except ImportError:
            print(f"{'RLCard bridge':<58} {'skipped':>13}   (not importable: pip install rlcard)")
    if args.profile:
        profile_engine(1024, args.obs_dtype)
        if not args.no_peers:
            profile_aec(args.seconds * 2)
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"# process peak resident memory: {peak_rss:.0f} MB; load average now "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if best:
        print(f"# best batched engine: {best:,.0f} steps/s")
    if aec and best:
        print(f"# batched engine / vint_v0 AEC: {best / aec:,.0f}x")
    if openspiel and best:
        print(f"# batched engine / OpenSpiel bridge with obs: {best / openspiel:,.1f}x; "
              f"vint_v0 AEC / OpenSpiel bridge with obs: {aec / openspiel:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
