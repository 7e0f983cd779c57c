"""The calls' values by batched rollouts on the engine (vint_env/training/engine_values.py)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from card_game_checks import random_episode

from vint_env import games
from vint_env.agents.learned.networks import build_network
from vint_env.cards import NUM_CARDS
from vint_env.training.engine_values import PolicyLogits, call_values, greedy


def _net(seed=0):
    torch.manual_seed(seed)
    g = games.get("solo_whist")
    net = build_network("mlp", g.observation_size, g.num_actions, {"hidden_sizes": [32]})
    with torch.no_grad():                       # a policy head big enough to make varied calls
        net.policy_head.weight.mul_(300.0)
    return net.eval()


def _greedy_deal_points(net, seed, deals):
    """Each seat's points when the deals of call_values are played greedily from the start, no forks."""
    record = games.get("solo_whist")
    engine = record.engine_class()(auto_reset=False)
    state = engine.init(seed=(seed * 1_000_003 + np.arange(deals)).astype(np.int64))
    got = np.zeros((deals, 4))
    live = np.ones(deals, dtype=bool)
    while live.any():
        act = np.zeros(deals, dtype=np.int64)
        act[live] = greedy(net, state.observation[live], state.legal_action_mask[live])
        engine.step(state, act)
        got += np.where(live[:, None], state.rewards, 0.0)
        live &= ~state.terminated
    return got * record.points_scale / engine.reward_scale


def _rule_table_points(net, seed, deals):
    """The points of seat ``s`` of deal ``k`` (``[deals, 4]``) when ``net`` plays seat ``s`` greedily and the
    engine's rule bot the other three, from the start, no forks (each deal once for each seat)."""
    from vint_env.vector.solo_whist_rule import SoloWhistRuleBot
    record = games.get("solo_whist")
    engine = record.engine_class()(auto_reset=False)
    state = engine.init(seed=(seed * 1_000_003 + np.repeat(np.arange(deals), 4)).astype(np.int64))
    learner = np.tile(np.arange(4), deals)
    bot = SoloWhistRuleBot(engine)
    got = np.zeros(4 * deals)
    live = np.ones(4 * deals, dtype=bool)
    while live.any():
        act = np.zeros(4 * deals, dtype=np.int64)
        mine = live & (state.current_player == learner)
        act[mine] = greedy(net, state.observation[mine], state.legal_action_mask[mine])
        if (live & ~mine).any():
            act[live & ~mine] = bot.actions(state, live & ~mine)
        engine.step(state, act)
        got += np.where(live, state.rewards[np.arange(4 * deals), learner], 0.0)
        live &= ~state.terminated
    return (got * record.points_scale / engine.reward_scale).reshape(deals, 4)


def test_sparse_policy_logits_equal_the_network():
    net = _net()
    engine = games.get("solo_whist").engine_class()()
    state = engine.init(seed=3, batch_size=16)
    obs = state.observation
    dense = net(torch.as_tensor(obs))[0]
    assert torch.allclose(PolicyLogits(net)(obs), dense, atol=1e-4)


def test_the_greedy_calls_value_is_the_deals_real_outcome_and_only_legal_calls_are_valued():
    net, seed, deals = _net(), 7, 24
    data = call_values(net, games.get("solo_whist"), seed, deals, batch=10)
    points = _greedy_deal_points(net, seed, deals)
    assert len(data) > deals                            # several calls with a choice a deal
    values = data.values
    assert (data.masks[:, NUM_CARDS:].any(1)).all() and (data.masks.sum(1) > 1).all()
    assert (np.isnan(values) == ~data.masks).all()      # every legal action valued, nothing else
    # A fork with the network's own call replays the deal as played without forks.
    mine = values[np.arange(len(data)), data.actions]
    np.testing.assert_allclose(mine, points[data.deal_ids, data.seats])
    np.testing.assert_allclose(data.returns, mine)
    # Some other call changes the outcome somewhere (the values are not the deal's result copied).
    assert (np.nanmax(values, 1) != np.nanmin(values, 1)).any()
    # Solo Whist's payments sum to zero at a table: a seat's value is at most what three others pay.
    assert np.nanmax(np.abs(values)) <= 3 * 24 + 1e-6


def test_at_a_table_of_rule_bots_the_greedy_calls_value_is_the_deals_outcome_against_them():
    net, seed, deals = _net(), 7, 24
    data = call_values(net, games.get("solo_whist"), seed, deals, batch=10, fork_chunk=16, opponents="rule")
    points = _rule_table_points(net, seed, deals)
    assert len(data) > deals and set(data.seats) == {0, 1, 2, 3}
    assert (np.isnan(data.values) == ~data.masks).all()
    mine = data.values[np.arange(len(data)), data.actions]
    # The network's own call, played on against the bots (forks of 16 rows, finished games dropped on
    # the way, the bots' memory following each game), replays the deal as played without forks.
    np.testing.assert_allclose(mine, points[data.deal_ids, data.seats])
    assert (np.nanmax(data.values, 1) != np.nanmin(data.values, 1)).any()
    # The same network's calls valued at a table of copies of itself are other numbers.
    own = call_values(net, games.get("solo_whist"), seed, deals, batch=10)
    assert not np.array_equal(np.sort(own.returns), np.sort(data.returns))


def test_valuing_at_a_rule_table_needs_a_compiled_rule_bot_and_a_known_table():
    with pytest.raises(ValueError, match="compiled for whist"):
        call_values(_net(), games.get("whist"), 1, 2, opponents="rule")
    with pytest.raises(ValueError, match="opponents must be one of self, rule, got 'rules'"):
        call_values(_net(), games.get("solo_whist"), 1, 2, opponents="rules")


def test_a_policy_iteration_round_is_a_plain_policy_that_plays_legally_with_no_rule_bot(tmp_path, monkeypatch):
    from training.solo_standalone import save_round
    from vint_env.agents.learned.policy import PPOAgent
    g = games.get("solo_whist")
    net = _net()
    start = {"game": g.env_name, "env_kwargs": {}, "obs_size": g.observation_size, "num_actions": g.num_actions,
             "network": {"name": "mlp", "kwargs": {"hidden_sizes": [32]}}, "model": {},
             "residual": {"base": "rule", "margin": 1.0, "actions": "auction"}, "config": {"residual_base": "rule"}}
    save_round(tmp_path / "round1.pt", start, net, {"round": 1})
    monkeypatch.setattr(type(g), "rule_agent", lambda self: pytest.fail("the standalone agent built a rule bot"))
    agent = PPOAgent.load(tmp_path / "round1.pt", game="solo_whist")
    assert type(agent) is PPOAgent                      # no ResidualAgent: the network alone decides
    env, seen = g.raw_env(), {}

    def choose(legal, rng):
        action = agent.act(seen["observation"])
        assert action in legal
        return action

    for deal in range(3):
        env.reset(seed=deal)
        random_episode(env, None, check=lambda env, name, ob: seen.update(observation=ob), choose=choose)


def test_card_decisions_are_valued_like_calls_and_all_joins_the_two():
    from vint_env.training.engine_values import action_values
    net, seed, deals, g = _net(), 7, 12, games.get("solo_whist")
    cards = action_values(net, g, seed, deals, batch=6, opponents="rule", decisions="cards")
    calls = action_values(net, g, seed, deals, batch=6, opponents="rule", decisions="calls")
    both = action_values(net, g, seed, deals, batch=6, opponents="rule", decisions="all")
    points = _rule_table_points(net, seed, deals)
    assert not cards.masks[:, NUM_CARDS:].any() and (cards.masks.sum(1) > 1).all()
    assert (np.isnan(cards.values) == ~cards.masks).all()
    # The network's own card, played on against the bots, replays the deal as played without forks.
    mine = cards.values[np.arange(len(cards)), cards.actions]
    np.testing.assert_allclose(mine, points[cards.deal_ids, cards.seats])
    assert (np.nanmax(cards.values, 1) != np.nanmin(cards.values, 1)).any()
    assert len(both) == len(cards) + len(calls)
    # A share of the decisions: fewer rows, each one of the full set's.
    some = action_values(net, g, seed, deals, batch=6, opponents="rule", decisions="cards", keep=0.3)
    assert 0 < len(some) < len(cards)
    full = {(d, s, a.tobytes()) for d, s, a in zip(cards.deal_ids, cards.seats, cards.values)}
    assert all((d, s, a.tobytes()) in full for d, s, a in zip(some.deal_ids, some.seats, some.values))


def test_a_search_values_the_same_decisions_on_deals_dealt_again(monkeypatch):
    from vint_env.training import engine_values
    net, seed, deals, g = _net(), 9, 8, games.get("solo_whist")
    true = engine_values.action_values(net, g, seed, deals, batch=4, opponents="rule", decisions="all", keep=0.5)
    search = engine_values.action_values(net, g, seed, deals, batch=4, opponents="rule", decisions="all", keep=0.5,
                                         samples=3)
    np.testing.assert_array_equal(search.actions, true.actions)        # the same rows, decision by decision
    np.testing.assert_array_equal(search.obs(), true.obs())
    assert (np.isnan(search.values) == ~search.masks).all()
    assert not np.allclose(search.values, true.values, equal_nan=True)  # other deals, other outcomes
    # Deals "dealt again" as they were: the search's values are the true deal's.
    monkeypatch.setattr(engine_values, "deals_like", lambda engine, state, seats, samples, rng: engine_values.take_rows(
        state, np.repeat(np.arange(state.batch_size), samples)))
    same = engine_values.action_values(net, g, seed, deals, batch=4, opponents="rule", decisions="all", keep=0.5,
                                       samples=3)
    np.testing.assert_allclose(same.values, true.values)


def test_action_values_refuses_unknown_decisions_shares_and_samples():
    from vint_env.training.engine_values import action_values
    g = games.get("solo_whist")
    with pytest.raises(ValueError, match="decisions must be one of calls, cards, all, got 'tricks'"):
        action_values(_net(), g, 1, 2, decisions="tricks")
    with pytest.raises(ValueError, match=r"keep must be a share in \(0, 1\], got 0"):
        action_values(_net(), g, 1, 2, keep=0)
    with pytest.raises(ValueError, match="samples must be a whole number >= 0, got -1"):
        action_values(_net(), g, 1, 2, samples=-1)
