"""The Whist rule bot: the leads and play advice of the Whist book.

Whist has no auction (docs/rules/whist.md): the bot only plays, with the shared rules
of :mod:`vint_env.agents.rule.card_play` and the Whist lead table (from A-K the
king, from A-K-Q the queen, trumps from the top with four or five of them),
plus the Whist book's own advice below.  It reads only what its observation tells it,
through Whist's decoder :class:`vint_env.games.whist.WhistKnowledge`.
"""

from __future__ import annotations

from typing import Optional

from ...cards import Rank
from ...games.whist import GAME as WHIST, WhistKnowledge
from . import card_play as cp
from ..base import legal_actions
from .play_view import Book, PlayView, RememberingAgent, observed_play


def let_partners_queen_pass_in_the_middle(v: PlayView) -> Optional[int]:
    """Whist book: "Если же партнер пошел с Дамы, а у вас на руках Туз, то в
    середине игры взятку выгоднее пропустить, а в конце игры побить"
    (partner leads the queen, we hold the ace: let it run in the middle of
    the deal, take it at the end).  docs/play_advice.md: W-PLAY-4."""
    if v.position != 2 or v.trick[0][0] != 2:
        return None
    led = v.trick[0][1]
    if led % 13 != Rank.QUEEN or v.winning()[0] != 2 or v.tricks_played >= 9:
        return None
    cards = v.cards(v.led_suit)
    if cards[0] % 13 != Rank.ACE:
        return None
    return cp.lowest(cards)


def queen_from_ace_queen_over_the_leader(v: PlayView) -> Optional[int]:
    """Whist book: "Не рекомендуется ходить с той масти, в которой имеются Туз и Дама,
    следует подождать хода с этой масти со стороны противников или партнера и
    выложить на стол Даму" (with A-Q, wait for the others to lead the suit,
    then play the queen), while the king is still out and an opponent is
    winning the trick.  Measured +0.1 points a board (95% CI [0.0, 0.1], 1,500
    boards) over second/third hand without it.  docs/play_advice.md: W-PLAY-5."""
    if v.position not in (1, 2) or v.winning()[0] not in v.opponents:
        return None
    suit = v.led_suit
    ranks = [c % 13 for c in v.cards(suit)]
    if Rank.ACE not in ranks or Rank.QUEEN not in ranks or v.played >> (suit * 13 + Rank.KING) & 1:
        return None
    queen = suit * 13 + Rank.QUEEN
    return queen if v.can_win_with([queen]) else None


WHIST_FOLLOW_RULES = [let_partners_queen_pass_in_the_middle, *cp.FOLLOW_RULES[:3],
                      queen_from_ace_queen_over_the_leader, *cp.FOLLOW_RULES[3:]]


class WhistRuleAgent(RememberingAgent):
    """Rule bot for `whist_v0`."""

    name = "rule"
    game = "whist"

    def play_view(self, k: WhistKnowledge) -> PlayView:
        seen = observed_play(k, self.memory)
        return PlayView(**seen, partners=frozenset({2}), declarer=None, game=Book.WHIST,
                        partner_won_leads=self.memory.partner_won_leads({2}))

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        self.remember(agent)
        legal = [int(a) for a in legal_actions(observation)]
        k = WHIST.decode(observation["observation"])
        if k.cards_played == 0:
            self.memory.reset()           # a new deal (rubber mode reuses the agent)
        v = self.play_view(k)
        if v.trick and v.length(v.led_suit):
            for rule in WHIST_FOLLOW_RULES:
                card = rule(v)
                if card is not None:
                    break
            return _checked(card, legal)
        return _checked(cp.choose_card(v, legal), legal)


def _checked(card, legal) -> int:
    if card not in legal:
        raise RuntimeError(f"Whist rule bot chose {card!r}, not among the legal cards {legal}")
    return int(card)
