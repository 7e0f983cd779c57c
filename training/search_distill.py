"""Distillation of the search agent into the shipped network (one round of expert iteration).

    python -m training.search_distill --game whist --deals 400 --seed 5001 --workers 2 --out runs/search_distill

1. **Expert data**: the search agent (``--teacher``, default ``search``) plays ``--deals`` deals in all four
   seats; every decision is kept (observation, legal actions, the card it chose).  Played in chunks of
   ``--chunk`` deals by ``--workers`` processes, each chunk written (atomically) to ``OUT/chunks/`` as it
   completes, so a stopped run resumes where it stopped and never plays a deal twice; the data do not
   depend on ``--workers``.
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

from vint_env.cli_args import positive_int


def _play_chunk(job) -> int:
    """Play one chunk of deals and write it (atomically) to its file; the number of decisions."""
    from vint_env.agents.learned.threads import limit_torch_threads
    from vint_env.training.teacher_data import play_deals
    game, teacher, seed, first, count, path = job
    limit_torch_threads(1)          # one process a core: a network answers one decision at a time
    data = play_deals(game, {}, teacher, seed, first, count)
    data.save(path)
    return len(data)


def expert_data(game, teacher: str, seed: int, deals: int, chunk: int, folder: Path, say, workers: int = 1):
    """The teacher's decisions on deals ``0 .. deals-1`` of ``seed`` in ``game`` (its record), chunk by chunk,
    cached in ``folder``; the chunks not yet there are played by ``workers`` processes (spawned), and the data
    do not depend on ``workers``."""
    import hashlib
    from vint_env.evaluation.ladder import agent_files
    from vint_env.training.teacher_data import TeacherData
    folder.mkdir(parents=True, exist_ok=True)
    # the files the teacher plays from, hashed into the chunks' names: a changed network is another teacher
    files = hashlib.sha256(json.dumps(agent_files(teacher, game), sort_keys=True).encode()).hexdigest()[:12]
    slug = teacher.replace(":", "_").replace(",", "_") + "-" + files
    jobs = [(game, teacher, seed, first, min(chunk, deals - first),
             folder / f"{game.name}-{slug}-seed{seed}-{first}-{min(chunk, deals - first)}.npz")
            for first in range(0, deals, chunk)]
    missing = [job for job in jobs if not job[5].is_file()]
    if len(missing) < len(jobs):
        say(f"expert data: {len(jobs) - len(missing)} of {len(jobs)} chunks already in {folder}")
    start = time.perf_counter()
    total = sum(job[4] for job in missing)
    played = 0

    def done(job, decisions: int) -> None:
        nonlocal played
        played += job[4]
        left = (time.perf_counter() - start) / played * (total - played)
        say(f"expert data: deals {job[3]}..{job[3] + job[4] - 1} played ({decisions} decisions), "
            f"{played} of {total} deals, about {left / 60:.0f} min left")

    if workers <= 1 or len(missing) <= 1:
        for job in missing:
            done(job, _play_chunk(job))
    else:
        import concurrent.futures as cf
        import multiprocessing as mp
        with cf.ProcessPoolExecutor(max_workers=min(workers, len(missing)),
                                    mp_context=mp.get_context("spawn")) as pool:
            futures = {pool.submit(_play_chunk, job): job for job in missing}
            for future in cf.as_completed(futures):
                done(futures[future], future.result())
    return TeacherData.concat([TeacherData.load(job[5]) for job in jobs])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.search_distill", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="whist")
    p.add_argument("--teacher", default="search")
    p.add_argument("--deals", type=positive_int, default=400)
    p.add_argument("--seed", type=int, default=5001)
    p.add_argument("--chunk", type=positive_int, default=10)
    p.add_argument("--workers", type=positive_int, default=1, help="processes playing the expert's deals")
    p.add_argument("--epochs", type=positive_int, default=3)
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
    from vint_env.atomic import atomic_write
    from vint_env.training.imitation import behaviour_clone, evaluate_clone, split_deals

    limit_torch_threads(1)
    record = games.get(args.game)

    def say(msg: str) -> None:
        print(msg, flush=True)

    data = expert_data(record, args.teacher, args.seed, args.deals, args.chunk, args.out / "chunks", say,
                       args.workers)
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
    with atomic_write(args.out / f"{record.name}_distilled.json", "w", encoding="utf-8") as f:
        f.write(json.dumps(report, indent=1, default=float))
    say(f"wrote {out}; measure it on boards no training used (a seed of your own in place of 3001) with:\n"
        f"  vint-eval match --game {record.name} --a network:{out} --b baseline --boards 1000 --seed 3001 --no-dd "
        f"--workers 2\n"
        f"  python -m vint_env.evaluation.resumable_match --game {record.name} --a network:{out} --b pimc --boards 500 "
        f"--seed 3001 --deal-seed 3001 --workers 2 --log {args.out / (record.name + '_distilled_pimc.jsonl')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
