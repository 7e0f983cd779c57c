"""Whist: one deal and a rubber of deals, docs/rules/whist.md (the Whist book).

No auction: the dealer's last card is turned face up, its suit is trump, and
it stays in the dealer's hand (known to all) until played.  The player left
of the dealer leads; 13 tricks; fixed partnerships 0 & 2 against 1 & 3.
Actions are the card ids 0..51 (docs/envs/index.md, Conventions).

>>> from vint_env.cards import parse_pbn, parse_card
>>> hands = parse_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
>>> deal = WhistDeal(hands, dealer=3, turned_card=parse_card("C2"))
>>> deal.trump, deal.current_player, deal.legal_actions()[:2]
(1, 0, [0, 1])
"""

from __future__ import annotations

import numbers

from ..cards import NO_TRUMP, card_text, hand_cards, validate_deal
from .phase import Phase
from .rubber import DealRecord, Rubber, SideScore
from .tricks import Deal, TrickPlay
from .whist_scoring import score_whist

NUM_ACTIONS = 52
PLAY, OVER = Phase.PLAY, Phase.OVER
GAME_TARGET, GAME_BONUS, RUBBER_BONUS = 10, 5, 10


def action_text(action: int) -> str:
    """Card text of a Whist action (``'SA'``, ``'H10'``)."""
    if not (isinstance(action, int) and 0 <= action < NUM_ACTIONS):
        raise ValueError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")
    return card_text(action)


class WhistDeal(Deal):
    """The state machine of one Whist deal.

    ``turned_card``: the dealer's turned card (a card of the dealer's hand;
    its suit is trump).  With ``no_trump=True`` (the Whist book's "вист без козырей")
    no card is turned and ``turned_card`` must be ``None``.
    ``ten_is_honour``: the trump 10 counts as a fifth honour (variant).

    ``legal_actions()``, ``apply(action)``, ``current_player``, ``is_over``
    and, once over, ``scores`` (a :class:`SideScore` per side, game and
    rubber premiums not included).
    """

    __slots__ = ("hands", "dealer", "turned_card", "trump", "no_trump", "ten_is_honour",
                 "play", "phase", "scores")
    _action_text = staticmethod(action_text)

    def __init__(self, hands, dealer: int, turned_card: int | None, no_trump: bool = False,
                 ten_is_honour: bool = False):
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self.hands = validate_deal(hands)
        self.dealer = dealer
        self.no_trump = bool(no_trump)
        self.ten_is_honour = bool(ten_is_honour)
        if self.no_trump:
            if turned_card is not None:
                raise ValueError("no card is turned in no-trump Whist: turned_card must be None")
            self.trump = NO_TRUMP
        else:
            turned_card = check_turned_card(self.hands, dealer, turned_card)
            self.trump = turned_card // 13
        self.turned_card = turned_card
        # docs/rules/whist.md: the player left of the dealer leads first.
        self.play = TrickPlay(self.hands, self.trump, (dealer + 1) % 4)
        self.phase = PLAY
        self.scores: tuple[SideScore, SideScore] | None = None

    def copy(self) -> "WhistDeal":
        new = WhistDeal.__new__(WhistDeal)
        for name in WhistDeal.__slots__:
            setattr(new, name, getattr(self, name))
        new.play = self.play.copy()
        return new

    # ------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """Seat to act; -1 once the deal is over."""
        return self.play.current_player if self.phase == PLAY else -1

    @property
    def turned_card_in_hand(self) -> bool:
        """True while the turned card is still in the dealer's hand (face up)."""
        return self.turned_card is not None and bool(self.play.hands[self.dealer] >> self.turned_card & 1)

    def visible_seats(self, player: int) -> tuple[int, ...]:
        """Seats whose present cards ``player`` sees: his own (the turned card is seen by all)."""
        return (player,)

    def legal_actions(self) -> list[int]:
        return self.play.legal_cards() if self.phase == PLAY else []

    def is_legal(self, action: int) -> bool:
        return self.phase == PLAY and 0 <= action < 52 and bool(self.play.legal_mask() >> action & 1)

    # ------------------------------------------------------------ moves
    def _take(self, action: int) -> None:
        """Take ``action``, legal for the player to move (:meth:`Deal.apply` checked it)."""
        self.play.play(action, checked=True)
        if self.play.is_over:
            self.scores = score_whist(self.hands, self.trump, self.play.side_tricks(),
                                      self.ten_is_honour)
            self.phase = OVER

    def __repr__(self) -> str:
        turned = card_text(self.turned_card) if self.turned_card is not None else "none"
        return (f"<WhistDeal dealer={self.dealer} turned={turned} phase={self.phase} "
                f"tricks={self.play.side_tricks()}>")


def check_turned_card(hands, dealer: int, turned_card) -> int:
    """The turned card as an int; a clear error unless it is a card of the dealer's hand."""
    if (not isinstance(turned_card, numbers.Integral) or isinstance(turned_card, bool)
            or not 0 <= turned_card < 52):
        raise ValueError(f"turned_card must be a card id 0..51, got {turned_card!r}")
    turned_card = int(turned_card)
    if not hands[dealer] >> turned_card & 1:
        raise ValueError(
            f"turned card {card_text(turned_card)} is not in the dealer's hand (seat {dealer}: "
            + " ".join(card_text(c) for c in hand_cards(hands[dealer])) + ")")
    return turned_card


class WhistRubber:
    """A rubber of Whist deals: dealer rotation, games to 10, game 5, rubber 10 (docs/rules/whist.md)."""

    def __init__(self, first_dealer: int = 0, no_trump: bool = False, ten_is_honour: bool = False):
        if first_dealer not in (0, 1, 2, 3):
            raise ValueError(f"first_dealer must be a seat 0..3, got {first_dealer!r}")
        self.no_trump = no_trump
        self.ten_is_honour = ten_is_honour
        self.sheet = Rubber(game_target=GAME_TARGET, game_bonus=GAME_BONUS, rubber_bonus=RUBBER_BONUS)
        self.dealer = first_dealer
        self.deal: WhistDeal | None = None

    @property
    def is_over(self) -> bool:
        return self.sheet.is_over

    def new_deal(self, hands, turned_card: int | None) -> WhistDeal:
        if self.is_over:
            raise ValueError("the rubber is over")
        if self.deal is not None and not self.deal.is_over:
            raise ValueError("the current deal is not finished")
        self.deal = WhistDeal(hands, self.dealer, turned_card, self.no_trump, self.ten_is_honour)
        return self.deal

    def finish_deal(self) -> DealRecord:
        """Write the finished deal on the sheet; the deal passes clockwise (docs/rules/index.md)."""
        deal = self.deal
        if deal is None or not deal.is_over:
            raise ValueError("no finished deal to record")
        # Only one side can score tricks in a Whist deal, so no game tie is possible.
        record = self.sheet.record_deal(deal.scores)
        self.dealer = (self.dealer + 1) % 4
        self.deal = None
        return record
