"""Train a Vint bidder on the outcomes of its calls, the card play fixed at the rule bot's.

    python -m training.vint_bidder label --out DIR --deals 1500 --seed 11                # rule bot bids
    python -m training.vint_bidder train --data DIR --out bidder0.pt
    python -m training.vint_bidder label --out DIR1 --deals 1500 --seed 12 \\
        --bidder bidder0.pt --epsilon 0.1                                                  # policy iteration
    python -m training.vint_bidder train --data DIR --data DIR1 --init bidder0.pt --out bidder1.pt
    python -m training.vint_bidder standalone --bidder bidder1.pt --cards CARDS.pt --out agent.pt

``label`` writes one file per chunk of deals (atomically) and skips the chunks already there, so a
killed run resumes.  With ``--bidder``, deal ``k``'s learnt side is N/S for even ``k`` and E/W for odd
``k`` (the rule bot the other side), in the deal and in the rollouts.  See docs/training.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from vint_env.atomic import atomic_write

CHUNK = 50


def say(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def bidders(args):
    from vint_env.training.vint_bidder import network_bidder, rule_bidder
    rule = [rule_bidder() for _ in range(4)]
    if not args.bidder:
        return lambda k: rule
    from vint_env.agents.learned.bidder import load_bidder
    agent = load_bidder(args.bidder, game="vint")
    learnt = network_bidder(agent.calls, agent.max_jump)
    return lambda k: [learnt if seat % 2 == k % 2 else rule[seat] for seat in range(4)]


def label(args) -> None:
    from vint_env.training.vint_bidder import label_deals
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(out / "label.json", "w", encoding="utf-8") as f:
        f.write(json.dumps({k: v for k, v in vars(args).items() if k != "fn"}, indent=1))
    policy = bidders(args)
    for first in range(0, args.deals, CHUNK):
        path = out / f"deals{first:06d}.npz"
        if path.is_file():
            continue
        t0 = time.perf_counter()
        data = label_deals(args.seed, first, min(CHUNK, args.deals - first), policy, policy,
                           None if args.max_jump < 0 else args.max_jump, args.epsilon, exact=args.exact)
        data.save(path)
        say(f"{path.name}: {len(data)} calls in {time.perf_counter() - t0:.0f} s")


def load_data(dirs):
    from vint_env.training.teacher_data import TeacherData
    parts = []
    for i, d in enumerate(dirs):
        for p in sorted(Path(d).glob("deals*.npz")):
            part = TeacherData.load(p)
            part.deal_ids = part.deal_ids + i * 1_000_000     # deals of different runs stay apart
            parts.append(part)
    if not parts:
        raise SystemExit(f"no labelled deals in {dirs}")
    return TeacherData.concat(parts)


def train(args) -> None:
    import torch
    torch.set_num_threads(1)
    from vint_env.agents.learned.bidder import load_bidder
    from vint_env.training.vint_bidder import save_bidder, train_call_values
    data = load_data(args.data)
    say(f"{len(data)} calls of {len(set(data.deal_ids.tolist()))} deals")
    init = None
    if args.init:
        init = load_bidder(args.init, game="vint").calls.network
    net, report = train_call_values(data, hidden=args.hidden, epochs=args.epochs, lr=args.lr,
                                    value_unit=args.value_unit, holdout=args.holdout, seed=args.seed, init=init,
                                    floor=args.floor, behaviour_bonus=args.bonus, relative=args.relative,
                                    say=say)
    config = {"command": " ".join(["python -m training.vint_bidder", *sys.argv[1:]]), "report": report,
              "calls": len(data), "data": [str(d) for d in args.data]}
    save_bidder(args.out, net, None if args.max_jump < 0 else args.max_jump, args.value_unit, config,
                margin=args.margin)
    say(f"wrote {args.out}: {report}")


def policy_only(network: dict, model: dict) -> tuple[dict, dict]:
    """An ``mlp`` policy without its critic's torso (the card player needs only the policy head): the
    network as ``shared_torso`` (its value head then reads the policy's torso, and is not used)."""
    kwargs = dict(network.get("kwargs") or {})
    if network.get("name") != "mlp" or kwargs.get("shared_torso"):
        return network, model
    kwargs["shared_torso"] = True
    return {"name": "mlp", "kwargs": kwargs}, {k: v for k, v in model.items() if not k.startswith("critic_torso.")}


def standalone(args) -> None:
    """The bidder's checkpoint with a card network (a PPO checkpoint's policy) inside: cards 'network'."""
    from vint_env.agents.learned.policy import load_checkpoint
    from vint_env.training.vint_bidder import save_checkpoint_with_cards
    cards = load_checkpoint(args.cards, game="vint")
    network, model = policy_only(cards["network"], cards["model"])
    save_checkpoint_with_cards(args.bidder, {"network": network, "model": model, "source": str(args.cards)},
                               args.out)
    say(f"wrote {args.out} ({Path(args.out).stat().st_size / 1e6:.1f} MB)")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m training.vint_bidder", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("label", help="label deals' calls with their outcomes")
    a.add_argument("--out", required=True)
    a.add_argument("--deals", type=int, default=1000)
    a.add_argument("--seed", type=int, default=11)
    a.add_argument("--bidder", default="", help="a bidder checkpoint as behaviour and continuation of one side")
    a.add_argument("--epsilon", type=float, default=0.0)
    a.add_argument("--max-jump", type=int, default=2, help="-1: every legal call")
    a.add_argument("--exact", action="store_true", help="one play per strains named too (slower)")
    a.set_defaults(fn=label)
    t = sub.add_parser("train", help="fit the call-value network")
    t.add_argument("--data", action="append", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--init", default="")
    t.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    t.add_argument("--epochs", type=int, default=20)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--value-unit", type=float, default=10000.0)
    t.add_argument("--holdout", type=float, default=0.1)
    t.add_argument("--bonus", type=float, default=0.0, help="points added to the behaviour's call's label")
    t.add_argument("--relative", action="store_true", help="labels less the behaviour's call's label")
    t.add_argument("--floor", type=float, default=-20000.0, help="labels below it count as it (points)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--max-jump", type=int, default=2)
    t.add_argument("--margin", type=float, default=0.0, help="points a bid must be worth above passing")
    t.set_defaults(fn=train)
    s = sub.add_parser("standalone", help="put a card network into a bidder checkpoint")
    s.add_argument("--bidder", required=True)
    s.add_argument("--cards", required=True, help="a PPO checkpoint whose policy plays the cards")
    s.add_argument("--out", required=True)
    s.set_defaults(fn=standalone)
    args = p.parse_args(argv)
    args.fn(args)


if __name__ == "__main__":
    main()
