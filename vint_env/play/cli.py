"""`vint-play`: play Vint, Whist, Solo Whist or two-player Vint against bots at the terminal.

Examples::

    vint-play                                              # Vint, you South, rule bots all round
    vint-play --game vint --partner rule --opponents network:runs/quick/checkpoints/latest.pt
    vint-play --game whist --opponents baseline                # the trained agent shipped for Whist
    vint-play --game whist --episode rubber --seat N
    vint-play --game solo_whist --opponents rule --deals 5 --seed 7
    vint-play --game vint2p --env-option way=4 --player 0    # two-player Vint, way 1 .. 5 (default 4)

Agents are the spec strings of `vint-eval` (random, rule, dd, network:PATH,
baseline, py:MODULE:NAME).  Type calls and cards by name (1NT, pass, SA, h10, misere,
solo, keep, exchange, widow-hand), or help, hint, hand, legal, quit.
"""

from __future__ import annotations

import argparse
import random
import sys

from ..agents.learned.threads import limit_torch_threads
from ..agents.registry import load_agent
from .. import games
from ..cli_args import add_version, positive_int
from .session import PlaySession, seat_number
from .table import seat_bots


def _seat(text: str) -> int:
    try:
        return seat_number(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vint-play", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version(p)
    games.add_game_option(p, default="vint")
    p.add_argument("--seat", type=_seat, default=None, help="your seat: N, E, S or W (default S)")
    p.add_argument("--player", type=int, choices=(0, 1), default=None,
                   help="two-player Vint: you are player_0 (seat N) or player_1 (default 0)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of the game's env, repeatable (two-player Vint: way=1 ... way=5)")
    p.add_argument("--partner", default=None,
                   help="agent spec of your partner, opposite you (partnership games; default rule)")
    p.add_argument("--opponents", default="rule", help="agent spec of the opponents (default rule)")
    p.add_argument("--episode", choices=("deal", "rubber"), default="deal",
                   help="play --deals deals, or one rubber (Vint, Whist)")
    p.add_argument("--deals", type=positive_int, default=1, help="deals to play in deal mode (default 1)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals (default: a new one, printed)")
    p.add_argument("--no-hint", action="store_true", help="no rule bot in the background for `hint`")
    return p


def make_session(args, input_fn=input, print_fn=print) -> PlaySession:
    from ..evaluation.cli import env_options
    spec = games.get(args.game)          # the game, resolved once: the session, its table and bots get the record
    if args.episode not in spec.episodes:
        raise ValueError(f"{args.game} is played deal by deal: --episode must be one of {', '.join(spec.episodes)}")
    two_player = spec.format == games.TWO_PLAYER
    if two_player and args.seat is not None:
        raise ValueError(f"{args.game} has two players: choose yours with --player 0 or 1, not --seat")
    if not two_player and args.player is not None:
        raise ValueError(f"{args.game} has four seats: choose yours with --seat, not --player")
    human = (args.player or 0) if two_player else (2 if args.seat is None else args.seat)
    if two_player and args.partner is not None:
        raise ValueError(f"{args.game} has no partner: --opponents plays the other player")
    if not two_player and not spec.partnership and args.partner is not None:
        raise ValueError(f"{args.game} has no fixed partner: --opponents plays the other three seats")
    seating = seat_bots(spec, human, args.partner, args.opponents)
    hint = None if args.no_hint else load_agent("rule", game=spec)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    return PlaySession(spec, seating, episode=args.episode, deals=args.deals, seed=seed,
                       hint_agent=hint, input_fn=input_fn, print_fn=print_fn, env_options=env_options(args.env_option, spec))


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    limit_torch_threads(1)          # a network answers one decision at a time: one thread is the fastest
    try:
        session = make_session(args)
        who = session.name
        human = session.seating.human
        print(f"vint-play: {args.game}; you are {who(human)}; "
              + ", ".join(f"{who(s)} {label}" for s, label in sorted(session.seating.labels.items()) if s != human)
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
