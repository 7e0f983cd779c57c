"""PIMC's plans of Vint and Whist: the position builder and the agent of every decision that is not a card.

A :class:`PimcPlan` is what the game-agnostic :class:`~vint_env.agents.search.pimc.PIMCAgent`
needs to know of a game; the game record names it (``Game.pimc``).  Two-player Vint's plan is
in :mod:`.pimc_vint2p`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...games.knowledge import Knowledge
from ...games.vint import VintKnowledge
from ...games.whist import WhistKnowledge
from ...rules.vint import Contract
from ..base import Agent
from .deal_sampler import DealSampler, HandConstraints, ImpossibleConstraints
from .position import Position, play_common

__all__ = ["PimcPlan", "RuleCaller", "VINT", "WHIST", "vint_position", "whist_position", "sampled_dd_call"]


@dataclass(frozen=True)
class PimcPlan:
    """What PIMC needs to know of one game.

    ``in_play(k)``: is what the player knows (the game's decoder, ``Game.decode``) at a card-play
    decision (else ``bidder`` decides); ``position(k)``: the :class:`Position` of a play decision; ``bidder(pimc)``: the agent
    of every other decision (calls, exchanges ...; None where there are none), built for the
    :class:`PIMCAgent` ``pimc`` (its generator, samples and stats); ``options``: the PIMC options
    this game has besides ``samples``, ``time`` and ``seed`` (``auction``, ``bid``); ``refused``:
    why an option it lacks is refused, where a reason says more than "not here";
    ``stats``: the game's own counters in ``pimc.stats``.
    """

    in_play: Callable[[Knowledge], bool]
    position: Callable[[Knowledge], Position]
    bidder: Callable[..., Agent] | None = None
    options: frozenset = frozenset()
    refused: dict = field(default_factory=dict)
    stats: tuple[str, ...] = ()


def vint_position(k: VintKnowledge) -> Position:
    """A Vint play decision from what the player knows."""
    from ...rules.vint_scoring import score_contract, score_passout_play
    common = play_common(k)
    if k.passout_play:
        def points(ours: int) -> int:
            a, b = score_passout_play((ours, 13 - ours))
            return a.total - b.total
    else:
        level, strain = k.contract
        declarer = k.declarer
        no_hands = (0, 0, 0, 0)         # honours and coronets: constant over the play, left out

        def points(ours: int) -> int:
            a, b = score_contract(no_hands, level, strain, declarer, (ours, 13 - ours))
            return a.total - b.total
    min_length = {(seat, suit): 4 for seat in range(4) for suit in k.named[seat]}
    return Position(**common, points=points, min_length=min_length)


def whist_position(k: WhistKnowledge) -> Position:
    """A Whist play decision from what the player knows."""
    from ...rules.whist_scoring import score_whist
    common = play_common(k)
    trump = common["trump"]
    known = {}
    if k.turned is not None and k.turned[0] != 0:
        holder, card = k.turned
        known[holder] = 1 << card

    def points(ours: int) -> int:
        a, b = score_whist((0, 0, 0, 0), trump, (ours, 13 - ours))
        return a.total - b.total
    return Position(**common, points=points, known=known)


# ----------------------------------------------------------------- Vint bidding (option bid=dd)

def sampled_dd_call(k: VintKnowledge, rule_call: int, rng: np.random.Generator, samples: int,
                    budget: float | None = None) -> int:
    """The rule bot's call, or a higher bid in a strain the rule bot or our
    side named, whichever has the best mean score over sampled deals if the
    auction ended with it (contracts scored by the rules engine with the
    sample's double-dummy tricks, honours and coronets included).

    Samples: the player's hand, and every suit bid by a player at least four
    cards long in that player's hand (dropped if impossible).  Only the call
    the rule bot would make and raises over it are considered: the rule
    bot's judgement decides whether the side enters the auction at all.

    ``budget``: seconds the decision may take; deals are then solved a few at a time until it is spent
    (at least one batch).
    """
    from ...cards import NO_TRUMP as NT
    from ...rules.vint import BID_BASE, PASS, bid_action
    from ...rules.vint_scoring import score_contract
    from .double_dummy import _ep_denom, _pbn
    from ..rule.vint import VintRuleAgent
    from endplay.dds import calc_all_tables
    from endplay.types import Deal as EPDeal

    view = VintRuleAgent.auction_view(k)
    strains = {strain for seat in (0, 2) for _, strain in view.bids_of(seat)}
    if rule_call >= BID_BASE:
        strains.add(Contract.from_action(rule_call).strain)
    if not strains:
        return rule_call
    candidates = {rule_call}
    for strain in strains:
        for level in range(view.min_level(strain), 8):
            candidates.add(bid_action(level, strain))
    if view.highest is not None:
        strains.add(Contract.from_action(view.highest).strain)
    k = HandConstraints(known=[view.hand, 0, 0, 0], size=[13, 13, 13, 13])
    for seat in (1, 2, 3):
        for _, strain in view.bids_of(seat):
            if strain != NT:
                k.at_least(seat, strain, 4)
    try:
        sampler = DealSampler(k)
    except ImpossibleConstraints:
        sampler = DealSampler(HandConstraints(known=[view.hand, 0, 0, 0], size=[13, 13, 13, 13]))
    exclude = [_ep_denom(s) for s in range(5) if s not in strains]
    start = time.perf_counter()
    deals, tables = [], []
    batch = samples if budget is None else 4
    while len(deals) < samples:
        more = [tuple(sampler.draw(rng)) for _ in range(min(batch, samples - len(deals)))]
        tables += list(calc_all_tables([EPDeal(_pbn(h)) for h in more], exclude=exclude))
        deals += more
        if budget is not None and time.perf_counter() - start >= budget:
            break
    totals = {c: 0.0 for c in candidates}
    for hands, table in zip(deals, tables):
        tricks = table.to_list()
        for call in candidates:
            if call == PASS:
                if view.highest is None:
                    continue
                action, declarer = view.highest, view.highest_by
            else:
                action, declarer = call, 0
            level, strain = Contract.from_action(action)
            t = tricks[int(_ep_denom(strain))][declarer]
            ours = t if declarer % 2 == 0 else 13 - t
            a, b = score_contract(hands, level, strain, declarer, (ours, 13 - ours))
            totals[call] += a.total - b.total
    if rule_call == PASS and view.highest is None:
        return rule_call
    return max(candidates, key=lambda c: (totals[c], c == rule_call, -c))


class RuleCaller(Agent):
    """The agent of a game's decisions before the play in PIMC: the game's rule bot (a game's plan
    may override some of them, as Vint's ``bid=dd`` and two-player Vint's way 5)."""

    name = "pimc-calls"

    def __init__(self, pimc):
        from ... import games
        self.pimc = pimc
        self.rule = games.get(pimc.game).rule_agent()

    def reset(self, seed: int | None = None) -> None:
        self.rule.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        return self.rule.act(observation, agent=agent)


class VintCaller(RuleCaller):
    """Vint's calls in PIMC: the rule bot's, or with ``bid=dd`` a raise chosen by :func:`sampled_dd_call`."""

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        call = self.rule.act(observation, agent=agent)
        if self.pimc.bid == "dd":
            k = self.pimc.record.decode(observation["observation"])
            call = sampled_dd_call(k, call, self.pimc.rng, self.pimc.samples, self.pimc.budget)
            if not observation["action_mask"][call]:
                raise RuntimeError(f"pimc bid {call}, not legal ({np.flatnonzero(observation['action_mask'])})")
        return call


VINT = PimcPlan(in_play=lambda k: not k.in_auction, position=vint_position, bidder=VintCaller,
                options=frozenset({"auction", "bid"}))
WHIST = PimcPlan(in_play=lambda k: True, position=whist_position)


def _pimc_games():
    from ... import games
    return [g for g in games.all_games() if g.pimc is not None]


def __getattr__(name):
    """``PIMC_GAMES``: the games PIMC plays; ``POSITION_OF``: the position builders of the four-hand
    partnership games (their card decisions get double-dummy values), both read from the game records."""
    if name == "PIMC_GAMES":
        return tuple(g.name for g in _pimc_games())
    if name == "POSITION_OF":
        return {g.name: g.pimc_plan().position for g in _pimc_games() if g.partnership}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
