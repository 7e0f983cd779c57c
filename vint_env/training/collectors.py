"""Collection beside the update: rollouts from other processes (or Ray actors) while the learner learns.

With ``collectors: N`` (N >= 1) the learner process only learns: N collector processes (or N Ray
actors with ``ray_address``) each play ``num_envs`` games of the rollout, and the learner's update
``u`` runs while they collect rollout ``u + 1``.  Rollout ``u + 1`` is therefore played by the weights
the learner had *before* update ``u`` (one update of policy lag, which PPO's importance ratio
accounts for: the rollout carries its behaviour log-probabilities).  Everything stays reproducible:
collector ``k`` seeds rollout ``u`` with ``(seed, u, k)``, the update with ``(seed, u, 1000)``, and a
checkpoint holds the behaviour weights with the learner's, so ``--resume`` continues exactly.

Shutdown: the learner stops its collectors when it ends, is interrupted or fails (:meth:`close`,
also on garbage collection); a collector whose learner dies exits (Linux: the kernel sends it
SIGTERM, ``PR_SET_PDEATHSIG``; elsewhere at its next message), and a collector that fails or dies
makes the learner raise :class:`CollectorError` naming it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
import traceback

import numpy as np
import torch

from vint_env.agents.learned.networks import SparseObs

from .seating import BOT_KINDS
from .selfplay import Rollout
from .streams import seeded


class CollectorError(RuntimeError):
    """A collector failed or died; the message says which and why."""


def collector_seeds(seed: int, update: int, k: int) -> tuple[np.random.Generator, torch.Generator]:
    return seeded(seed, update, 10 + k)


class RolloutWorker:
    """What one collector holds: its games, a copy of the network, the pool's copies and the bots."""

    def __init__(self, cfg_dict: dict, k: int):
        from vint_env.agents.learned.networks import build_network

        from .config import config_from_dict
        from .pool import OpponentPool
        from .seating import default_bot_factory
        from .selfplay import SelfPlayCollector
        from .sources import make_game_batch
        torch.set_num_threads(1)
        from vint_env import games
        cfg = self.cfg = config_from_dict(cfg_dict)
        self.k = k
        game = games.get(cfg.run.game)          # the worker's entry point: its config comes as a mapping
        self.batch = make_game_batch(cfg.collection.env_source, game, cfg.collection.num_envs, cfg.run.env_kwargs)
        self.net = build_network(cfg.model.network, self.batch.obs_size, self.batch.num_actions, cfg.model.network_kwargs).eval()
        self.pool = OpponentPool(cfg.opponents.pool_size)
        self.collector = SelfPlayCollector(self.batch, cfg.opponents.opponent_mix, cfg.collection.num_steps,
                                           default_bot_factory(game), cfg.collection.duplicate,
                                           record_states=cfg.model.central_critic)   # the learner's critic values them

    def collect(self, update: int, weights: dict, pool: list[dict] | None) -> tuple[Rollout, float]:
        t0 = time.perf_counter()
        self.net.load_state_dict(weights)
        if pool is not None:
            self.pool.load(pool)
        rng, gen = collector_seeds(self.cfg.run.seed, update, self.k)
        rollout = self.collector.collect(self.net, self.pool.modules(self.net), rng, gen)
        return rollout, time.perf_counter() - t0


def _die_with_parent() -> None:
    """Linux: have the kernel send this process SIGTERM when its parent dies (no orphan collector)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _process_main(conn, cfg_dict: dict, k: int, parent: int, learner_ends=()) -> None:
    """A collector process: build the worker, then answer requests until told to stop (None) or orphaned."""
    _die_with_parent()
    for end in learner_ends:     # forked: the learner's ends of the pipes are not ours to hold open
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the learner's to handle; it stops us
    try:
        worker = RolloutWorker(cfg_dict, k)
        conn.send(("ready", None))
        while True:
            if os.getppid() != parent:
                return
            msg = conn.recv()
            if msg is None:
                return
            conn.send(("rollout", worker.collect(*msg)))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return
    except BaseException:   # noqa: BLE001 - every failure goes back to the learner, with its traceback
        try:
            conn.send(("error", traceback.format_exc()))
        except (BrokenPipeError, OSError):
            pass


class ProcessCollectors:
    """``n`` collector processes on this machine (torch multiprocessing: tensors travel in shared memory).

    Forked on Linux (as torch's DataLoader workers are: no re-import of the caller's main module, so a
    script needs no ``if __name__ == "__main__"`` guard), spawned elsewhere."""

    def __init__(self, cfg_dict: dict, n: int, timeout: float = 600.0):
        import torch.multiprocessing as mp
        fork = sys.platform.startswith("linux")
        ctx = mp.get_context("fork" if fork else "spawn")
        self.timeout = timeout
        self.conns, self.procs = [], []
        try:
            for k in range(n):
                ours, theirs = ctx.Pipe()
                p = ctx.Process(target=_process_main,
                                args=(theirs, cfg_dict, k, os.getpid(), (*self.conns, ours) if fork else ()),
                                name=f"vint-train collector {k}", daemon=True)
                p.start()
                theirs.close()
                self.conns.append(ours)
                self.procs.append(p)
            for k in range(n):
                self._receive(k, "ready")
        except BaseException:
            self.close()
            raise

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def _receive(self, k: int, kind: str):
        conn, proc = self.conns[k], self.procs[k]
        deadline = time.monotonic() + self.timeout
        while not conn.poll(0.2):
            if not proc.is_alive():
                raise CollectorError(f"collector {k} (pid {proc.pid}) died with exit code {proc.exitcode}")
            if time.monotonic() > deadline:
                raise CollectorError(f"collector {k} (pid {proc.pid}) sent nothing in {self.timeout:.0f} s")
        try:
            what, payload = conn.recv()
        except (EOFError, OSError):
            proc.join(timeout=2)
            raise CollectorError(f"collector {k} (pid {proc.pid}) died with exit code {proc.exitcode}") from None
        if what == "error":
            raise CollectorError(f"collector {k} failed:\n{payload}")
        if what != kind:
            raise CollectorError(f"collector {k} sent {what!r}, expected {kind!r}")
        return payload

    def request(self, update: int, weights: dict, pool: list[dict] | None) -> None:
        for conn in self.conns:
            conn.send((update, weights, pool))

    def receive(self) -> tuple[list[Rollout], float]:
        parts = [self._receive(k, "rollout") for k in range(len(self.conns))]
        return [r for r, _ in parts], max(s for _, s in parts)

    def close(self) -> None:
        """Stop every collector: ask, then terminate, then kill what is left; idempotent."""
        for conn in self.conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
        for conn in self.conns:
            conn.close()
        self.conns, self.procs = [], []

    def __del__(self):
        self.close()


class RayCollectors:
    """``n`` collectors as Ray actors on the cluster at ``address`` (``"local"``: a Ray started here)."""

    def __init__(self, cfg_dict: dict, n: int, address: str):
        try:
            import ray
        except ImportError:
            raise ValueError("ray_address needs Ray: pip install 'vint-env[ray]' (or the rllib extra)") from None
        self.ray = ray
        if not ray.is_initialized():
            if address == "local":
                ray.init(num_cpus=max(2, n), include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        actor = ray.remote(num_cpus=1)(RolloutWorker)
        self.actors = [actor.remote(cfg_dict, k) for k in range(n)]
        self.pending: list = []

    def request(self, update: int, weights: dict, pool: list[dict] | None) -> None:
        w, p = self.ray.put(weights), self.ray.put(pool)
        self.pending = [a.collect.remote(update, w, p) for a in self.actors]

    def receive(self) -> tuple[list[Rollout], float]:
        try:
            parts = self.ray.get(self.pending)
        except Exception as e:   # a RayActorError or a task's failure
            raise CollectorError(f"a Ray collector failed: {e}") from None
        return [r for r, _ in parts], max(s for _, s in parts)

    def close(self) -> None:
        for a in getattr(self, "actors", []):
            self.ray.kill(a)
        self.actors = []


def make_collectors(cfg) -> ProcessCollectors | RayCollectors:
    if cfg.collection.ray_address:
        return RayCollectors(cfg.to_dict(), cfg.collection.collectors, cfg.collection.ray_address)
    return ProcessCollectors(cfg.to_dict(), cfg.collection.collectors)


def gather(parts: list[Rollout]) -> Rollout:
    return parts[0] if len(parts) == 1 else concat_rollouts(parts)


def concat_rollouts(parts: list[Rollout]) -> Rollout:
    """One rollout of several (collectors' shares of the games), links and deal numbers renumbered."""
    with_states = [p.states is not None for p in parts]
    if any(with_states) and not all(with_states):
        raise ValueError("some collectors' rollouts have state() vectors and some have none")
    sizes = np.cumsum([0] + [len(p) for p in parts])
    deals = np.cumsum([0] + [int(p.stats.get("deals", 0)) for p in parts])
    obs = (SparseObs.cat([p.obs for p in parts]) if isinstance(parts[0].obs, SparseObs)
           else torch.cat([p.obs for p in parts]))
    next_index = np.concatenate([np.where(p.next_index >= 0, p.next_index + off, -1)
                                 for p, off in zip(parts, sizes)])
    stats = {"deals": int(deals[-1])}
    total = max(stats["deals"], 1)
    stats["deal_length"] = sum(p.stats.get("deal_length", 0.0) * p.stats.get("deals", 0) for p in parts) / total
    for kind in ("pool",) + BOT_KINDS:
        n = [p.stats.get(f"deals_vs_{kind}", 0) for p in parts]
        r = [p.stats.get(f"return_vs_{kind}", float("nan")) for p in parts]
        stats[f"return_vs_{kind}"] = (float(sum(a * b for a, b in zip(n, r) if a)) / sum(n)) if sum(n) else float("nan")
        stats[f"deals_vs_{kind}"] = int(sum(n))
    sides = [p.side_returns for p in parts if p.side_returns is not None]
    return Rollout(obs=obs, masks=torch.cat([p.masks for p in parts]), actions=torch.cat([p.actions for p in parts]),
                   logprobs=torch.cat([p.logprobs for p in parts]), values=torch.cat([p.values for p in parts]),
                   rewards=np.concatenate([p.rewards for p in parts]), dones=np.concatenate([p.dones for p in parts]),
                   next_index=next_index, seats=np.concatenate([p.seats for p in parts]),
                   deal_ids=np.concatenate([p.deal_ids + off for p, off in zip(parts, deals)]),
                   env_steps=sum(p.env_steps for p in parts), stats=stats,
                   side_returns=np.concatenate(sides) if sides else None,
                   states=torch.cat([p.states for p in parts]) if all(with_states) else None)
