"""Play and render one whole Vint deal between bots, then print its score breakdown.

    vint-demo [--seed N] [--bots rule|random] [--episode deal|rubber]
"""

from __future__ import annotations

import argparse
import sys

from . import vint_v0
from .agents import RandomAgent
from .cli_args import add_version
from .points import format_points


def make_bots(kind: str, seed: int):
    if kind == "rule":
        try:
            from .agents import load_agent
        except ImportError:
            print("(the rule bot is not available in this version; using random bots)")
            kind = "random"
        else:
            return [load_agent("rule", game="vint") for _ in range(4)]
    return [RandomAgent(seed + i) for i in range(4)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vint-demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", choices=("rule", "random"), default="rule")
    parser.add_argument("--episode", choices=("deal", "rubber"), default="deal")
    args = parser.parse_args(argv)
    env = vint_v0.env(render_mode="ansi", episode=args.episode)
    env.reset(seed=args.seed)
    bots = make_bots(args.bots, args.seed)
    for i, bot in enumerate(bots):
        bot.reset(seed=args.seed * 4 + i)
    print(env.render())
    print()
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = (reward, info)
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        action = bots[seat].act(obs, env=env, agent=agent)
        before = env.unwrapped.deals_played
        env.step(action)
        if env.unwrapped.deals_played != before and not (env.terminations[agent] or env.truncations[agent]):
            info = env.infos[agent]
            print(f"--- deal {before + 1} finished: {info['deal']['contract'] or 'passed out'}; "
                  f"N/S - E/W = {format_points(info['points'])} points")
    print(env.render())
    reward, info = finals["player_0"]
    print()
    print(f"Final: N/S - E/W = {format_points(info['points'])} points on the last deal; "
          f"reward to player_0 = {reward:+.3f} (reward_scale {env.unwrapped.reward_scale})")
    if "rubber" in info:
        print(f"Rubber: winner {info['rubber']['winner']}, settlement N/S - E/W = {format_points(info['rubber']['result'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
