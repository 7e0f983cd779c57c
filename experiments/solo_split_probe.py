"""Where a Solo Whist agent's margin over the rule bot comes from: its calls or its card play.

    python experiments/solo_split_probe.py --agent baseline --boards 1000 --seed 9001 --workers 2

The agent plays duplicate matches against the rule bot (as `vint-eval match --game solo_whist --a AGENT
--b rule` does) with some of its decisions handed to the rule bot, one match a split, all on the same
boards:

- ``agent``: the agent alone (the match itself);
- ``rule_cards``: the agent calls (and names trump), the rule bot plays every card;
- ``rule_cards_declaring``: the rule bot plays the cards of the declaring side only (the agent defends);
- ``rule_cards_misere``: the rule bot plays the cards of the agent's own misères only;
- ``rule_calls``: the rule bot calls, the agent plays every card.

Each line is the split's margin against the rule bot (points a board, 95% CI) and its difference from
the agent alone on the same boards (paired).  ``rule_calls`` near 0 and ``rule_cards`` near the agent's
margin say that the margin is the calls'.  The rule bot keeps its memory of the tricks up to date at
every decision, also where its card is not played, so its cards are its own in every split.
"""

from __future__ import annotations

import argparse

import torch

from vint_env import games
from vint_env.agents.base import Agent
from vint_env.agents.registry import load_agent
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.match import run_match
from vint_env.evaluation.stats import mean_ci
from vint_env.games.solo_whist import GAME as SOLO_WHIST
from vint_env.rules.solo_whist_payments import MISERES

SPLITS = ("agent", "rule_cards", "rule_cards_declaring", "rule_cards_misere", "rule_calls")


def rule_decides(split: str, phase: int, declaring: bool, contract: int) -> bool:
    """Whether the rule bot makes this decision in ``split`` (phase 0 calls, 1 trump, 2 cards)."""
    if phase in (0, 1):
        return split == "rule_calls"
    return (split == "rule_cards"
            or (split == "rule_cards_declaring" and declaring)
            or (split == "rule_cards_misere" and declaring and contract in MISERES))


class SplitAgent(Agent):
    """``agent`` with the decisions of ``split`` made by the rule bot."""

    game = "solo_whist"

    def __init__(self, agent: Agent, split: str):
        self.agent, self.rule, self.split = agent, games.get("solo_whist").rule_agent(), split
        self.name = f"{getattr(agent, 'name', 'agent')}[{split}]"

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
        self.rule.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        k = SOLO_WHIST.decode(observation["observation"])
        rule_action = self.rule.act(observation, env, agent)     # every time: its memory of the tricks
        if rule_decides(self.split, k.phase, 0 in k.declaring, k.contract):
            return rule_action
        return self.agent.act(observation, env, agent)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--agent", default="baseline", help="agent spec (default baseline)")
    p.add_argument("--boards", type=int, default=1000)
    p.add_argument("--seed", type=int, default=9001)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--splits", nargs="+", choices=SPLITS, default=list(SPLITS))
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    agent = load_agent(args.agent, game="solo_whist")
    if agent.needs_env:
        raise SystemExit(f"{args.agent}: an agent that reads the env (cheats) cannot be split")
    boards = generate_boards(args.boards, seed=args.seed)
    alone = None
    for split in ["agent"] + [s for s in args.splits if s != "agent"]:
        player = agent if split == "agent" else SplitAgent(agent, split)
        match = run_match("solo_whist", player, "rule", boards, seed=args.seed, workers=args.workers,
                          analysis=False)
        scores = [b.score for b in match.boards]
        c = mean_ci(scores)
        line = f"{split:>22}: {c.mean:+.3f} [{c.low:+.3f}, {c.high:+.3f}]"
        if alone is None:
            alone = scores
        else:
            d = mean_ci([s - a for s, a in zip(scores, alone)])
            line += f"   minus the agent alone: {d.mean:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"
        print(line, flush=True)


if __name__ == "__main__":
    main()
