"""Side-by-side speed of the batched engine, the AEC envs and OpenSpiel's bridge.

``python -m benchmarks.engine_throughput`` plays random legal moves, with the observation and the legal-action mask of
the player to move produced at every step, and prints steps per second of
wall time and per CPU-second of this process (medians of ``--repeats`` runs
of about ``--seconds`` each, all in one run so the figures share the
machine's conditions) for:

- the batched engine (:class:`~vint_env.vector.VintEngine`) at several batch
  sizes (numba on all its threads and on one), and its other games
  (``WhistEngine``, ``SoloWhistEngine``) on one thread at B=1024 and at the
  largest batch size;
- `vint_v0`, `whist_v0` and `solo_whist_v0` through PettingZoo's AEC API
  (``env.agent_iter()`` / ``env.last()`` / ``env.step``, an action drawn from
  ``np.flatnonzero(obs["action_mask"])``), interleaved round by round with
  OpenSpiel's C++ bridge ``bridge(use_double_dummy_result=false)`` reading
  the observation each step as ``np.asarray(state.observation_tensor())``, as
  the raw list, and not at all, with the ratios (skipped, with a message,
  when ``pyspiel`` is not installed: ``pip install open_spiel``);
- RLCard's bridge where installed.

A step is one player action (call or card); deals, resets and the random
choice of the action are inside the timed loop for every engine.  Peak
memory: traced Python/NumPy allocations of one short run per batch size,
and the process's peak resident size at the end.  ``docs/speed.md`` gives
the figures and how to read them.
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

from vint_env import games
from vint_env.random_play import random_episode


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
    from vint_env.vector.engine import VintEngine
    engine = VintEngine(parallel=parallel, obs_dtype=obs_dtype)
    rng = np.random.default_rng(0)
    tracemalloc.start()
    state = engine.init(seed=0, batch_size=batch)
    for _ in range(steps):
        state = engine.step(state, engine.random_actions(state, rng))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


AEC_GAMES = games.env_names()


def aec_runner(game: str = "vint_v0"):
    """Random legal play through PettingZoo's AEC loop, as a learner's loop runs it.

    ``env.agent_iter()`` / ``env.last()`` / ``env.step``: every live step gets
    the acting agent's observation (a fresh float32 array) and mask, and plays
    a uniformly random legal action from the mask.
    """
    env = games.get(game).env()
    env.reset(seed=0)                  # seeded once, as a training loop does
    rnd = random.Random(0)

    def run(seconds):
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            env.reset()
            n += random_episode(env, rnd.randrange)
            now = time.perf_counter()
            if now >= deadline:
                return n, now - t0
    return run


OPENSPIEL_OBSERVATION = {
    "array": "np.asarray(state.observation_tensor())",
    "list": "state.observation_tensor() (a Python list)",
    "none": "no observation",
}


def openspiel_runner(observation: str):
    """OpenSpiel's C++ bridge (``use_double_dummy_result=false``) under random legal play.

    ``observation``: ``"array"`` reads the player to move's observation
    tensor as a NumPy array each step (what a learner needs), ``"list"`` as
    the raw Python list pyspiel returns, ``"none"`` not at all.  Chance steps
    (the deal) are inside the timed loop but not counted.
    """
    import pyspiel
    if observation not in OPENSPIEL_OBSERVATION:
        raise ValueError(f"observation must be one of {tuple(OPENSPIEL_OBSERVATION)}, got {observation!r}")
    game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
    rnd = random.Random(0)
    as_array, as_list = observation == "array", observation == "list"

    def run(seconds):
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        state = game.new_initial_state()
        while True:
            if state.is_terminal():
                now = time.perf_counter()
                if now >= deadline:
                    return n, now - t0
                state = game.new_initial_state()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rnd.randrange(len(outcomes))][0])
                continue
            if as_array:
                np.asarray(state.observation_tensor())
            elif as_list:
                state.observation_tensor()
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
            n += 1
    return run


def compare_interleaved(runners: dict, repeats: int, seconds: float) -> dict:
    """Run each of ``runners`` (name -> run) once per round, ``repeats`` rounds.

    Interleaving gives every contender the same share of the machine's ups
    and downs.  Returns name -> (per-round steps/s, per-round steps/CPU-s).
    """
    out = {name: ([], []) for name in runners}
    for name, run in runners.items():          # warm up
        run(min(seconds, 0.2))
    for _ in range(repeats):
        for name, run in runners.items():
            c0 = time.process_time()
            steps, elapsed = run(seconds)
            out[name][0].append(steps / elapsed)
            out[name][1].append(steps / max(time.process_time() - c0, 1e-9))
    return out


def _ratio(a: list, b: list) -> float:
    """Median over rounds of a / b."""
    return statistics.median(x / y for x, y in zip(a, b))


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

def profile_engine(batch: int, obs_dtype, calls: int = 300, game: str = "vint") -> None:
    """CPU time per game-step of each part of a batched step (single thread)."""
    from vint_env.vector.state import admit
    engine = games.get(game).engine_class()(obs_dtype=obs_dtype)
    impl = engine._impl
    state = engine.init(seed=0, batch_size=batch)
    rng = np.random.default_rng(0)
    parts = {"random action choice": 0.0, "admission of the arrays, action ids (Python)": 0.0,
             "step kernel (checks, act, deal, observation, mask)": 0.0,
             "  of which the row and legality checks alone": 0.0, "  of which observation + mask alone": 0.0}
    for _ in range(calls):
        c0 = time.process_time()
        actions = engine.random_actions(state, rng)
        c1 = time.process_time()
        admit(state, engine.layout)
        acts, _ = engine._action_ids(state, actions)
        c2 = time.process_time()
        impl.first_refused(state, acts, engine.spec)
        c3 = time.process_time()
        impl.step(state, acts, engine.spec, True, False)
        c4 = time.process_time()
        impl._views_serial(state.small, state.words, state.observer, state.observation, state.legal_action_mask,
                           True, engine.spec.game)
        c5 = time.process_time()
        for k, dt in zip(parts, (c1 - c0, c2 - c1, c4 - c3, c3 - c2, c5 - c4)):
            parts[k] += dt
    total = sum(v for k, v in parts.items() if not k.startswith(" "))
    print(f"# where the time goes: {type(engine).__name__}, numba kernel, B={batch}, CPU ns per game-step")
    for k, v in parts.items():
        print(f"#   {k:<52} {v / (calls * batch) * 1e9:8.0f} ns  ({v / total:5.1%})")


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


def compare_aec_with_openspiel(args, rows: list) -> list[str]:
    """The AEC envs and OpenSpiel's bridge measured round by round; returns the ratio lines."""
    runners = {f"{g} AEC env (agent_iter / last / step)": aec_runner(g)
               for g in (AEC_GAMES[:1] if args.no_whist else AEC_GAMES)}
    try:
        for kind, what in OPENSPIEL_OBSERVATION.items():
            runners[f"OpenSpiel bridge, {what}"] = openspiel_runner(kind)
        have_openspiel = True
    except ImportError:
        have_openspiel = False
    print(f"# AEC envs{' and OpenSpiel' if have_openspiel else ''}: {args.repeats} interleaved rounds "
          f"of {args.seconds:g} s each (random legal action from the mask / legal_actions())", flush=True)
    results = compare_interleaved(runners, args.repeats, args.seconds)
    for name, (wall, cpu) in results.items():
        med, med_cpu = statistics.median(wall), statistics.median(cpu)
        rows.append((name, med, med_cpu, ""))
        print(f"{name:<58} {_fmt(med)} {_fmt(med_cpu)}", flush=True)
    if not have_openspiel:
        print(f"{'OpenSpiel bridge':<58} {'skipped':>13}   (pyspiel not importable: pip install open_spiel)")
        return []
    aec = results[next(iter(runners))]
    lines = []
    for kind, goal in (("array", "target >= 1"), ("list", "stretch >= 1"), ("none", "")):
        peer = results[f"OpenSpiel bridge, {OPENSPIEL_OBSERVATION[kind]}"]
        lines.append(f"# vint_v0 AEC / OpenSpiel {OPENSPIEL_OBSERVATION[kind]}: "
                     f"{_ratio(aec[0], peer[0]):.2f}x wall, {_ratio(aec[1], peer[1]):.2f}x per CPU-s"
                     + (f"  ({goal})" if goal else "") + "  [median of per-round ratios]")
    return lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a == "--against" or a.startswith("--against=") for a in argv):
        from . import engine_throughput_ratio   # the engine against a pinned commit, by ratio (its own options)
        return engine_throughput_ratio.main(argv)
    p = argparse.ArgumentParser(prog="python -m benchmarks.engine_throughput", description=__doc__.split("\n\n")[0])
    p.add_argument("--batch-sizes", default="1,64,1024,4096,16384",
                   help="comma-separated batch sizes of the batched engine (default %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="runs per measurement; the median is printed")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one run in seconds")
    p.add_argument("--obs-dtype", choices=("float32", "uint8"), default="float32")
    p.add_argument("--no-peers", action="store_true", help="skip the AEC envs, OpenSpiel and RLCard")
    p.add_argument("--no-engine", action="store_true", help="skip the batched engine (AEC envs and peers only)")
    p.add_argument("--no-whist", action="store_true",
                   help="skip the Whist and Solo Whist rows (WhistEngine, SoloWhistEngine, whist_v0, solo_whist_v0)")
    p.add_argument("--quick", action="store_true", help="3 repeats of 0.3 s, fewer batch sizes (a smoke run)")
    p.add_argument("--profile", action="store_true",
                   help="also print where the time goes (batched step parts; cProfile of the AEC loop)")
    p.add_argument("--against", nargs="?", metavar="REF",
                   help="instead: the engines against a pinned commit (or REF) side by side, by ratio; exit 1 "
                        "below 0.95x (python -m benchmarks.engine_throughput --against --help: its options)")
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
    print("# benchmarks.engine_throughput: random legal play, observation + mask of the player to move every step")
    print(f"# {os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, "
          f"median of {args.repeats} x {args.seconds:g} s, obs dtype {args.obs_dtype}")
    print(f"{'engine':<58} {'steps/s':>13} {'steps/CPU-s':>13}   {'peak traced MB':>14}")

    def report(name, run, memory=""):
        med, cpu = _median_rate(run, args.repeats, args.seconds)
        rows.append((name, med, cpu, memory))
        print(f"{name:<58} {_fmt(med)} {_fmt(cpu)}   {memory:>14}", flush=True)
        return med

    configs = []
    if not args.no_engine:
        threads = numba.get_num_threads()
        configs += [(b, True, f"numba, {threads} threads") for b in sizes if b >= 256]
        configs += [(b, False, "numba, 1 thread") for b in sizes]
    best = 0.0
    for b, parallel, label in configs:
        run, _, _ = engine_runner(b, parallel, args.obs_dtype)
        mem = engine_peak_memory(b, parallel, args.obs_dtype) / 2**20
        rate = report(f"VintEngine {label}, B={b}", run, f"{mem:.1f}")
        best = max(best, rate)

    if not args.no_whist and not args.no_engine:
        for game in games.engine_games()[1:]:            # the engine's other games, after Vint
            name = games.get(game).engine_class().__name__
            for b in sorted({1024, max(sizes)} if sizes else {1024}):
                run, _, _ = engine_runner(b, False, args.obs_dtype, game=game)
                report(f"{name} numba, 1 thread, B={b}", run)
    ratios = []
    if not args.no_peers:
        ratios = compare_aec_with_openspiel(args, rows)
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
    for line in ratios:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
