"""Trick play shared by Vint, Whist and Solo Whist (docs/rules/index.md).

The leader plays any card; the others must follow the suit led if able, and
a player void in it may play any card (no duty to trump or overtrump).  The
highest trump wins the trick, else the highest card of the suit led; the
winner leads next.

Four seats play to every trick (clockwise), or only the seats given in
``seats`` (two-player Vint's ways 2 and 3: two hands, tricks of two cards).
"""

from __future__ import annotations

from ..cards import NO_TRUMP, SUIT_MASK, Suit, card_text, hand_cards  # noqa: F401  (NO_TRUMP: the doctests')
from .phase import Phase


class IllegalActionError(ValueError):
    """A well-formed action (an action id of the game) that the rules do not allow in the current state."""


class MalformedActionError(ValueError):
    """Something that is not an action id of the game at all: None where an action is due, a bool,
    a non-integer, or an integer outside ``0..num_actions - 1``."""


def check_action(action, num_actions: int, who: str = "action") -> int:
    """``action`` as a plain int if it is an action id ``0..num_actions - 1``, else :class:`MalformedActionError`.

    Integers of any kind (``int``, NumPy integers, integral floats such as ``5.0``) are accepted;
    ``None``, bools, non-integral or non-finite numbers and anything else are refused.
    """
    if action is None or isinstance(action, bool) or type(action).__name__ in ("bool", "bool_"):  # NumPy bools too
        raise MalformedActionError(f"{who} {action!r} is not an action id: expected an integer "
                                   f"0..{num_actions - 1}")
    try:
        a = int(action)
        integral = a == action
    except (TypeError, ValueError, OverflowError):
        integral = False
    if not integral:
        raise MalformedActionError(f"{who} {action!r} is not an integer action id 0..{num_actions - 1}")
    if not 0 <= a < num_actions:
        raise MalformedActionError(f"{who} {a} is out of range: action ids are 0..{num_actions - 1}")
    return a


def illegal_action(state, action: int, action_text) -> IllegalActionError:
    """The error for ``action`` in a game state (``phase``, ``current_player``, ``legal_actions()``)."""
    if state.phase == Phase.OVER:
        return IllegalActionError(f"action {action!r}: the deal is over")
    try:
        what = action_text(action)
    except ValueError:
        what = "out of range"
    legal = ", ".join(action_text(a) for a in state.legal_actions())
    return IllegalActionError(f"seat {state.current_player} may not take action {action} ({what}) "
                              f"in the {state.phase}; legal: {legal}")


class Deal:
    """What every deal's rules share: :meth:`apply` checks the action against the rules (unless its caller already
    did) and hands it to the game's ``_take``.  A game gives ``_take``, ``is_legal``, ``legal_actions``, ``phase``,
    ``current_player`` and ``_action_text`` (its actions as text, for the error)."""

    __slots__ = ()

    @property
    def is_over(self) -> bool:
        """The deal is over (no one acts any more)."""
        return self.phase == Phase.OVER

    def apply(self, action: int, checked: bool = False) -> None:
        """Take ``action`` for the player to move (:class:`IllegalActionError` if the rules forbid it).

        ``checked=True``: the caller (the env's boundary) has already checked the action; it is trusted,
        so legality is checked once per action.
        """
        if not checked:
            action = int(action)
            if not self.is_legal(action):
                raise illegal_action(self, action, self._action_text)
        self._take(action)


def trick_winner(cards: list[int] | tuple[int, ...], leader: int, trump: int) -> int:
    """Seat that wins a complete trick; ``cards[i]`` was played by ``leader + i``.

    >>> trick_winner([0 * 13 + 5, 0 * 13 + 12, 3 * 13 + 0, 0 * 13 + 11], 0, NO_TRUMP)
    1
    >>> trick_winner([0 * 13 + 5, 0 * 13 + 12, 3 * 13 + 0, 0 * 13 + 11], 0, 3)
    2
    """
    return (leader + winning_index(cards, trump)) % 4


def beats(card: int, best: int, trump: int) -> bool:
    """True if ``card``, played to a trick, beats the card winning it so far, ``best``: a higher
    card of the same suit, or a trump on a card of another suit (docs/rules/index.md, Tricks).

    The one rule of which card wins; every reader of a trick (the rule bots, the envs' incremental
    views) asks it, and the compiled kernels are tested against it.

    >>> beats(12, 11, NO_TRUMP), beats(13, 12, NO_TRUMP), beats(13, 12, 1), beats(0, 13, 1)
    (True, False, True, False)
    """
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def winning_index(cards: list[int] | tuple[int, ...], trump: int) -> int:
    """Index in play order of the card that wins a trick (complete, or so far).

    >>> winning_index([3 * 13 + 4, 3 * 13 + 2], NO_TRUMP), winning_index([3 * 13 + 4, 0], 0)
    (0, 1)
    """
    best = 0
    best_card = cards[0]
    for i in range(1, len(cards)):
        if beats(cards[i], best_card, trump):
            best, best_card = i, cards[i]
    return best


FOUR_SEATS = (0, 1, 2, 3)


class TrickPlay:
    """Thirteen tricks of card play from four hands (or two).

    ``hands`` are card masks (see :mod:`vint_env.cards`) and shrink as cards
    are played; ``trump`` is a suit index or :data:`NO_TRUMP`.  ``seats``:
    the seats that play, in playing order (default all four, clockwise; two
    seats give tricks of two cards, the other hands stay out of play).
    """

    __slots__ = ("hands", "trump", "leader", "trick", "tricks_won", "plays",
                 "trick_winners", "last_trick", "last_leader", "seats")

    def __init__(self, hands, trump: int, leader: int, seats: tuple[int, ...] = FOUR_SEATS):
        seats = tuple(seats)
        if seats == FOUR_SEATS:
            seats = FOUR_SEATS          # the four-seat fast paths test identity
        elif len(seats) != 2 or len(set(seats)) != 2 or not set(seats) <= set(FOUR_SEATS):
            raise ValueError(f"seats must be all four (0, 1, 2, 3) or two distinct seats, got {seats!r}")
        if leader not in seats:
            raise ValueError(f"leader {leader!r} is not one of the playing seats {seats}")
        self.seats = seats
        self.hands = list(hands)
        self.trump = trump
        self.leader = leader          # leader of the trick in progress
        self.trick: list[int] = []    # cards of the trick in progress, in play order
        self.tricks_won = [0, 0, 0, 0]
        self.plays: list[tuple[int, int]] = []   # (seat, card), every card played
        self.trick_winners: list[int] = []
        self.last_trick: tuple[int, ...] = ()   # the last completed trick's cards
        self.last_leader = -1

    def copy(self) -> "TrickPlay":
        new = TrickPlay.__new__(TrickPlay)
        new.hands = self.hands[:]
        new.trump = self.trump
        new.leader = self.leader
        new.trick = self.trick[:]
        new.tricks_won = self.tricks_won[:]
        new.plays = self.plays[:]
        new.trick_winners = self.trick_winners[:]
        new.last_trick = self.last_trick
        new.last_leader = self.last_leader
        new.seats = self.seats
        return new

    @property
    def current_player(self) -> int:
        if self.seats is FOUR_SEATS:
            return (self.leader + len(self.trick)) % 4
        return self.leader if not self.trick else self._other(self.leader)

    def _other(self, seat: int) -> int:
        a, b = self.seats
        return b if seat == a else a

    def trick_seats(self) -> list[int]:
        """The seats that played the cards of the trick in progress, in order."""
        if self.seats is FOUR_SEATS:
            return [(self.leader + i) % 4 for i in range(len(self.trick))]
        return [self.leader, self._other(self.leader)][:len(self.trick)]

    def last_trick_seats(self) -> list[int]:
        """The seats that played the cards of the last completed trick, in order."""
        if self.last_leader < 0:
            return []
        if self.seats is FOUR_SEATS:
            return [(self.last_leader + i) % 4 for i in range(4)]
        return [self.last_leader, self._other(self.last_leader)]

    @property
    def tricks_played(self) -> int:
        return len(self.trick_winners)

    @property
    def is_over(self) -> bool:
        return len(self.trick_winners) == 13

    @property
    def led_suit(self) -> int:
        """Suit led to the trick in progress, or -1 before its lead."""
        return self.trick[0] // 13 if self.trick else -1

    def legal_mask(self) -> int:
        """Mask of the cards the player to move may play."""
        hand = self.hands[self.current_player]
        if self.trick:
            follow = hand & SUIT_MASK[self.trick[0] // 13]
            if follow:
                return follow
        return hand

    def legal_cards(self) -> list[int]:
        return hand_cards(self.legal_mask())

    def why_illegal(self, card: int) -> str | None:
        """Why the player to move may not play ``card``, in words for that player; None if they may.

        >>> from vint_env.cards import parse_hand_pbn
        >>> play = TrickPlay([parse_hand_pbn(h) for h in ("AK...", "Q2...", "J.3..", "T.4..")], NO_TRUMP, 0)
        >>> play.why_illegal(51)
        'HA is not in your hand'
        >>> _ = play.play(12); _ = play.play(0)
        >>> play.why_illegal(40)
        'you must follow suit: spades were led and you hold a spade'
        >>> play.why_illegal(9) is None
        True
        """
        hand = self.hands[self.current_player]
        if not 0 <= card < 52 or not hand >> card & 1:
            return f"{card_text(card) if 0 <= card < 52 else card} is not in your hand"
        led = self.led_suit
        if led >= 0 and card // 13 != led and hand & SUIT_MASK[led]:
            name = Suit(led).name.lower()
            return f"you must follow suit: {name} were led and you hold a {name[:-1]}"
        return None

    def play(self, card: int, checked: bool = False) -> int | None:
        """Play a card for the player to move; returns the trick winner when it completes.

        ``checked=True``: the caller has checked that the card is legal (a game's ``apply``); trust it.
        """
        seat = self.current_player
        if not checked and not (self.legal_mask() >> card) & 1:
            raise IllegalActionError(
                f"seat {seat} may not play {card_text(card) if 0 <= card < 52 else card}: legal cards are "
                + " ".join(card_text(c) for c in self.legal_cards()))
        self.hands[seat] &= ~(1 << card)
        self.trick.append(card)
        self.plays.append((seat, card))
        if len(self.trick) < len(self.seats):
            return None
        if self.seats is FOUR_SEATS:
            winner = trick_winner(self.trick, self.leader, self.trump)
        else:
            winner = self.leader if winning_index(self.trick, self.trump) == 0 else seat
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        self.last_trick = tuple(self.trick)
        self.last_leader = self.leader
        self.trick = []
        self.leader = winner
        return winner

    def side_tricks(self) -> tuple[int, int]:
        """Tricks of the fixed partnerships (0 & 2, 1 & 3)."""
        w = self.tricks_won
        return w[0] + w[2], w[1] + w[3]
