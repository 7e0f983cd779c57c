"""Vint's record (:data:`GAME`) and its observation and state encoding (`vint_v0`).

Seat-relative: in every block indexed by a seat, index 0 is the observer,
1 the player on their left, 2 their partner, 3 the player on their right.
Cards are indexed by card id (``suit * 13 + rank``), bids by their index
0..34 (1S 1C 1D 1H 1NT 2S ... 7NT).  Only what the observer may know is
encoded: their own hand and the public calls and plays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import NO_TRUMP
from ..rules.vint import (AUCTION, BID_BASE, NUM_ACTIONS, PASS, PLAY, Contract, VintDeal, VintRubber, action_text,
                          parse_action)
from .knowledge import Knowledge, fact, one_hot
from .layout import Layout, mask_bits
from .obs_blocks import (PLAY_BLOCKS, SIDE_TRICKS_BLOCK, TRACKING_BLOCKS, encode_play, encode_rubber,
                         encode_side_tricks, encode_tracking_hands, rubber_blocks, state_layout, write_state)
from . import params
from .outcome import BidContractOutcome, contract_made, partnership_points
from .record import PARTNERSHIP, Game

MAX_MARKS = 7
GAME_TARGET = 500   # docs/rules/vint.md, Scoring item 6

VINT_LAYOUT = Layout("vint_v0 observation", [
    ("phase", (2,), "1 in the auction / play column (both 0 once the episode is over)"),
    ("dealer", (4,), "dealer, relative seat"),
    ("to_move", (4,), "player to act, relative seat"),
    ("hand", (52,), "cards the observer holds now"),
    ("bids", (4, 35), "bids[r, b] = 1 if relative seat r made bid b (the auction is recoverable: "
                      "bids only rise, so dealer, bids and pass_count fix every call)"),
    ("pass_count", (4,), "passes in a row since the last call that was not a pass (0..3), one-hot"),
    ("contract", (35,), "highest bid so far; the contract once play starts"),
    ("declarer", (4,), "maker of the highest bid; the declarer in play"),
    ("trump", (5,), "in play: trump suit S, C, D, H, or no-trump"),
    ("passout_play", (1,), "1 when a passed-out deal is played at no-trump (variant passout='play')"),
    *PLAY_BLOCKS,
    *TRACKING_BLOCKS,
    SIDE_TRICKS_BLOCK,
    *rubber_blocks(GAME_TARGET),
    ("marks", (MAX_MARKS + 1,), "pass-out marks written so far, one-hot 0..7 (7 = 7 or more)"),
])

O = VINT_LAYOUT.offset
D = VINT_LAYOUT.size
STATE_LAYOUT = state_layout("vint_v0", VINT_LAYOUT)
STATE_SIZE = STATE_LAYOUT.size


def encode_observation(deal: VintDeal, seat: int, rubber=None, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``seat`` (float32, 0/1 except `below_line`)."""
    obs = np.zeros(D, dtype=np.float32) if out is None else out
    phase = deal.phase
    to_move = deal.current_player
    obs[O["dealer"] + ((deal.dealer - seat) & 3)] = 1
    if to_move >= 0:
        obs[O["to_move"] + ((to_move - seat) & 3)] = 1
    for s, action in deal.calls:
        if action >= BID_BASE:
            obs[O["bids"] + ((s - seat) & 3) * 35 + action - BID_BASE] = 1
    if deal.highest >= 0:
        obs[O["contract"] + deal.highest - BID_BASE] = 1
        obs[O["declarer"] + ((deal.highest_bidder - seat) & 3)] = 1
    play = deal.play
    if phase == AUCTION:
        obs[O["phase"]] = 1
        obs[O["hand"]:O["hand"] + 52] = mask_bits(deal.hands[seat])
        obs[O["pass_count"] + min(deal.passes, 3)] = 1
    elif play is not None:
        if phase == PLAY:
            obs[O["phase"] + 1] = 1
        obs[O["trump"] + play.trump] = 1
        obs[O["passout_play"]] = deal.passed_out
        obs[O["hand"]:O["hand"] + 52] = mask_bits(play.hands[seat])
        obs[O["pass_count"] + 3] = 1
        encode_play(obs, O, play, deal.hands, seat)
        encode_side_tricks(obs, O, play.tricks_won, seat)
    else:  # passed out, not played
        obs[O["hand"]:O["hand"] + 52] = mask_bits(deal.hands[seat])
        obs[O["pass_count"] + 3] = 1
    encode_tracking_hands(obs, O, play.hands if play is not None else deal.hands, play, seat)
    if rubber is not None:
        encode_rubber(obs, O, rubber.sheet, seat, GAME_TARGET)
        obs[O["marks"] + min(rubber.sheet.marks, MAX_MARKS)] = 1
    return obs


def reconstruct_calls(dealer: int, bids: np.ndarray, pass_count: int) -> list[tuple[int, int]]:
    """Every call of the auction from the observation (relative seats).

    The dealer calls first; bids only rise, so the bidders in bid order and
    the passes in a row after the last bid fix the whole sequence.
    """
    made = sorted((int(b), int(r)) for r, b in zip(*np.nonzero(bids)))
    calls: list[tuple[int, int]] = []
    seat = dealer
    for b, bidder in made:
        while seat != bidder:
            calls.append((seat, PASS))
            seat = (seat + 1) % 4
        calls.append((bidder, BID_BASE + b))
        seat = (seat + 1) % 4
    for _ in range(pass_count):
        calls.append((seat, PASS))
        seat = (seat + 1) % 4
    return calls


class ContractFacts:
    """The `contract` and `declarer` blocks of the Vint layouts (four-player and two-player Vint)."""

    @fact
    def contract(self) -> Contract | None:
        """The highest bid so far (the contract once play starts); None before the first bid."""
        index = one_hot(self.o["contract"])
        return None if index is None else Contract.from_index(index)

    @fact
    def declarer(self) -> int | None:
        """Who made the highest bid (the declarer in play): a relative seat (two-player Vint: 0 the
        observer, 1 the opponent); None before the first bid."""
        return one_hot(self.o["declarer"])


class VintKnowledge(ContractFacts, Knowledge):
    """What a Vint player knows (:class:`~vint_env.games.knowledge.Knowledge`, and the auction)."""

    @property
    def in_auction(self) -> bool:
        return bool(self.o["phase"][0])

    @fact
    def dealer(self) -> int:
        return int(self.o["dealer"].argmax())

    @fact
    def calls(self) -> list[tuple[int, int]]:
        """The auction so far: ``(relative seat, action)`` in calling order."""
        return reconstruct_calls(self.dealer, self.o["bids"], int(self.o["pass_count"].argmax()))

    @fact
    def named(self) -> list[tuple[int, ...]]:
        """The suits each relative seat named in its bids, in the order first named (no-trump is no suit)."""
        out: list[list[int]] = [[], [], [], []]
        for r, b in zip(*np.nonzero(self.o["bids"])):
            strain = Contract.from_index(b).strain
            if strain != NO_TRUMP and strain not in out[int(r)]:
                out[int(r)].append(strain)
        return [tuple(suits) for suits in out]

    @property
    def passout_play(self) -> bool:
        """A passed-out deal played at no-trump (variant ``passout='play'``)."""
        return bool(self.o["passout_play"][0])


def encode_state(deal: VintDeal, rubber=None) -> np.ndarray:
    """Full information for centralised critics, laid out as :data:`STATE_LAYOUT`."""
    hands = deal.play.hands if deal.play is not None else deal.hands
    return write_state(STATE_LAYOUT, hands, deal.current_player,
                       lambda out: encode_observation(deal, 0, rubber, out=out))


@dataclass(frozen=True, kw_only=True)
class VintOutcome(BidContractOutcome):
    """What a Vint deal came to: the common part (:class:`~vint_env.games.outcome.DealOutcome`), whether it
    was passed out, the contract (a :class:`~vint_env.rules.vint.Contract`; both from
    :class:`~vint_env.games.outcome.BidContractOutcome`) and the tricks per side (N/S, E/W; None before
    the play).

    >>> o = VintOutcome(dealer=0, passed_out=False, contract=Contract.parse("3NT"), declarer=1,
    ...                 side_tricks=(4, 9), made=True)
    >>> o.contract_name, o.details["side_tricks"], VintOutcome.from_details(o.details) == o
    ('3NT', [4, 9], True)
    """

    side_tricks: tuple | None = None

    @classmethod
    def of(cls, deal: VintDeal) -> "VintOutcome":
        points, breakdown = partnership_points(deal) if deal.is_over else (None, {})
        contract = deal.contract
        tricks = tuple(deal.play.side_tricks()) if deal.play is not None else None
        declarer = deal.declarer if contract is not None else None
        return cls(dealer=deal.dealer, points=points, breakdown=breakdown, passed_out=bool(deal.passed_out),
                   contract=contract, declarer=declarer, side_tricks=tricks,
                   made=contract_made(contract, tricks, None if declarer is None else declarer & 1))

    @classmethod
    def from_details(cls, details: dict) -> "VintOutcome":
        d = details
        contract, declarer = cls.contract_from(d)
        tricks = tuple(d["side_tricks"]) if "side_tricks" in d else None
        return cls(dealer=d["dealer"], passed_out=d["passed_out"], contract=contract, declarer=declarer,
                   side_tricks=tricks,
                   made=contract_made(contract, tricks, None if declarer is None else declarer & 1))

    @property
    def tricks(self) -> tuple | None:
        return self.side_tricks

    @property
    def details(self) -> dict:
        """Dealer, passed out, the contract (its text, level, strain) and declarer, the tricks per side."""
        out = {"dealer": self.dealer, "passed_out": self.passed_out, **self.contract_details()}
        if self.side_tricks is not None:
            out["side_tricks"] = list(self.side_tricks)
        return out


def deal_details(deal: VintDeal) -> dict:
    """The table facts the evaluation reports (:attr:`VintOutcome.details`)."""
    return VintOutcome.of(deal).details


EPISODES = ("deal", "rubber")
REWARD_SCALE = 0.001

GAME = Game(
    name="vint", title="Vint", format=PARTNERSHIP, episodes=EPISODES,
    num_actions=NUM_ACTIONS, action_text=action_text, parse_action=parse_action,
    layout=VINT_LAYOUT, state_layout=STATE_LAYOUT,
    encode_observation=encode_observation, encode_state=encode_state,
    points_unit="points", reward_scale=REWARD_SCALE, points_scale=1.0,
    new_deal=VintDeal, new_rubber=VintRubber, outcome=VintOutcome, turns_card=False,
    decoder=VintKnowledge, rule_bot="vint_env.agents.rule.vint:VintRuleAgent",
    summary="vint_env.evaluation.report:vint_contract_sections",
    dd_agent="vint_env.agents.search.double_dummy:DoubleDummyAgent",
    pimc_agent="vint_env.agents.search.pimc:make_pimc", pimc="vint_env.agents.search.pimc_games:VINT",
    search="vint_env.agents.search.search_games:VINT",
    engine="vint_env.vector.engine:VintEngine", engine_code=0,
    analysis="vint_env.evaluation.vint_analysis:add_dd_analysis",
    calls_help="pass (or p); bids 1S 1C 1D 1H 1NT .. 7NT (level and strain S C D H NT)",
    parameters=(params.episode(EPISODES), *params.vint_variants(), params.reward_scale(REWARD_SCALE),
                params.max_deals(), params.viewer()),
)
