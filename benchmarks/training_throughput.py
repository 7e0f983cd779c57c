"""The trainer's speed and its distance to the machine's limit, against Stable-Baselines3 (and RLlib), in one run.

    python -m benchmarks.training_throughput                       # every game of the batched engine, everything below
    python -m benchmarks.training_throughput --games whist --updates 4 --sb3-steps 4096

For each game the fast trainer runs its shipped config (``configs/<game>_ppo.yaml``) on the fast path
(batched engine, sparse network, a collector process beside the learner: ``env_source=vector``,
``network=sparse``, ``collectors=1`` whatever the file says) in pure self-play, without evaluation or
files, and the bench prints (medians over ``--updates`` updates, the first left out: it compiles and
warms caches):

- engine env steps/s: the batched engine alone, random legal actions, 1,024 games, one thread;
- collection env steps/s: env steps (all seats) / time the collector took for a rollout;
- inference samples/s: the network's forward pass on the rollout's observations, in batches of the
  collector's size, no gradient;
- update samples/s: samples / time of the PPO update alone;
- end-to-end learner samples/s: samples trained on / wall time between updates (collection and update
  overlapped): the trainer's speed;
- multiply-adds per sample: the network's forward pass on the rollout's mean active entries, times
  ``1 + 3 x update_epochs`` (one forward to collect, then a forward and a backward of twice its cost
  per epoch);
- the machine's matrix rate: multiply-adds/s of a 1024x965 @ 965x256 float32 product on one thread,
  and the share of it the trainer reaches: multiply-adds per sample x end-to-end samples/s / rate;
- the same with one trunk shared by the policy and value heads (``shared: true``: faster, and on
  Whist it learnt less against the rule bot at equal samples, docs/training.md), unless ``--no-shared``;
- the old trainer (the PettingZoo envs, the dense ``mlp`` network, 64 games, collection then update)
  on the same game, and sb3-contrib ``MaskablePPO`` on the package's Gymnasium env (seat 0 against
  random opponents, 256x256 actor and critic, 3 epochs, 4 envs x 512 steps), and RLlib PPO where Ray
  RLlib is installed; with the fast trainer's ratio to each.

On a shared machine the absolute figures fall with the load (printed at the start and the end); the
ratios, measured minutes apart in the same run, hold better.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median(xs) -> float:
    return float(statistics.median(xs))


def matrix_rate(repeats: int = 15) -> float:
    """Multiply-adds per second of a 1024x965 @ 965x256 float32 product (one thread)."""
    import torch
    a, b = torch.randn(1024, 965), torch.randn(965, 256)
    a @ b
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    return 1024 * 965 * 256 / median(times)


def engine_steps_per_s(game, batch: int = 1024, steps: int = 200) -> float:
    from vint_env.vector.engine import random_legal_actions
    engine = game.engine_class()()
    state = engine.init(seed=0, batch_size=batch)
    rng = np.random.default_rng(0)
    for _ in range(20):   # compile and warm
        engine.step(state, random_legal_actions(state.legal_action_mask, rng))
    t = time.perf_counter()
    for _ in range(steps):
        engine.step(state, random_legal_actions(state.legal_action_mask, rng))
    return batch * steps / (time.perf_counter() - t)


def config_file(game) -> str:
    return os.path.join(ROOT, "configs", f"{game.name}_ppo.yaml")


def self_play(game, overrides: list[str], tmp: str):
    from vint_env.training.config import load_config
    return load_config(config_file(game), ["env_source=vector", "network=sparse", "collectors=1",
                                           "opponent_mix={self: 1.0}", "eval_opponents=[]",
                                           "total_timesteps=1000000000000", "max_minutes=0", f"runs_dir={tmp}",
                                           *overrides])


def trainer_figures(cfg, updates: int, tmp: str) -> dict:
    """Medians over ``updates`` updates (after one left out) of the trainer's own scalars."""
    from vint_env.training.trainer import Trainer
    trainer = Trainer(cfg, os.path.join(tmp, f"run-{time.monotonic_ns()}"))
    rows = []
    updates_of = trainer.updates()
    try:
        for scalars in updates_of:
            rows.append(scalars)
            if len(rows) > updates:
                break
    finally:
        updates_of.close()   # stops the collectors
    rows = rows[1:]
    return {"trainer": trainer,
            "collect": median(r["env_steps_per_s"] for r in rows),
            "update": median(r["rollout_samples"] / r["update_seconds"] for r in rows),
            "e2e": median(r["samples_per_s"] for r in rows),
            "samples": median(r["rollout_samples"] for r in rows)}


def inference_and_macs(trainer) -> tuple[float, float, float]:
    """``(inference samples/s, forward multiply-adds a sample, mean active entries)`` on a fresh rollout."""
    import torch

    from vint_env.agents.learned.networks import multiply_adds
    from vint_env.training.streams import seeded
    rng, gen = seeded(0, 0, 99)
    rollout = trainer.collector.collect(trainer.net, [], rng, gen)
    obs = rollout.obs
    active = float((obs.weight != 0).sum(1).float().mean()) if hasattr(obs, "weight") \
        else float((obs != 0).sum(1).float().mean())
    step = trainer.cfg.collection.num_envs
    with torch.no_grad():
        trainer.net(obs[:step])
        t = time.perf_counter()
        for start in range(0, len(rollout), step):
            trainer.net(obs[start:start + step])
        inference = len(rollout) / (time.perf_counter() - t)
    return inference, multiply_adds(trainer.net, active), active


def sb3_samples_per_s(game, steps: int) -> float | str:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError:
        return "not installed (pip install 'vint-env[wrappers]')"
    import vint_env  # noqa: F401  (registers the Gymnasium ids)
    env = make_vec_env(game.gym_id, n_envs=4, seed=0, env_kwargs={"seats": 0, "opponents": "random"})
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=256, n_epochs=3, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]}})
    model.learn(total_timesteps=2048)     # warm up
    t = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - t)


def rllib_samples_per_s(game, iterations: int = 2) -> float | str:
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        return "not installed (pip install 'vint-env[rllib]')"
    try:
        import ray

        from vint_env.wrappers.rllib import ppo_config
        algo = ppo_config(game.env_name, num_epochs=3).build_algo()
        algo.train()   # warm up
        t = time.perf_counter()
        for _ in range(iterations):
            algo.train()
        rate = iterations * 4000 / (time.perf_counter() - t)
        algo.stop()
        ray.shutdown()
        return rate
    except Exception as e:   # noqa: BLE001 - a bench reports what failed and goes on
        return f"failed: {type(e).__name__}: {e}"


def fmt(x) -> str:
    return f"{x:,.0f}" if isinstance(x, float) else str(x)


def ratio(a: float, b) -> str:
    return f"{a / b:.1f}x" if isinstance(b, float) and b > 0 else "-"


def bench_game(game, args, tmp: str, rate: float) -> dict:
    say = lambda msg: print(f"  [{game.name}] {msg}", flush=True)   # noqa: E731
    out = {"game": game.name, "engine": engine_steps_per_s(game)}
    say(f"engine {fmt(out['engine'])} env steps/s")
    fast = trainer_figures(self_play(game, args.overrides, tmp), args.updates, tmp)
    cfg = fast["trainer"].cfg
    out.update(collect=fast["collect"], update=fast["update"], e2e=fast["e2e"], samples=fast["samples"])
    out["inference"], forward, out["active"] = inference_and_macs(fast["trainer"])
    out["macs"] = forward * (1 + 3 * cfg.ppo.update_epochs)
    out["share"] = out["macs"] * out["e2e"] / rate
    out["network"] = f"{cfg.model.network} " + ", ".join(f"{k}={v}" for k, v in cfg.model.network_kwargs.items())
    say(f"fast trainer {fmt(out['e2e'])} learner samples/s end to end")
    if args.shared and cfg.model.network == "sparse" and not cfg.model.network_kwargs.get("shared", True):
        sizes = cfg.model.network_kwargs.get("hidden_sizes", [256, 256])
        shared = trainer_figures(self_play(game, [*args.overrides, f"network_kwargs={{hidden_sizes: {list(sizes)}, "
                                                                   f"shared: true}}"], tmp), args.updates, tmp)
        out["shared"] = shared["e2e"]
        say(f"fast trainer, one shared trunk: {fmt(out['shared'])} learner samples/s end to end")
    if args.old:
        old = trainer_figures(self_play(game, ["env_source=aec", "network=mlp", "network_kwargs={hidden_sizes: [256, 256]}",
                                               "num_envs=64", "num_minibatches=4", "fused_adam=false",
                                               "collectors=0"], tmp), max(2, args.updates // 2), tmp)
        out["old"] = old["e2e"]
        say(f"old trainer {fmt(out['old'])} learner samples/s")
    out["sb3"] = sb3_samples_per_s(game, args.sb3_steps) if args.sb3 else "skipped"
    say(f"MaskablePPO {fmt(out['sb3'])} samples/s")
    out["rllib"] = rllib_samples_per_s(game) if args.rllib else "skipped"
    return out


def main(argv=None) -> int:
    import torch

    from vint_env import games
    p = argparse.ArgumentParser(prog="python -m benchmarks.training_throughput", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", default=list(games.engine_games()),
                   help=f"games to bench (default: the batched engine's, {', '.join(games.engine_games())})")
    p.add_argument("--updates", type=int, default=6, help="updates timed per trainer (after one left out)")
    p.add_argument("--sb3-steps", type=int, default=6144, help="MaskablePPO env steps timed (after 2,048 of warm-up)")
    p.add_argument("--no-sb3", dest="sb3", action="store_false", help="leave out MaskablePPO")
    p.add_argument("--no-rllib", dest="rllib", action="store_false", help="leave out RLlib")
    p.add_argument("--no-old", dest="old", action="store_false", help="leave out the old trainer")
    p.add_argument("--no-shared", dest="shared", action="store_false",
                   help="leave out the fast trainer with one trunk shared by the policy and value heads")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key of the fast trainer's configs")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    chosen = [games.get(g) for g in args.games]
    for g in chosen:
        if not g.has_engine:
            p.error(f"the batched engine does not play {g.name!r}; it plays {', '.join(games.engine_games())}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"python -m benchmarks.training_throughput {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    print(f"machine: {os.cpu_count()} cores, load average at start {load}, torch {torch.__version__}, 1 thread "
          f"per process", flush=True)
    rate = matrix_rate()
    print(f"matrix rate (1024x965 @ 965x256 float32, one thread): {rate / 1e9:.1f} G multiply-adds/s", flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for g in chosen:
            results.append(bench_game(g, args, tmp, rate))
    rate_end = matrix_rate()
    print()
    print("| game | network | engine env steps/s | collection env steps/s | inference samples/s | update samples/s "
          "| **end-to-end learner samples/s** | active entries | multiply-adds / sample | share of the limit "
          "| old trainer | MaskablePPO | RLlib PPO | vs old | vs MaskablePPO | vs RLlib "
          "| shared trunk: end-to-end | shared trunk vs MaskablePPO |")
    print("|" + "---|" * 18)
    for r in results:
        print(f"| {r['game']} | {r['network']} | {fmt(r['engine'])} | {fmt(r['collect'])} | {fmt(r['inference'])} "
              f"| {fmt(r['update'])} | **{fmt(r['e2e'])}** | {r['active']:.0f} | {r['macs'] / 1e6:.2f} M "
              f"| {100 * r['share']:.0f}% | {fmt(r.get('old', 'skipped'))} | {fmt(r['sb3'])} | {fmt(r['rllib'])} "
              f"| {ratio(r['e2e'], r.get('old'))} | {ratio(r['e2e'], r['sb3'])} | {ratio(r['e2e'], r['rllib'])} "
              f"| {fmt(r.get('shared', '-'))} | {ratio(r['shared'], r['sb3']) if 'shared' in r else '-'} |")
    print(f"\nmatrix rate at the end {rate_end / 1e9:.1f} G multiply-adds/s; load average at the end "
          f"{os.getloadavg() if hasattr(os, 'getloadavg') else None}. Share of the limit = multiply-adds a sample "
          f"x end-to-end samples/s / the matrix rate at the start (one core: the learner's).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
