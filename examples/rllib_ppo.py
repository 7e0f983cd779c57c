"""Self-play PPO on Vint with RLlib: one shared, action-masked policy for all four seats.

    pip install "torch==2.13.0" -e ".[rllib]"
    python examples/rllib_ppo.py --iterations 5
    python examples/rllib_ppo.py --iterations 200 --env-runners 4   # more cores
    python examples/rllib_ppo.py --address auto --env-runners 16     # on a running Ray cluster

Prints, per iteration, the sampled deals, each seat's mean return (zero-sum
between the sides, equal for partners) and the policy loss; saves a checkpoint
at the end with ``--checkpoint DIR``.
"""

import argparse
import os
import socket

import ray

from vint_env import games
from vint_env.wrappers.rllib import SHARED_POLICY, ppo_config


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    games.add_game_option(parser, env_name=True, default="vint_v0")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    parser.add_argument("--env-runners", type=int, default=0,
                        help="sampling workers (0: sample in this process)")
    parser.add_argument("--reward-scale", type=float, default=None,
                        help="the env's reward_scale (default: the game's own)")
    parser.add_argument("--address", default=None,
                        help="Ray cluster to join: 'auto' (the cluster this machine belongs to, see "
                             "`ray start`), HOST:PORT of its head, or ray://HOST:10001 (Ray Client); "
                             "default: start a private Ray instance on this machine")
    parser.add_argument("--checkpoint", default=None, help="directory to save the final checkpoint")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env_config = {} if args.reward_scale is None else {"reward_scale": args.reward_scale}
    config = ppo_config(args.game, env_config=env_config, train_batch_size=args.batch,
                        minibatch_size=min(500, args.batch), num_env_runners=args.env_runners)
    config = config.debugging(seed=args.seed)

    if args.address:
        # The cluster's nodes need vint-env installed (the same version) to build the env there.
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=max(1, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    print(f"ray: {len(ray.nodes())} node(s), {ray.cluster_resources().get('CPU', 0):g} CPUs; "
          f"{args.env_runners} env runner(s)", flush=True)
    algo = config.build_algo()
    if args.env_runners:
        where = algo.env_runner_group.foreach_env_runner(
            lambda runner: f"{socket.gethostname()}:{os.getpid()}", local_env_runner=False)
        print("env runners (host:pid):", " ".join(sorted(where)), flush=True)
    try:
        for it in range(1, args.iterations + 1):
            result = algo.train()
            runners = result["env_runners"]
            returns = runners.get("agent_episode_returns_mean", {})
            loss = result["learners"][SHARED_POLICY]["policy_loss"]
            seats = "  ".join(f"{a[-1]}:{returns[a]:+.3f}" for a in sorted(returns))
            print(f"iter {it:4d}  deals {runners.get('num_episodes', 0):5d}  returns {seats}  "
                  f"policy_loss {loss:+.4f}  healthy env runners {algo.env_runner_group.num_healthy_remote_workers()}",
                  flush=True)
        if args.checkpoint:
            path = algo.save(os.path.abspath(args.checkpoint))
            print("checkpoint:", path.checkpoint.path)
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
