"""The search agent (agent spec ``search``): the deal's history, its replay in sampled deals, beliefs that never
contradict what the player knows and never read hidden cards, weights that are the posterior, the work bound."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("endplay")
pytest.importorskip("torch")

from vint_env import games  # noqa: E402
from vint_env.agents import load_agent  # noqa: E402
from vint_env.agents.base import RandomAgent  # noqa: E402
from vint_env.agents.search.beliefs import (PlayModel, log_likelihood, normalise,  # noqa: E402
                                            resample)
from vint_env.agents.search.deal_sampler import DealSampler, HandConstraints  # noqa: E402
from vint_env.agents.search.history import DealHistory  # noqa: E402
from vint_env.agents.search.position import hand_constraints  # noqa: E402
from vint_env.agents.search.replay import WorldReplay  # noqa: E402
from vint_env.agents.search.search import OPTIONS, SearchAgent  # noqa: E402
from vint_env.cards import FULL_DECK, SUIT_MASK, card_text, hand_to_pbn  # noqa: E402
from vint_env.evaluation.tables import make_env  # noqa: E402
from vint_env.agents.spec import KINDS, AgentSpecError  # noqa: E402

GAMES = [g.name for g in games.all_games() if g.search is not None]


def play_turns(game: str, deals: int, seed: int, players=None):
    """Yield ``(seat, observation, knowledge, raw env, log)`` at every turn of ``deals`` deals (``log``: the
    ``(seat, action)`` pairs of the deal so far): the rule bot bids, random agents play (or ``players``)."""
    record = games.get(game)
    env = make_env(record, "deal")
    rng = np.random.default_rng(seed)
    for _ in range(deals):
        env.reset(seed=int(rng.integers(1 << 30)))
        bidders = [record.rule_agent() for _ in range(4)]
        seat_players = players or [RandomAgent(int(rng.integers(1 << 30))) for _ in range(4)]
        plan = record.pimc_plan()
        log = []
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            seat = int(name.rsplit("_", 1)[1])
            obs = env.observe(name)
            k = record.decode(obs["observation"])
            yield seat, obs, k, env.unwrapped, list(log)
            agent = seat_players[seat] if plan.in_play(k) else bidders[seat]
            action = int(agent.act(obs, agent=name))
            log.append((seat, action))
            env.step(action)


def relative(actions, seat: int):
    """The env's ``(absolute seat, action)`` history relative to ``seat``."""
    return [((s - seat) % 4, a) for s, a in actions]


# ----------------------------------------------------------------- the history and its replay

@pytest.mark.parametrize("game", GAMES)
def test_history_is_the_deal_in_order(game):
    """A player told every one of its turns knows every action of the deal so far, in order."""
    record = games.get(game)
    plan = record.search_plan()
    histories = [DealHistory() for _ in range(4)]
    turns = play_turns(game, deals=3, seed=5)
    checked = 0
    for seat, obs, k, raw, log in turns:
        if record.pimc_plan().in_play(k):
            histories[seat].update(k)
            plays = histories[seat].plays(k)
            assert plan.calls(k) + plays == relative(log, seat)
            checked += 1
    assert checked % 52 == 0 and checked >= 52           # (a passed-out Vint deal has no play)


def test_history_says_when_a_turn_was_missed():
    h = DealHistory()
    for seat, obs, k, raw, log in play_turns("whist", deals=1, seed=3):
        if seat == 0 and k.tricks_played in (0, 3):        # told only two of its turns
            h.update(k)
            if k.tricks_played == 3:
                assert h.plays(k) is None
    assert h.broken


@pytest.mark.parametrize("game", GAMES)
def test_replay_of_the_real_deal_shows_each_seat_what_the_env_showed(game):
    """Replayed in the batched engine with the real hands, every seat's observation and legal actions at each
    of its decisions are the env's, bit for bit (the likelihoods are computed on what the players saw)."""
    record = games.get(game)
    plan = record.search_plan()
    seen = {}                # absolute turn index -> (observation, mask) of the seat to move
    turns = play_turns(game, deals=1, seed=9)
    index = 0
    last = None
    for seat, obs, k, raw, log in turns:
        seen[index] = (seat, obs["observation"].copy(), obs["action_mask"].copy())
        index += 1
        last = (seat, k, raw, log)
        if index == 40:
            break
    seat, k, raw, log = last
    dealt = np.array([[int(raw.deal.hands[(seat + r) % 4]) for r in range(4)]], dtype=np.int64)
    actions = relative(log, seat)
    engine = record.engine_class()(auto_reset=False, **plan.engine_options(k))
    _, dec = WorldReplay(engine).run(dealt, plan.dealer(k), plan.turned(k), actions, asked=lambda s: True)
    informative = [i for i in range(len(actions)) if seen[i][2].sum() > 1]
    assert dec.count == len(informative) > 10
    for r, i in enumerate(informative):
        s_abs, observation, mask = seen[i]
        assert dec.seat[r] == (s_abs - seat) % 4
        np.testing.assert_array_equal(dec.observation[r, 0], observation)
        np.testing.assert_array_equal(dec.mask[r, 0], mask)


# ----------------------------------------------------------------- beliefs honour what the player knows

def assert_consistent(pos, hands):
    gone = pos.gone
    assert hands[0] == pos.hand
    union = 0
    for r, h in enumerate(hands):
        assert not h & union, "a card dealt twice"
        union |= h
        assert not h & gone, "a sampled hand holds a played card"
        assert h.bit_count() == 13 - pos.played[r].bit_count(), "wrong hand size"
        for suit in pos.voids[r]:
            assert not h & SUIT_MASK[suit], f"seat {r}, shown void in suit {suit}, holds one"
        assert h & pos.known.get(r, 0) == pos.known.get(r, 0), "a card seen in a hand is missing"
    assert union | gone == FULL_DECK


@pytest.mark.parametrize("game,deals,weighed", [("whist", 40, 6), ("vint", 40, 6),
                                                pytest.param("whist", 200, 60, marks=pytest.mark.slow),
                                                pytest.param("vint", 200, 60, marks=pytest.mark.slow)])
def test_beliefs_never_contradict_what_the_player_knows(game, deals, weighed):
    """Over the play positions of random deals (about 2,000 a game; 10,000 in the slow run) every deal the
    sampler draws for the search honours the player's own hand, the cards played, the voids shown and the
    cards seen (Whist's turned card); at the positions of ``weighed`` deals the weighted beliefs of the agent
    (candidates replayed and weighed by the network) are made of such deals only, with weights that sum to 1."""
    record = games.get(game)
    plan = record.pimc_plan()
    agent = SearchAgent(game, candidates=6, samples=4, seed=1)
    histories = [DealHistory() for _ in range(4)]
    rng = np.random.default_rng(0)
    positions = weighed_positions = 0
    deal = 0
    for seat, obs, k, raw, log in play_turns(game, deals=deals, seed=17):
        deal += not log
        if not plan.in_play(k):
            continue
        histories[seat].update(k)
        pos = plan.position(k)
        true = [int(raw.deal.play.hands[(seat + r) % 4]) for r in range(4)]
        assert_consistent(pos, true)                  # the bookkeeping admits the real deal
        sampler = DealSampler(hand_constraints(pos, False))
        for hands in sampler.draw_many(rng, 3).tolist():
            assert_consistent(pos, hands)
        positions += 1
        if deal <= weighed and seat == 0 and k.tricks_played in (1, 6, 11):
            belief = agent.belief(k, pos, histories[seat].plays(k))
            assert belief.weighted and abs(belief.weights.sum() - 1) < 1e-9
            for hands in belief.deals:
                assert_consistent(pos, list(hands))
            weighed_positions += 1
    assert positions % 52 == 0 and positions >= 26 * deals      # (a passed-out Vint deal has no play)
    # three positions a deal (tricks 1, 6 and 11 of seat 0); Vint deals passed out have none (seed 17: 114 of
    # a possible 180 in its first 60 deals)
    assert weighed_positions >= (2 if game == "whist" else 1.5) * weighed


def test_vint_auction_weighs_the_deals():
    """Vint: the auction is the constraint the sampler does not impose; the weights carry it.  At the first
    card decision after a seat named a suit (the rule bot names a suit only with four or more of it, and the
    shipped network's calls are a clone of the rule bot's), the candidates where that seat was dealt four or
    more of the suit weigh on average more than the others, and none weighs zero (a model may be wrong)."""
    record = games.get("vint")
    checked = 0
    for seat, obs, k, raw, log in play_turns("vint", deals=30, seed=31):
        if seat != 0 or not record.pimc_plan().in_play(k) or k.cards_played > 3:
            continue
        named = [(r, suit) for r in (1, 2, 3) for suit in k.named[r]]
        if not named:
            continue
        h = DealHistory()
        h.update(k)
        agent = SearchAgent("vint", candidates=200, seed=5)
        pos = record.pimc_plan().position(k)
        cands, weights = agent.candidate_weights(k, pos, h.plays(k))
        r, suit = named[0]
        dealt = [c[r] | pos.played[r] for c in cands]
        long = np.array([(d & SUIT_MASK[suit]).bit_count() >= 4 for d in dealt])
        assert (weights > 0).all()
        if long.all() or not long.any():
            continue
        assert weights[long].mean() > 1.5 * weights[~long].mean()
        checked += 1
        if checked == 3:
            break
    assert checked == 3


# ----------------------------------------------------------------- nothing hidden is read

def _swapped_board(raw, seat: int, later: set[int]):
    """The deal with two cards of one suit swapped between the two seats on the player's left and right,
    cards neither has played (the same suit keeps every past play legal): ``None`` if there are none."""
    left, right = (seat + 1) % 4, (seat + 3) % 4
    hands = [int(h) for h in raw.deal.hands]
    now = raw.deal.play.hands
    for suit in range(4):
        a = [c for c in range(52) if now[left] >> c & 1 and c // 13 == suit and c not in later]
        b = [c for c in range(52) if now[right] >> c & 1 and c // 13 == suit and c not in later]
        if a and b:
            x, y = a[0], b[0]
            hands[left] ^= (1 << x) | (1 << y)
            hands[right] ^= (1 << x) | (1 << y)
            return hands
    return None


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("beliefs", ["weighted", "uniform"])
def test_hidden_cards_are_never_read(game, beliefs):
    """Swapping cards the player cannot see (between the seats on its left and right, same suit, not yet
    played) leaves its observations, and so its sampled deals, weights and card, unchanged for a fixed seed."""
    record = games.get(game)
    checked = 0
    for trial in range(3):
        env = make_env(record, "deal")
        env.reset(seed=100 + trial)
        actions = []
        agents = [RandomAgent(trial * 4 + s) for s in range(4)]
        bidders = [record.rule_agent() for _ in range(4)]
        stop = 20 + 5 * trial                              # the decision looked at: the 21st action or later
        while len(actions) < stop or env.agent_selection != "player_0":
            name = env.agent_selection
            obs = env.observe(name)
            k = record.decode(obs["observation"])
            agent = agents if record.pimc_plan().in_play(k) else bidders
            a = int(agent[int(name[-1])].act(obs, agent=name))
            env.step(a)
            actions.append(a)
        raw = env.unwrapped
        swapped = _swapped_board(raw, 0, set())
        if swapped is None:
            continue
        runs = []
        for hands in ([int(h) for h in raw.deal.hands], swapped):
            e = make_env(record, "deal")
            options = {"deal": "N:" + " ".join(hand_to_pbn(h) for h in hands), "dealer": int(raw.deal.dealer)}
            if record.turns_card:
                options["turned_card"] = card_text(raw.deal.turned_card)
            e.reset(seed=0, options=options)
            probe = SearchAgent(game, beliefs=beliefs, candidates=8, samples=4, seed=42)
            probe.reset(42)
            observations = []
            for a in actions:
                name = e.agent_selection
                if name == "player_0":
                    obs = e.observe(name)
                    observations.append(obs["observation"].copy())
                    probe.act(obs, agent=name)
                e.step(a)
            obs = e.observe("player_0")
            card = probe.act(obs, agent="player_0")
            last = probe.last
            runs.append((observations, card, None if last is None else
                         (last["belief"].deals, last["belief"].weights.tolist())))
        (obs_a, card_a, belief_a), (obs_b, card_b, belief_b) = runs
        assert all((x == y).all() for x, y in zip(obs_a, obs_b))
        assert card_a == card_b and belief_a == belief_b
        checked += belief_a is not None
    assert checked >= 1


# ----------------------------------------------------------------- the weights are the posterior

class _StubModel(PlayModel):
    """The seat on the left leads its lowest card of a suit with probability 0.8 when it holds the ace of that
    suit, 0.2 when it does not (the hand block of the observation says which)."""

    def __init__(self, layout):
        self.hand = layout.offset["hand"]

    def probabilities(self, observation, mask, action):
        holds_ace = observation[np.arange(len(action)), self.hand + (action // 13) * 13 + 12] > 0
        return np.where(holds_ace, 0.8, 0.2)


def test_weights_are_the_posterior_worked_out_by_hand():
    """Whist, the first lead: the left-hand seat led a spade.  Under a model that leads a spade 0.8 of the
    time with the spade ace and 0.2 without, Bayes' rule with the uniform prior gives every deal where it
    holds the ace 4 times the weight of one where it does not (tau = 1, floor = 0), (0.8 * 0.9 + 0.1 / n) /
    (0.2 * 0.9 + 0.1 / n) times with floor 0.1 (n its legal cards, 13 at the first lead), and the ratio to
    the power tau when tau < 1; and the share of the ace in the left hand's sampled deals is the posterior
    P(ace | lead) = 3 * 0.8 / (3 * 0.8 + 1 * 0.2)... worked out below from the candidates drawn."""
    record = games.get("whist")
    for seat, obs, k, raw, log in play_turns("whist", deals=12, seed=21):
        pos = record.pimc_plan().position(k)
        lead = k.trick[0][1] if k.trick else None
        seen = pos.hand | sum(pos.known.values())
        if seat == 0 and k.cards_played == 1 and not seen >> (lead // 13 * 13 + 12) & 1 and lead % 13 != 12:
            break
    else:
        raise AssertionError("no deal where the observer plays second and the ace of the suit led is unseen")
    agent = SearchAgent("whist", candidates=400, samples=400, floor=0.0, tau=1.0, seed=3)
    agent.model = _StubModel(record.layout)
    h = DealHistory()
    h.update(k)
    plays = h.plays(k)
    (leader, lead), = plays
    ace = lead // 13 * 13 + 12
    for floor, tau in ((0.0, 1.0), (0.1, 1.0), (0.1, 0.5)):
        agent.floor, agent.tau = floor, tau
        agent.rng = np.random.default_rng(3)
        cands, weights = agent.candidate_weights(k, pos, plays)
        holds = np.array([bool(c[leader] >> ace & 1) for c in cands])
        assert holds.any() and (~holds).any()
        n = 13
        ratio = (((1 - floor) * 0.8 + floor / n) / ((1 - floor) * 0.2 + floor / n)) ** tau
        np.testing.assert_allclose(weights[holds][0] / weights[~holds][0], ratio, rtol=1e-9)
        np.testing.assert_allclose(weights[holds], weights[holds][0], rtol=1e-9)
        np.testing.assert_allclose(weights[~holds], weights[~holds][0], rtol=1e-9)
        # the posterior probability that the leader holds the ace: its prior (the share of deals where it does,
        # here the candidates' share) reweighted by the likelihood ratio
        prior = holds.mean()
        posterior = prior * ratio / (prior * ratio + (1 - prior))
        assert weights[holds].sum() == pytest.approx(posterior, rel=1e-9)


class _CertainModel(_StubModel):
    """The seat on the left leads a suit only when it holds its ace: a deal where it led without it is impossible."""

    def probabilities(self, observation, mask, action):
        return np.where(super().probabilities(observation, mask, action) > 0.5, 1.0, 0.0)


def test_deals_the_model_rules_out_get_no_weight_and_are_never_solved():
    """With no softening (floor 0, tau 1), a candidate in which an action seen has probability 0 weighs exactly
    0, and the deals drawn from the beliefs are all ones where the leader holds the ace of the suit it led."""
    record = games.get("whist")
    for seat, obs, k, raw, log in play_turns("whist", deals=12, seed=21):
        pos = record.pimc_plan().position(k)
        lead = k.trick[0][1] if k.trick else None
        seen = pos.hand | sum(pos.known.values())
        if seat == 0 and k.cards_played == 1 and not seen >> (lead // 13 * 13 + 12) & 1 and lead % 13 != 12:
            break
    else:
        raise AssertionError("no deal where the observer plays second and the ace of the suit led is unseen")
    agent = SearchAgent("whist", candidates=200, samples=50, floor=0.0, tau=1.0, seed=4)
    agent.model = _CertainModel(record.layout)
    h = DealHistory()
    h.update(k)
    plays = h.plays(k)
    (leader, lead), = plays
    ace = lead // 13 * 13 + 12
    cands, weights = agent.candidate_weights(k, pos, plays)
    holds = np.array([bool(c[leader] >> ace & 1) for c in cands])
    assert holds.any() and (~holds).any()
    assert (weights[~holds] == 0).all()
    np.testing.assert_allclose(weights[holds], 1 / holds.sum(), rtol=1e-12)
    agent.rng = np.random.default_rng(4)
    belief = agent.belief(k, pos, plays)
    assert belief.deals and all(d[leader] >> ace & 1 for d in belief.deals)
    assert belief.weights.sum() == pytest.approx(1.0) and (belief.weights > 0).all()
    # resampling never draws a zero weight, wherever it sits
    rng = np.random.default_rng(0)
    for w in ([0.0, 0.5, 0.0, 0.5], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]):
        for _ in range(200):
            counts = resample(np.array(w), 7, rng)
            assert counts.sum() == 7 and (counts[np.array(w) == 0] == 0).all()
    # every candidate ruled out: nothing to go on, so every candidate alike (not a division by zero)
    assert normalise(np.array([-np.inf, -np.inf])).tolist() == [0.5, 0.5]


def test_resampling_draws_in_proportion_to_the_weights():
    rng = np.random.default_rng(0)
    w = np.array([0.5, 0.25, 0.125, 0.125])
    counts = resample(w, 8, rng)
    assert counts.tolist() == [4, 2, 1, 1]                 # systematic: within one of k * w
    total = sum(resample(np.array([0.7, 0.3]), 10, rng) for _ in range(100))
    assert total.tolist() == [700, 300]


def test_log_likelihood_softening():
    p = np.array([[0.9, 0.1]])
    n = np.array([[3, 3]])
    assert log_likelihood(p, n, 0.0, 1.0) == pytest.approx(np.log([0.9, 0.1]))
    assert log_likelihood(p, n, 0.0, 0.5) == pytest.approx(0.5 * np.log([0.9, 0.1]))
    assert log_likelihood(p, n, 1.0, 1.0) == pytest.approx(np.log([1 / 3, 1 / 3]))


def test_draw_many_is_uniform_on_a_small_case():
    """Six unknown cards, two to each of three seats, one of them void in spades: every one of the consistent
    deals comes up about equally often."""
    from collections import Counter
    cards = [0, 1, 13, 14, 26, 27]
    known0 = FULL_DECK & ~sum(1 << c for c in cards)
    k = HandConstraints(known=[known0, 0, 0, 0], size=[46, 2, 2, 2])
    k.void(1, 0)
    sampler = DealSampler(k)
    draws = Counter(map(tuple, sampler.draw_many(np.random.default_rng(0), 36 * 400).tolist()))
    assert len(draws) == sampler.total == 36
    assert all(not d[1] & SUIT_MASK[0] for d in draws)
    counts = np.array(list(draws.values()))
    chi2 = ((counts - 400) ** 2 / 400).sum()
    assert chi2 < 70                                       # 35 degrees of freedom: p ~ 0.0005


# ----------------------------------------------------------------- work per decision

@pytest.mark.parametrize("game", GAMES)
def test_work_per_decision_is_bounded(game):
    """Counting work, not seconds: at most ``samples`` deals are valued a decision, and a time budget too
    small for anything still values exactly one deal a decision (one chunk of rollouts)."""
    from vint_env.agents.search.search import ROLLOUT_CHUNK
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import Table
    for spec, most, exact in (("search:samples=3,first_samples=2,candidates=5", 3, False),
                              ("search:samples=6,first_samples=6,time=0.000001", 1, True),
                              ("search:samples=9,first_samples=9,eval=rollout,time=0.000001", ROLLOUT_CHUNK, False)):
        table = Table(game, spec, "rule", analysis=False)
        try:
            for board in generate_boards(3, seed=6):
                table.play_board(board, 6)
        finally:
            table.close()
        stats = [a.stats for a in table.agents["A"]]
        searched = sum(s["searched"] for s in stats)
        samples = sum(s["samples"] for s in stats)
        assert searched > 5, spec
        assert searched <= samples <= most * searched, spec
        if exact:
            assert samples == searched


@pytest.mark.parametrize("game", GAMES)
def test_deals_a_decision_follow_the_trick(game, monkeypatch):
    """``first_samples`` deals in the first trick, ``samples`` in the second to the fourth, ``late_samples``
    from the fifth on (equal deals merged, so a late decision may hold fewer)."""
    from vint_env.agents.search.search import LATE_TRICKS
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import Table
    seen = []
    belief = SearchAgent.belief

    def counted(self, k, pos, plays, start=None):
        out = belief(self, k, pos, plays, start)
        seen.append((k.tricks_played, len(out.deals)))
        return out

    monkeypatch.setattr(SearchAgent, "belief", counted)
    table = Table(game, "search:samples=3,first_samples=2,late_samples=7,beliefs=uniform", "rule", analysis=False)
    try:
        for board in generate_boards(2, seed=8):
            table.play_board(board, 8)
    finally:
        table.close()
    first = [n for t, n in seen if t == 0]
    middle = [n for t, n in seen if 0 < t < LATE_TRICKS]
    late = [n for t, n in seen if t >= LATE_TRICKS]
    assert first and max(first) == 2
    assert middle and max(middle) == 3
    assert late and max(late) == 7
    default = load_agent("search:samples=5", game=game)                # the game's defaults (its search plan)
    assert (default.first_samples, default.late_samples) == {"whist": (6, 36), "vint": (8, 5)}[game]


# ----------------------------------------------------------------- the spec

def test_options_are_declared_and_checked():
    declared = KINDS["search"]
    assert OPTIONS is declared.options and declared.web and declared.time_option == "time"
    for o in declared.options:         # every number bounded: no option makes a decision's work unbounded
        assert o.doc and (o.type not in (int, float) or o.maximum is not None), o.name
    agent = load_agent("search:samples=5,beliefs=uniform,tau=0.3", game="whist", seed=2)
    assert (agent.samples, agent.weighted, agent.tau) == (5, False, 0.3)
    for bad, words in (("search:samples=0", "samples"), ("search:beliefs=magic", "beliefs"),
                       ("search:tau=2", "tau"), ("search:foo=1", "foo"), ("search:samples", "KEY=VALUE"),
                       ("search:model=nothing", "model"), ("search:time=inf", "time"), ("search:time=0", "time"),
                       ("search:seed=-1", "seed"), ("search:candidates=5001", "candidates"),
                       ("search:late_samples=0", "late_samples"),
                       ("search:samples=3,samples=4", "twice")):
        with pytest.raises(AgentSpecError, match=words):
            load_agent(bad, game="whist")
    with pytest.raises(AgentSpecError, match="samples"):     # a direct call is checked by the same declarations
        SearchAgent("whist", samples=0)
    for bad in ("search:blueprint=rule", "search:blueprint=search"):      # only a shipped learnt agent is a blueprint
        with pytest.raises(AgentSpecError, match="blueprint"):
            load_agent(bad, game="vint")


@pytest.mark.parametrize("blueprint", ["baseline", "residual"])
def test_the_blueprint_makes_the_calls(blueprint):
    """Vint's calls are the blueprint's, decision by decision: by default the shipped network's (which
    bids more and higher than the rule bot), with ``blueprint=residual`` the critic-corrected rule bot's."""
    spec = f"search:blueprint={blueprint}" if blueprint != "baseline" else "search"
    agent = load_agent(spec, game="vint", seed=3)
    assert agent.blueprint_spec == blueprint and isinstance(agent, SearchAgent)
    own, other = load_agent(blueprint, game="vint"), load_agent({"baseline": "residual",
                                                                  "residual": "baseline"}[blueprint], game="vint")
    record = games.get("vint")
    calls = differ = 0
    for seat, obs, k, raw, log in play_turns("vint", deals=40, seed=17):
        if record.pimc_plan().in_play(k):
            continue
        name = f"player_{seat}"
        mine = agent.act(obs, agent=name)
        assert mine == own.act(obs, agent=name)
        differ += mine != other.act(obs, agent=name)
        calls += 1
    assert calls > 100 and differ > 0          # the two blueprints call differently, so the test tells them apart


def test_served_with_its_time_capped():
    from vint_env.serve.agents import ServedAgents
    served = ServedAgents(decision_seconds=2.0)
    assert "search[:OPTION,...]" in served.kinds
    assert served.check("search:samples=30").option("time") == 2.0
    assert served.check("search:time=0.5").option("time") == 0.5
    assert served.check("search:time=100").option("time") == 2.0
    agent = load_agent(served.check("search:time=100"), game="whist")
    assert agent.budget == 2.0


def test_games_without_a_plan_are_refused():
    with pytest.raises(ValueError, match="search agent does not play 'solo_whist'"):
        load_agent("search", game="solo_whist")


def test_same_seed_same_cards():
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import run_match
    boards = generate_boards(1, seed=8)
    a = run_match("whist", "search:samples=4,candidates=8", "pimc:samples=2", boards, seed=8, workers=1,
                  progress=False, analysis=False)
    b = run_match("whist", "search:samples=4,candidates=8", "pimc:samples=2", boards, seed=8, workers=1,
                  progress=False, analysis=False)
    assert [t.replay[0].actions for t in a.boards[0].tables] == [t.replay[0].actions for t in b.boards[0].tables]
