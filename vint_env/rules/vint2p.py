"""Two-player Vint: the five ways of the books, one deal and a rubber of deals.

Four hands are dealt to seats 0..3 as in four-player Vint; each way puts the
two players and their dummies (or piles) on those seats, and everything
that is ordinary Vint runs through the four-player code: the
:class:`~vint_env.rules.vint.Auction` (two callers), the
:class:`~vint_env.rules.tricks.TrickPlay` (four seats, or two hands playing
tricks of two cards), :func:`~vint_env.rules.vint_scoring.score_contract`
and the :class:`~vint_env.rules.rubber.Rubber` score sheet.  This module
holds only what is particular to two players: the seat map of each way,
who sees and who plays which hand, who leads, and each way's own decisions
(way 2 keep or exchange the hand, way 3 exchange card by card, way 5 the
widow, the give-aways and the final contract).

Actions (one ``Discrete(92)``): 0..51 a card (played; discarded in way 3;
given away in way 5), 52 pass, 53..87 the bids 1S .. 7NT (also way 5's final
contract), 88 keep the hand / stop exchanging (ways 2, 3), 89 exchange the
whole hand (way 2), 90 the widow to my hand, 91 the widow to my dummy (way 5).

>>> from vint_env.cards import parse_pbn
>>> hands = parse_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
>>> deal = Vint2pDeal(hands, way=1, dealer=0)
>>> deal.current_player, deal.controller_of(deal.current_player), str(deal.phase)
(0, 0, 'auction')
>>> deal.apply(bid_action(7, NT)); deal.apply(PASS)
>>> deal.contract, deal.declarer, deal.current_player, deal.phase
(Contract(level=7, strain=4), 0, 1, <Phase.PLAY: 'play'>)
"""

from __future__ import annotations

from ..cards import NO_TRUMP, DeckError, hand_cards, hand_size
from .phase import Phase
from .rubber import Rubber, SideScore
from .tricks import FOUR_SEATS, Deal, TrickPlay
from .vint import (AUCTION, BID_BASE, NUM_ACTIONS as VINT_ACTIONS, OVER, PASS, PLAY, Auction, Contract, action_contract,
                   bid_action, check_variants)
from .vint import action_text as vint_action_text
from .vint_scoring import NT, score_contract, score_passout_play, trick_value

__all__ = ["Vint2pDeal", "Vint2pRubber", "WAYS", "AUCTION_VARIANTS", "KEEP", "EXCHANGE_HAND",
           "WIDOW_TO_HAND", "WIDOW_TO_DUMMY", "NUM_ACTIONS", "PLAYER_SEATS", "GAME_TARGET",
           "action_text", "parse_action", "bid_action", "NT", "PASS"]

KEEP = 88             # keep the hand (way 2) / stop exchanging (way 3)
EXCHANGE_HAND = 89    # way 2: discard the hand, take the pile on the right
WIDOW_TO_HAND = 90    # way 5: the widow goes to the declarer's own hand
WIDOW_TO_DUMMY = 91   # way 5: ... or to his dummy
NUM_ACTIONS = 92

WAYS = (1, 2, 3, 4, 5)
AUCTION_VARIANTS = ("alternating", "single")
EXCHANGE, WIDOW, GIVE, FINAL = Phase.EXCHANGE, Phase.WIDOW, Phase.GIVE, Phase.FINAL
PHASES = (EXCHANGE, AUCTION, WIDOW, GIVE, FINAL, PLAY, OVER)

#: The seats of player 0 and player 1 in each way.
PLAYER_SEATS = {1: (0, 1), 2: (0, 2), 3: (0, 2), 4: (0, 1), 5: (0, 1)}
#: Below-the-line points that win a game: way 5 plays to 600.
GAME_TARGET = {1: 500, 2: 500, 3: 500, 4: 500, 5: 600}
#: Ways 2 and 3: the pile on a player's right (seat 3 for seat 0, seat 1 for seat 2).
PILE_OF = {0: 3, 2: 1}
EXCHANGE_LIMIT = 13


def action_text(action: int) -> str:
    """``'SA'``, ``'pass'``, ``'3NT'``, ``'keep'``, ``'exchange'``, ``'widow-hand'``, ``'widow-dummy'``."""
    if 0 <= action < VINT_ACTIONS:
        return vint_action_text(action)
    names = {KEEP: "keep", EXCHANGE_HAND: "exchange", WIDOW_TO_HAND: "widow-hand",
             WIDOW_TO_DUMMY: "widow-dummy"}
    if action in names:
        return names[action]
    raise ValueError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")


def parse_action(text: str) -> int:
    """Inverse of :func:`action_text` (``'stop'`` is ``'keep'``)."""
    from .vint import parse_action as vint_parse
    t = text.strip().lower()
    names = {"keep": KEEP, "stop": KEEP, "exchange": EXCHANGE_HAND, "widow-hand": WIDOW_TO_HAND,
             "widow-dummy": WIDOW_TO_DUMMY}
    return names[t] if t in names else vint_parse(text)


class Vint2pDeal(Deal):
    """One deal of two-player Vint in one of the five ways.

    ``hands``: four hands of 13 cards, seats 0..3 as in four-player Vint.
    ``dealer``: the dealing *player*, 0 or 1.  ``widow`` (way 5): the four
    widow cards, taken out of ``hands`` (each hand must keep 12).
    ``piles`` (ways 2, 3): the order of the piles at seats 1 and 3, top card
    first (default: their cards by increasing id).

    Seats act, players decide: ``current_player`` is the seat to act (a
    player's own hand or a dummy; during the exchange, the widow, the
    give-aways and the final contract the player's own seat, or the hand the
    cards are given from), ``controller_of(seat)`` the player who decides
    for it.  ``visible_seats(player)`` are the seats whose cards that player
    sees now.  Once over, ``scores`` holds a :class:`SideScore` per
    *player* (his own hand and his dummy together).  ``honours``: the
    four-player honours rule, ``"majority"`` (default; in ways 2 and 3 over
    the two played hands: more than the other player and at least two) or
    ``"net"``.
    """

    _action_text = staticmethod(action_text)

    def __init__(self, hands, way: int = 4, dealer: int = 0, passout: str = "mark",
                 auction: str = "alternating", widow=None, piles=None, honours: str = "majority"):
        if way not in WAYS:
            raise ValueError(f"way must be one of {WAYS}, got {way!r}")
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise ValueError(f"dealer must be a player 0 or 1, got {dealer!r}")
        check_variants(passout=passout, honours=honours)
        if way == 5 and passout == "play":
            raise ValueError("way 5 has no passout='play': without the widow the hands hold 12 cards")
        if auction not in AUCTION_VARIANTS:
            raise ValueError(f"auction must be one of {AUCTION_VARIANTS}, got {auction!r}")
        if auction == "single" and way != 1:
            raise ValueError(f"auction='single' is a variant of way 1 only, not way {way}")
        from ..cards import validate_deal
        dealt = validate_deal(hands)
        self.way = way
        self.dealer = dealer
        self.passout = passout
        self.honours = honours
        self.player_seats = PLAYER_SEATS[way]
        self.dealer_seat = self.player_seats[dealer]
        self.dealt = dealt                           # the 52 cards as dealt (before the widow)
        self.hands = list(dealt)                     # holdings now (exchanges, widow, give-aways)
        self.widow = 0
        self.widow_to = -1
        if way == 5:
            self._take_widow(widow)
        elif widow is not None:
            raise ValueError(f"only way 5 has a widow, this is way {way}")
        self.piles: dict[int, list[int]] = {}
        if way in (2, 3):
            self._order_piles(piles)
        elif piles is not None:
            raise ValueError(f"only ways 2 and 3 have piles, this is way {way}")
        self.discards = [0, 0]                       # per player, ways 2 and 3
        self.exchanged = [0, 0]                      # cards exchanged per player (13 = the whole hand)
        self.exchange_done = [False, False]
        self.controllers = self._initial_controllers()
        other = self.player_seats[1 - dealer]
        # Two-player auction: the dealer calls first, then the players alternate.
        self.auction = Auction((self.dealer_seat, other), single_round=auction == "single")
        self.contract: Contract | None = None
        self.winning_bid: Contract | None = None     # way 5: the bid that won the auction
        self.declarer = -1
        self.gives: list[tuple[int, int, int]] = []  # way 5: (from seat, to seat, card)
        self.play: TrickPlay | None = None
        self.start_hands: tuple[int, ...] | None = None   # the hands as play starts
        self.passed_out = False
        self.scores: tuple[SideScore, SideScore] | None = None
        self.phase = EXCHANGE if way in (2, 3) else AUCTION
        self._exchanger = 0 if way not in (2, 3) else dealer   # the dealer exchanges first

    # ------------------------------------------------------------ setup
    def _take_widow(self, widow) -> None:
        if widow is None:
            raise ValueError("way 5 needs the four widow cards (widow=[...])")
        cards = [int(c) for c in widow]
        if len(cards) != 4 or len(set(cards)) != 4 or not all(0 <= c < 52 for c in cards):
            raise ValueError(f"the widow is four distinct cards 0..51, got {widow!r}")
        for c in cards:
            bit = 1 << c
            self.widow |= bit
            for s in range(4):
                self.hands[s] &= ~bit
        sizes = [hand_size(h) for h in self.hands]
        if sizes != [12, 12, 12, 12]:
            raise DeckError(f"way 5 deals 12 cards to each seat and 4 to the widow; taking the widow "
                            f"{' '.join(vint_action_text(c) for c in cards)} out of the deal leaves "
                            f"hands of {sizes} cards")

    def _order_piles(self, piles) -> None:
        piles = piles or {}
        for seat in (1, 3):
            order = [int(c) for c in piles[seat]] if seat in piles else hand_cards(self.hands[seat])
            if sorted(order) != hand_cards(self.hands[seat]):
                raise ValueError(f"the order of the pile at seat {seat} must list exactly its 13 cards")
            self.piles[seat] = order
        unknown = set(piles) - {1, 3}
        if unknown:
            raise ValueError(f"piles are at seats 1 and 3, got seats {sorted(unknown)}")

    def _initial_controllers(self) -> list[int]:
        p0, p1 = self.player_seats
        ctrl = [-1, -1, -1, -1]
        ctrl[p0], ctrl[p1] = 0, 1
        if self.way == 1:
            ctrl[2], ctrl[3] = 0, 1                  # each player's dummy lies opposite him
        return ctrl

    def copy(self) -> "Vint2pDeal":
        new = Vint2pDeal.__new__(Vint2pDeal)
        new.__dict__.update(self.__dict__)
        new.hands = self.hands[:]
        new.piles = {s: o[:] for s, o in self.piles.items()}
        new.discards, new.exchanged = self.discards[:], self.exchanged[:]
        new.exchange_done, new.controllers = self.exchange_done[:], self.controllers[:]
        new.auction = self.auction.copy()
        new.gives = self.gives[:]
        if self.play is not None:
            new.play = self.play.copy()
        return new

    # ------------------------------------------------------------ seats
    @property
    def open_dummy(self) -> int:
        """Ways 4 and 5: the dummy opposite the dealer, face up from the start (else -1)."""
        return self.dealer_seat + 2 if self.way in (4, 5) else -1

    @property
    def closed_dummy(self) -> int:
        return (1 - self.dealer_seat) + 2 if self.way in (4, 5) else -1

    def controller_of(self, seat: int) -> int:
        """The player (0 or 1) who decides for ``seat``; -1 for a pile or an unassigned dummy."""
        return self.controllers[seat]

    def seat_of(self, player: int) -> int:
        return self.player_seats[player]

    def dummy_of(self, player: int) -> int:
        """The dummy seat a player controls, -1 if none (ways 2, 3; ways 4/5 before the contract)."""
        for s in (2, 3):
            if self.controllers[s] == player and s != self.player_seats[player]:
                return s
        return -1

    @property
    def current_player(self) -> int:
        """The seat to act; -1 once the deal is over."""
        phase = self.phase
        if phase == PLAY:
            return self.play.current_player
        if phase == AUCTION:
            return self.auction.to_call
        if phase == EXCHANGE:
            return self.player_seats[self._exchanger]
        if phase == GIVE:
            return self.widow_to
        if phase in (WIDOW, FINAL):
            return self.declarer
        return -1

    @property
    def current_controller(self) -> int:
        """The player who decides now, -1 once over."""
        seat = self.current_player
        return self.controllers[seat] if seat >= 0 else -1

    @property
    def declaring_player(self) -> int:
        return self.controllers[self.declarer] if self.declarer >= 0 else -1

    def visible_seats(self, player: int) -> tuple[int, ...]:
        """Seats whose present cards ``player`` sees (section 5 of the rules, per way)."""
        own = self.player_seats[player]
        way = self.way
        if way in (2, 3):
            return (own,)
        before_contract = self.phase == AUCTION
        if way == 1:
            return (own, own + 2) if before_contract else (own, 2, 3)
        # ways 4 and 5: the open dummy from the start, the closed one after the auction
        return (own, self.open_dummy) if before_contract else (own, 2, 3)

    # ------------------------------------------------------------ legality
    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            return self.play.legal_cards()
        if phase == AUCTION:
            return self.auction.legal_actions()
        if phase == EXCHANGE:
            if self.way == 2:
                return [KEEP, EXCHANGE_HAND]
            return [*hand_cards(self.hands[self.player_seats[self._exchanger]]), KEEP]
        if phase == WIDOW:
            return [WIDOW_TO_HAND, WIDOW_TO_DUMMY]
        if phase == GIVE:
            return hand_cards(self.hands[self.widow_to])
        if phase == FINAL:
            return list(range(self.winning_bid.action, VINT_ACTIONS))
        return []

    def is_legal(self, action: int) -> bool:
        phase = self.phase
        if phase == PLAY:
            return 0 <= action < 52 and bool(self.play.legal_mask() >> action & 1)
        if phase == AUCTION:
            return self.auction.is_legal(action)
        return action in self.legal_actions()

    # ------------------------------------------------------------ moves
    def _take(self, action: int) -> None:
        """Take ``action``, legal for the player to move (:meth:`Deal.apply` checked it)."""
        phase = self.phase
        if phase == PLAY:
            self.play.play(action, checked=True)
            if self.play.is_over:
                self._finish()
        elif phase == AUCTION:
            ended = self.auction.call(action)
            if ended == "contract":
                self._end_auction()
            elif ended == "passout":
                self._pass_out()
        elif phase == EXCHANGE:
            self._exchange(action)
        elif phase == WIDOW:
            self.widow_to = self.declarer if action == WIDOW_TO_HAND else self.dummy_of(self.declaring_player)
            self.hands[self.widow_to] |= self.widow
            self.phase = GIVE
        elif phase == GIVE:
            self._give(action)
        else:  # FINAL
            self.contract = action_contract(action)
            self._start_play()

    def _exchange(self, action: int) -> None:
        player = self._exchanger
        seat = self.player_seats[player]
        pile = PILE_OF[seat]
        if action == KEEP:
            self._done_exchanging(player)
        elif action == EXCHANGE_HAND:        # way 2: the whole hand for the pile on the right
            self.discards[player] = self.hands[seat]
            self.hands[seat] = self.hands[pile]
            self.hands[pile] = 0
            self.piles[pile] = []
            self.exchanged[player] = 13
            self._done_exchanging(player)
        else:                                # way 3: one card for the top card of the pile
            bit = 1 << action
            top = self.piles[pile].pop(0)
            self.hands[seat] = (self.hands[seat] & ~bit) | (1 << top)
            self.hands[pile] &= ~(1 << top)
            self.discards[player] |= bit
            self.exchanged[player] += 1
            if self.exchanged[player] == EXCHANGE_LIMIT:
                self._done_exchanging(player)

    def _done_exchanging(self, player: int) -> None:
        self.exchange_done[player] = True
        if self.exchange_done[1 - player]:
            self.phase = AUCTION
        else:
            self._exchanger = 1 - player

    def _end_auction(self) -> None:
        self.contract = action_contract(self.auction.highest)
        self.declarer = self.auction.highest_bidder
        if self.way in (4, 5):
            # The declarer takes the open dummy, the other player the closed one; dummies never move.
            self.controllers[self.open_dummy] = self.declaring_player
            self.controllers[self.closed_dummy] = 1 - self.declaring_player
        if self.way == 5:
            self.winning_bid = self.contract
            self.phase = WIDOW
        else:
            self._start_play()

    def _give(self, card: int) -> None:
        """Way 5: three give-aways from the hand that took the widow, with fixed recipients."""
        decl = self.declaring_player
        other_hand = self.dummy_of(decl) if self.widow_to == self.declarer else self.declarer
        recipients = (other_hand, self.player_seats[1 - decl], self.dummy_of(1 - decl))
        to = recipients[len(self.gives)]
        bit = 1 << card
        self.hands[self.widow_to] &= ~bit
        self.hands[to] |= bit
        self.gives.append((self.widow_to, to, card))
        if len(self.gives) == 3:
            self.phase = FINAL

    def _playing_seats(self) -> tuple[int, ...]:
        return self.player_seats if self.way in (2, 3) else FOUR_SEATS

    def _start_play(self) -> None:
        decl_player = self.declaring_player
        if self.way == 1:
            leader = (self.declarer + 1) % 4            # left of the declarer, as in ordinary Vint
        elif self.way == 3:
            leader = self.declarer                      # "the first lead belongs to the one who named the game"
        else:
            leader = self.player_seats[1 - decl_player]  # way 2: the opponent; ways 4, 5: from his own hand
        self._begin_tricks(self.contract.trump, leader)

    def _begin_tricks(self, trump: int, leader: int) -> None:
        self.start_hands = tuple(self.hands)
        self.play = TrickPlay(self.hands, trump, leader, self._playing_seats())
        self.phase = PLAY

    def _pass_out(self) -> None:
        self.passed_out = True
        if self.passout == "play":
            # Played at no-trump: way 1 as ordinary Vint (left of the dealer leads);
            # ways 2-4 the other player leads; way 4's dealer keeps the open dummy.
            if self.way in (4, 5):
                self.controllers[self.open_dummy] = self.dealer
                self.controllers[self.closed_dummy] = 1 - self.dealer
            leader = (self.dealer_seat + 1) % 4 if self.way == 1 else self.player_seats[1 - self.dealer]
            self._begin_tricks(NO_TRUMP, leader)
        else:
            self.scores = (SideScore(), SideScore())
            self.phase = OVER

    # ------------------------------------------------------------ scoring
    def player_tricks(self) -> tuple[int, int]:
        """Tricks taken by each player's side (his hand and his dummy)."""
        won = [0, 0]
        for seat, n in enumerate(self.play.tricks_won):
            if n:
                won[self.controllers[seat]] += n
        return won[0], won[1]

    def below_order(self) -> list[tuple[int, int]]:
        """Below-the-line entries in the order written: (player, T) per trick of a contract."""
        if self.contract is None or self.play is None:
            return []
        t = trick_value(self.contract.level)
        return [(self.controllers[seat], t) for seat in self.play.trick_winners]

    def _side_hands(self) -> list[int]:
        """The hands as play started, arranged for the four-player scoring: player 0's
        at positions 0 and 2, player 1's at 1 and 3 (ways 2 and 3: one hand each)."""
        arranged = [0, 0, 0, 0]
        for player in (0, 1):
            arranged[player] = self.start_hands[self.player_seats[player]]
            dummy = self.dummy_of(player)
            if dummy >= 0:
                arranged[player + 2] = self.start_hands[dummy]
        return arranged

    def _finish(self) -> None:
        tricks = self.player_tricks()
        if self.passed_out:
            self.scores = score_passout_play(tricks)
        else:
            self.scores = score_contract(self._side_hands(), self.contract.level, self.contract.strain,
                                         self.declaring_player, tricks, self.honours)
        self.phase = OVER

    # ------------------------------------------------------------ text
    def auction_text(self) -> str:
        return " ".join(f"P{self.controllers[s]}:{action_text(a)}" for s, a in self.auction.calls)

    def __repr__(self) -> str:
        return (f"<Vint2pDeal way={self.way} dealer=player_{self.dealer} phase={self.phase} "
                f"contract={self.contract} declarer={self.declarer}>")


class Vint2pRubber:
    """A rubber of two-player Vint: the players deal in turn; side = player.

    The score sheet is the four-player one (:class:`Rubber`) with the way's
    game target (600 in way 5), the pass-out marks of the ``"mark"`` variant
    and the game race (``"first"``: the first to reach the target trick by
    trick wins the game; ``"deal_end"``: checked after the deal).
    """

    def __init__(self, way: int = 4, first_dealer: int = 0, game_bonus: int = 100, passout: str = "mark",
                 auction: str = "alternating", honours: str = "majority", game_race: str = "first"):
        if way not in WAYS:
            raise ValueError(f"way must be one of {WAYS}, got {way!r}")
        check_variants(game_bonus=game_bonus, game_race=game_race)
        if first_dealer not in (0, 1):
            raise ValueError(f"first_dealer must be a player 0 or 1, got {first_dealer!r}")
        self.way = way
        self.passout = passout
        self.auction = auction
        self.honours = honours
        self.sheet = Rubber(game_target=GAME_TARGET[way], game_bonus=game_bonus, rubber_bonus=2000,
                            mark_values=(500, 1000) if passout == "mark" else (), game_race=game_race)
        self.dealer = first_dealer
        self.deal: Vint2pDeal | None = None

    @property
    def is_over(self) -> bool:
        return self.sheet.is_over

    def new_deal(self, hands, widow=None, piles=None) -> Vint2pDeal:
        if self.is_over:
            raise ValueError("the rubber is over")
        if self.deal is not None and not self.deal.is_over:
            raise ValueError("the current deal is not finished")
        self.deal = Vint2pDeal(hands, self.way, self.dealer, self.passout, self.auction, widow, piles,
                               self.honours)
        return self.deal

    def finish_deal(self):
        deal = self.deal
        if deal is None or not deal.is_over:
            raise ValueError("no finished deal to record")
        record = self.sheet.record_deal(deal.scores, tie_winner=deal.declaring_player
                                        if deal.declarer >= 0 else None, passed_out=deal.passed_out,
                                        below_order=deal.below_order())
        self.dealer = 1 - self.dealer                 # the players deal in turn
        self.deal = None
        return record
