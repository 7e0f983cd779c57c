"""Two-player Vint's record (:data:`GAME`) and its observation and state encoding (`vint2p_v0`, five ways).

Player-relative: every block indexed by a seat uses the seat relative to the
observing player's own seat (0 his own hand, 1 the seat on his left, 2 the
seat opposite, 3 the seat on his right), and the `roles` block says what
each of those seats is in this way (his own hand, his dummy, the opponent,
the opponent's dummy, a dummy not yet given to anyone, a pile).  Blocks
indexed by player use 0 for the observer and 1 for the opponent.

Only what the observer may know is encoded: the present cards of the seats
he sees (`hands`, `shown`), the cards he discarded himself, and the public
facts (calls, exchange counts, the widow's destination, plays).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.vint import AUCTION, BID_BASE, PLAY, Contract
from ..rules.vint2p import (AUCTION_VARIANTS, EXCHANGE, FINAL, GIVE, GAME_TARGET, NUM_ACTIONS, WAYS, WIDOW, Vint2pDeal,
                            Vint2pRubber, action_text, parse_action)
from .knowledge import Knowledge, fact, mask_of
from .vint import ContractFacts
from .layout import Layout, mask_bits
from ..cards import FULL_DECK
from .obs_blocks import TRACKING_BLOCKS, encode_tracking, hands_bits
from . import params
from .outcome import BidContractOutcome, contract_made
from .record import TWO_PLAYER, Game

MAX_MARKS = 7
PHASES = (EXCHANGE, AUCTION, WIDOW, GIVE, FINAL, PLAY)
ROLES = ("own hand", "own dummy", "opponent", "opponent's dummy", "dummy not yet taken", "pile")
OWN_HAND, OWN_DUMMY, OPPONENT, OPP_DUMMY, UNTAKEN_DUMMY, PILE = range(len(ROLES))   # the columns of `roles`

VINT2P_LAYOUT = Layout("vint2p_v0 observation", [
    ("way", (5,), "the way 1..5, one-hot"),
    ("single_auction", (1,), "1 in way 1's variant auction='single' (one call each)"),
    ("phase", (6,), "exchange, auction, widow, give-away, final contract, play (all 0 once over)"),
    ("to_move", (2,), "who decides now: the observer / the opponent"),
    ("acting_for", (4,), "when the observer is to move: the relative seat he acts for "
                         "(0 his own hand, 2 or 1 his dummy)"),
    ("dealer", (2,), "the dealer: the observer / the opponent"),
    ("roles", (4, 6), "roles[r, k] = 1 if relative seat r is: own hand, own dummy, opponent, "
                      "opponent's dummy, dummy not yet taken (ways 4, 5 in the auction), pile (ways 2, 3)"),
    ("open_dummy", (4,), "ways 4 and 5: the relative seat of the dummy laid face up before the auction"),
    ("shown", (4,), "1 for each relative seat whose cards the observer sees now"),
    ("hands", (4, 52), "the present cards of each seen relative seat (0 for hidden seats)"),
    ("my_discards", (52,), "ways 2 and 3: the cards the observer discarded (out of play)"),
    ("exchanged", (2, 14), "ways 2 and 3: cards exchanged by the observer / the opponent, one-hot "
                           "0..13 (13 = the whole hand in way 2)"),
    ("exchange_done", (2,), "ways 2 and 3: the observer / the opponent has finished exchanging"),
    ("bids", (2, 35), "bids[p, b] = 1 if the observer (p = 0) / the opponent made bid b"),
    ("pass_count", (2,), "passes in a row since the last bid (0..1), one-hot"),
    ("contract", (35,), "highest bid so far; the contract once play starts (way 5: the final contract)"),
    ("declarer", (2,), "maker of the highest bid: the observer / the opponent"),
    ("winning_bid", (35,), "way 5: the bid that won the auction (the final contract is at least this)"),
    ("widow_to", (4,), "way 5: the relative seat that took the widow"),
    ("gives", (4,), "way 5: give-aways made so far, one-hot 0..3"),
    ("trump", (5,), "in play: trump suit S, C, D, H, or no-trump"),
    ("passout_play", (1,), "1 when a passed-out deal is played at no-trump (variant passout='play')"),
    ("trick_leader", (4,), "relative seat that led the trick in progress"),
    ("trick", (4, 52), "trick[r, c] = 1 if relative seat r played card c to the trick in progress"),
    ("last_trick", (4, 52), "the last completed trick, same form"),
    ("played", (4, 52), "every card played so far in this deal, by relative seat"),
    *TRACKING_BLOCKS,
    ("tricks_taken", (2, 14), "tricks taken by the observer's side (row 0) and the opponent's, one-hot 0..13"),
    ("rubber_mode", (1,), "1 in episode='rubber'"),
    ("games_won", (2, 2), "games won in this rubber by the observer / the opponent, one-hot 0..1"),
    ("below_line", (2,), "below-the-line points of the current game, observer / opponent, / the game "
                         "target (500; 600 in way 5), capped at 1"),
    ("marks", (MAX_MARKS + 1,), "pass-out marks written so far, one-hot 0..7 (7 = 7 or more)"),
])

O = VINT2P_LAYOUT.offset
D = VINT2P_LAYOUT.size
#: The state: present hands of the four seats (absolute), the widow, each
#: player's discards, the seat to act (one-hot), then player 0's observation.
STATE_SIZE = 4 * 52 + 52 + 2 * 52 + 4 + D


def _role(deal: Vint2pDeal, seat: int, player: int) -> int:
    ctrl = deal.controllers[seat]
    if ctrl < 0:
        return 4 if seat >= 2 and deal.way in (4, 5) else 5
    own = seat == deal.player_seats[ctrl]
    if ctrl == player:
        return 0 if own else 1
    return 2 if own else 3


def encode_observation(deal: Vint2pDeal, player: int, rubber=None, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``player`` (0 or 1): float32, 0/1 except `below_line`."""
    obs = np.zeros(D, dtype=np.float32) if out is None else out
    me = deal.player_seats[player]
    phase = deal.phase
    obs[O["way"] + deal.way - 1] = 1
    obs[O["single_auction"]] = deal.auction.single_round
    if phase in PHASES:
        obs[O["phase"] + PHASES.index(phase)] = 1
    seat = deal.current_player
    if seat >= 0:
        mover = deal.controllers[seat]
        obs[O["to_move"] + (mover != player)] = 1
        if mover == player:
            obs[O["acting_for"] + ((seat - me) & 3)] = 1
    obs[O["dealer"] + (deal.dealer != player)] = 1
    for s in range(4):
        obs[O["roles"] + ((s - me) & 3) * 6 + _role(deal, s, player)] = 1
    if deal.way in (4, 5):
        obs[O["open_dummy"] + ((deal.open_dummy - me) & 3)] = 1
    play = deal.play
    hands = play.hands if play is not None else deal.hands
    base = O["hands"]
    known = deal.discards[player]              # the cards he sees: his discards, the seats shown
    for s in deal.visible_seats(player):
        r = (s - me) & 3
        obs[O["shown"] + r] = 1
        obs[base + 52 * r:base + 52 * r + 52] = mask_bits(hands[s])
        known |= hands[s]
    played = 0
    if play is not None:
        for _, c in play.plays:
            played |= 1 << c
    # Every card not played is still out (a pile, the widow, the discards), seen or not.
    encode_tracking(obs, O, play, me, FULL_DECK & ~played, known)
    if deal.way in (2, 3):
        obs[O["my_discards"]:O["my_discards"] + 52] = mask_bits(deal.discards[player])
        for p in (0, 1):
            rel = p != player
            obs[O["exchanged"] + 14 * rel + deal.exchanged[p]] = 1
            obs[O["exchange_done"] + rel] = deal.exchange_done[p]
    auction = deal.auction
    for s, action in auction.calls:
        if action >= BID_BASE:
            obs[O["bids"] + 35 * (deal.controllers[s] != player) + action - BID_BASE] = 1
    obs[O["pass_count"] + min(auction.passes, 1)] = 1
    if auction.highest >= 0:
        contract = deal.contract.action if deal.contract is not None else auction.highest
        obs[O["contract"] + contract - BID_BASE] = 1
        obs[O["declarer"] + (auction.highest_bidder != me)] = 1
    if deal.winning_bid is not None:
        obs[O["winning_bid"] + deal.winning_bid.action - BID_BASE] = 1
    if deal.widow_to >= 0:
        obs[O["widow_to"] + ((deal.widow_to - me) & 3)] = 1
    if deal.way == 5:
        obs[O["gives"] + len(deal.gives)] = 1
    if play is not None:
        obs[O["trump"] + (4 if play.trump < 0 else play.trump)] = 1
        obs[O["passout_play"]] = deal.passed_out
        encode_tricks(obs, deal, me, player)
    if rubber is not None:
        sheet = rubber.sheet
        target = GAME_TARGET[deal.way]
        obs[O["rubber_mode"]] = 1
        obs[O["games_won"] + min(sheet.games_won[player], 1)] = 1
        obs[O["games_won"] + 2 + min(sheet.games_won[1 - player], 1)] = 1
        obs[O["below_line"]] = min(sheet.below[player] / target, 1.0)
        obs[O["below_line"] + 1] = min(sheet.below[1 - player] / target, 1.0)
        obs[O["marks"] + min(sheet.marks, MAX_MARKS)] = 1
    return obs


def encode_tricks(obs: np.ndarray, deal: Vint2pDeal, me: int, player: int) -> None:
    """The trick-play blocks: tricks of four cards, or of two (ways 2, 3)."""
    play = deal.play
    obs[O["trick_leader"] + ((play.leader - me) & 3)] = 1
    base = O["trick"]
    for s, c in zip(play.trick_seats(), play.trick):
        obs[base + ((s - me) & 3) * 52 + c] = 1
    base = O["last_trick"]
    for s, c in zip(play.last_trick_seats(), play.last_trick):
        obs[base + ((s - me) & 3) * 52 + c] = 1
    if play.plays:
        start = deal.start_hands
        gone = [start[(me + r) & 3] & ~play.hands[(me + r) & 3] for r in range(4)]
        obs[O["played"]:O["played"] + 208] = hands_bits(gone)
    mine, theirs = deal.player_tricks()
    if player == 1:
        mine, theirs = theirs, mine
    obs[O["tricks_taken"] + mine] = 1
    obs[O["tricks_taken"] + 14 + theirs] = 1


class Vint2pKnowledge(ContractFacts, Knowledge):
    """What a two-player Vint player knows (:class:`~vint_env.games.knowledge.Knowledge`, and the way, the
    roles of the seats, the hands he sees, the auction: ``contract``, ``declarer`` 0 he, 1 the opponent).
    Seats are relative to his own seat."""

    @fact
    def phase(self):
        """The phase (a ``Phase`` of :data:`PHASES`; the exchange once the episode is over, all 0)."""
        return PHASES[int(self.o["phase"].argmax())]

    @fact
    def way(self) -> int:
        return int(self.o["way"].argmax()) + 1

    @property
    def single_auction(self) -> bool:
        """Way 1's variant ``auction='single'``: one call each."""
        return bool(self.o["single_auction"][0])

    @fact
    def acting_for(self) -> int:
        """The relative seat he acts for now (0 his own hand, else his dummy)."""
        return int(self.o["acting_for"].argmax())

    @fact
    def roles(self) -> tuple[int, ...]:
        """Each relative seat's role, a column of :data:`ROLES` (``OWN_HAND`` ... ``PILE``)."""
        return tuple(int(row.argmax()) for row in self.o["roles"])

    def seat_of(self, role: int) -> int:
        """The relative seat with ``role`` (the first one; 0 where no seat has it)."""
        return self.roles.index(role) if role in self.roles else 0

    @fact
    def shown(self) -> tuple[bool, ...]:
        """Whether he sees each relative seat's cards now."""
        return tuple(bool(x) for x in self.o["shown"])

    @fact
    def hands(self) -> list[int]:
        """The present cards of each relative seat he sees (0 for a hidden seat)."""
        return [mask_of(row) for row in self.o["hands"]]

    @property
    def hand(self) -> int:
        """His own hand."""
        return self.hands[0]

    @fact
    def my_discards(self) -> int:
        """Ways 2 and 3: the cards he discarded (out of play)."""
        return mask_of(self.o["my_discards"])

    @fact
    def two_hands(self) -> bool:
        """Ways 2 and 3: two hands playing tricks of two cards (the other seats are piles)."""
        return PILE in self.roles

    @property
    def per_trick(self) -> int:
        return 2 if self.two_hands else 4

    @property
    def my_bids(self) -> bool:
        """He has made a bid."""
        return bool(self.o["bids"][0].any())

    @fact
    def winning_bid(self) -> int:
        """Way 5: the action of the bid that won the auction (the final contract is at least this)."""
        return BID_BASE + int(self.o["winning_bid"].argmax())

    @property
    def gives(self) -> int:
        """Way 5: give-aways made so far."""
        return int(self.o["gives"].argmax())

    @property
    def passout_play(self) -> bool:
        return bool(self.o["passout_play"][0])

    def from_seat(self, seat: int) -> list[int]:
        """Seats relative to ``seat`` (the one he acts for) -> seats relative to his own: ``[seat, seat + 1 ..]``."""
        return [(seat + r) & 3 for r in range(4)]

    def trick_from(self, seat: int) -> list[tuple[int, int]]:
        """The trick in progress with its seats relative to ``seat``."""
        return [((s - seat) & 3, c) for s, c in self.trick]


def encode_state(deal: Vint2pDeal, rubber=None) -> np.ndarray:
    """Full information for centralised critics (see :data:`STATE_SIZE`)."""
    state = np.zeros(STATE_SIZE, dtype=np.float32)
    hands = deal.play.hands if deal.play is not None else deal.hands
    state[:208] = hands_bits(hands)
    state[208:260] = mask_bits(deal.widow if deal.widow_to < 0 else 0)
    state[260:364] = hands_bits(deal.discards)
    if deal.current_player >= 0:
        state[364 + deal.current_player] = 1
    encode_observation(deal, 0, rubber, out=state[368:])
    return state


STATE_LAYOUT = Layout("vint2p_v0 state", [
    ("hands", (4, 52), "present hands of the four seats, absolute seats"),
    ("widow", (52,), "way 5: the widow while it lies face down"),
    ("discards", (2, 52), "ways 2 and 3: each player's discards"),
    ("to_move", (4,), "the seat to act, absolute"),
    ("seat0_view", (D,), "player 0's observation"),
])
assert STATE_LAYOUT.size == STATE_SIZE


@dataclass(frozen=True, kw_only=True)
class Vint2pOutcome(BidContractOutcome):
    """What a two-player Vint deal came to: the common part (:class:`~vint_env.games.outcome.DealOutcome`;
    ``dealer`` and ``declarer`` are players 0 and 1, ``points`` and ``breakdown`` per player), the way,
    whether it was passed out, the contract (both from :class:`~vint_env.games.outcome.BidContractOutcome`)
    and the tricks per player (his hand and his dummy).

    >>> o = Vint2pOutcome(way=4, dealer=1, contract=Contract.parse("2S"), declarer=0, player_tricks=(8, 5),
    ...                   made=True)
    >>> o.details, Vint2pOutcome.from_details(o.details) == o
    ({'way': 4, 'dealer': 1, 'passed_out': False, 'contract': '2S', 'level': 2, 'strain': 0, 'declarer': 0, 'player_tricks': [8, 5]}, True)
    """

    way: int = 4
    player_tricks: tuple | None = None

    @classmethod
    def of(cls, deal: Vint2pDeal) -> "Vint2pOutcome":
        points, breakdown = None, {}
        if deal.is_over:
            diff = deal.scores[0].total - deal.scores[1].total
            points = (diff, -diff)
            breakdown = {player: deal.scores[p].as_dict() for p, player in enumerate(("player_0", "player_1"))}
        contract = deal.contract
        tricks = tuple(deal.player_tricks()) if deal.play is not None else None
        declarer = deal.declaring_player if contract is not None else None
        return cls(way=deal.way, dealer=deal.dealer, points=points, breakdown=breakdown,
                   passed_out=bool(deal.passed_out), contract=contract, declarer=declarer, player_tricks=tricks,
                   made=contract_made(contract, tricks, declarer))

    @classmethod
    def from_details(cls, details: dict) -> "Vint2pOutcome":
        d = details
        contract, declarer = cls.contract_from(d)
        tricks = tuple(d["player_tricks"]) if "player_tricks" in d else None
        return cls(way=d["way"], dealer=d["dealer"], passed_out=d["passed_out"], contract=contract,
                   declarer=declarer, player_tricks=tricks, made=contract_made(contract, tricks, declarer))

    @property
    def tricks(self) -> tuple | None:
        return self.player_tricks

    @property
    def details(self) -> dict:
        """Way, dealer, passed out, the contract (text, level, strain) and declaring player, tricks per player."""
        out = {"way": self.way, "dealer": self.dealer, "passed_out": self.passed_out, **self.contract_details()}
        if self.player_tricks is not None:
            out["player_tricks"] = list(self.player_tricks)
        return out


def deal_details(deal: Vint2pDeal) -> dict:
    """The table facts the evaluation reports (:attr:`Vint2pOutcome.details`)."""
    return Vint2pOutcome.of(deal).details


EPISODES = ("deal", "rubber")
REWARD_SCALE = 0.001


def check_option_combination(options: dict) -> None:
    """The options of two-player Vint that are valid alone but not together (OptionError)."""
    if options["auction"] == "single" and options["way"] != 1:
        raise params.OptionError(f"auction='single' is a variant of way 1 only, not way {options['way']}")
    if options["way"] == 5 and options["passout"] == "play":
        raise params.OptionError("way 5 has no passout='play': without the widow the hands hold 12 cards")


GAME = Game(
    name="vint2p", title="Two-player Vint", format=TWO_PLAYER, episodes=EPISODES,
    num_actions=NUM_ACTIONS, action_text=action_text, parse_action=parse_action,
    layout=VINT2P_LAYOUT, state_layout=STATE_LAYOUT,
    encode_observation=encode_observation, encode_state=encode_state,
    points_unit="points", reward_scale=REWARD_SCALE, points_scale=1.0,
    new_deal=Vint2pDeal, new_rubber=Vint2pRubber, outcome=Vint2pOutcome, turns_card=False,
    decoder=Vint2pKnowledge, rule_bot="vint_env.agents.rule.vint2p:Vint2pRuleAgent",
    dd_agent="vint_env.agents.search.vint2p_dd:Vint2pDoubleDummyAgent",
    pimc_agent="vint_env.agents.search.pimc:make_pimc", pimc="vint_env.agents.search.pimc_vint2p:VINT2P",
    calls_help=("pass (or p); bids 1S 1C 1D 1H 1NT .. 7NT, as in Vint; way 2: keep or exchange (your whole\n"
                "            hand for the pile); way 3: a card to discard it and take the pile's top card, keep to stop;\n"
                "            way 5: widow-hand or widow-dummy, then a card to give away, then the final contract"),
    parameters=(
        params.Parameter("way", int, 4, "the way of playing of the books (1..5)", allowed=WAYS),
        params.Parameter("auction", str, "alternating", "way 1 only: the players call in turn until the auction "
                         "ends, or each calls once", allowed=AUCTION_VARIANTS),
        params.episode(EPISODES), *params.vint_variants(), params.reward_scale(REWARD_SCALE),
        params.max_deals(), params.viewer(2, "player")),
    check_combination=check_option_combination,
)

__all__ = ["VINT2P_LAYOUT", "STATE_LAYOUT", "STATE_SIZE", "encode_observation", "encode_state", "ROLES", "WAYS",
           "GAME", "Vint2pKnowledge"]
