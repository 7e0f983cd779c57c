"""``python -m training.solo_standalone``: a Solo Whist agent that plays every action itself, then policy
iteration on its calls under its own card play.

    python -m training.solo_standalone --out runs/solo_standalone      # resumes: each step is cached

Steps (each writes a file in ``--out`` and is skipped when the file is there):

1. **Card data** (``cards.npz``): the shipped Solo Whist baseline (the rule bot whose calls a critic
   corrects) plays ``--card-deals`` deals in all four seats; its card decisions (the rule bot's cards)
   are the cloning targets.  Its calls declare the contracts the critic likes (open misère above all),
   so the clone sees those contracts played, which the rule bot alone rarely declares.
2. **Round 0** (``round0.pt``): the shipped network, warm start; its card play cloned on the card data
   (cross-entropy), its calls kept by regressing the auction rows to the shipped network's own logits
   (a distillation: the critic's call values).  The agent is the network alone, greedy: no rule bot.
3. **Round k** (``roundK.pt``, k = 1 .. ``--rounds``): policy iteration on the calls.  ``--call-deals``
   deals are played on the batched engine by round k-1 in all four seats; every call (and trump
   choice) with a choice is valued for each legal action by rollouts under round k-1's own play
   (:mod:`vint_env.training.engine_values`); round k regresses those values (and keeps its card play
   on a sample of the card data), warm-started from round k-1.

Measured (docs/baselines.md): round 1 beats round 0 (+0.43 [+0.18, +0.68] a board, 1,000 boards of seed
1001) and gains about 0.6 points a board against the rule bot; round 2 does not (its values are made with
copies of itself as partners and opponents, not rule bots), so the default is one round.  ``--opponents rule`` values the
calls at tables of the engine's compiled rule bot instead (the network in one seat); from the shipped
network (``--card-epochs 0``) it did not help: round 1 lost about 1.3 points a board against the rule bot
to the network it started from, most of it the regression itself (docs/baselines.md).

Each round's checkpoint is a plain policy checkpoint (``network:PATH``; no ``residual`` entry: nothing but
the network decides).  Measure with ``vint-eval match --game solo_whist --a network:OUT/round1.pt --b
network:OUT/round0.pt --boards 1000 --seed 1001 --no-dd``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from training import recipe_log
from vint_env import games
from vint_env.agents.learned.policy import load_checkpoint, network_from_checkpoint, save_checkpoint
from vint_env.atomic import atomic_write
from vint_env.cards import NUM_CARDS
from vint_env.training.config import nest
from vint_env.cli_args import positive_int
from vint_env.training.engine_values import OPPONENTS, PolicyLogits, call_values
from vint_env.training.imitation import behaviour_clone, evaluate_clone
from vint_env.training.teacher_data import TeacherData, teacher_data

GAME = games.get("solo_whist")   # the record, resolved once
ROOT = Path(__file__).resolve().parents[1]
START = "vint_env/baselines/solo_whist.pt"   # relative to the repository (the teacher cache is keyed by the spec)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training.solo_standalone", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="folder of the data, checkpoints and log")
    p.add_argument("--start", default=str(START), help="the warm start checkpoint (default: the shipped baseline)")
    p.add_argument("--card-deals", type=int, default=6000)
    p.add_argument("--card-epochs", type=int, default=0,
                   help="cloning epochs of round 0 on the card data (0: the warm start's own card play)")
    p.add_argument("--call-deals", type=int, default=4000)
    p.add_argument("--call-epochs", type=int, default=3)
    p.add_argument("--card-rows", type=int, default=40_000,
                   help="card decisions kept in each policy-iteration round's data (their card play stays put)")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--opponents", choices=OPPONENTS, default="self",
                   help="who sits in the other seats while a call is valued: copies of the network (self) or the "
                        "engine's compiled rule bot (rule: the network in one seat, each deal once for each seat)")
    p.add_argument("--workers", type=positive_int, default=1, help="processes playing the card data")
    p.add_argument("--seed", type=int, default=11, help="training deals (never an evaluation seed)")
    return p


def auction_rows(data: TeacherData) -> np.ndarray:
    return data.masks[:, NUM_CARDS:].any(1)


def subset(data: TeacherData, idx: np.ndarray, values: np.ndarray | None = None) -> TeacherData:
    n = len(idx)
    vals = values if values is not None else (
        data.values[idx] if data.values is not None else np.full((n, data.masks.shape[1]), np.nan, np.float32))
    return TeacherData(data.obs_packed[idx], data.packed, data.obs_size, data.masks[idx], data.actions[idx],
                       data.returns[idx], data.seats[idx], data.deal_ids[idx], vals)


def logits_of(net: torch.nn.Module, data: TeacherData, idx: np.ndarray) -> np.ndarray:
    """``net``'s logits on rows ``idx`` of ``data`` as value targets (NaN off the legal actions)."""
    logits = np.concatenate([PolicyLogits(net)(data.obs(idx[s:s + 8192])).numpy()
                             for s in range(0, len(idx), 8192)])
    return np.where(data.masks[idx], logits, np.nan).astype(np.float32)


def save_round(path: Path, start: dict, net: torch.nn.Module, recipe: dict) -> None:
    ckpt = {k: v for k, v in start.items() if k not in ("format", "version", "tensor_sha256", "trainer")}
    ckpt["model"] = {k: v.detach().clone() for k, v in net.state_dict().items()}
    ckpt["residual"] = None
    config = nest(ckpt.get("config") or {})     # sectioned, or flat in a checkpoint of an earlier release
    config.setdefault("residual", {}).update(residual_base="", residual_margin=0.0)
    config.setdefault("run", {}).update(name="solo_whist_standalone")
    ckpt["config"] = config
    ckpt["recipe"] = recipe
    save_checkpoint(path, ckpt)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    torch.set_num_threads(1)
    t_start = time.perf_counter()
    say = recipe_log(out, "training.solo_standalone", argv)
    start = load_checkpoint(args.start, game=GAME)
    shipped_net = network_from_checkpoint(start, args.start)

    cards, _, _ = teacher_data(GAME, {}, f"network:{args.start}", args.seed, args.card_deals, workers=args.workers,
                               cache_dir=out / "cache", say=say)
    card_idx = np.flatnonzero(~auction_rows(cards) & (cards.masks.sum(1) > 1))
    call_idx = np.flatnonzero(auction_rows(cards) & (cards.masks.sum(1) > 1))
    say(f"card data: {len(card_idx)} card decisions with a choice, {len(call_idx)} calls with a choice")

    # Round 0: the card play cloned, the calls distilled from the shipped critic.
    path0 = out / "round0.pt"
    if not path0.is_file():
        distil = logits_of(shipped_net, cards, call_idx)
        data = TeacherData.concat([subset(cards, card_idx), subset(cards, call_idx, distil)])
        net = network_from_checkpoint(start, args.start)
        history = behaviour_clone(net, data, args.card_epochs, 512, 3e-4, args.seed, holdout=0.05, say=say,
                                  measure_start=True) if args.card_epochs else []
        save_round(path0, start, net, {"round": 0, "card_deals": args.card_deals, "epochs": args.card_epochs,
                                       "history": history, "minutes": (time.perf_counter() - t_start) / 60})
        say(f"round 0 written: {path0}")

    rng = np.random.default_rng(args.seed)
    for k in range(1, args.rounds + 1):
        path = out / f"round{k}.pt"
        if path.is_file():
            continue
        prev = load_checkpoint(out / f"round{k - 1}.pt", game=GAME)
        net = network_from_checkpoint(prev)
        calls_file = out / f"calls{k}-{args.opponents}-{args.call_deals}.npz"     # another table or size: other data
        if calls_file.is_file():
            calls = TeacherData.load(calls_file)
        else:
            t0 = time.perf_counter()
            calls = call_values(net, GAME, args.seed * 100 + k, args.call_deals, say=say, opponents=args.opponents)
            calls.save(calls_file)
            say(f"round {k}: {len(calls)} valued calls in {(time.perf_counter() - t0) / 60:.1f} min")
        before = evaluate_clone(net, calls, np.arange(len(calls)))
        say(f"round {k}: round {k - 1}'s own calls give up {before['value_regret']:.3f} points a call "
            f"against the best call (its own values)")
        # The card play stays round k-1's: its card rows regress round k-1's own logits (a distillation).
        keep = np.sort(rng.choice(card_idx, min(args.card_rows, len(card_idx)), replace=False))
        own = logits_of(net, cards, keep)
        data = TeacherData.concat([subset(calls, np.arange(len(calls))), subset(cards, keep, own)])
        data.deal_ids = np.where(np.arange(len(data)) < len(calls), data.deal_ids, data.deal_ids - 10_000_000)
        history = behaviour_clone(net, data, args.call_epochs, 512, 3e-4, args.seed + k, holdout=0.05, say=say)
        save_round(path, prev, net, {"round": k, "call_deals": args.call_deals, "opponents": args.opponents,
                                     "epochs": args.call_epochs,
                                     "card_rows": len(keep), "history": history,
                                     "minutes": (time.perf_counter() - t_start) / 60})
        say(f"round {k} written: {path}")
    with atomic_write(out / "recipe_done.json", "w") as f:
        json.dump({"minutes_this_session": (time.perf_counter() - t_start) / 60}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
