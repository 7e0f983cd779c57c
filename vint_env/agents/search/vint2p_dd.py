"""The double-dummy agent of two-player Vint, where the information allows it.

In the play of ways 1, 4 and 5 every card is known to the player to move:
he sees his own hand and both dummies, so the fourth hand is the rest of
the deck.  Then the agent plays the card that keeps the most tricks for its
side by double-dummy analysis (:func:`best_dd_card`), whenever the two sides
sit alternately round the table as the solver assumes (way 1 always; ways 4
and 5 when the dealer declares; with the non-dealer declaring the sides sit
side by side and the agent plays as the rule bot).  Everything else (the
auction, the exchanges, the widow, the two-hand play of ways 2 and 3) is the
rule bot's.
"""

from __future__ import annotations

from ...rules.phase import Phase
from ..base import Agent
from .double_dummy import _check_game, best_dd_card
from ..rule.vint2p import Vint2pRuleAgent


class Vint2pDoubleDummyAgent(Agent):
    name = "dd"
    needs_env = True

    def __init__(self, game: str = "vint2p", seed: int | None = None):
        _check_game(game, "Vint2pDoubleDummyAgent")
        self.rule = Vint2pRuleAgent()

    def reset(self, seed: int | None = None) -> None:
        self.rule.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        if env is None:
            raise ValueError("the double-dummy agent needs the env (needs_env = True): call act(obs, env, agent)")
        deal = env.unwrapped.deal
        if deal.phase == Phase.PLAY and deal.way in (1, 4, 5) and deal.controllers in ([0, 1, 0, 1], [1, 0, 1, 0]):
            card = best_dd_card(deal.play)
            if not observation["action_mask"][card]:
                raise RuntimeError(f"double-dummy agent chose {card}, not legal")
            return int(card)
        return self.rule.act(observation, None, agent)
