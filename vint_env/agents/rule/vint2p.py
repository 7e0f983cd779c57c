"""The rule bot of two-player Vint (`vint2p_v0`), from its own observation only.

Card play with four hands (ways 1, 4, 5): the four-player Vint rule bot's
card play (:func:`~vint_env.agents.rule.card_play.choose_card`), seen from the
seat the bot acts for, its other hand as the partner.  Card play with two
hands (ways 2, 3): lead a sure winner, else trumps when declaring, else low
from the longest suit; follow with the cheapest card that wins, else the
lowest; ruff when void.

Bidding: the books' count of sure tricks (:func:`sure_tricks`) of the hands
the bot bids on (its own and the dummy it sees; in ways 2 and 3 its hand
against one hand), plus a share of the doubtful ones ("doubtful tricks
should be counted too", docs/play_advice.md V2-BID-1, V2-BID-3), bidding the
best strain only when the count makes the contract with a margin.  With one
call each (way 1, ``auction="single"``) the bot names the highest game its
count allows at once (V2-BID-2); in way 5 it bids no lower than three
(V2-BID-4).

The decisions of the ways, by a simple strength rule: way 2 exchanges a
hand with fewer than 9 high-card points (A 4, K 3, Q 2, J 1; the pile
averages 10); way 3 swaps its lowest card while that card is a 2..5 in a
suit without honours; way 5 takes the widow into its own hand (hidden from
the opponent), gives away its lowest cards and keeps the winning bid as
the final contract.
"""

from __future__ import annotations

from ...games.vint2p import (GAME as VINT2P, OPPONENT, OWN_DUMMY, OWN_HAND,
                             UNTAKEN_DUMMY, Vint2pKnowledge)
from ...rules.vint import BID_BASE, PASS, bid_action
from ...rules.vint2p import EXCHANGE_HAND, KEEP, WIDOW_TO_HAND
from ..base import Agent, legal_actions
from .card_play import choose_card, lowest
from .hand_eval import NT, honours_in, suit_length, sure_tricks
from .play_view import Book, PlayView, TrickMemory, trick_voids


HCP = {12: 4, 11: 3, 10: 2, 9: 1}
#: Tricks over the count of sure tricks that a second hand (a dummy) adds on
#: average in play, and the safety margin before a bid (an undertrick costs
#: 100 x the trick value).
PLAY_VALUE = 1.0
MARGIN = 0.5
#: Way 5: four widow cards in, the three worst out.
WIDOW_VALUE = 1.0
#: Ways 2 and 3: one hand against one, 13 tricks; the opponent's hand is a
#: random one, so the half of the tricks not sure for either is shared.
TWO_HAND_SHARE = 0.45


def high_card_points(hand: int) -> int:
    return sum(HCP.get(c % 13, 0) for c in range(52) if hand >> c & 1)


class Vint2pRuleAgent(Agent):
    """Rule bot for `vint2p_v0` (every way)."""

    name = "rule"
    game = "vint2p"

    def __init__(self, seed: int | None = None):
        self.memory = TrickMemory()

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        k = VINT2P.decode(observation["observation"])
        action = getattr(self, k.phase)(k, legal, k.way)
        if action not in legal:
            raise RuntimeError(f"vint2p rule bot chose illegal action {action} in the {k.phase}")
        return int(action)

    # ------------------------------------------------------------ before play
    def exchange(self, k: Vint2pKnowledge, legal, way) -> int:
        hand = k.hand
        if way == 2:
            return EXCHANGE_HAND if high_card_points(hand) < 9 else KEEP
        cards = [c for c in legal if c < 52]
        worst = lowest(cards)
        if worst % 13 <= 3 and honours_in(hand, worst // 13) == 0:
            return worst
        return KEEP

    def auction(self, k: Vint2pKnowledge, legal, way) -> int:
        if k.my_bids and k.declarer == 0:
            return PASS                        # never over our own bid
        hand = k.hand
        seen = [r for r in (1, 2, 3) if k.shown[r] and k.roles[r] in (OWN_DUMMY, UNTAKEN_DUMMY)]
        dummy = k.hands[seen[0]] if seen else 0
        best = None
        for strain in range(5):
            if way in (2, 3):
                est = sure_tricks(hand, strain)
                est += TWO_HAND_SHARE * (13 - est)
                if strain != NT:
                    est += 0.5 * max(0, suit_length(hand, strain) - 4)
            else:
                est = sure_tricks(hand, strain) + sure_tricks(dummy, strain) + PLAY_VALUE
                if way == 5:
                    est += WIDOW_VALUE
            level = int(est - MARGIN) - 6
            level = min(level, 5 if est < 13 + MARGIN else 7)
            if level < 1:
                continue
            floor = 3 if way == 5 else 1            # V2-BID-4: with the widow, not below three
            levels = [level] if k.single_auction else range(floor, level + 1)   # V2-BID-2
            for lv in levels:
                action = bid_action(lv, strain)
                if action in legal:
                    if best is None or est > best[0]:
                        best = (est, action)
                    break
        return best[1] if best is not None else PASS

    def widow(self, k, legal, way) -> int:
        return WIDOW_TO_HAND

    def give(self, k, legal, way) -> int:
        return lowest(legal)

    def final(self, k, legal, way) -> int:
        return min(legal)                      # the winning bid stands

    # ------------------------------------------------------------ play
    def play(self, k: Vint2pKnowledge, legal, way) -> int:
        if way in (2, 3):
            return self.two_hand_card(k, legal)
        return self.four_hand_card(k, legal)

    def four_hand_card(self, k: Vint2pKnowledge, legal) -> int:
        """The four-player bot's card play, seen from the seat it acts for (remembering no earlier
        trick: its voids and first discards are those of the trick in progress)."""
        a = k.acting_for
        turn = k.from_seat(a)                       # seats relative to the acting seat
        roles = [k.roles[t] for t in turn]
        partners = frozenset({r for r in range(4) if roles[r] in (OWN_HAND, OWN_DUMMY)} - {0})
        trick = k.trick_from(a)
        memory = TrickMemory()
        memory.see_trick(trick, k.trump)
        declarer = None
        if k.declarer is not None:
            # relative to the acting seat: the declarer is a player's own seat
            declarer = roles.index(OWN_HAND) if k.declarer == 0 else roles.index(OPPONENT)
        level = 0 if k.contract is None else k.contract.level
        v = PlayView(hand=k.hands[a], trump=k.trump, trick=trick, played=k.played,
                     tricks_played=k.tricks_played, voids=trick_voids(trick),
                     first_discard=memory.first_discard, partners=partners, declarer=declarer, level=level,
                     game=Book.VINT)
        return choose_card(v, legal)

    def two_hand_card(self, k: Vint2pKnowledge, legal) -> int:
        hand = k.hand
        trump = -1 if k.trump == 4 else k.trump
        trick = [c for _, c in k.trick]
        played = k.played
        declaring = k.declarer == 0
        if not trick:
            return self.two_hand_lead(hand, played, trump, declaring, legal)
        led = trick[0]
        winners = [c for c in legal if (c // 13 == led // 13 and c > led) or
                   (c // 13 == trump and led // 13 != trump)]
        if winners:
            return lowest(winners) if any(c // 13 == led // 13 for c in winners) else \
                min(winners, key=lambda c: c % 13)
        return lowest(legal)

    @staticmethod
    def two_hand_lead(hand, played, trump, declaring, legal) -> int:
        unseen = ~hand & ~played & ((1 << 52) - 1)

        def master(c):
            suit_above = sum(1 << x for x in range(c + 1, (c // 13 + 1) * 13))
            return not unseen & suit_above
        masters = [c for c in legal if master(c)]
        if trump >= 0:
            trumps = [c for c in legal if c // 13 == trump]
            outstanding = unseen & sum(1 << (trump * 13 + r) for r in range(13))
            if declaring and trumps and outstanding:
                top = max(trumps)
                return top if master(top) else min(trumps)
            side_masters = [c for c in masters if c // 13 != trump]
            if side_masters:
                return max(side_masters)
        elif masters:
            return max(masters)
        lengths = {s: sum(1 for c in legal if c // 13 == s) for s in range(4) if s != trump}
        suits = [s for s in lengths if lengths[s]]
        if suits:
            longest = max(suits, key=lambda s: (lengths[s], s))
            return min(c for c in legal if c // 13 == longest)
        return lowest(legal)
