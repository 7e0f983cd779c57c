"""The Solo Whist rule bot: bid from hand strength, play to the contract.

Bidding (first part of the Collection; docs/rules/solo_whist.md) is an ordered list of rules,
each a function of a :class:`SoloAuctionView` returning a call or ``None``.
A contract is bid only when the hand is worth it: sure tricks with the
turned trump for a proposal (Collection: "Обычно такую игру предлагают, если на
руках имеется верных четыре взятки, учитывая козырную масть"), an
acceptance or a solo (the Collection's example: six trumps, "легко может взять
обязательных пять взяток"); nine sure tricks for an abondance; only low,
safe cards for a misère.  Of the contracts the hand is worth, the bot bids
the highest the auction allows (bids only rise, and a higher contract pays
more).

Play (:mod:`vint_env.agents.rule.card_play`): the declaring side plays for tricks
and draws trumps; the defenders of a lone declarer are partners and
cooperate (the same rules with every defender as a partner); in misère the
declarer ducks and the defenders try to force a trick on it.  The bot reads
only what its observation tells it, through Solo Whist's decoder
:class:`vint_env.games.solo_whist.SoloWhistKnowledge`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...games.solo_whist import GAME as SOLO_WHIST, SoloWhistKnowledge
from ...games.solo_whist_bidding import (ABONDANCE_TRICKS, ACCEPT_TRICKS, DECLAREE_TRICKS, MISERE_DANGER,
                                           OPEN_MISERE_DANGER, PROPOSAL_TRICKS, SOLO_TRICKS)
from ...rules.solo_whist_calls import (ABONDANCE, ACCEPT, BIDS, DECLAREE, MISERE, OPEN_MISERE, PASS, PROPOSAL,
                                      SOLO, TRUMP_ABONDANCE, TRUMP_BASE)
from ..base import legal_actions
from .card_play import choose_card
from .hand_eval import NT, lowness, suit_length, sure_tricks
from .play_view import Book, PlayView, RememberingAgent, observed_play


# columns of the layout's `highest` block (the decoder reads them: SoloWhistKnowledge.contract)
HIGHEST_CONTRACTS = BIDS
MISERES = (MISERE, OPEN_MISERE)


@dataclass
class SoloAuctionView:
    hand: int
    turned_trump: int
    legal: list[int]

    def can(self, call: int) -> bool:
        return call in self.legal

    def tricks(self, strain: int) -> float:
        return sure_tricks(self.hand, strain)

    def best_suit(self) -> int:
        return max(range(4), key=lambda s: (self.tricks(s), suit_length(self.hand, s), -s))


SoloBidRule = Callable[[SoloAuctionView], Optional[int]]


def abondance_declaree_with_thirteen_sure_tricks(a: SoloAuctionView) -> Optional[int]:
    """All thirteen tricks at no trump, leading first (Collection: "игрок обязуется
    взять все тринадцать взяток").  docs/play_advice.md: S-BID-8."""
    if a.can(DECLAREE) and a.tricks(NT) >= DECLAREE_TRICKS:
        return DECLAREE
    return None


def open_misere_with_a_hand_safe_even_when_shown(a: SoloAuctionView) -> Optional[int]:
    """Open misère only with a hand that never has to win a trick even when
    the others see it.  docs/play_advice.md: S-BID-7."""
    if a.can(OPEN_MISERE) and lowness(a.hand) <= OPEN_MISERE_DANGER and _misere_shape_ok(a.hand):
        return OPEN_MISERE
    return None


def abondance_with_nine_sure_tricks(a: SoloAuctionView) -> Optional[int]:
    """Nine sure tricks with the best suit as trump: abondance (trump abondance
    when the turned suit is that suit and an abondance stands).  docs/play_advice.md:
    S-BID-4, S-BID-5."""
    best = a.best_suit()
    if a.tricks(best) < ABONDANCE_TRICKS:
        return None
    if a.can(TRUMP_ABONDANCE) and a.tricks(a.turned_trump) >= ABONDANCE_TRICKS:
        return TRUMP_ABONDANCE
    if a.can(ABONDANCE):
        return ABONDANCE
    return None


def misere_with_low_cards(a: SoloAuctionView) -> Optional[int]:
    """Misère with low cards only: every card can be kept under the others'
    (Collection: in misère "игрок попытается не взять ни одной из тринадцати
    взяток").  docs/play_advice.md: S-BID-6 (our safety count,
    :func:`~vint_env.agents.rule.hand_eval.lowness`, tolerates two unsafe cards)."""
    if a.can(MISERE) and lowness(a.hand) <= MISERE_DANGER and _misere_shape_ok(a.hand):
        return MISERE
    return None


def solo_with_long_trumps(a: SoloAuctionView) -> Optional[int]:
    """Solo: five tricks alone with the turned trump (the Collection's example: six
    trumps).  docs/play_advice.md: S-BID-3."""
    if a.can(SOLO) and a.tricks(a.turned_trump) >= SOLO_TRICKS and suit_length(a.hand, a.turned_trump) >= 4:
        return SOLO
    return None


def accept_with_four_sure_tricks(a: SoloAuctionView) -> Optional[int]:
    """Accept a proposal with about half of the pair's eight tricks.  Advice
    id S-BID-ACCEPT."""
    if a.can(ACCEPT) and a.tricks(a.turned_trump) >= ACCEPT_TRICKS:
        return ACCEPT
    return None


def propose_with_four_sure_tricks(a: SoloAuctionView) -> Optional[int]:
    """Collection: "Обычно такую игру предлагают, если на руках имеется верных
    четыре взятки, учитывая козырную масть".  docs/play_advice.md: S-BID-1."""
    if a.can(PROPOSAL) and a.tricks(a.turned_trump) >= PROPOSAL_TRICKS:
        return PROPOSAL
    return None


def otherwise_pass(a: SoloAuctionView) -> Optional[int]:
    return PASS


SOLO_BIDDING_RULES: list[SoloBidRule] = [
    abondance_declaree_with_thirteen_sure_tricks,
    open_misere_with_a_hand_safe_even_when_shown,
    abondance_with_nine_sure_tricks,
    misere_with_low_cards,
    solo_with_long_trumps,
    accept_with_four_sure_tricks,
    propose_with_four_sure_tricks,
    otherwise_pass,
]


def _misere_shape_ok(hand: int) -> bool:
    """No suit so long that the others run out of it first (more than 6 cards)."""
    return all(suit_length(hand, s) <= 6 for s in range(4))


class SoloWhistRuleAgent(RememberingAgent):
    """Rule bot for `solo_whist_v0`."""

    name = "rule"
    game = "solo_whist"

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        self.remember(agent)
        legal = [int(a) for a in legal_actions(observation)]
        k = SOLO_WHIST.decode(observation["observation"])
        if k.phase == 0:
            self.memory.reset()
            view = SoloAuctionView(k.hand, k.turned_trump, legal)
            for rule in SOLO_BIDDING_RULES:
                call = rule(view)
                if call is not None and call in legal:
                    return call
            return PASS
        if k.phase == 1:
            hand = k.hand
            best = max(range(4), key=lambda s: (sure_tricks(hand, s), suit_length(hand, s), -s))
            return TRUMP_BASE + best
        card = choose_card(self.play_view(k), legal)
        return card

    def play_view(self, k: SoloWhistKnowledge) -> PlayView:
        seen = observed_play(k, self.memory)
        if k.contract in MISERES:
            goal = "misere" if k.declarer == 0 else "misere_defence"
        else:
            goal = "tricks"
        return PlayView(**seen, partners=k.partners, declarer=k.declarer, game=Book.SOLO_WHIST, goal=goal,
                        partner_won_leads=self.memory.partner_won_leads(k.partners))
