#!/usr/bin/env python3
"""An outside bot for vint-env: a program that plays over stdin and stdout (protocol vint-env-bot/1).

    vint-eval match --game whist --a program:examples/random_bot.py --b rule --boards 100
    vint-eval ladder --game whist --agent program:examples/random_bot.py --set dev

It needs nothing but Python's standard library: any language that reads and writes lines of JSON can
do the same (docs/bots.md).  The harness sends one JSON object a line:

    {"type": "hello", "protocol": "vint-env-bot/1", "game": ..., "actions": [names], "blocks": [...]}
    {"type": "reset", "seed": N}                        a new deal (nothing to answer)
    {"type": "act", "player": "player_2", "observation": {block: values}, "legal": [ids]}
    {"type": "quit"}

and reads one line back for "hello" ({"type": "ready", "name": ...}) and for each "act"
({"action": ID}, one of "legal").  Anything for people goes to stderr.

This bot plays a legal action at random, from the seed of each deal (so a match gives the same result
every time), but prefers to follow suit low: a small example of reading the observation's blocks.
"""

import json
import random
import sys


def choose(message: dict, actions: list[str], rng: random.Random) -> int:
    legal = message["legal"]
    cards = [a for a in legal if a < 52]            # ids 0..51 are the cards, in every game
    if cards and message["observation"].get("trick"):
        # following to a trick: the lowest of the legal cards (ids run 2 to ace within a suit)
        led = any(any(row) for row in message["observation"]["trick"])
        if led:
            return min(cards, key=lambda c: c % 13)
    return rng.choice(legal)


def main() -> int:
    rng = random.Random(0)
    actions: list[str] = []
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            actions = message["actions"]
            print(f"random_bot: playing {message['game']} ({len(actions)} actions)", file=sys.stderr)
            answer = {"type": "ready", "name": "random_bot (follows low)"}
        elif kind == "reset":
            rng = random.Random(message["seed"])
            continue
        elif kind == "act":
            answer = {"action": choose(message, actions, rng)}
        elif kind == "quit":
            return 0
        else:
            continue                                  # a message this bot does not know: ignore it
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
