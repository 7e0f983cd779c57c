"""The Vint rule bot: bidding and play by the advice of the rule books.

It reads only what its observation tells it, through Vint's decoder
:class:`vint_env.games.vint.VintKnowledge` (no peeking at other hands).

Bidding (club rules "Объявление, назначения переговоров"; docs/rules/vint.md, Good play) is an
ordered list of rules, each a function of an :class:`AuctionView` that
returns a call or ``None``; :data:`BIDDING_RULES` is tried in order.  The
play uses the shared rules of :mod:`vint_env.agents.rule.card_play` with the Vint
lead table.  Each rule's docstring quotes the book and gives the advice id
of ``docs/play_advice.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...games.vint import GAME as VINT, VintKnowledge
from ...rules.vint import BID_BASE, PASS, Contract, bid_action
from ..base import legal_actions
from .card_play import choose_card
from .hand_eval import (NT, aces, honours_in, ruffing_tricks, suit_length, suit_ranks, sure_tricks,
                        top_tricks)
from .play_view import Book, PlayView, RememberingAgent, observed_play

#: Tricks a partner's bid promises (club rules: level one needs "верных 5
#: взяток"; "7 верных взяток ... два"; "8 ... три"; three aces for no-trump).
SHOWN_BY_SUIT_BID = {1: 5.0, 2: 7.0, 3: 8.0}
SHOWN_BY_NT_BID = 4.0
#: What a partner who has not bid yet contributes, on average.
UNKNOWN_PARTNER = 2.0
#: Extra safety over the needed tricks before entering a contested auction:
#: an undertrick costs 100 x the trick value (docs/rules/vint.md, Scoring item 2).
COMPETE_MARGIN = 0.5


@dataclass
class AuctionView:
    """The auction as the bot sees it (relative seats: 0 me, 2 partner)."""

    hand: int
    calls: list[tuple[int, int]]         # (relative seat, action) in order
    highest: Optional[int]               # highest bid action so far
    highest_by: Optional[int]            # its relative seat

    @property
    def level(self) -> int:
        return 0 if self.highest is None else Contract.from_action(self.highest).level

    def bids_of(self, seat: int) -> list[tuple[int, int]]:
        """(level, strain) of the bids a relative seat made, in order."""
        return [tuple(Contract.from_action(a)) for s, a in self.calls if s == seat and a >= BID_BASE]

    @property
    def my_first_call(self) -> bool:
        return all(s != 0 for s, _ in self.calls)

    @property
    def partner_passed(self) -> bool:
        return any(s == 2 and a == PASS for s, a in self.calls)

    def min_level(self, strain: int) -> int:
        """Lowest level at which ``strain`` may be bid now (8 if none)."""
        if self.highest is None:
            return 1
        for level in range(1, 8):
            if bid_action(level, strain) > self.highest:
                return level
        return 8

    def partner_shown(self) -> float:
        """Tricks partner's own bids promise (a raise of our strain promises
        support, not more), or the average of an unknown hand."""
        mine = {strain for _, strain in self.bids_of(0)}
        shown = []
        seen = set()
        for lvl, strain in self.bids_of(2):
            if strain in mine or strain in seen:
                continue                        # a raise of ours, or a rebid: nothing new
            seen.add(strain)
            shown.append(SHOWN_BY_NT_BID + (lvl - 1) if strain == NT
                         else SHOWN_BY_SUIT_BID.get(lvl, 8.0 + (lvl - 3)))
        return max(shown) if shown else UNKNOWN_PARTNER

    @property
    def contest_margin(self) -> float:
        """The safety margin over an opponent's bid (:data:`COMPETE_MARGIN`); none over partner's or none."""
        return COMPETE_MARGIN if self.highest_by in (1, 3) else 0.0

    def side_makes(self, level: int, strain: int, margin: float = 0.0) -> bool:
        """The side's estimated tricks with ``strain`` as trumps make ``level`` with ``margin`` to spare,
        and ``level`` is no slam the estimate does not make safe (:func:`slam_cap`)."""
        tricks = self.side_tricks(strain)
        return level <= slam_cap(tricks) and tricks >= 6 + level + margin

    def cheapest_making_bid(self, strain: int, margin: float) -> Optional[int]:
        """The lowest bid in ``strain`` the auction allows, if the side's tricks make it
        (:meth:`side_makes`), else None."""
        level = self.min_level(strain)
        return bid_action(level, strain) if self.side_makes(level, strain, margin) else None

    def side_tricks(self, strain: int) -> float:
        """Estimated tricks of our side with ``strain`` as trumps."""
        partner_strains = {s for _, s in self.bids_of(2)}
        if strain in partner_strains and strain != NT:
            return self.partner_shown() + support_tricks(self.hand, strain)
        if partner_strains:
            return sure_tricks(self.hand, strain) + 0.6 * self.partner_shown()
        return sure_tricks(self.hand, strain) + UNKNOWN_PARTNER


def support_tricks(hand: int, strain: int) -> float:
    """What a supporting hand adds to partner's suit: its side-suit top tricks,
    its trump honours' top tricks and ruffing values (not its trump length,
    which partner's bid already counts)."""
    total = sum(top_tricks(suit_ranks(hand, s)) for s in range(4))
    return total + ruffing_tricks(hand, strain)


# =============================================================== bidding rules

BidRule = Callable[[AuctionView], Optional[int]]

#: A slam needs this many tricks more than it undertakes: a failed slam pays
#: the undertricks and the slam premium to the defenders (docs/rules/vint.md, Scoring item 3).
SLAM_MARGIN = 1.0


def slam_cap(side_tricks: float) -> int:
    """Highest level to bid with this estimate: 5 unless a slam is safe."""
    for level in (7, 6):
        if side_tricks >= 6 + level + SLAM_MARGIN:
            return level
    return 5


def keep_partners_game(a: AuctionView) -> Optional[int]:
    """When partner holds the highest bid, raise it with support or pass.

    club rules: "Никогда нельзя отбивать игру своего партнера и переводить на
    свою масть"; "Если существует поддержка, то лучше играть в масти
    партнера, чем в своей"; "У поддерживающего игрока должно быть 4
    козыря"; "Имея только одну взятку, игру приподнимать нельзя"; "Если Ваш
    партнер прямо с рук назначает 'три', то на 'четыре' поднимать нельзя".
    docs/play_advice.md: V-RAISE-1 to V-RAISE-5, V-RAISE-6 (no ratchet),
    V-BID-9.
    """
    if a.highest_by != 2:
        return None
    level, strain = Contract.from_action(a.highest)
    if strain == NT:
        support = aces(a.hand) + 0.5 * sum(1 for s in range(4) if 11 in suit_ranks(a.hand, s))
        enough_support = support >= 2
    else:
        support = support_tricks(a.hand, strain)
        enough_support = suit_length(a.hand, strain) >= 4 or (
            suit_length(a.hand, strain) == 3 and honours_in(a.hand, strain) >= 1)
    if not enough_support or support < 2:
        return PASS
    if any(st == strain for _, st in a.bids_of(0)):
        return PASS                             # we raised this strain already: no ratchet
    target = int(a.side_tricks(strain) - 6)
    partner_opened_three = a.bids_of(2) and a.bids_of(2)[0][0] >= 3
    if partner_opened_three:
        target = min(target, 3)
    target = min(target, slam_cap(a.side_tricks(strain)))
    if target > level:
        return bid_action(target, strain)
    return PASS


def no_trump_with_three_or_four_aces(a: AuctionView) -> Optional[int]:
    """Three or four aces: bid no-trump at once, without passing first.

    club rules: "Если у игрока на руках собралось 3 или 4 туза, то он должен по
    первому разу, не пасуя, сказать 'без козырей'"; but "Если у игрока на
    руках при трех тузах нет ни одной фигуры, то после паса своего партнера
    объявлять 'без козырей' не рекомендуется".  docs/play_advice.md: V-BID-1,
    V-BID-3.
    """
    if not a.my_first_call or aces(a.hand) < 3:
        return None
    faces = sum(1 for s in range(4) for r in suit_ranks(a.hand, s) if 9 <= r <= 11)
    if aces(a.hand) == 3 and faces == 0 and a.partner_passed:
        return None
    return a.cheapest_making_bid(NT, COMPETE_MARGIN if a.highest is not None else 0.0)


def name_a_long_suit_with_honours(a: AuctionView) -> Optional[int]:
    """Name the longest suit (four cards or more, with honours), at the level
    the sure tricks allow.

    club rules: "он объявляет свою старшую и длинную масть"; "Масть, которую
    называет игрок, должна [быть] ... не менее, чем в четырех картах";
    "Чтобы уверенно объявлять ... 7 взяток, необходимо, чтобы на руках было
    верных 5 взяток, а в объявленных козырях было не менее двух онеров";
    "Если у игрока есть на руках 7 верных взяток, то он должен прямо
    назначить игру 'два'. ... верные 8 взяток ... 'три'" (with at least six
    trumps and three honours); "Если у игрока игра ровная в двух мастях, то
    целесообразнее предпочесть масть, которая имеет больше онеров"; "Без
    онеров и тузов игру не назначают".  Over an opponent's bid the level
    must be safe for the side.  docs/play_advice.md: V-BID-7, V-BID-8,
    V-BID-10, V-BID-11, V-BID-13, V-BID-14, V-BID-15.
    """
    if a.highest_by == 2:
        return None
    suits = [s for s in range(4) if suit_length(a.hand, s) >= 4 and honours_in(a.hand, s) >= 2]
    if not suits:
        return None
    suit = max(suits, key=lambda s: (suit_length(a.hand, s), honours_in(a.hand, s), s))
    mine = sure_tricks(a.hand, suit)
    if mine < 5:
        return None
    book_level = 1
    if mine >= 7 and suit_length(a.hand, suit) >= 6 and honours_in(a.hand, suit) >= 3:
        book_level = 3 if mine >= 8 else 2
    if a.min_level(suit) <= book_level:
        return bid_action(book_level, suit)
    return a.cheapest_making_bid(suit, a.contest_margin)


def support_partners_suit_in_competition(a: AuctionView) -> Optional[int]:
    """Partner named a suit and the opponents outbid it: go on in partner's
    suit if the side's tricks are enough (club rules: "лучше играть в масти
    партнера, чем в своей").  docs/play_advice.md: V-RAISE-4."""
    if a.highest_by not in (1, 3):
        return None
    for _, strain in reversed(a.bids_of(2)):
        if strain == NT:
            continue
        if suit_length(a.hand, strain) < 3:
            continue
        call = a.cheapest_making_bid(strain, COMPETE_MARGIN)
        if call is not None:
            return call
    return None


def no_trump_with_aces_and_stoppers(a: AuctionView) -> Optional[int]:
    """No-trump over a suit bid with two aces and the other suits held.

    club rules: "имея двух тузов необходимо заказать 'без козырей' после паса
    или после уже назначенной масти"; "Если у игрока на руках 2 туза и 2
    короля ..., то он должен сказать 'без козырей'".  Only when the side's
    estimated tricks make the contract.  docs/play_advice.md: V-BID-2,
    V-BID-5.
    """
    if a.highest_by == 2 or aces(a.hand) < 2:
        return None
    stopped = sum(1 for s in range(4) if top_tricks(suit_ranks(a.hand, s)) >= 0.5)
    if stopped < 3:
        return None
    return a.cheapest_making_bid(NT, a.contest_margin)


def otherwise_pass(a: AuctionView) -> Optional[int]:
    """Nothing safe to bid: pass (and collect the undertricks of an overbid)."""
    return PASS


BIDDING_RULES: list[BidRule] = [
    keep_partners_game,
    no_trump_with_three_or_four_aces,
    name_a_long_suit_with_honours,
    support_partners_suit_in_competition,
    no_trump_with_aces_and_stoppers,
    otherwise_pass,
]


# =============================================================== the agent

class VintRuleAgent(RememberingAgent):
    """Rule bot for `vint_v0`: the books' bidding and play advice."""

    name = "rule"
    game = "vint"

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        self.remember(agent)
        legal = legal_actions(observation)
        k = VINT.decode(observation["observation"])
        if k.in_auction:
            self.memory.reset()
            action = self.bid(k)
        else:
            action = self.play(k, [int(x) for x in legal])
        if not observation["action_mask"][action]:
            raise RuntimeError(f"Vint rule bot chose illegal action {action}")
        return int(action)

    # ------------------------------------------------------------ auction
    @staticmethod
    def auction_view(k: VintKnowledge) -> AuctionView:
        """The auction as the bot weighs it, from what the player knows."""
        highest = None if k.contract is None else k.contract.action
        return AuctionView(k.hand, k.calls, highest, k.declarer)

    def bid(self, k: VintKnowledge) -> int:
        view = self.auction_view(k)
        for rule in BIDDING_RULES:
            call = rule(view)
            if call is not None:
                return call
        return PASS

    # ------------------------------------------------------------ play
    def play_view(self, k: VintKnowledge) -> PlayView:
        seen = observed_play(k, self.memory)
        level = 0 if k.contract is None else k.contract.level
        return PlayView(**seen, partners=frozenset({2}), declarer=k.declarer, level=level, game=Book.VINT,
                        named=[set(suits) for suits in k.named],
                        partner_won_leads=self.memory.partner_won_leads({2}))

    def play(self, k: VintKnowledge, legal: list[int]) -> int:
        return choose_card(self.play_view(k), legal)
