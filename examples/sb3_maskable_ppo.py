"""Train sb3-contrib's MaskablePPO for one seat of a game against bots, then evaluate it.

    pip install -e ".[wrappers]"
    python examples/sb3_maskable_ppo.py --steps 20000 --opponents random
    python examples/sb3_maskable_ppo.py --game whist --steps 20000 --opponents rule

Prints the learner's mean reward per deal (in points / 1000 by default) before
and after training, each over the same seeded deals, with a 95% interval.
"""

import argparse

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env

import vint_env  # noqa: F401  (registers the Gymnasium ids "vint_env/Vint-v0", ...)
from vint_env import games


def mean_with_interval(rewards):
    r = np.asarray(rewards, dtype=float)
    half = 1.96 * r.std(ddof=1) / np.sqrt(len(r))
    return f"{r.mean():+.3f} ± {half:.3f} over {len(r)} deals"


def evaluate(model, args):
    env = make_vec_env(games.get(args.game).gym_id, n_envs=1, seed=10_000,
                       env_kwargs={"seats": args.seat, "opponents": args.opponents})
    rewards, _ = evaluate_policy(model, env, n_eval_episodes=args.eval_deals, deterministic=True,
                                 use_masking=True, return_episode_rewards=True)
    return mean_with_interval(rewards)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    games.add_game_option(parser, default="vint")
    parser.add_argument("--steps", type=int, default=20_000, help="learner decisions to train on")
    parser.add_argument("--seat", default="random", help="0..3, NS, EW or random (a seat per deal)")
    parser.add_argument("--opponents", default="random", help="agent name for the other seats")
    parser.add_argument("--envs", type=int, default=4, help="parallel envs (DummyVecEnv)")
    parser.add_argument("--eval-deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1 is fastest for these small networks on few cores)")
    parser.add_argument("--save", default=None, help="where to save the model (.zip)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    seat = int(args.seat) if args.seat.isdigit() else args.seat
    args.seat = seat

    env = make_vec_env(games.get(args.game).gym_id, n_envs=args.envs, seed=args.seed,
                       env_kwargs={"seats": seat, "opponents": args.opponents})
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=256, seed=args.seed, verbose=0)
    print(f"{args.game}, before training:", evaluate(model, args))
    model.learn(total_timesteps=args.steps, progress_bar=False)
    print(f"trained {model.num_timesteps} learner steps")
    print("after training: ", evaluate(model, args))
    if args.save:
        model.save(args.save)
        print("saved to", args.save)


if __name__ == "__main__":
    main()
