"""How well weighted beliefs place the hidden cards: a grid of the search agent's belief options on the same positions.

    python experiments/belief_probe.py --game whist --deals 20 --seed 1001 --out results/search/beliefs_whist.json

A table of ``--table`` agents (default ``pimc`` everywhere) plays ``--deals`` deals.  At every card decision
of seats 0 and 2 with a choice, ``--candidates`` deals of the hidden cards are drawn uniformly among the
consistent ones (what the search agent draws), the deal so far is replayed in each, and every shipped
network the game's search plan offers as a model gives the probability of each other seat's actions
there.  For each combination of the model's temperature, ``floor`` and ``tau`` the candidates are
weighted as the agent weights them (:mod:`vint_env.agents.search.beliefs`), and scored on the real
deal: ``placed``, the mean probability the weighted candidates give each hidden card's real holder, and
``log``, the mean log of that probability (a proper score: smoothed by half a candidate).  Uniform
beliefs are the row ``uniform``.  No double-dummy solving: a cheap first filter of the belief options.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

from vint_env import games
from vint_env.agents.registry import load_agent
from vint_env.agents.search.beliefs import NetworkPlayModel, action_probabilities, log_likelihood, normalise
from vint_env.agents.search.deal_sampler import DealSampler
from vint_env.agents.search.history import DealHistory
from vint_env.agents.search.position import hand_constraints
from vint_env.agents.search.replay import WorldReplay
from vint_env.agents.search.search_games import network_of
from vint_env.atomic import atomic_write
from vint_env.envs.playing import Decision, play_episode, start_episode
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.tables import make_env, reset_options
from vint_env.evaluation.match import derive_seed

TEMPERATURES = (0.5, 1.0, 2.0, 4.0)
FLOORS = (0.0, 0.02, 0.1, 0.3)
TAUS = (0.25, 0.5, 1.0)


def scores(cands: np.ndarray, weights: np.ndarray, true: list[int]) -> tuple[float, float]:
    """``(placed, log)`` of weighted candidate deals ``cands[N, 4]`` against the real hands ``true``."""
    n = len(cands)
    placed, logs = [], []
    for seat in (1, 2, 3):
        for c in range(52):
            if true[seat] >> c & 1:
                p = float(weights @ ((cands[:, seat] >> c) & 1))
                placed.append(p)
                logs.append(np.log((p * n + 0.5) / (n + 1.5)))
    return (float(np.mean(placed)), float(np.mean(logs))) if placed else (1.0, 0.0)


def probe(record, table_spec: str, deals: int, seed: int, candidates: int, progress: bool = True) -> dict:
    plan, pimc = record.search_plan(), record.pimc_plan()
    models = {spec: network_of(load_agent(spec, game=record)) for spec in plan.models}
    configs = [("uniform", None, None, None)] + [
        (m, t, f, tau) for m in models for t, f, tau in itertools.product(TEMPERATURES, FLOORS, TAUS)]
    totals = {c: [0.0, 0.0] for c in configs}
    positions = 0
    rng = np.random.default_rng(seed)
    replays: dict = {}
    start = time.perf_counter()
    for i, board in enumerate(generate_boards(deals, seed=seed)):
        env = make_env(record, "deal")
        table = [load_agent(table_spec, game=record) for _ in range(4)]
        histories = [DealHistory() for _ in range(4)]

        def weigh(d: Decision) -> None:
            """Before the table's agent acts: the candidates' weights at a card decision of seats 0 and 2."""
            nonlocal positions
            seat, obs = d.seat, d.observation
            k = record.decode(obs["observation"])
            if pimc.in_play(k):
                histories[seat].update(k)
                plays = histories[seat].plays(k)
                if seat % 2 == 0 and obs["action_mask"].sum() > 1 and plays is not None:
                    pos = pimc.position(k)
                    true = [int(env.unwrapped.deal.play.hands[(seat + r) % 4]) for r in range(4)]
                    cands = DealSampler(hand_constraints(pos, False)).draw_many(rng, candidates)
                    dealt = cands | np.array(pos.played, dtype=np.int64)[None, :]
                    options = plan.engine_options(k)
                    key = tuple(sorted(options.items()))
                    if key not in replays:
                        replays[key] = WorldReplay(record.engine_class()(auto_reset=False, **options))
                    _, dec = replays[key].run(dealt, plan.dealer(k), plan.turned(k), plan.calls(k) + plays,
                                              asked=lambda s: s != 0)
                    r, n = dec.count, candidates
                    counts = dec.mask.sum(axis=2)
                    flat = ((dec.observation.reshape(r * n, -1), dec.mask.reshape(r * n, -1), np.repeat(dec.action, n))
                            if r else None)
                    totals_here = {("uniform", None, None, None): scores(cands, np.full(n, 1 / n), true)}
                    for m, net in models.items():
                        logits = NetworkPlayModel(net).logits(flat[0]) if r else None
                        for t in TEMPERATURES:
                            p = (action_probabilities(logits, flat[1], flat[2], t).reshape(r, n) if r
                                 else np.zeros((0, n)))
                            for f, tau in itertools.product(FLOORS, TAUS):
                                w = normalise(log_likelihood(p, counts, f, tau))
                                totals_here[(m, t, f, tau)] = scores(cands, w, true)
                    for c, (a, b) in totals_here.items():
                        totals[c][0] += a
                        totals[c][1] += b
                    positions += 1
        start_episode(env, table, derive_seed(seed, board.number, 0),
                      [derive_seed(seed, board.number, 1, s) for s in range(len(table))], reset_options(record, board))
        play_episode(env, table, before=weigh)
        if progress:
            left = (time.perf_counter() - start) / (i + 1) * (deals - i - 1)
            print(f"deal {i + 1}/{deals}: {positions} positions, about {left / 60:.0f} min left", flush=True)
    rows = sorted(({"model": c[0], "temperature": c[1], "floor": c[2], "tau": c[3],
                    "placed": v[0] / positions, "log": v[1] / positions} for c, v in totals.items()),
                  key=lambda r: -r["log"])
    return {"game": record.name, "table": table_spec, "deals": deals, "seed": seed, "candidates": candidates,
            "positions": positions, "rows": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    games.add_game_option(p, default="whist")
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--seed", type=int, default=1001)
    p.add_argument("--table", default="pimc")
    p.add_argument("--candidates", type=int, default=200)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    result = probe(games.get(args.game), args.table, args.deals, args.seed, args.candidates)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for r in result["rows"][:12] + [r for r in result["rows"] if r["model"] == "uniform"]:
        print(f"{r['model']:>9} T={r['temperature']} floor={r['floor']} tau={r['tau']}: "
              f"placed {r['placed']:.4f} log {r['log']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
