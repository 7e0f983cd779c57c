"""Vint: one deal (auction and play) and a rubber of deals, docs/rules/vint.md.

Actions (docs/envs/index.md, Conventions): 0..51 play that card, 52 pass, 53..87 the 35 bids in
the order 1S 1C 1D 1H 1NT 2S ... 7NT.

>>> from vint_env.cards import parse_pbn
>>> deal = VintDeal(parse_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"), dealer=0)
>>> deal.current_player, str(deal.phase)
(0, 'auction')
>>> for a in (bid_action(7, NT), PASS, PASS, PASS):
...     deal.apply(a)
>>> deal.contract, deal.declarer, deal.current_player, deal.phase
(Contract(level=7, strain=4), 0, 1, <Phase.PLAY: 'play'>)
"""

from __future__ import annotations

from typing import NamedTuple

from ..cards import NO_TRUMP, card_text, validate_deal
from .phase import Phase
from .rubber import GAME_RACE_VARIANTS, DealRecord, Rubber, SideScore, side_of
from .tricks import Deal, TrickPlay
from .vint_scoring import HONOURS_VARIANTS, NT, score_contract, score_passout_play, trick_value

PASS = 52
BID_BASE = 53
NUM_BIDS = 35
NUM_ACTIONS = 88
STRAIN_TEXT = ("S", "C", "D", "H", "NT")

AUCTION, PLAY, OVER = Phase.AUCTION, Phase.PLAY, Phase.OVER
PASSOUT_VARIANTS = ("mark", "play")
GAME_BONUS_VARIANTS = (100, 1000)
#: Every Vint variant option (four-player and two-player, rules, envs and the batched engine) and its values.
VARIANTS = {"game_bonus": GAME_BONUS_VARIANTS, "passout": PASSOUT_VARIANTS, "honours": HONOURS_VARIANTS,
            "game_race": GAME_RACE_VARIANTS}


def check_variants(**options) -> None:
    """ValueError naming the first option whose value is not one of its variants (see :data:`VARIANTS`)."""
    for name, value in options.items():
        allowed = VARIANTS[name]
        if isinstance(value, bool) or value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


class Contract(NamedTuple):
    """A bid or contract, with its one notation: ``"3NT"``, ``"1S"``.

    Every layer decodes bids through this type (never ``b // 5 + 1`` and
    ``b % 5`` by hand): from a bid's index 0..34 (the order of the
    observation's ``bids`` and ``contract`` blocks), from its action, or
    from its text.

    >>> Contract.parse("3nt"), str(Contract(3, NT))
    (Contract(level=3, strain=4), '3NT')
    >>> Contract.from_index(14), Contract.from_index(14).index
    (Contract(level=3, strain=4), 14)
    >>> Contract.from_action(BID_BASE) == Contract.parse("1S"), Contract.parse("1S").action
    (True, 53)
    """

    level: int    # 1..7: undertake 6 + level tricks
    strain: int   # 0..3 suits (spades, clubs, diamonds, hearts), 4 no-trump

    @classmethod
    def from_index(cls, index: int) -> "Contract":
        """The bid of index 0..34 (1S 1C 1D 1H 1NT 2S ... 7NT); ValueError out of range."""
        index = int(index)
        if not 0 <= index < NUM_BIDS:
            raise ValueError(f"bid index {index} is out of range 0..{NUM_BIDS - 1}")
        return cls(index // 5 + 1, index % 5)

    @classmethod
    def from_action(cls, action: int) -> "Contract":
        """The bid of action 53..87; ValueError for any other action."""
        if not BID_BASE <= int(action) < BID_BASE + NUM_BIDS:
            raise ValueError(f"action {action!r} is not a bid ({BID_BASE}..{BID_BASE + NUM_BIDS - 1})")
        return cls.from_index(int(action) - BID_BASE)

    @property
    def index(self) -> int:
        """The bid's index 0..34."""
        return (self.level - 1) * 5 + self.strain

    @property
    def action(self) -> int:
        return bid_action(self.level, self.strain)

    @property
    def trump(self) -> int:
        return self.strain      # suits 0..3, or NT, which is NO_TRUMP

    def __str__(self) -> str:
        return f"{self.level}{STRAIN_TEXT[self.strain]}"

    @classmethod
    def parse(cls, text: str) -> "Contract":
        t = text.strip().upper()
        if len(t) < 2 or t[0] not in "1234567" or t[1:] not in STRAIN_TEXT + ("N",):
            raise ValueError(f"malformed contract {text!r}: expected a level 1-7 and S, C, D, H or NT (e.g. '5NT')")
        strain = NT if t[1:] in ("NT", "N") else STRAIN_TEXT.index(t[1:])
        return cls(int(t[0]), strain)


def bid_action(level: int, strain: int) -> int:
    return BID_BASE + (level - 1) * 5 + strain


def action_contract(action: int) -> Contract:
    return Contract.from_action(action)


def action_text(action: int) -> str:
    """``'SA'`` for a card, ``'pass'``, or a bid such as ``'3NT'``."""
    if 0 <= action < 52:
        return card_text(action)
    if action == PASS:
        return "pass"
    if BID_BASE <= action < NUM_ACTIONS:
        return str(action_contract(action))
    raise ValueError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")


def parse_action(text: str) -> int:
    t = text.strip().upper()
    if t in ("PASS", "P"):
        return PASS
    if t and t[0].isdigit():
        return Contract.parse(t).action
    from ..cards import parse_card
    return parse_card(t)


class Auction:
    """Vint's auction (docs/rules/vint.md, Auction) for any order of callers.

    ``callers``: the seats that call, in calling order, the dealer first.
    Four-player Vint: the four seats clockwise from the dealer, and the
    auction ends when a bid is followed by three passes, or on four passes
    without a bid (a pass-out).  Two-player Vint: the two players' seats; a
    pass after a bid ends it, two passes without a bid pass the deal out.
    In general a bid followed by ``len(callers) - 1`` passes wins, and
    ``len(callers)`` passes without a bid pass out.  ``single_round``: every
    caller calls exactly once and then the auction ends (two-player Vint's
    way 1 variant ``auction="single"``).

    ``call(action)`` returns ``None`` while the auction goes on, then
    ``"contract"`` or ``"passout"``.
    """

    __slots__ = ("callers", "single_round", "calls", "highest", "highest_bidder", "passes", "_turn")

    def __init__(self, callers, single_round: bool = False):
        self.callers = tuple(callers)
        if len(self.callers) < 2 or len(set(self.callers)) != len(self.callers):
            raise ValueError(f"an auction needs two or more distinct callers, got {callers!r}")
        self.single_round = single_round
        self.calls: list[tuple[int, int]] = []     # (seat, action)
        self.highest = -1                          # highest bid action so far, -1 none
        self.highest_bidder = -1
        self.passes = 0                            # passes in a row
        self._turn = 0                             # index in callers of the seat to call

    def copy(self) -> "Auction":
        new = Auction.__new__(Auction)
        for name in Auction.__slots__:
            setattr(new, name, getattr(self, name))
        new.calls = self.calls[:]
        return new

    @property
    def to_call(self) -> int:
        return self.callers[self._turn]

    def legal_actions(self) -> list[int]:
        return [PASS, *range(self.highest + 1 if self.highest >= 0 else BID_BASE, NUM_ACTIONS)]

    def is_legal(self, action: int) -> bool:
        return action == PASS or (max(self.highest + 1, BID_BASE) <= action < NUM_ACTIONS)

    def call(self, action: int) -> str | None:
        """Record a legal call of the seat to call; ``"contract"``/``"passout"`` when it ends."""
        seat = self.callers[self._turn]
        self.calls.append((seat, action))
        n = len(self.callers)
        self._turn = (self._turn + 1) % n
        if action == PASS:
            self.passes += 1
        else:
            self.highest = action
            self.highest_bidder = seat
            self.passes = 0
        if self.single_round:
            if len(self.calls) < n:
                return None
            return "contract" if self.highest >= 0 else "passout"
        if self.highest < 0:
            return "passout" if self.passes == n else None
        return "contract" if self.passes == n - 1 else None

    def text(self) -> str:
        return " ".join(f"{'NESW'[s]}:{action_text(a)}" for s, a in self.calls)


def four_player_callers(dealer: int) -> tuple[int, int, int, int]:
    """The dealer calls first, then clockwise (docs/rules/vint.md, Auction)."""
    return tuple((dealer + i) % 4 for i in range(4))


class VintDeal(Deal):
    """The state machine of one Vint deal.

    ``legal_actions()``, ``apply(action)``, ``current_player``, ``is_over``
    and, once over, ``scores`` (a :class:`SideScore` per side, premiums of
    the rubber not included).  ``hands`` are the hands as dealt.  Variants
    (docs/rules/vint.md, Scoring item 4 and Pass-out): ``passout`` ``"mark"`` (default) or ``"play"``;
    ``honours`` ``"majority"`` (default) or ``"net"``.  The auction is an
    :class:`Auction` (``calls``, ``highest``, ``highest_bidder`` and
    ``passes`` read through to it).
    """

    __slots__ = ("hands", "dealer", "passout", "honours", "phase", "auction", "contract", "declarer", "play",
                 "passed_out", "scores")
    _action_text = staticmethod(action_text)

    def __init__(self, hands, dealer: int = 0, passout: str = "mark", honours: str = "majority"):
        check_variants(passout=passout, honours=honours)
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self.hands = validate_deal(hands)
        self.dealer = dealer
        self.passout = passout
        self.honours = honours
        self.phase = AUCTION
        self.auction = Auction(four_player_callers(dealer))   # the dealer calls first
        self.contract: Contract | None = None
        self.declarer = -1
        self.play: TrickPlay | None = None
        self.passed_out = False
        self.scores: tuple[SideScore, SideScore] | None = None

    def copy(self) -> "VintDeal":
        new = VintDeal.__new__(VintDeal)
        for name in VintDeal.__slots__:
            setattr(new, name, getattr(self, name))
        new.auction = self.auction.copy()
        if self.play is not None:
            new.play = self.play.copy()
        return new

    # ------------------------------------------------------------ queries
    @property
    def calls(self) -> list[tuple[int, int]]:
        return self.auction.calls

    @property
    def highest(self) -> int:
        return self.auction.highest

    @property
    def highest_bidder(self) -> int:
        return self.auction.highest_bidder

    @property
    def passes(self) -> int:
        return self.auction.passes

    @property
    def current_player(self) -> int:
        """Seat to act; -1 once the deal is over."""
        if self.phase == AUCTION:
            return self.auction.to_call
        if self.phase == PLAY:
            return self.play.current_player
        return -1

    @property
    def declaring_side(self) -> int:
        return side_of(self.declarer) if self.declarer >= 0 else -1

    def visible_seats(self, player: int) -> tuple[int, ...]:
        """Seats whose present cards ``player`` sees: his own (Vint has no dummy)."""
        return (player,)

    def below_order(self) -> list[tuple[int, int]]:
        """The deal's below-the-line entries in the order they were written: (side, T) per trick taken.

        Only tricks of a contract count below the line (a pass-out scores
        nothing there); docs/rules/vint.md, Scoring item 6 decides the game race on this order.
        """
        if self.contract is None or self.play is None:
            return []
        t = trick_value(self.contract.level)
        return [(side_of(seat), t) for seat in self.play.trick_winners]

    def legal_actions(self) -> list[int]:
        if self.phase == AUCTION:
            return self.auction.legal_actions()
        if self.phase == PLAY:
            return self.play.legal_cards()
        return []

    def is_legal(self, action: int) -> bool:
        if self.phase == AUCTION:
            return self.auction.is_legal(action)
        if self.phase == PLAY:
            return 0 <= action < 52 and bool(self.play.legal_mask() >> action & 1)
        return False

    # ------------------------------------------------------------ moves
    def _take(self, action: int) -> None:
        """Take ``action``, legal for the player to move (:meth:`Deal.apply` checked it)."""
        if self.phase == AUCTION:
            ended = self.auction.call(action)
            if ended == "contract":
                self._start_play()
            elif ended == "passout":
                self._pass_out()
        else:
            self.play.play(action, checked=True)
            if self.play.is_over:
                self._finish()

    def _start_play(self) -> None:
        self.contract = action_contract(self.auction.highest)
        self.declarer = self.auction.highest_bidder
        # docs/rules/vint.md, Play: the player left of the declarer leads.
        self.play = TrickPlay(self.hands, self.contract.trump, (self.declarer + 1) % 4)
        self.phase = PLAY

    def _pass_out(self) -> None:
        self.passed_out = True
        if self.passout == "play":
            # docs/rules/vint.md, Pass-out "play": no-trump, the player left of the dealer leads.
            self.play = TrickPlay(self.hands, NO_TRUMP, (self.dealer + 1) % 4)
            self.phase = PLAY
        else:
            self.scores = (SideScore(), SideScore())
            self.phase = OVER

    def _finish(self) -> None:
        tricks = self.play.side_tricks()
        if self.passed_out:
            self.scores = score_passout_play(tricks)
        else:
            self.scores = score_contract(self.hands, self.contract.level, self.contract.strain,
                                         self.declarer, tricks, self.honours)
        self.phase = OVER

    # ------------------------------------------------------------ text
    def auction_text(self) -> str:
        return self.auction.text()

    def __repr__(self) -> str:
        return (f"<VintDeal dealer={self.dealer} phase={self.phase} contract={self.contract} "
                f"declarer={self.declarer} auction='{self.auction_text()}'>")


class VintRubber:
    """A rubber of Vint deals: dealer rotation, games, rubber, pass-out marks.

    Variants (docs/rules/vint.md, Scoring items 4 and 6, and Pass-out): ``game_bonus`` 100 (default) or
    1000; ``passout`` ``"mark"`` (default) or ``"play"``; ``honours``
    ``"majority"`` (default) or ``"net"``; ``game_race`` ``"first"``
    (default: the first side to reach 500 below the line, trick by trick,
    wins the game) or ``"deal_end"`` (checked after the deal: the higher
    total, equal totals the declaring side).
    """

    def __init__(self, first_dealer: int = 0, game_bonus: int = 100, passout: str = "mark",
                 honours: str = "majority", game_race: str = "first"):
        check_variants(game_bonus=game_bonus, passout=passout, honours=honours, game_race=game_race)
        self.game_bonus = game_bonus
        self.passout = passout
        self.honours = honours
        self.game_race = game_race
        self.sheet = Rubber(game_target=500, game_bonus=game_bonus, rubber_bonus=2000,
                            mark_values=(500, 1000) if passout == "mark" else (), game_race=game_race)
        self.dealer = first_dealer
        self.deal: VintDeal | None = None

    @property
    def is_over(self) -> bool:
        return self.sheet.is_over

    def new_deal(self, hands) -> VintDeal:
        if self.is_over:
            raise ValueError("the rubber is over")
        if self.deal is not None and not self.deal.is_over:
            raise ValueError("the current deal is not finished")
        self.deal = VintDeal(hands, self.dealer, self.passout, self.honours)
        return self.deal

    def finish_deal(self) -> DealRecord:
        """Write the finished deal on the sheet; the deal passes clockwise (docs/rules/index.md)."""
        deal = self.deal
        if deal is None or not deal.is_over:
            raise ValueError("no finished deal to record")
        record = self.sheet.record_deal(deal.scores, tie_winner=deal.declaring_side
                                        if deal.declarer >= 0 else None,
                                        passed_out=deal.passed_out, below_order=deal.below_order())
        self.dealer = (self.dealer + 1) % 4
        self.deal = None
        return record
