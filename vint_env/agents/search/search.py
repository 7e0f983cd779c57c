"""The search agent (agent spec ``search``): sampled deals weighted by the others' play, solved, over a blueprint.

At each of its card decisions it

1. keeps the deal so far in order (:mod:`.history`) and asks its *blueprint* (a shipped agent: by
   default the game's shipped network, ``blueprint=residual`` the critic-corrected rule bot) for its
   action;
2. forms its beliefs (:mod:`.beliefs`): ``candidates`` deals drawn uniformly among those consistent
   with what it knows (as PIMC), each weighted by how likely the other seats' calls and cards were in
   it under a shipped network's model of their play, and ``samples`` deals drawn from them by weight
   (``beliefs=uniform``: ``samples`` uniform draws, as PIMC);
3. values every legal card in each deal drawn, by double-dummy (all four then play perfectly; DDS,
   as PIMC), the deal's points for its side;
4. plays the card with the best weighted mean, unless the blueprint's card is within ``margin``
   points of it: then the blueprint's (as SPARTA keeps its blueprint's action unless the search finds
   a better one by a margin).

Everything else (Vint's calls, forced cards) is the blueprint's.  It reads only its observations.
Options: :data:`OPTIONS` (``search:samples=16,beliefs=uniform``).  ``agent.stats`` counts decisions,
searched decisions, deals solved, candidates weighed, the candidates' effective sample size and the seconds
spent, over the card decisions (as PIMC's ``stats``).

Bounded work: the candidates are weighed :data:`WEIGH_BATCH` at a time (the replay's observations and the
network's batch never hold more), and with ``time`` the decision as a whole keeps to it: the weighing stops
when :data:`WEIGH_SHARE` of the time is spent (at least one batch weighed: the deals drawn from those), the
solving or rolling out when all of it is (at least one deal), both timed from the start of the decision.
"""

from __future__ import annotations

import time as _time

import numpy as np

from ... import games
from ..base import Agent, legal_actions
from ..spec import KINDS, AgentSpec, AgentSpecError
from .beliefs import Belief, NetworkPlayModel, log_likelihood, normalise, resample
from .deal_sampler import DealSampler
from .history import SeatHistories
from .pimc import card_classes, solve_deals
from .position import Position, hand_constraints
from .replay import WorldReplay
from .rollouts import rollout_values
from .search_games import network_of

__all__ = ["OPTIONS", "SearchAgent", "make_search", "BELIEFS", "EVALUATIONS"]

#: The options of agent spec ``search``, declared once with their types and ranges in
#: :data:`vint_env.agents.spec.KINDS` (``None`` defaults are the game's: its search plan).
OPTIONS = KINDS["search"].options
BELIEFS = KINDS["search"].option("beliefs").allowed
EVALUATIONS = KINDS["search"].option("eval").allowed
#: Tricks played from which a decision solves ``late_samples`` deals: from the fifth trick on a deal of
#: Whist costs DDS about 1.5 ms or less against about 38 ms in the first trick and 18 in the second
#: (measured over the search's own decisions), so more deals there cost little of a decision's time.
LATE_TRICKS = 4
#: Deals rolled out together between two looks at the clock (``eval=rollout`` with a time budget).
ROLLOUT_CHUNK = 4
#: Candidate deals weighed together (replayed and passed through the network) between two looks at the
#: clock: it bounds the memory a decision takes whatever ``candidates`` is.
WEIGH_BATCH = 128
#: The share of a decision's ``time`` the weighing of candidates may take (the solving has the rest).
WEIGH_SHARE = 0.5
#: The clock a decision's time is measured by (seconds; a test may replace it).
clock = _time.perf_counter


class SearchAgent(Agent):
    """Search over a blueprint with weighted beliefs (see the module docstring)."""

    name = "search"

    def __init__(self, game="whist", **options):
        record = games.get(game)
        plan = record.search_plan()          # ValueError naming the games it plays
        # the declared options of spec kind 'search': type and range, for a spec and a direct call alike
        spec = AgentSpec("search", None, tuple(options.items()))
        opts = {o.name: spec.option(o.name) for o in OPTIONS}
        model = opts["model"] or plan.models[0]
        if model not in plan.models:
            raise AgentSpecError(f"search option model must be one of {plan.models} in {record.title}, got {model!r}")
        self.record, self.plan, self.pimc = record, plan, record.pimc_plan()
        self.options = opts
        self.samples = opts["samples"]
        self.candidates = plan.candidates if opts["candidates"] is None else opts["candidates"]
        self.first_samples = plan.first_samples if opts["first_samples"] is None else opts["first_samples"]
        late = plan.late_samples if opts["late_samples"] is None else opts["late_samples"]
        self.late_samples = self.samples if late is None else late
        self.weighted = opts["beliefs"] == "weighted"
        self.floor, self.tau = opts["floor"], opts["tau"]
        self.margin = plan.margin if opts["margin"] is None else opts["margin"]
        self.budget = opts["time"]
        self.evaluation = opts["eval"]
        from ..registry import load_agent
        self.blueprint_spec = opts["blueprint"] or plan.blueprint
        self.blueprint = load_agent(self.blueprint_spec, game=record)
        modeller = self.blueprint if model == self.blueprint_spec else load_agent(model, game=record)
        temperature = plan.temperature if opts["temperature"] is None else opts["temperature"]
        self.model = NetworkPlayModel(network_of(modeller), temperature)
        self.rng = np.random.default_rng(opts["seed"])
        self.histories = SeatHistories()
        self._replays: dict = {}
        self.last: dict | None = None
        self.stats = {"decisions": 0, "searched": 0, "samples": 0, "weighed": 0, "unordered": 0, "effective": 0.0,
                      "kept_blueprint": 0, "seconds": 0.0, "cpu_seconds": 0.0}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.histories.reset()
        self.blueprint.reset(seed)

    # ------------------------------------------------------------------ acting
    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        start, cpu = clock(), _time.process_time()
        k = self.record.decode(observation["observation"])
        blue = int(self.blueprint.act(observation, agent=agent))
        if not self.pimc.in_play(k):              # a call: the blueprint's (not counted, as PIMC's calls)
            return blue
        history = self.histories.of(agent)
        history.update(k)
        pos = self.pimc.position(k)
        card = blue
        if pos.solvable and len(legal) > 1:
            done_gone = pos.gone & ~sum(1 << c for _, c in pos.trick)
            classes = card_classes(legal, pos.hand, done_gone)
            if len(classes) > 1:
                card = self.decide(k, pos, classes, blue, history.plays(k), start)
        self._count(start, cpu)
        if card not in legal:
            raise RuntimeError(f"search chose {card}, not legal ({legal})")
        return card

    def _count(self, start: float, cpu: float) -> None:
        s = self.stats
        s["decisions"] += 1
        s["seconds"] += clock() - start
        s["cpu_seconds"] += _time.process_time() - cpu

    # ------------------------------------------------------------------ the decision
    def _spent(self, start: float | None, share: float = 1.0) -> bool:
        """``share`` of the decision's time is spent (never without a time budget)."""
        return self.budget is not None and start is not None and clock() - start >= share * self.budget

    def belief(self, k, pos: Position, plays, start: float | None = None) -> Belief:
        """The deals to solve and their weights (see :mod:`.beliefs`); ``start``: when the decision began
        (the clock's reading), from which the weighing keeps to its share of the time."""
        sampler = DealSampler(hand_constraints(pos, False))
        rng = self.rng
        samples = (self.first_samples if k.tricks_played == 0 else
                   self.late_samples if k.tricks_played >= LATE_TRICKS else self.samples)
        if not self.weighted or plays is None:
            if plays is None:
                self.stats["unordered"] += 1
            deals = [tuple(sampler.draw(rng)) for _ in range(samples)]
            return _counted(deals, np.ones(len(deals)), samples, False, float(samples))
        cands, weights = self.candidate_weights(k, pos, plays, sampler, start)
        effective = float(1.0 / np.sum(weights ** 2))
        counts = resample(weights, samples, rng)
        chosen = [(cands[i], counts[i]) for i in np.flatnonzero(counts)]
        return Belief([d for d, _ in chosen], np.array([c for _, c in chosen], dtype=float) / samples,
                      len(cands), True, effective)

    def candidate_weights(self, k, pos: Position, plays, sampler: DealSampler | None = None,
                          start: float | None = None):
        """``candidates`` deals drawn uniformly among the consistent ones, and their normalised weights: the
        softened likelihood of the other seats' actions in each (:mod:`.beliefs`).  They are weighed
        :data:`WEIGH_BATCH` at a time; with a time budget and ``start`` (when the decision began), only
        those weighed before :data:`WEIGH_SHARE` of it was spent (at least one batch) are returned."""
        sampler = sampler or DealSampler(hand_constraints(pos, False))
        drawn = sampler.draw_many(self.rng, self.candidates)
        dealt = drawn | np.array(pos.played, dtype=np.int64)[None, :]
        actions = self.plan.calls(k) + plays
        parts = []
        for i in range(0, len(dealt), WEIGH_BATCH):
            parts.append(self._log_likelihoods(k, dealt[i:i + WEIGH_BATCH], actions))
            if self._spent(start, WEIGH_SHARE):
                break
        ll = np.concatenate(parts)
        self.stats["weighed"] += len(ll)
        return [tuple(h) for h in drawn[:len(ll)].tolist()], normalise(ll)

    def _log_likelihoods(self, k, dealt: np.ndarray, actions) -> np.ndarray:
        """The softened log-likelihood of the other seats' actions in each of the deals ``dealt``."""
        _, dec = self._replay(k).run(dealt, self.plan.dealer(k), self.plan.turned(k), actions,
                                     asked=lambda s: s != 0)
        r, n = dec.count, len(dealt)
        if not r:
            return np.zeros(n)
        probs = self.model.probabilities(dec.observation.reshape(r * n, -1), dec.mask.reshape(r * n, -1),
                                         np.repeat(dec.action, n)).reshape(r, n)
        return log_likelihood(probs, dec.mask.sum(axis=2), self.floor, self.tau)

    def decide(self, k, pos: Position, classes, blue: int, plays, start: float | None = None) -> int:
        """The card to play; ``start``: when the decision began (the clock's reading; default now): its
        time budget counts from there."""
        start = clock() if start is None else start
        belief = self.belief(k, pos, plays, start)
        order = np.argsort(-belief.weights, kind="stable")
        deals = [belief.deals[i] for i in order]
        weights = belief.weights[order]
        won = pos.side_tricks[0]
        reps = [cls[0] for cls in classes]
        if self.evaluation == "rollout":
            values = self._rollouts(k, pos, deals, reps, plays, start)
        else:
            value = {t: pos.points(t) for t in range(won, 14)}
            results = self._solve(pos, deals, start)
            values = np.array([[value[won + res[c]] for c in reps] for res in results], dtype=float)
        weights = weights[:len(values)]
        weights = weights / weights.sum()
        mean = weights @ values
        means = {c: float(m) for c, m in zip(reps, mean)}
        best = max(reps, key=lambda c: (round(means[c], 9), -(c % 13), -(c // 13)))
        blue_rep = next((cls[0] for cls in classes if blue in cls), None)
        card = best
        if blue_rep is not None and means[blue_rep] >= means[best] - self.margin - 1e-9:
            card = blue
            self.stats["kept_blueprint"] += 1
        s = self.stats
        s["searched"] += 1
        s["samples"] += len(values)
        s["effective"] += belief.effective
        self.last = {"means": means, "belief": belief, "card": card, "blueprint": blue}
        return card

    def _solve(self, pos: Position, deals, start: float) -> list[dict[int, int]]:
        """Double-dummy tricks of every card in each deal, in the order given; with a time budget, one
        deal at a time until it is spent (at least one)."""
        if self.budget is None:
            return solve_deals(pos, deals)
        results = []
        for d in deals:
            results.append(solve_deals(pos, [d])[0])
            if self._spent(start):
                break
        return results

    def _rollouts(self, k, pos: Position, deals, reps: list[int], plays, start: float) -> np.ndarray:
        """Points of each card in each deal by rollouts of the blueprint's network (:mod:`.rollouts`), in the
        order given; with a time budget, a few deals at a time until it is spent (at least one)."""
        if plays is None:
            raise RuntimeError("search eval=rollout needs the deal's history: the agent must be asked at "
                               "every one of its turns")
        dealt = np.array(deals, dtype=np.int64) | np.array(pos.played, dtype=np.int64)[None, :]
        network = network_of(self.blueprint)
        policy = getattr(network, "policy_logits", None) or (lambda o: network(o)[0])

        def logits(obs):
            import torch
            with torch.no_grad():
                return policy(torch.as_tensor(obs)).numpy()

        def values(rows):
            return rollout_values(self._replay(k), rows, self.plan.dealer(k), self.plan.turned(k),
                                  self.plan.calls(k) + plays, reps, logits)
        if self.budget is None:
            return values(dealt)
        parts = []
        for i in range(0, len(dealt), ROLLOUT_CHUNK):
            parts.append(values(dealt[i:i + ROLLOUT_CHUNK]))
            if self._spent(start):
                break
        return np.concatenate(parts)

    def _replay(self, k) -> WorldReplay:
        options = self.plan.engine_options(k)
        key = tuple(sorted(options.items()))
        found = self._replays.get(key)
        if found is None:
            engine = self.record.engine_class()(auto_reset=False, **options)
            found = self._replays[key] = WorldReplay(engine)
        return found


def _counted(deals, weights, candidates, weighted, effective) -> Belief:
    """Equal deals merged, their weights added."""
    merged: dict = {}
    for d, w in zip(deals, weights):
        merged[d] = merged.get(d, 0.0) + w
    total = sum(merged.values())
    return Belief(list(merged), np.array([w / total for w in merged.values()]), candidates, weighted, effective)


def make_search(game, spec: AgentSpec, seed: int | None = None) -> SearchAgent:
    """The agent of spec ``search[:OPTIONS]`` (parsed: :class:`~vint_env.agents.spec.AgentSpec`)."""
    opts = spec.given
    if seed is not None and "seed" not in opts:
        opts["seed"] = seed
    return SearchAgent(game, **opts)
