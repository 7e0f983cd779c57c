"""`vint-play`: play Vint, Whist or Solo Whist against bots at the terminal.

Examples::

    vint-play                                              # Vint, you South, rule bots all round
    vint-play --game vint --partner rule --opponents ppo:runs/quick/checkpoints/latest.pt
    vint-play --game whist --opponents baseline                # the trained agent shipped for Whist
    vint-play --game whist --episode rubber --seat N
    vint-play --game solo_whist --opponents rule --deals 5 --seed 7

Agents are the spec strings of `vint-eval` (random, rule, dd, ppo:PATH,
baseline, py:MODULE:NAME).  Type calls and cards by name (1NT, pass, SA, h10, misere,
solo), or help, hint, hand, legal, quit.
"""

from __future__ import annotations

import argparse
import random
import sys

from ..agents.registry import load_agent
from ..cards import SEAT_LETTERS
from .. import games
from .session import PlaySession, Seating, seat_number


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def _seat(text: str) -> int:
    try:
        return seat_number(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vint-play", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=games.names(), default="vint")
    p.add_argument("--seat", type=_seat, default=2, help="your seat: N, E, S or W (default S)")
    p.add_argument("--partner", default=None,
                   help="agent spec of your partner, opposite you (partnership games; default rule)")
    p.add_argument("--opponents", default="rule", help="agent spec of the opponents (default rule)")
    p.add_argument("--episode", choices=("deal", "rubber"), default="deal",
                   help="play --deals deals, or one rubber (Vint, Whist)")
    p.add_argument("--deals", type=_positive, default=1, help="deals to play in deal mode (default 1)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: a new one, printed)")
    p.add_argument("--no-hint", action="store_true", help="no rule bot in the background for `hint`")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of the game, repeatable (two-player Vint: way=1; Vint: game_bonus=1000)")
    return p


def make_session(args, input_fn=input, print_fn=print) -> PlaySession:
    spec = games.get(args.game)
    env_options = spec.parse_options(args.env_option)
    if args.episode not in spec.episodes:
        raise ValueError(f"{args.game} is played deal by deal: --episode must be one of {', '.join(spec.episodes)}")
    human = args.seat
    bots, labels = {}, {human: "you"}
    if spec.partnership:
        partner = args.partner or "rule"
        bots[(human + 2) % 4] = load_agent(partner, game=args.game)
        labels[(human + 2) % 4] = f"partner, {partner}"
        others = ((human + 1) % 4, (human + 3) % 4)
    else:
        if args.partner is not None:
            raise ValueError(f"{args.game} has no fixed partner: --opponents plays the other three seats")
        others = tuple(s for s in range(4) if s != human)
    for s in others:
        bots[s] = load_agent(args.opponents, game=args.game)
        labels[s] = args.opponents
    hint = None if args.no_hint else load_agent("rule", game=args.game)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    return PlaySession(args.game, Seating(human, bots, labels), episode=args.episode, deals=args.deals, seed=seed,
                       hint_agent=hint, input_fn=input_fn, print_fn=print_fn, env_options=env_options)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        session = make_session(args)
        print(f"vint-play: {args.game}; you are {SEAT_LETTERS[args.seat]}; "
              + ", ".join(f"{SEAT_LETTERS[s]} {session.seating.labels[s]}" for s in range(4) if s != args.seat)
              + f". Seed {session.seed} (again with --seed {session.seed}). Type help for help.")
        return session.run()
    except KeyboardInterrupt:
        print("\nvint-play: interrupted. Bye.")
        return 130
    except (ValueError, ImportError, OSError) as exc:
        print(f"vint-play: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
