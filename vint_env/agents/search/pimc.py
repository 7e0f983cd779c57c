"""The PIMC agent: Perfect Information Monte Carlo card play (agent spec ``pimc``).

At each of its turns in the play the agent

1. builds what it knows from its own observation (never the env): its hand,
   every card played and by whom, the trick in progress, the voids each
   player has shown by failing to follow suit (remembered trick by trick),
   the turned card still in the Whist dealer's hand, and optionally what
   the Vint auction says about suit lengths (:func:`knowledge`);
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

from ...cards import SUIT_MASK
from ...rules.vint import Contract
from ...rules.vint_scoring import NT
from ..base import Agent, legal_actions
from .dds_batch import solve_one, solve_positions
from .deal_sampler import DealSampler, ImpossibleKnowledge, Knowledge
from ..rule.play_view import SeatMemories, TrickMemory, current_trick, mask_of

DEFAULT_SAMPLES = 12
BIDDING = ("rule", "dd")
GAMES = ("vint", "whist", "vint2p")


# ----------------------------------------------------------------- what the player sees

@dataclass
class Position:
    """One decision in the play, in seats relative to the player (0 me,
    1 left, 2 partner, 3 right; side 0 is seats 0 and 2)."""

    hand: int
    played: list[int]                 # cards each seat has played (the trick in progress included)
    trick: list[tuple[int, int]]      # (seat, card) of the trick in progress
    trump: int                        # suit 0..3 or NO_TRUMP
    side_tricks: tuple[int, int]      # tricks won so far by our side and theirs
    points: Callable[[int], int]      # our side's total tricks -> our points minus theirs
    known: dict[int, int] = field(default_factory=dict)   # seat -> cards it is known to hold
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    min_length: dict[tuple[int, int], int] = field(default_factory=dict)   # (seat, suit) -> length as dealt
    size: list[int] | None = None     # cards each seat holds now (default: 13 minus its played cards)
    solvable: bool = True             # False where double-dummy cannot model the play (two-player Vint)
    two_hands: bool = False           # tricks of two cards, seat 0 against seat 2 (two-player Vint, ways 2, 3)

    @property
    def leader(self) -> int:
        return self.trick[0][0] if self.trick else 0

    @property
    def gone(self) -> int:
        out = 0
        for p in self.played:
            out |= p
        return out


def knowledge(pos: Position, use_auction: bool = True) -> Knowledge:
    """The sampler's :class:`Knowledge` for a position."""
    known = [pos.hand, 0, 0, 0]
    for seat, cards in pos.known.items():
        known[seat] |= cards
    size = list(pos.size) if pos.size is not None else [13 - p.bit_count() for p in pos.played]
    k = Knowledge(known=known, size=size, gone=pos.gone)
    for seat in (1, 2, 3):
        for suit in pos.voids[seat]:
            k.void(seat, suit)
    if use_auction:
        for (seat, suit), n in pos.min_length.items():
            if suit in pos.voids[seat]:
                continue                              # the play contradicts it: drop it
            have = ((pos.played[seat] | known[seat]) & SUIT_MASK[suit]).bit_count()
            if n > have:
                k.at_least(seat, suit, n - have)
    return k


def _tricks(o: dict) -> tuple[int, int]:
    t = o["tricks_taken"]
    return int(t[0].argmax()), int(t[1].argmax())


def _common(o: dict, memory: TrickMemory) -> dict:
    trump = int(o["trump"].argmax())          # 0..3 a suit, 4 = NO_TRUMP
    leader = int(o["trick_leader"].argmax())
    trick = current_trick(o, leader)
    played = [mask_of(o["played"][s]) for s in range(4)]
    tricks_played = (sum(p.bit_count() for p in played) - len(trick)) // 4
    last = {s: int(o["last_trick"][s].nonzero()[0][0]) for s in range(4) if o["last_trick"][s].any()}
    memory.update(trick, last, leader, tricks_played, trump)
    return {"hand": mask_of(o["hand"]), "played": played, "trick": trick, "trump": trump,
            "side_tricks": _tricks(o), "voids": [set(v) for v in memory.voids]}


def vint_position(o: dict, memory: TrickMemory) -> Position:
    """A Vint play decision from a decoded `vint_v0` observation."""
    from ...rules.vint_scoring import score_contract, score_passout_play
    common = _common(o, memory)
    if o["passout_play"][0]:
        def points(ours: int) -> int:
            a, b = score_passout_play((ours, 13 - ours))
            return a.total - b.total
    else:
        bid = int(o["contract"].argmax())
        level, strain = Contract.from_index(bid)
        declarer = int(o["declarer"].argmax())
        no_hands = (0, 0, 0, 0)         # honours and coronets: constant over the play, left out

        def points(ours: int) -> int:
            a, b = score_contract(no_hands, level, strain, declarer, (ours, 13 - ours))
            return a.total - b.total
    min_length = {}
    for seat, b in zip(*np.nonzero(o["bids"])):
        strain = Contract.from_index(b).strain
        if strain != NT:
            min_length[(int(seat), strain)] = 4
    return Position(**common, points=points, min_length=min_length)


def whist_position(o: dict, memory: TrickMemory) -> Position:
    """A Whist play decision from a decoded `whist_v0` observation."""
    from ...rules.whist_scoring import score_whist
    common = _common(o, memory)
    trump = common["trump"]
    known = {}
    if o["turned_holder"].any():
        holder = int(o["turned_holder"].argmax())
        if holder != 0:
            known[holder] = 1 << int(o["turned_card"].argmax())

    def points(ours: int) -> int:
        a, b = score_whist((0, 0, 0, 0), trump, (ours, 13 - ours))
        return a.total - b.total
    return Position(**common, points=points, known=known)


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
        sampler = DealSampler(knowledge(pos, use_auction))
    except ImpossibleKnowledge:
        if not use_auction:
            raise
        sampler = DealSampler(knowledge(pos, False))
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


# ----------------------------------------------------------------- Vint bidding (option bid=dd)

def sampled_dd_call(o: dict, rule_call: int, rng: np.random.Generator, samples: int) -> int:
    """The rule bot's call, or a higher bid in a strain the rule bot or our
    side named, whichever has the best mean score over sampled deals if the
    auction ended with it (contracts scored by the rules engine with the
    sample's double-dummy tricks, honours and coronets included).

    Samples: the player's hand, and every suit bid by a player at least four
    cards long in that player's hand (dropped if impossible).  Only the call
    the rule bot would make and raises over it are considered: the rule
    bot's judgement decides whether the side enters the auction at all.
    """
    from ...rules.vint import BID_BASE, PASS, bid_action
    from ...rules.vint_scoring import score_contract
    from .double_dummy import _ep_denom, _pbn
    from ..rule.vint import VintRuleAgent
    from endplay.dds import calc_all_tables
    from endplay.types import Deal as EPDeal

    view = VintRuleAgent.auction_view(o)
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
    k = Knowledge(known=[view.hand, 0, 0, 0], size=[13, 13, 13, 13])
    for seat in (1, 2, 3):
        for _, strain in view.bids_of(seat):
            if strain != NT:
                k.at_least(seat, strain, 4)
    try:
        sampler = DealSampler(k)
    except ImpossibleKnowledge:
        sampler = DealSampler(Knowledge(known=[view.hand, 0, 0, 0], size=[13, 13, 13, 13]))
    deals = [tuple(sampler.draw(rng)) for _ in range(samples)]
    exclude = [_ep_denom(s) for s in range(5) if s not in strains]
    tables = calc_all_tables([EPDeal(_pbn(h)) for h in deals], exclude=exclude)
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


# ----------------------------------------------------------------- the agent

POSITION_OF = {"vint": vint_position, "whist": whist_position}


def parse_options(text: str) -> dict:
    """``"samples=32,time=0.5"`` -> {"samples": 32, "time": 0.5}; bad input raises."""
    out: dict = {}
    if not text:
        return out
    for item in text.split(","):
        key, eq, value = item.strip().partition("=")
        if not eq or not value:
            raise ValueError(f"pimc option {item!r}: expected KEY=VALUE (samples, time, auction, seed)")
        try:
            if key == "samples":
                out[key] = int(value)
            elif key == "time":
                out[key] = float(value)
            elif key == "auction":
                out[key] = bool(int(value))
            elif key == "seed":
                out[key] = int(value)
            elif key == "bid":
                if value not in BIDDING:
                    raise ValueError(f"unknown pimc option bid={value!r}; known: {', '.join(BIDDING)}")
                out[key] = value
            else:
                raise ValueError(f"unknown pimc option {key!r}; known: samples, time, auction, bid, seed")
        except ValueError as exc:
            if "unknown pimc option" in str(exc) or key == "bid":
                raise
            raise ValueError(f"pimc option {key}={value!r}: not a number") from exc
    return out


class PIMCAgent(Agent):
    """Perfect Information Monte Carlo play for Vint, Whist and two-player Vint (see the module docstring)."""

    name = "pimc"

    def __init__(self, game: str = "vint", samples: int = DEFAULT_SAMPLES, time: float | None = None,
                 auction: bool = False, bid: str = "rule", seed: int | None = None):
        if game not in GAMES:
            raise ValueError(f"the PIMC agent plays {', '.join(GAMES)}, not {game!r}")
        if not isinstance(samples, int) or samples < 1:
            raise ValueError(f"pimc samples must be a positive integer, got {samples!r}")
        if time is not None and not time > 0:
            raise ValueError(f"pimc time budget must be positive seconds, got {time!r}")
        if auction and game == "vint2p":
            raise ValueError("pimc option auction=1 is for Vint only: in two-player Vint PIMC decides "
                             "only where every card is seen, so the auction has nothing to add")
        if auction and game != "vint":
            raise ValueError("pimc option auction=1 needs an auction: Vint only")
        if bid not in BIDDING:
            raise ValueError(f"pimc bid must be one of {BIDDING}, got {bid!r}")
        if bid != "rule" and game != "vint":
            raise ValueError(f"pimc option bid=dd is implemented for Vint only, not {game!r}")
        self.bid = bid
        self.game = game
        self.samples = samples
        self.budget = time
        self.auction = auction
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.memories = SeatMemories()      # one per agent: the same bot may play several seats
        self.memory = self.memories.of(None)
        if game == "vint2p":
            from ...games.vint2p import VINT2P_LAYOUT
            from .pimc_vint2p import vint2p_position
            from ..rule.vint2p import Vint2pRuleAgent
            self.position_of = vint2p_position
            self.layout = VINT2P_LAYOUT
            self.bidder: Agent | None = Vint2pRuleAgent()   # every decision PIMC does not make
        elif game == "vint":
            from ...games.vint import VINT_LAYOUT
            from ..rule.vint import VintRuleAgent
            self.position_of = POSITION_OF[game]
            self.layout = VINT_LAYOUT
            self.bidder = VintRuleAgent()
        else:
            from ...games.whist import WHIST_LAYOUT
            self.position_of = POSITION_OF[game]
            self.layout = WHIST_LAYOUT
            self.bidder = None
        self.stats = {"decisions": 0, "sampled": 0, "samples": 0, "seconds": 0.0, "cpu_seconds": 0.0}
        if game == "vint2p":
            self.stats["rule_cards"] = 0          # card decisions left to the rule bot
            self.stats["way5_choices"] = 0        # way 5's widow, give-aways and final contracts by double-dummy
        self.last: Decision | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.memories.reset()
        self.memory = self.memories.of(None)
        if self.bidder is not None:
            self.bidder.reset(seed)

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        self.memory = self.memories.of(agent)
        legal = [int(a) for a in legal_actions(observation)]
        o = self.layout.decode(observation["observation"])
        if self.game == "vint" and o["phase"][0]:
            self.memory.reset()
            call = self.bidder.act(observation, agent=agent)
            if self.bid == "dd":
                call = sampled_dd_call(o, call, self.rng, self.samples)
                if call not in legal:
                    raise RuntimeError(f"pimc bid {call}, not legal ({legal})")
            return call
        if self.game == "vint2p" and not o["phase"][5]:
            self.memory.reset()           # exchange, auction, widow, give-aways, final contract
            if o["phase"][2:5].any():     # way 5's widow, give-aways, final contract
                call = self._way5_decision(o, legal)
                if call is not None:
                    return call
            return self.bidder.act(observation, agent=agent)
        if int(o["played"].sum()) == 0:
            self.memory.reset()           # a new deal (rubber mode reuses the agent)
        start, cpu = _time.perf_counter(), _time.process_time()
        pos = self.position_of(o, self.memory)
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


    def _way5_decision(self, o: dict, legal: list[int]) -> int | None:
        """Way 5 after the auction where the dealer declares (else ``None``: the rule bot)."""
        from .pimc_vint2p import dd_final_contract, dd_give_away, dd_widow
        if o["phase"][2]:
            call = dd_widow(o, self.rng, self.samples)
        elif o["phase"][3]:
            call = dd_give_away(o, legal)
        else:
            call = dd_final_contract(o, legal)
        if call is not None:
            self.stats["way5_choices"] += 1
            if call not in legal:
                raise RuntimeError(f"pimc chose {call} in way 5, not legal ({legal})")
        return call


def make_pimc(game: str, options: str = "", seed: int | None = None) -> PIMCAgent:
    """The agent of spec ``pimc[:OPTIONS]``."""
    opts = parse_options(options)
    if seed is not None and "seed" not in opts:
        opts["seed"] = seed
    return PIMCAgent(game, **opts)


__all__ = ["PIMCAgent", "make_pimc", "decide", "knowledge", "card_classes", "Position",
           "vint_position", "whist_position", "parse_options", "DEFAULT_SAMPLES"]
