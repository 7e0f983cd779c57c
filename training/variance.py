"""The variance of the learner's return a deal, alone and paired by duplicate training, on the same deals.

    python -m training.variance --game whist --agent network:runs/x/checkpoints/latest.pt --opponent rule --deals 2000

The policy (a PPO checkpoint's network, sampling as in training; without ``--agent`` a fresh network,
which plays nearly at random) plays one side of every deal (a partnership; Solo Whist: one seat) at two
tables against ``--opponent``
(``rule``, ``random`` or ``self``), the seats rotated between them (``collection.duplicate``); it prints
the variance of its return at one table, of its paired return (that return minus the same seat's at
the other table) and their ratio, in the env's reward units (Whist: points x 0.1; Vint: points x
0.001; Solo Whist: quarter points x 0.25).  ``vint-train`` logs the same two figures per update as ``return_var`` and
``paired_return_var`` (the latter with ``duplicate: true``).
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.variance", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="whist", help="whist, vint or solo_whist")
    p.add_argument("--agent", default="", help="network:PATH of a checkpoint (default: a fresh network)")
    p.add_argument("--opponent", default="rule", choices=("rule", "random", "self"))
    p.add_argument("--deals", type=int, default=1000, help="deals at each table (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-source", default="vector", choices=("vector", "aec"))
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    import torch
    torch.set_num_threads(1)
    from vint_env import games
    from vint_env.training.variance import return_variance
    policy = None
    if args.agent:
        from vint_env.agents.spec import AgentSpecError, parse_spec
        try:
            spec = parse_spec(args.agent)
        except AgentSpecError as e:
            p.error(f"--agent: {e}")
        if spec.kind != "network":
            p.error(f"--agent must be network:PATH (a network plays both tables), got {args.agent!r}")
        from vint_env.agents.learned.policy import CheckpointError, load_checkpoint, network_from_checkpoint
        path = spec.argument
        try:
            policy = network_from_checkpoint(load_checkpoint(path, game=args.game), path)
        except (CheckpointError, ValueError) as e:
            print(f"python -m training.variance: {e}", file=sys.stderr)
            return 2
    if args.deals < 1:
        p.error(f"--deals must be >= 1, got {args.deals}")
    try:
        figures = return_variance(games.get(args.game), policy, args.opponent, args.deals, args.seed,
                                  args.env_source)
    except ValueError as e:
        print(f"python -m training.variance: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{args.game}, {args.agent or 'a fresh network'} against {args.opponent}, {figures['deals']} deals at "
          f"two tables ({figures['n']} learner sides), env reward units:")
    print(f"  return a table:  mean {figures['return_mean']:+.4f}, variance {figures['return_var']:.4f}")
    print(f"  paired return:   mean {figures['paired_return_mean']:+.4f}, variance {figures['paired_return_var']:.4f}")
    print(f"  ratio paired / alone: {figures['variance_ratio']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
