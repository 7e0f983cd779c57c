"""The PIMC agent: exact sampling consistent with what the player knows,
DD-optimal play with nothing hidden, determinism, worker-count invariance."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("endplay")

from card_game_checks import ONE_SUIT_EACH
from vint_env.agents import load_agent  # noqa: E402
from vint_env.agents.base import RandomAgent  # noqa: E402
from vint_env.agents.search.dds_batch import solve_one, solve_positions  # noqa: E402
from vint_env.agents.search.deal_sampler import DealSampler, HandConstraints, ImpossibleConstraints  # noqa: E402
from vint_env.agents.search.double_dummy import solve_position  # noqa: E402
from vint_env.agents.search.pimc import PIMCAgent, Position, card_classes, decide, hand_constraints  # noqa: E402
from vint_env.agents.spec import parse_spec  # noqa: E402
from vint_env.cards import FULL_DECK, SUIT_MASK, hand_cards, random_deal  # noqa: E402
from vint_env.rules.tricks import TrickPlay  # noqa: E402

GAMES = ("vint", "whist")


def make_env(game: str):
    if game == "vint":
        from vint_env.envs.vint_v0 import raw_env
    else:
        from vint_env.envs.whist_v0 import raw_env
    return raw_env(reward_scale=1.0)


def play_positions(game: str, deals: int, seed: int):
    """Yield (agent position, true relative hands, raw env) at every play decision
    of ``deals`` random deals; rule bots bid, random agents play."""
    rng = np.random.default_rng(seed)
    env = make_env(game)
    for d in range(deals):
        env.reset(seed=int(rng.integers(1 << 30)))
        probes = [PIMCAgent(game, samples=1) for _ in range(4)]
        bidders = [load_agent("rule", game=game) for _ in range(4)]
        players = [RandomAgent(int(rng.integers(1 << 30))) for _ in range(4)]
        while env.agents:
            name = env.agent_selection
            seat = int(name.rsplit("_", 1)[1])
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            obs = env.observe(name)
            raw = env.unwrapped
            k = probes[seat].record.decode(obs["observation"])
            if game == "vint" and k.in_auction:
                env.step(bidders[seat].act(obs))
                continue
            pos = probes[seat].position_of(k)
            true = [raw.deal.play.hands[(seat + r) % 4] for r in range(4)]
            yield pos, true, obs
            env.step(players[seat].act(obs))


def assert_sample_consistent(pos: Position, hands: list[int]) -> None:
    gone = pos.gone
    assert hands[0] == pos.hand
    union = 0
    for r, h in enumerate(hands):
        assert not h & union, "a card dealt twice"
        union |= h
        assert not h & gone, "a sampled hand holds a played card"
        assert h.bit_count() == 13 - pos.played[r].bit_count(), "wrong hand size"
        for suit in pos.voids[r]:
            assert not h & SUIT_MASK[suit], f"seat {r} shown void in suit {suit} holds one"
        assert h & pos.known.get(r, 0) == pos.known.get(r, 0), "a known card is missing"
    assert union | gone == FULL_DECK


@pytest.mark.parametrize("game,deals", [("vint", 4), ("whist", 4),
                                        pytest.param("vint", 50, marks=pytest.mark.slow),
                                        pytest.param("whist", 50, marks=pytest.mark.slow)])
def test_samples_never_contradict_what_the_player_knows(game, deals):
    """Property test over the positions of random play (~300 per game by
    default, ~2,500 per game in the slow run): the true deal satisfies the
    knowledge, and every sample honours it exactly."""
    rng = np.random.default_rng(7)
    n = 0
    voids_seen = 0
    for pos, true, _ in play_positions(game, deals=deals, seed=11 if game == "vint" else 12):
        k = hand_constraints(pos, use_auction=False)
        sampler = DealSampler(k)
        assert_sample_consistent(pos, true)          # the bookkeeping admits the real deal
        for _ in range(3):
            assert_sample_consistent(pos, sampler.draw(rng))
        voids_seen += sum(len(v) for v in pos.voids)
        n += 1
    assert n >= 30 * deals
    assert voids_seen > 4 * deals                          # the void constraints were exercised


def test_whist_turned_card_stays_with_the_dealer():
    checked = 0
    for pos, true, _ in play_positions("whist", deals=8, seed=3):
        for seat, cards in pos.known.items():
            assert true[seat] & cards == cards
            checked += 1
    assert checked > 0


def test_sampler_is_exactly_uniform_on_a_small_case():
    """Brute force: every consistent deal is counted and drawn equally often."""
    rng = np.random.default_rng(0)
    full = random_deal(rng)
    # two random cards of each of seats 1-3 are unknown to seat 0
    taken = {s: [int(c) for c in rng.choice(hand_cards(full[s]), 2, replace=False)] for s in (1, 2, 3)}
    keep = {s: [c for c in hand_cards(full[s]) if c not in taken[s]] for s in (1, 2, 3)}
    unknown_cards = [c for s in (1, 2, 3) for c in taken[s]]
    known = [full[0]] + [sum(1 << c for c in keep[s]) for s in (1, 2, 3)]

    def consistent_deals(void_suit):
        out = []
        for assign in itertools.product((1, 2, 3), repeat=len(unknown_cards)):
            hands = list(known)
            for c, s in zip(unknown_cards, assign):
                hands[s] |= 1 << c
            if all(h.bit_count() == 13 for h in hands) and (void_suit is None or not hands[1] & SUIT_MASK[void_suit] & ~known[1]):
                out.append(tuple(hands))
        return out

    # seat 1 has shown out of a suit of which some unknown card remains, leaving several deals
    void_suit = min({c // 13 for c in unknown_cards}, key=lambda s: -len(consistent_deals(s)))
    consistent = consistent_deals(void_suit)
    assert len(consistent) < len(consistent_deals(None))      # the void rules deals out
    k = HandConstraints(known=known, size=[13, 13, 13, 13], gone=0)
    k.void(1, void_suit)
    sampler = DealSampler(k)
    assert sampler.total == len(consistent) > 1
    draws = Counter(tuple(sampler.draw(rng)) for _ in range(300 * len(consistent)))
    assert set(draws) <= set(consistent) and len(draws) == len(consistent)
    counts = np.array([draws[h] for h in consistent])
    expected = counts.sum() / len(consistent)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < len(consistent) + 6 * np.sqrt(2 * len(consistent))   # far from any bias


def test_impossible_knowledge_fails_loudly():
    k = HandConstraints(known=[(1 << 13) - 1, 0, 0, 0], size=[13, 13, 13, 13])
    for seat in (1, 2, 3):
        k.void(seat, 1)                   # nobody holds the 13 clubs
    with pytest.raises(ImpossibleConstraints):
        DealSampler(k)
    with pytest.raises(ImpossibleConstraints):
        DealSampler(HandConstraints(known=[1, 1, 0, 0], size=[13, 13, 13, 13]))


def test_sampler_honours_auction_lower_bounds():
    rng = np.random.default_rng(1)
    hand = random_deal(rng)[0]
    k = HandConstraints(known=[hand, 0, 0, 0], size=[13, 13, 13, 13])
    free_hearts = (SUIT_MASK[3] & ~hand).bit_count()
    k.at_least(2, 3, min(6, free_hearts))
    s = DealSampler(k)
    for _ in range(200):
        assert (s.draw(rng)[2] & SUIT_MASK[3]).bit_count() >= min(6, free_hearts)


def test_batch_solver_matches_the_double_dummy_module():
    rng = np.random.default_rng(4)
    plays, positions = [], []
    for _ in range(12):
        p = TrickPlay(random_deal(rng), int(rng.integers(0, 5)), int(rng.integers(4)))
        for _ in range(int(rng.integers(20, 40))):
            p.play(int(rng.choice(p.legal_cards())))
        plays.append(p)
        positions.append((tuple(p.hands), p.trump, p.leader, tuple(p.trick)))
    batch = solve_positions(positions)
    assert batch == [solve_one(*x) for x in positions] == [solve_position(p) for p in plays]


def test_card_classes_group_touching_cards_only():
    # spades 2, 3 and 5 held, the 4 played: 2-3-5 touch; the 7 is split by the live 6
    hand = 1 << 0 | 1 << 1 | 1 << 3 | 1 << 5
    gone = 1 << 2
    assert card_classes([0, 1, 3, 5], hand, gone) == [[0, 1, 3], [5]]
    assert card_classes([0, 13], 1 | 1 << 13, 0) == [[0], [13]]


@pytest.mark.parametrize("game", GAMES)
def test_pimc_plays_a_dd_optimal_card_when_nothing_is_hidden(game):
    """With every hand known (all hands exposed to it), every sample is the real
    deal, so PIMC's card keeps the double-dummy maximum of tricks."""
    rng = np.random.default_rng(5)
    checked = 0
    for pos, true, obs in play_positions(game, deals=3, seed=21 if game == "vint" else 22):
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        pos.known = {r: true[r] for r in (1, 2, 3)}
        decision = decide(pos, legal, rng, samples=2)
        hands = list(true)
        trick = [c for _, c in pos.trick]
        values = solve_one(tuple(hands), pos.trump, pos.leader, tuple(trick))
        assert values[decision.card] == max(values[c] for c in legal)
        checked += decision.samples > 0
    assert checked > 20


def test_pimc_last_tricks_are_dd_optimal_from_its_own_view():
    """Two tricks left with both opponents' last cards determined by voids: PIMC
    agrees with double-dummy on the real deal (checked over random deals)."""
    rng = np.random.default_rng(6)
    agree = total = 0
    for pos, true, obs in play_positions("whist", deals=12, seed=31):
        if pos.gone.bit_count() < 40:
            continue                          # the last three tricks only
        hidden = [r for r in (1, 2, 3) if true[r].bit_count() > 0]
        k = hand_constraints(pos, use_auction=False)
        if DealSampler(k).total != 1:
            continue                          # only positions where nothing is in doubt
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        decision = decide(pos, legal, rng, samples=3)
        values = solve_one(tuple(true), pos.trump, pos.leader, tuple(c for _, c in pos.trick))
        total += 1
        agree += values[decision.card] == max(values[c] for c in legal)

    assert total > 10 and agree == total


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_play(game):
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import run_match
    boards = generate_boards(1, seed=3)
    a = run_match(game, "pimc:samples=2", "rule", boards, seed=9, analysis=False)
    b = run_match(game, "pimc:samples=2", "rule", boards, seed=9, analysis=False)
    assert a.scores == b.scores
    assert [t.details for r in a.boards for t in r.tables] == [t.details for r in b.boards for t in r.tables]


@pytest.mark.slow
def test_equal_results_across_worker_counts():
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import run_match
    boards = generate_boards(4, seed=5)
    one = run_match("whist", "pimc:samples=2", "rule", boards, seed=1, workers=1, analysis=False)
    two = run_match("whist", "pimc:samples=2", "rule", boards, seed=1, workers=2, analysis=False,
                    chunk_size=1)
    assert one.scores == two.scores


def test_options_and_bad_specs():
    assert parse_spec("pimc:samples=8,time=0.5,auction=1,seed=3").given == {
        "samples": 8, "time": 0.5, "auction": True, "seed": 3}
    agent = load_agent("pimc:samples=5", game="whist", seed=2)
    assert agent.name == "pimc" and agent.samples == 5
    for bad in ("pimc:samples=0", "pimc:samples=x", "pimc:foo=1", "pimc:samples", "pimc:time=-1"):
        with pytest.raises(ValueError):
            load_agent(bad, game="vint")
    with pytest.raises(ValueError, match="PIMC agent does not play .solo_whist."):
        load_agent("pimc", game="solo_whist")
    with pytest.raises(ValueError, match="Vint only"):
        load_agent("pimc:auction=1", game="whist")


def test_time_budget_bounds_the_samples():
    agent = PIMCAgent("whist", samples=1000, time=0.05, seed=1)
    env = make_env("whist")
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    agent.act(obs)
    assert 1 <= agent.last.samples < 1000


def test_sampled_dd_bidding_bids_the_grand_slam_with_thirteen_trumps():
    """bid=dd: with all thirteen spades every sample makes 7S, which outscores
    the rule bot's lower bid; the plain agent keeps the rule bot's call."""
    from vint_env.rules.vint import bid_action
    env = make_env("vint")
    env.reset(seed=0, options={"deal": ONE_SUIT_EACH, "dealer": 0})
    obs = env.observe(env.agent_selection)
    rule_call = load_agent("rule", game="vint").act(obs)
    assert load_agent("pimc:samples=2", game="vint", seed=1).act(obs) == rule_call
    assert load_agent("pimc:bid=dd,samples=2", game="vint", seed=1).act(obs) == bid_action(7, 0)


def test_bid_option_errors():
    assert load_agent("pimc:bid=dd", game="vint").bid == "dd"
    with pytest.raises(ValueError, match="bid"):
        load_agent("pimc:bid=par", game="vint")
    with pytest.raises(ValueError, match="Vint only"):
        load_agent("pimc:bid=dd", game="whist")
