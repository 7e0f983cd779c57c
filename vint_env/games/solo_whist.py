"""Solo Whist's record (:data:`GAME`) and its observation and state encoding (`solo_whist_v0`).

Seat-relative: in every block indexed by a seat, index 0 is the observer,
1 the player on their left, 2 the player opposite, 3 the player on their
right (in Solo Whist the player opposite is not a partner unless the
auction makes them one).  Cards are indexed by card id.  Only what the
observer may know is encoded: their own hand, the turned card while face up,
the calls, the cards played and, in open misère after the first trick, the
declarer's hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.solo_whist import AUCTION, PLAY, TRUMP, SoloWhistDeal
from ..rules.solo_whist_payments import PAYMENT_VARIANTS
from ..rules.solo_whist_calls import ACCEPT, BIDS, CALL_NAMES, NUM_ACTIONS, action_text, bid_index, parse_action
from .knowledge import Knowledge, fact, one_hot, seats_of
from .layout import Layout, mask_bits
from .obs_blocks import PLAY_BLOCKS, TRACKING_BLOCKS, encode_play, encode_tracking_hands, state_layout, write_state
from . import params
from .outcome import DealOutcome
from .record import SOLO, Game

CALL_COLUMNS = ("proposal", "acceptance", "solo", "misère", "abondance", "trump abondance",
                "open misère", "abondance déclarée")

SOLO_WHIST_LAYOUT = Layout("solo_whist_v0 observation", [
    ("phase", (3,), "1 in the auction / trump choice / play column (all 0 once the episode is over)"),
    ("dealer", (4,), "dealer, relative seat (eldest hand is the dealer's left)"),
    ("to_move", (4,), "player to act, relative seat"),
    ("hand", (52,), "cards the observer holds now"),
    ("turned_card", (52,), "the dealer's turned card, one-hot (its suit is the turned trump)"),
    ("turned_holder", (4,), "relative seat holding the turned card face up (the dealer), all 0 once played"),
    ("calls", (4, 8), "calls[r, k] = 1 if relative seat r made call k: proposal, acceptance, solo, misère, "
                      "abondance, trump abondance, open misère, abondance déclarée (bids only rise)"),
    ("passed", (4,), "relative seats that have passed (out of the auction; eldest hand may still accept)"),
    ("must_raise", (1,), "1 when an unaccepted proposal sends the turn back to the proposer: bid higher or pass"),
    ("highest", (7,), "highest bid so far (the contract once the auction is over): proposal, solo, misère, "
                      "abondance, trump abondance, open misère, abondance déclarée"),
    ("declaring", (4,), "relative seats holding the highest bid: the bidder and an accepting partner; "
                        "the declaring side once the auction is over"),
    ("with_me", (4,), "once the auction is over: relative seats on the observer's side (observer included)"),
    ("trump", (5,), "in play: trump suit S, C, D, H, or no trump"),
    ("exposed_seat", (4,), "relative seat whose hand is shown (open misère, after the first trick)"),
    ("exposed", (52,), "the shown hand's cards now"),
    *PLAY_BLOCKS,
    *TRACKING_BLOCKS,
    ("tricks_taken", (4, 14), "tricks taken by each relative seat, one-hot 0..13"),
])

O = SOLO_WHIST_LAYOUT.offset
D = SOLO_WHIST_LAYOUT.size
STATE_LAYOUT = state_layout("solo_whist_v0", SOLO_WHIST_LAYOUT)
STATE_SIZE = STATE_LAYOUT.size
_CALL_COLUMN = {action: i for i, action in enumerate((BIDS[0], ACCEPT, *BIDS[1:]))}
_PHASE_COLUMN = {AUCTION: 0, TRUMP: 1, PLAY: 2}


def encode_observation(deal: SoloWhistDeal, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``seat`` (float32, all entries 0/1)."""
    obs = np.zeros(D, dtype=np.float32) if out is None else out
    play = deal.play
    if deal.phase in _PHASE_COLUMN:
        obs[O["phase"] + _PHASE_COLUMN[deal.phase]] = 1
        obs[O["to_move"] + ((deal.current_player - seat) & 3)] = 1
    obs[O["dealer"] + ((deal.dealer - seat) & 3)] = 1
    hand = play.hands[seat] if play is not None else deal.hands[seat]
    obs[O["hand"]:O["hand"] + 52] = mask_bits(hand)
    obs[O["turned_card"] + deal.turned_card] = 1
    if deal.turned_card_in_hand:
        obs[O["turned_holder"] + ((deal.dealer - seat) & 3)] = 1
    for s, action in deal.calls:
        if action in _CALL_COLUMN:
            obs[O["calls"] + ((s - seat) & 3) * 8 + _CALL_COLUMN[action]] = 1
    for s in range(4):
        if deal.passed[s]:
            obs[O["passed"] + ((s - seat) & 3)] = 1
    obs[O["must_raise"]] = deal.proposer_asked
    if deal.highest >= 0:
        obs[O["highest"] + bid_index(deal.highest)] = 1
    declaring = deal.declaring_seats
    for s in declaring:
        obs[O["declaring"] + ((s - seat) & 3)] = 1
    if deal.contract >= 0:
        mine = seat in declaring
        for s in range(4):
            if (s in declaring) == mine:
                obs[O["with_me"] + ((s - seat) & 3)] = 1
    if play is not None:
        obs[O["trump"] + play.trump] = 1
        if deal.hand_shown:
            obs[O["exposed_seat"] + ((deal.declarer - seat) & 3)] = 1
            obs[O["exposed"]:O["exposed"] + 52] = mask_bits(deal.exposed_hand)
        encode_play(obs, O, play, deal.hands, seat)
        encode_seat_tricks(obs, O, play.tricks_won, seat)
    # Face up for everybody: the turned card until it is played, an open misère hand once shown.
    seen = 1 << deal.turned_card | (deal.exposed_hand if play is not None else 0)
    encode_tracking_hands(obs, O, play.hands if play is not None else deal.hands, play, seat, seen)
    return obs


class SoloWhistKnowledge(Knowledge):
    """What a Solo Whist player knows (:class:`~vint_env.games.knowledge.Knowledge`, the turned trump, the
    contract and the sides)."""

    @fact
    def phase(self) -> int:
        """0 the auction, 1 the trump choice, 2 the play, -1 once the episode is over."""
        phase = one_hot(self.o["phase"])
        return -1 if phase is None else phase

    @property
    def turned_trump(self) -> int:
        """The suit of the dealer's turned card (the turned trump)."""
        return int(self.o["turned_card"].argmax()) // 13

    @fact
    def contract(self) -> int:
        """The highest bid (the contract once the auction is over), a call id of ``BIDS``."""
        return BIDS[int(self.o["highest"].argmax())]

    @fact
    def declaring(self) -> list[int]:
        """The relative seats holding the highest bid (the declaring side once the auction is over)."""
        return seats_of(self.o["declaring"])

    @fact
    def declarer(self) -> int | None:
        """The observer (0) if declaring, else the first declaring relative seat; None before a bid."""
        return 0 if 0 in self.declaring else (self.declaring[0] if self.declaring else None)

    @fact
    def partners(self) -> frozenset[int]:
        """The relative seats on the observer's side, once the auction is over."""
        return frozenset(set(seats_of(self.o["with_me"])) - {0})


def encode_seat_tricks(obs: np.ndarray, o: dict, tricks_won, seat: int) -> None:
    """Write the `tricks_taken` block: each relative seat's tricks, one-hot 0..13."""
    for r in range(4):
        obs[o["tricks_taken"] + r * 14 + tricks_won[(seat + r) & 3]] = 1


def encode_state(deal: SoloWhistDeal) -> np.ndarray:
    """Full information for centralised critics, laid out as :data:`STATE_LAYOUT`."""
    hands = deal.play.hands if deal.play is not None else deal.hands
    return write_state(STATE_LAYOUT, hands, deal.current_player,
                       lambda out: encode_observation(deal, 0, out=out))


@dataclass(frozen=True, kw_only=True)
class SoloWhistOutcome(DealOutcome):
    """What a Solo Whist deal came to: the common part (:class:`~vint_env.games.outcome.DealOutcome`: the
    payments in quarter points are its ``points``), whether all passed (thrown in), the contract's name,
    the declaring seats (the declarer and an accepting partner) and the tricks per seat.

    >>> o = SoloWhistOutcome(dealer=0, contract="solo", declaring=(2,), declarer=2, made=True,
    ...                      tricks_won=(3, 1, 5, 4))
    >>> o.contract_name, o.details["declaring"], SoloWhistOutcome.from_details(o.details) == o
    ('solo', [2], True)
    """

    thrown_in: bool = False
    contract: str | None = None
    declaring: tuple = ()
    tricks_won: tuple | None = None

    @classmethod
    def of(cls, deal: SoloWhistDeal) -> "SoloWhistOutcome":
        over = deal.is_over
        declared = deal.contract >= 0
        return cls(dealer=deal.dealer, thrown_in=bool(deal.thrown_in),
                   points=tuple(deal.payments) if over else None,
                   breakdown={f"seat{s}": p for s, p in enumerate(deal.payments)} if over else {},
                   contract=CALL_NAMES[deal.contract] if declared else None,
                   declaring=tuple(deal.declaring_seats) if declared else (),
                   declarer=deal.declarer if declared else None, made=bool(deal.made) if declared else None,
                   tricks_won=tuple(deal.play.tricks_won) if deal.play is not None else None)

    @classmethod
    def from_details(cls, details: dict) -> "SoloWhistOutcome":
        d = details
        declared = "contract" in d
        return cls(dealer=d["dealer"], thrown_in=d["thrown_in"], contract=d.get("contract"),
                   declaring=tuple(d["declaring"]) if declared else (), declarer=d.get("declarer"),
                   made=d.get("made"), tricks_won=tuple(d["tricks_won"]) if "tricks_won" in d else None)

    @property
    def tricks(self) -> tuple | None:
        return self.tricks_won

    @property
    def status(self) -> str | None:
        return "thrown in" if self.thrown_in else None

    @property
    def details(self) -> dict:
        """Dealer, thrown in, the contract, declaring seats, declarer and made, the tricks per seat."""
        out: dict = {"dealer": self.dealer, "thrown_in": self.thrown_in}
        if self.contract is not None:
            out.update(contract=self.contract, declaring=list(self.declaring), declarer=self.declarer,
                       made=self.made)
        if self.tricks_won is not None:
            out["tricks_won"] = list(self.tricks_won)
        return out


def deal_details(deal: SoloWhistDeal) -> dict:
    """The table facts the evaluation reports (:attr:`SoloWhistOutcome.details`)."""
    return SoloWhistOutcome.of(deal).details


REWARD_SCALE = 0.25

GAME = Game(
    name="solo_whist", title="Solo Whist", format=SOLO, episodes=("deal",),
    num_actions=NUM_ACTIONS, action_text=action_text, parse_action=parse_action,
    layout=SOLO_WHIST_LAYOUT, state_layout=STATE_LAYOUT,
    encode_observation=encode_observation, encode_state=encode_state,
    # Solo Whist settles in quarter points; the default scale 0.25 gives rewards in points.
    points_unit="quarter points", reward_scale=REWARD_SCALE, points_scale=0.25,
    new_deal=SoloWhistDeal, new_rubber=None, outcome=SoloWhistOutcome, turns_card=True,
    decoder=SoloWhistKnowledge, rule_bot="vint_env.agents.rule.solo_whist:SoloWhistRuleAgent",
    summary="vint_env.evaluation.report:solo_contract_sections",
    engine="vint_env.vector.engine:SoloWhistEngine", engine_code=2,
    engine_rule_bot="vint_env.vector.solo_whist_rule:SoloWhistRuleBot",
    calls_help=("pass, proposal, accept, solo, misere, abondance, trump abondance, open misere, "
                "declaree;\n            after an abondance, the trump: trump S / trump C / trump D / trump H"),
    parameters=(
        params.Parameter("payments", str, "symmetric", "who pays whom: every opponent alike, or the book's "
                         "literal table", allowed=PAYMENT_VARIANTS),
        params.reward_scale(REWARD_SCALE, "quarter points"), params.viewer()),
)

__all__ = ["GAME", "SOLO_WHIST_LAYOUT", "STATE_LAYOUT", "STATE_SIZE", "encode_observation", "encode_seat_tricks",
           "encode_state"]
