"""Solo Whist: one deal (auction, trump choice, play, payments), docs/rules/solo_whist.md.

Each deal is a separate tour between four players for themselves (the Collection).
The dealer's last card is turned (its suit is the turned trump) and stays in
the dealer's hand.  Eldest hand (left of the dealer) calls first, then
clockwise.  Action ids: see :mod:`vint_env.rules.solo_whist_calls`.

Auction (docs/rules/solo_whist.md, with the choices written in ``docs/rules_choices.md``):

- A call is a pass or a bid higher than the highest bid so far; a proposal
  can only open the bidding, trump abondance only overcall an abondance.
- A player who passed takes no further part, except that eldest hand, after
  passing, may still accept a standing proposal when the turn comes round.
- Acceptance: a later player in turn accepts the standing (highest, not yet
  accepted) proposal and becomes the proposer's partner, wherever seated.
- Players holding the highest bid (the bidder, and an accepting partner) are
  skipped; a player whose bid was overcalled calls again in turn.
- When nobody else may call: no bid at all throws the deal in; a proposal
  nobody accepted sends the turn back to the proposer, who must bid higher or
  pass (then the deal is thrown in); otherwise the highest bid is the
  contract.  After an abondance the declarer then names trump (actions 61..64).

Play: eldest hand leads, except in abondance déclarée (the declarer leads).
The misères end as soon as the declarer takes a trick, déclarée as soon as the
declarer loses one; they also end, made, as soon as no play by anybody can
change that (the declarer can no longer win a trick / lose one).  The other
contracts play all 13 tricks.  In open misère the declarer's hand is shown to
all from the end of the first trick.

>>> from vint_env.cards import parse_pbn, parse_card
>>> hands = parse_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
>>> deal = SoloWhistDeal(hands, dealer=3, turned_card=parse_card("C2"))
>>> deal.current_player, [action_text(a) for a in deal.legal_actions()]
(0, ['pass', 'proposal', 'solo', 'misère', 'abondance', 'open misère', 'abondance déclarée'])
>>> for a in (DECLAREE, PASS, PASS, PASS):
...     deal.apply(a)
>>> deal.is_over, deal.made, deal.payments         # all top cards: nothing left to play
(True, True, [72, -24, -24, -24])
"""

from __future__ import annotations

from ..cards import NO_TRUMP, SUIT_MASK, card_text, validate_deal
from .phase import Phase
from .solo_whist_calls import (ABONDANCE, ACCEPT, BIDS, DECLAREE, MISERE, NUM_ACTIONS,
                               OPEN_MISERE, PASS, PROPOSAL, SOLO, TRUMP_ABONDANCE, TRUMP_BASE,
                               action_text, bid_index)
from .solo_whist_payments import MISERES, PAYMENT_VARIANTS, contract_made, payments
from .tricks import Deal, TrickPlay
from .whist import check_turned_card

AUCTION, TRUMP, PLAY, OVER = Phase.AUCTION, Phase.TRUMP, Phase.PLAY, Phase.OVER
NO_TRUMP_CONTRACTS = (MISERE, OPEN_MISERE, DECLAREE)


class SoloWhistDeal(Deal):
    """The state machine of one Solo Whist deal.

    ``legal_actions()``, ``apply(action)``, ``current_player``, ``is_over``;
    once over: ``thrown_in`` (everybody passed), else ``contract``,
    ``declarer``, ``partner`` (proposal only), ``trump``, ``tricks`` (of the
    declaring side, with the tricks an early end makes certain), ``made``,
    ``ended_early`` and ``payments`` (quarter points per seat, zero-sum).
    """

    __slots__ = ("hands", "dealer", "turned_card", "variant", "phase", "calls", "passed",
                 "highest", "declarer", "partner", "eldest_may_accept", "proposer_asked",
                 "_to_call", "contract", "trump", "play", "thrown_in", "tricks", "made",
                 "ended_early", "payments")
    _action_text = staticmethod(action_text)

    def __init__(self, hands, dealer: int, turned_card: int, payments: str = "symmetric"):
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        if payments not in PAYMENT_VARIANTS:
            raise ValueError(f"payments must be one of {PAYMENT_VARIANTS}, got {payments!r}")
        self.hands = validate_deal(hands)
        self.dealer = dealer
        self.turned_card = check_turned_card(self.hands, dealer, turned_card)
        self.variant = payments
        self.phase = AUCTION
        self.calls: list[tuple[int, int]] = []       # (seat, action), calls then trump choice
        self.passed = [False] * 4
        self.highest = -1                            # highest bid so far, -1 none
        self.declarer = -1                           # who made it
        self.partner = -1                            # who accepted it (a proposal)
        self.eldest_may_accept = True                # eldest's right to accept after passing
        self.proposer_asked = False                  # unaccepted proposal: bid higher or pass
        self._to_call = self.eldest
        self.contract = -1
        self.trump = NO_TRUMP
        self.play: TrickPlay | None = None
        self.thrown_in = False
        self.tricks = -1
        self.made: bool | None = None
        self.ended_early = False
        self.payments: list[int] | None = None

    def copy(self) -> "SoloWhistDeal":
        new = SoloWhistDeal.__new__(SoloWhistDeal)
        for name in SoloWhistDeal.__slots__:
            setattr(new, name, getattr(self, name))
        new.calls = self.calls[:]
        new.passed = self.passed[:]
        if self.play is not None:
            new.play = self.play.copy()
        if self.payments is not None:
            new.payments = self.payments[:]
        return new

    # ------------------------------------------------------------ queries
    @property
    def eldest(self) -> int:
        return (self.dealer + 1) % 4

    @property
    def current_player(self) -> int:
        """Seat to act; -1 once the deal is over."""
        if self.phase == AUCTION:
            return self._to_call
        if self.phase == TRUMP:
            return self.declarer
        if self.phase == PLAY:
            return self.play.current_player
        return -1

    @property
    def declaring_seats(self) -> tuple[int, ...]:
        """Holders of the highest bid (in play: the declarer and a proposal's partner)."""
        if self.declarer < 0:
            return ()
        return (self.declarer, self.partner) if self.partner >= 0 else (self.declarer,)

    @property
    def proposal_standing(self) -> bool:
        """A proposal is the highest bid and nobody has accepted it."""
        return self.highest == PROPOSAL and self.partner < 0

    @property
    def turned_card_in_hand(self) -> bool:
        hand = self.play.hands[self.dealer] if self.play is not None else self.hands[self.dealer]
        return bool(hand >> self.turned_card & 1)

    @property
    def hand_shown(self) -> bool:
        """Open misère after the first trick: the declarer's hand is on the table."""
        return (self.contract == OPEN_MISERE and self.play is not None
                and self.play.tricks_played >= 1)

    def visible_seats(self, player: int) -> tuple[int, ...]:
        """Seats whose present cards ``player`` sees: his own, and the open-misère declarer's once shown."""
        if self.hand_shown and self.declarer != player:
            return (player, self.declarer)
        return (player,)

    @property
    def exposed_hand(self) -> int:
        """Cards shown to everybody: the open-misère declarer's hand after the first trick."""
        return self.play.hands[self.declarer] if self.hand_shown else 0

    def visible_seats(self, player: int) -> tuple[int, ...]:
        """Seats whose present cards ``player`` sees: his own, and the open-misère hand once it is shown."""
        if self.hand_shown and self.declarer != player:
            return (player, self.declarer)
        return (player,)

    def declaring_tricks(self) -> int:
        """Tricks taken so far by the declaring side."""
        won = self.play.tricks_won
        return sum(won[s] for s in self.declaring_seats)

    def legal_actions(self) -> list[int]:
        if self.phase == AUCTION:
            return self._legal_calls(self._to_call)
        if self.phase == TRUMP:
            return [TRUMP_BASE + s for s in range(4)]
        if self.phase == PLAY:
            return self.play.legal_cards()
        return []

    def is_legal(self, action: int) -> bool:
        if self.phase == PLAY:
            return 0 <= action < 52 and bool(self.play.legal_mask() >> action & 1)
        return action in self.legal_actions()

    def _legal_calls(self, seat: int) -> list[int]:
        if self.proposer_asked:
            # Collection: the deal does not take place as proposed: bid higher or pass.
            return [PASS] + [b for b in BIDS[1:] if b != TRUMP_ABONDANCE]
        if self.passed[seat]:
            return [PASS, ACCEPT]       # eldest hand's right after passing
        calls = [PASS]
        if self.proposal_standing and seat != self.declarer:
            calls.append(ACCEPT)
        above = bid_index(self.highest) + 1 if self.highest >= 0 else 0
        for bid in BIDS[above:]:
            if bid == TRUMP_ABONDANCE and self.highest != ABONDANCE:
                continue                # Collection: not without the lower game first
            calls.append(bid)
        return calls

    def _may_call(self, seat: int) -> bool:
        if seat in self.declaring_seats:
            return False
        if not self.passed[seat]:
            return True
        return (seat == self.eldest and self.eldest_may_accept and self.proposal_standing)

    # ------------------------------------------------------------ moves
    def _take(self, action: int) -> None:
        """Take ``action``, legal for the player to move (:meth:`Deal.apply` checked it)."""
        if self.phase == AUCTION:
            self._call(action)
        elif self.phase == TRUMP:
            self.calls.append((self.declarer, action))
            self._start_play(action - TRUMP_BASE)
        else:
            if self.play.play(action, checked=True) is not None:
                self._after_trick()

    def _call(self, action: int) -> None:
        seat = self._to_call
        self.calls.append((seat, action))
        if action == PASS:
            if self.passed[seat] or (seat == self.eldest and self.proposal_standing):
                self.eldest_may_accept = False   # eldest declined the proposal
            self.passed[seat] = True
            if self.proposer_asked:
                self._throw_in()
                return
        elif action == ACCEPT:
            self.partner = seat
            if seat == self.eldest:
                self.eldest_may_accept = False
        else:
            self.highest, self.declarer, self.partner = action, seat, -1
            self.proposer_asked = False
        for step in (1, 2, 3):
            nxt = (seat + step) % 4
            if self._may_call(nxt):
                self._to_call = nxt
                return
        # Nobody else may call.
        if self.highest < 0:
            self._throw_in()
        elif self.proposal_standing:
            self.proposer_asked = True
            self._to_call = self.declarer
        else:
            self.contract = self.highest
            if self.contract == ABONDANCE:
                self.phase = TRUMP      # the declarer names trump after the auction
            else:
                turned = self.turned_card // 13
                self._start_play(NO_TRUMP if self.contract in NO_TRUMP_CONTRACTS else turned)

    def _throw_in(self) -> None:
        self.thrown_in = True
        self.payments = [0, 0, 0, 0]
        self.phase = OVER

    def _start_play(self, trump: int) -> None:
        self.trump = trump
        leader = self.declarer if self.contract == DECLAREE else self.eldest
        self.play = TrickPlay(self.hands, trump, leader)
        self.phase = PLAY
        self._after_trick()     # the result may be certain before the first card

    def _after_trick(self) -> None:
        play = self.play
        taken = self.declaring_tricks()
        lost = play.tricks_played - taken
        if self.contract in MISERES:
            if taken:
                return self._finish(taken, early=not play.is_over)
            if not play.is_over and misere_is_safe(play, self.declarer):
                return self._finish(0, early=True)
        elif self.contract == DECLAREE:
            if lost:
                return self._finish(taken, early=not play.is_over)
            if not play.is_over and declaree_is_safe(play, self.declarer):
                return self._finish(13, early=True)
        if play.is_over:
            self._finish(taken, early=False)

    def _finish(self, tricks: int, early: bool) -> None:
        self.tricks = tricks
        self.made = contract_made(self.contract, tricks)
        self.ended_early = early
        partner = self.partner if self.partner >= 0 else None
        self.payments = payments(self.contract, self.declarer, partner, tricks, self.variant)
        self.phase = OVER

    # ------------------------------------------------------------ text
    def auction_text(self) -> str:
        return ", ".join(f"{'NESW'[s]}:{action_text(a)}" for s, a in self.calls)

    def __repr__(self) -> str:
        contract = action_text(self.contract) if self.contract >= 0 else None
        return (f"<SoloWhistDeal dealer={self.dealer} turned={card_text(self.turned_card)} "
                f"phase={self.phase} contract={contract} declarer={self.declarer} "
                f"partner={self.partner} auction='{self.auction_text()}'>")


def _opponents_mask(play: TrickPlay, declarer: int) -> int:
    return play.hands[(declarer + 1) % 4] | play.hands[(declarer + 2) % 4] | play.hands[(declarer + 3) % 4]


def misere_is_safe(play: TrickPlay, declarer: int) -> bool:
    """No play by anybody can make the declarer take a trick (no trump, between tricks).

    True when, in every suit, all the declarer's cards are lower than all
    the others' cards, and, if the declarer is on lead, the others hold
    cards of every suit the declarer holds: then whatever the declarer leads
    is followed by a higher card, every other trick is led by another player
    with a card the declarer can only follow under or discard on, and the
    declarer never wins a trick.  This can hold before the first card
    (docs/rules_choices.md, Solo Whist 8).
    """
    if play.trick:
        return False
    on_lead = play.leader == declarer
    mine, others = play.hands[declarer], _opponents_mask(play, declarer)
    for suit_mask in SUIT_MASK:
        m, o = mine & suit_mask, others & suit_mask
        if m and o and m.bit_length() > (o & -o).bit_length():
            return False
        if on_lead and m and not o:      # a lead nobody can follow would win the trick
            return False
    return True


def declaree_is_safe(play: TrickPlay, declarer: int) -> bool:
    """No play by anybody can make the declarer lose a trick (no trump, between tricks).

    True when the declarer is on lead and, in every suit, all the declarer's
    cards are higher than all the others' cards: every lead wins and keeps
    the lead.
    """
    if play.trick or play.leader != declarer:
        return False
    mine, others = play.hands[declarer], _opponents_mask(play, declarer)
    for suit_mask in SUIT_MASK:
        m, o = mine & suit_mask, others & suit_mask
        if m and o and (m & -m).bit_length() < o.bit_length():
            return False
    return True


__all__ = ["SoloWhistDeal", "misere_is_safe", "declaree_is_safe", "AUCTION", "TRUMP", "PLAY",
           "OVER", "NUM_ACTIONS"]
