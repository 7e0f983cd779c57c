"""Distillation of the search agent into the shipped network (one round of expert iteration).

    python -m training.search_distill --game whist --deals 400 --seed 5001 --out runs/search_distill

1. **Expert data**: the search agent (``--teacher``, default ``search``) plays ``--deals`` deals in all four
   seats; every decision is kept (observation, legal actions, the card it chose).  Played in chunks of
   ``--chunk`` deals, each written to ``OUT/chunks/`` as it completes, so a stopped run resumes where it
   stopped and never plays a deal twice.
2. **Training**: the shipped network of the game (``vint_env/baselines/<game>.pt``: the network that
   plays every card itself, the search's blueprint) is trained further on the expert's decisions by
   the masked cross-entropy to its card (:func:`vint_env.training.imitation.behaviour_clone`), a
   small learning rate and a few epochs so that it moves toward the search's choices from where it
   was, ``--holdout`` of the deals held out to report agreement.
3. The network is written as a PPO checkpoint, ``OUT/<game>_distilled.pt`` (agent spec
   ``network:OUT/<game>_distilled.pt``), with the commands that measure it against the network it started
   from and against ``pimc``.

Expert iteration (Anthony, Tian and Barber; AlphaZero's policy targets) repeats this: the distilled
network becomes the next search's blueprint and model.  One round is what this script does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def expert_data(game, teacher: str, seed: int, deals: int, chunk: int, folder: Path, say):
    """The teacher's decisions on deals ``0 .. deals-1`` of ``seed`` in ``game`` (its record), chunk by chunk,
    cached in ``folder``."""
    from vint_env.training.teacher_data import TeacherData, play_deals
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    start = time.perf_counter()
    played = 0
    for first in range(0, deals, chunk):
        count = min(chunk, deals - first)
        path = folder / f"{game.name}-{teacher.replace(':', '_').replace(',', '_')}-seed{seed}-{first}-{count}.npz"
        if not path.is_file():
            data = play_deals(game, {}, teacher, seed, first, count)
            data.save(path)
            played += count
            left = (time.perf_counter() - start) / played * (deals - first - count)
            say(f"expert data: deals {first}..{first + count - 1} played ({len(data)} decisions), "
                f"about {left / 60:.0f} min left")
        parts.append(TeacherData.load(path))
    return TeacherData.concat(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.search_distill", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="whist")
    p.add_argument("--teacher", default="search")
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=5001)
    p.add_argument("--chunk", type=int, default=10)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--holdout", type=float, default=0.1)
    p.add_argument("--out", type=Path, default=Path("runs/search_distill"))
    args = p.parse_args(argv)

    import torch
    from vint_env import games
    from vint_env.agents.learned.baseline import checkpoint_path
    from vint_env.agents.learned.policy import load_checkpoint, network_from_checkpoint, save_checkpoint
    from vint_env.agents.learned.threads import limit_torch_threads
    from vint_env.training.imitation import behaviour_clone, evaluate_clone, split_deals

    limit_torch_threads(1)
    record = games.get(args.game)

    def say(msg: str) -> None:
        print(msg, flush=True)

    data = expert_data(record, args.teacher, args.seed, args.deals, args.chunk, args.out / "chunks", say)
    say(f"expert data: {len(data)} decisions of {args.teacher!r} on {args.deals} deals")
    start_path = checkpoint_path(record)
    ckpt = load_checkpoint(start_path, game=record)
    net = network_from_checkpoint(ckpt, str(start_path))
    _, held = split_deals(data, args.holdout)
    before = evaluate_clone(net, data, held)
    say(f"the shipped network agrees with the expert on {before['agreement']:.1%} of the held-out decisions "
        f"({before['agreement_on_choices']:.1%} where there was a choice)")
    torch.manual_seed(args.seed)
    history = behaviour_clone(net, data, epochs=args.epochs, batch_size=args.batch, learning_rate=args.lr,
                              seed=args.seed, holdout=args.holdout, say=say)
    out = args.out / f"{record.name}_distilled.pt"
    payload = {k: ckpt[k] for k in ("game", "env_kwargs", "obs_size", "num_actions", "network", "config")}
    payload["model"] = {k: v.detach().clone() for k, v in net.state_dict().items()}
    payload["distilled"] = {"teacher": args.teacher, "deals": args.deals, "seed": args.seed,
                            "epochs": args.epochs, "lr": args.lr, "command": " ".join(["python -m training.search_distill",
                                                                                       *sys.argv[1:]])}
    save_checkpoint(out, payload)
    report = {"before": before, "history": history, "checkpoint": str(out)}
    (args.out / f"{record.name}_distilled.json").write_text(json.dumps(report, indent=1, default=float))
    say(f"wrote {out}; measure it with:\n"
        f"  vint-eval match --game {record.name} --a network:{out} --b baseline --boards 500 --seed 3001 --no-dd\n"
        f"  python -m vint_env.evaluation.resumable_match --game {record.name} --a network:{out} --b pimc --boards 500 "
        f"--seed 3001 --deal-seed 3001 --log results/search/{record.name}_distilled_pimc.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
