"""``python -m training.solo_search_calls``: a Solo Whist network's calls taught by a search over its own play.

    python -m training.solo_search_calls --out runs/solo_search_calls --deals 10000 --samples 16 --workers 2

1. **Search data** (``chunk-*.npz``, one file a chunk of ``--chunk`` deals, skipped when there: the run
   resumes): the network plays each deal four times, once in each seat against the engine's compiled rule
   bots; each of its calls with a choice is valued, for every legal call, by the mean outcome over
   ``--samples`` deals of the cards it cannot see, dealt again consistently with its view, each played out
   by the network and the bots (``action_values(..., decisions="calls", samples=K)``,
   :mod:`vint_env.training.engine_values`): a search on information over its own play.
2. **Targets**: the search's best call where it beats the network's own call by more than ``--margin``
   points, else the network's own call.
3. **Training** (``calls.pt``): cross-entropy toward the targets on the calls of all chunks but every
   tenth (held out), refitting the policy head's call rows only (``--train head``: the card play is
   exactly the start's) or the whole policy (``--train all``).  Each epoch reports the held-out share of the
   search's changes the network makes.

The result is a plain policy checkpoint (``network:OUT/calls.pt``); measure it with ``vint-eval match
--game solo_whist --a network:OUT/calls.pt --b baseline --boards 1000 --seed S --no-dd``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing as mp
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
from vint_env.cli_args import positive_int
from vint_env.training.engine_values import action_values
from vint_env.training.teacher_data import TeacherData

GAME = games.get("solo_whist")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m training.solo_search_calls", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="folder of the search data, the checkpoint and the log")
    p.add_argument("--start", default="vint_env/baselines/solo_whist.pt", help="the network (default: the shipped one)")
    p.add_argument("--deals", type=positive_int, default=10000)
    p.add_argument("--chunk", type=positive_int, default=250, help="deals a data file")
    p.add_argument("--samples", type=positive_int, default=16, help="deals dealt again a search")
    p.add_argument("--margin", type=float, default=1.0, help="points the search's call must gain to be the target")
    p.add_argument("--train", choices=("head", "all"), default="head")
    p.add_argument("--epochs", type=positive_int, default=3)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--workers", type=positive_int, default=1, help="processes searching")
    p.add_argument("--seed", type=int, default=61, help="training deals (never an evaluation seed)")
    return p


def search_chunk(start: str, seed: int, deals: int, samples: int, path: str) -> int:
    """One chunk of search data, written atomically to ``path``, and beside it (``-true``) the same calls
    valued on the real deals (to judge the trained network on held-out deals); its number of calls."""
    torch.set_num_threads(1)
    net = network_from_checkpoint(load_checkpoint(start, game=GAME))
    common = dict(batch=64, opponents="rule", decisions="calls")
    action_values(net, GAME, seed, deals, samples=0, **common).save(true_path(Path(path)))
    data = action_values(net, GAME, seed, deals, samples=samples, **common)
    data.save(Path(path))
    return len(data)


def true_path(path: Path) -> Path:
    return path.with_name(path.stem + "-true.npz")


def search_targets(data: TeacherData, margin: float) -> np.ndarray:
    """The search's best call where it beats the network's own by more than ``margin``, else the own call."""
    rows = np.arange(len(data))
    values = np.where(np.isnan(data.values), -np.inf, data.values)
    best = values.argmax(1)
    ahead = np.nan_to_num(data.values[rows, best] - data.values[rows, data.actions], nan=-np.inf)
    return np.where(ahead > margin, best, data.actions)


def train_calls(net: torch.nn.Module, data: TeacherData, true: np.ndarray, target: np.ndarray, train: np.ndarray,
                held: np.ndarray, held_deals: int, mode: str, epochs: int, lr: float, seed: int, say) -> list[dict]:
    """Cross-entropy toward ``target`` on rows ``train``; ``mode="head"`` moves only the policy head's call rows.
    Each epoch judges the network's calls on the rows ``held`` by the real deals' values ``true``: the mean of
    ``true[its call] - true[the start's call]`` (the first-order gain), and its sum over ``held_deals``."""
    params = list(net.policy_head.parameters()) if mode == "head" else list(net.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    masks = torch.from_numpy(data.masks)
    goal = torch.from_numpy(target)
    rng = np.random.default_rng(seed)
    changed = target[held] != data.actions[held]

    def logits(idx):
        return net.policy_logits(torch.from_numpy(data.obs(idx))).masked_fill(~masks[idx], -1e9)

    history = []
    for epoch in range(epochs):
        net.train()
        order = rng.permutation(train)
        total = 0.0
        for s in range(0, len(order), 512):
            idx = order[s:s + 512]
            loss = torch.nn.functional.cross_entropy(logits(idx), goal[idx])
            opt.zero_grad()
            loss.backward()
            if mode == "head":                     # the card rows stay: the card play is the start's
                for p in params:
                    p.grad[:NUM_CARDS] = 0
            opt.step()
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            now = logits(held).argmax(1).numpy()
        rows = np.arange(len(held))
        gain = true[held][rows, now] - true[held][rows, data.actions[held]]
        row = {"epoch": epoch, "loss": total / max(1, len(order)),
               "held_gain_a_call": float(gain.mean()), "held_gain_se": float(gain.std() / max(1, len(gain)) ** 0.5),
               "held_gain_a_deal": float(gain.sum() / held_deals),
               "held_agree": float(np.mean(now == target[held])),
               "held_changes_taken": float(np.mean(now[changed] == target[held][changed])) if changed.any() else None,
               "held_other_changes": float(np.mean((now != data.actions[held]) & ~changed))}
        history.append(row)
        say(f"epoch {epoch}: loss {row['loss']:.4f}, held-out agreement with the targets {row['held_agree']:.3f}, "
            f"the search's changes taken {row['held_changes_taken']}, other changes {row['held_other_changes']:.3f}; "
            f"first-order gain on the real deals {row['held_gain_a_call']:+.4f} +- {row['held_gain_se']:.4f} a call, "
            f"{row['held_gain_a_deal']:+.3f} a deal (four tables)")
    return history


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    torch.set_num_threads(1)
    t_start = time.perf_counter()
    say = recipe_log(out, "training.solo_search_calls", argv)
    chunks = [(i, min(args.chunk, args.deals - first)) for i, first in enumerate(range(0, args.deals, args.chunk))]
    path_of = {i: out / f"chunk-s{args.seed}-k{args.samples}-{i:04d}-{n}.npz" for i, n in chunks}
    todo = [(i, n) for i, n in chunks if not path_of[i].is_file()]
    if todo:
        say(f"search data: {len(todo)} of {len(chunks)} chunks to make, {args.workers} processes")
        t0 = time.perf_counter()
        with cf.ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as pool:
            jobs = [pool.submit(search_chunk, args.start, args.seed * 10_000 + i, n, args.samples, str(path_of[i]))
                    for i, n in todo]
            for done, job in enumerate(cf.as_completed(jobs), 1):
                job.result()
                left = (time.perf_counter() - t0) / done * (len(todo) - done)
                say(f"search data: {done}/{len(todo)} chunks, about {left / 60:.0f} min left")
    parts = [TeacherData.load(path_of[i]) for i, _ in chunks]
    true = np.concatenate([TeacherData.load(true_path(path_of[i])).values for i, _ in chunks])
    chunk_of = np.concatenate([np.full(len(p), i) for (i, _), p in zip(chunks, parts)])
    data = TeacherData.concat(parts)
    target = search_targets(data, args.margin)
    held = np.flatnonzero(chunk_of % 10 == 9) if len(chunks) >= 10 else np.flatnonzero(chunk_of == chunks[-1][0])
    train = np.setdiff1d(np.arange(len(data)), held)
    say(f"{len(data)} calls with a choice; the search changes {np.mean(target != data.actions):.3f} of them "
        f"(margin {args.margin}); {len(train)} to train on, {len(held)} held out")
    start = load_checkpoint(args.start, game=GAME)
    net = network_from_checkpoint(start, args.start)
    held_deals = sum(n for i, n in chunks if i in set(chunk_of[held].tolist()))
    history = train_calls(net, data, true, target, train, held, held_deals, args.train, args.epochs, args.lr,
                          args.seed, say)
    saved = {k: v for k, v in start.items() if k not in ("format", "version", "tensor_sha256", "trainer")}
    saved["model"] = {k: v.detach().clone() for k, v in net.state_dict().items()}
    saved["recipe"] = {"script": "training.solo_search_calls", "start": args.start, "deals": args.deals,
                       "samples": args.samples, "margin": args.margin, "train": args.train, "epochs": args.epochs,
                       "lr": args.lr, "seed": args.seed, "history": history,
                       "minutes": (time.perf_counter() - t_start) / 60}
    save_checkpoint(out / "calls.pt", saved)
    with atomic_write(out / "recipe_done.json", "w") as f:
        json.dump(saved["recipe"], f, indent=1)
    say(f"written: {out / 'calls.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
