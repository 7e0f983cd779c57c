"""The PIMC agent: Perfect Information Monte Carlo card play (agent spec ``pimc``).

At each of its turns in the play the agent

1. builds what it knows from its own observation (never the env), read by
   the game's decoder (``Game.decode``, :mod:`vint_env.games.knowledge`): its
   hand, every card played and by whom, the trick in progress, the voids each
   player has shown by failing to follow suit, the turned card still in the
   Whist dealer's hand, and optionally what the Vint auction says about suit
   lengths (:func:`knowledge`);
2. draws ``samples`` deals of the hidden cards uniformly among all deals
   consistent with that (:class:`~vint_env.agents.search.deal_sampler.DealSampler`,
   exact, seeded);
3. solves every sampled deal double-dummy with DDS, all legal cards of a
   sample in one search (:mod:`vint_env.agents.search.dds_batch`);
4. plays the card whose mean *score* over the samples is best for its side:
   the deal's points (our side minus theirs) if everybody plays
   double-dummy from there, scored by the game's rules engine (Vint: trick
   points, undertricks, slams taken and declared; Whist: tricks over six
   and slams).  Honours and coronets are left out: they do not depend on
   the play, so they shift every card's mean alike.  Ties: the larger mean
   of tricks, then the lowest card.

A card that is forced, or equal to every other legal card (touching cards
with nothing live between them), is played without sampling.  A deal drawn
more than once is solved once.

Two-player Vint (`vint2p_v0`): the position comes from
:func:`~vint_env.agents.search.pimc_vint2p.vint2p_position`; PIMC decides the play
where the four hands sit as two partnerships opposite each other (way 1;
ways 4 and 5 when the dealer declares; solved by DDS) and the tricks of two
cards of ways 2 and 3 (solved by :mod:`~vint_env.agents.search.two_hand_dd`), and
way 5's widow, give-aways and final contract where the dealer declares; the
two-player rule bot makes every other decision (see that module).  The Vint
auction is the rule bot's (:class:`~vint_env.agents.rule.vint.VintRuleAgent`),
or with ``bid=dd`` the rule bot's call or a raise chosen by sampled
double-dummy scores.

Options (spec ``pimc:samples=16,time=0.5,auction=1,seed=7``):

- ``samples`` (default :data:`DEFAULT_SAMPLES`): deals sampled per decision;
- ``time`` (seconds, default none): a budget per decision: samples are
  solved one at a time and sampling stops when the budget is spent (at
  least one sample).  Results then depend on the machine's speed; without
  it they depend only on the seed;
- ``auction`` (0/1, default 0): Vint only: every suit a player bid is
  taken to be at least four cards long in their hand as dealt (the rule
  bot's bidding never names a shorter suit); dropped for a seat where it
  contradicts the play;
- ``bid`` (``rule`` or ``dd``, default ``rule``): Vint only: ``dd`` replaces
  the rule bot's call by a higher bid in a strain the side named when that
  has the better mean score over sampled deals solved double-dummy
  (:func:`sampled_dd_call`);
- ``seed``: the seed when the harness gives none (it gives one per deal).

``agent.stats`` counts card decisions, sampled decisions (not forced),
deals solved, and the wall and CPU seconds spent deciding (decisions per
second: ``stats["decisions"] / stats["cpu_seconds"]``).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ... import games
from ..base import Agent, legal_actions
from ..spec import AgentSpec, kind
from .dds_batch import solve_one, solve_positions
from .deal_sampler import DealSampler, ImpossibleConstraints
from .position import Position, hand_constraints

DEFAULT_SAMPLES = kind("pimc").option("samples").default
BIDDING = kind("pimc").option("bid").allowed


# ----------------------------------------------------------------- the decision

def card_classes(legal: list[int], hand: int, gone: int) -> list[list[int]]:
    """Legal cards grouped into classes of equal value in every deal: cards
    of one suit with nothing between them but the player's own cards and
    cards played in completed tricks (``gone``)."""
    classes: list[list[int]] = []
    for c in sorted(legal):
        if classes:
            prev = classes[-1][-1]
            if prev // 13 == c // 13:
                between = ((1 << c) - 1) & ~((1 << (prev + 1)) - 1)
                if not between & ~(hand | gone):
                    classes[-1].append(c)
                    continue
        classes.append([c])
    return classes


@dataclass
class Decision:
    card: int
    means: dict[int, float]          # representative card -> mean points
    tricks: dict[int, float]         # representative card -> mean tricks from now
    samples: int


def decide(pos: Position, legal: list[int], rng: np.random.Generator, samples: int,
           budget: float | None = None, use_auction: bool = False) -> Decision:
    """The PIMC choice among ``legal`` cards (see the module docstring)."""
    done_gone = pos.gone & ~sum(1 << c for _, c in pos.trick)
    classes = card_classes(legal, pos.hand, done_gone)
    if len(classes) == 1:
        return Decision(classes[0][0], {}, {}, 0)
    try:
        sampler = DealSampler(hand_constraints(pos, use_auction))
    except ImpossibleConstraints:
        if not use_auction:
            raise
        sampler = DealSampler(hand_constraints(pos, False))
    won = pos.side_tricks[0]
    values = {t: pos.points(t) for t in range(won, 14)}
    reps = [cls[0] for cls in classes]
    total = {c: 0.0 for c in reps}
    tricks = {c: 0.0 for c in reps}
    n = 0
    start = _time.perf_counter()
    if budget is None:
        deals = [tuple(sampler.draw(rng)) for _ in range(samples)]
        unique = list(dict.fromkeys(deals))          # a deal drawn twice is solved once
        solved = dict(zip(unique, solve_deals(pos, unique)))
        results = [solved[h] for h in deals]
    else:
        results = _solve_within(sampler, rng, samples, budget, start, pos)
    for res in results:
        n += 1
        for c in reps:
            t = res[c]
            total[c] += values[won + t]
            tricks[c] += t
    means = {c: total[c] / n for c in reps}
    mean_tricks = {c: tricks[c] / n for c in reps}
    best = max(reps, key=lambda c: (round(means[c], 9), round(mean_tricks[c], 9), -(c % 13), -(c // 13)))
    return Decision(best, means, mean_tricks, n)


def solve_deals(pos: Position, deals: list[tuple[int, ...]]) -> list[dict[int, int]]:
    """Card id -> tricks the side to move takes from now, for each deal of the
    hidden cards: DDS in one batch, or tricks of two cards
    (:mod:`~vint_env.agents.search.two_hand_dd`, seat 0 against seat 2)."""
    if pos.two_hands:
        from .two_hand_dd import solve_two_hands
        led = pos.trick[0][1] if pos.trick else -1
        return [solve_two_hands(h[0], h[2], pos.trump, led) for h in deals]
    trick_cards = tuple(c for _, c in pos.trick)
    if len(deals) == 1:
        return [solve_one(deals[0], pos.trump, pos.leader, trick_cards)]
    return solve_positions([(h, pos.trump, pos.leader, trick_cards) for h in deals])


def _solve_within(sampler, rng, samples, budget, start, pos):
    out = []
    solved: dict = {}
    while len(out) < samples:
        h = tuple(sampler.draw(rng))
        if h not in solved:
            solved[h] = solve_deals(pos, [h])[0]
        out.append(solved[h])
        if _time.perf_counter() - start >= budget:
            break
    return out


# ----------------------------------------------------------------- the agent


class PIMCAgent(Agent):
    """Perfect Information Monte Carlo play for every game whose record names a PIMC plan (see the module
    docstring): ``game.pimc``, its position builder and the agent of its other decisions."""

    name = "pimc"

    def __init__(self, game: str = "vint", samples: int = DEFAULT_SAMPLES, time: float | None = None,
                 auction: bool = False, bid: str = "rule", seed: int | None = None):
        record = games.get(game)
        plan = record.pimc_plan()             # ValueError naming the games PIMC plays
        # the declared options of spec kind 'pimc': type and range, for a spec and a direct call alike
        checked = AgentSpec("pimc", None, (("samples", samples), ("time", time), ("auction", auction),
                                           ("bid", bid), ("seed", seed)))
        samples, time, auction, bid, seed = (checked.option(k) for k in ("samples", "time", "auction", "bid", "seed"))
        for option, given, default in (("auction", auction, False), ("bid", bid, "rule")):
            if given != default and option not in plan.options:
                raise ValueError(plan.refused.get(option) or _refused(option, given, record.name))
        self.bid = bid
        self.game = record.name
        self.samples = samples
        self.budget = time
        self.auction = auction
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.plan = plan
        self.position_of = plan.position
        self.record = record
        self.layout = record.layout
        self.bidder: Agent | None = plan.bidder(self) if plan.bidder is not None else None
        self.stats = {"decisions": 0, "sampled": 0, "samples": 0, "seconds": 0.0, "cpu_seconds": 0.0}
        self.stats.update({key: 0 for key in plan.stats})
        self.last: Decision | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.bidder is not None:
            self.bidder.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        k = self.record.decode(observation["observation"])
        if not self.plan.in_play(k):          # a call, an exchange ...: the game's bidder decides
            return int(self.bidder.act(observation, agent=agent))
        start, cpu = _time.perf_counter(), _time.process_time()
        pos = self.position_of(k)
        if not pos.solvable:
            self.stats["rule_cards"] += 1
            return self.bidder.act(observation, agent=agent)
        decision = decide(pos, legal, self.rng, self.samples, self.budget, self.auction)
        self.last = decision
        s = self.stats
        s["decisions"] += 1
        s["sampled"] += decision.samples > 0
        s["samples"] += decision.samples
        s["seconds"] += _time.perf_counter() - start
        s["cpu_seconds"] += _time.process_time() - cpu
        if decision.card not in legal:
            raise RuntimeError(f"pimc chose {decision.card}, not legal ({legal})")
        return decision.card


def _refused(option: str, value, game: str) -> str:
    having = [g.title for g in games.all_games() if g.pimc is not None and option in g.pimc_plan().options]
    if option == "auction":
        return f"pimc option auction=1 needs an auction: {', '.join(having)} only"
    return f"pimc option {option}={value} is implemented for {', '.join(having)} only, not {game!r}"


def make_pimc(game, spec: AgentSpec, seed: int | None = None) -> PIMCAgent:
    """The agent of spec ``pimc[:OPTIONS]`` (parsed: :class:`~vint_env.agents.spec.AgentSpec`)."""
    opts = spec.given
    if seed is not None and "seed" not in opts:
        opts["seed"] = seed
    return PIMCAgent(game, **opts)


__all__ = ["PIMCAgent", "make_pimc", "decide", "hand_constraints", "card_classes", "Position", "DEFAULT_SAMPLES"]
