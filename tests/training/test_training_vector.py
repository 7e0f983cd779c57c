"""The batched engine as the trainer's game source: the same games and rollouts as the AEC source."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.training.selfplay import SelfPlayCollector
from vint_env.training.sources import GameBatch, make_game_batch
from vint_env.agents.learned.networks import build_network
from vint_env.agents.registry import load_agent


def rollout(source, mix, seed=4, env_kwargs=None, game="vint", network="mlp", record_states=False):
    game = games.get(game)
    batch = make_game_batch(source, game, 6, env_kwargs or {})
    torch.manual_seed(0)
    net = build_network(network, batch.obs_size, batch.num_actions, {"hidden_sizes": [32]})
    col = SelfPlayCollector(batch, mix, 40, lambda kind: load_agent(kind, game=game), record_states=record_states)
    return col.collect(net, [net], np.random.default_rng(seed), torch.Generator().manual_seed(seed))


def test_both_sources_are_game_batches_and_observe_the_same_active_entries():
    """One rollout-source interface: the AEC envs and the batched engine both implement ``GameBatch``, and
    both give a sparse network the active entries of the very observations they give a dense one, and a
    centralised critic the same state() vectors."""
    states = {}
    for source in ("aec", "vector"):
        batch = make_game_batch(source, games.get("whist"), 3)
        assert isinstance(batch, GameBatch), source
        batch.start_many([0, 1, 2], [5, 6, 7])
        ids = np.array([0, 2])
        obs, masks = batch.observe(ids)
        index, weight, masks2 = batch.observe_active(ids)
        dense = np.zeros_like(obs)
        for row in range(len(ids)):
            np.add.at(dense[row], index[row], weight[row])
        assert np.array_equal(dense, obs) and np.array_equal(masks, masks2), source
        states[source] = batch.states(ids)
        assert states[source].shape == (2, batch.state_size) and states[source].dtype == np.float32, source
    assert np.array_equal(states["aec"], states["vector"])


@pytest.mark.parametrize("mix", [{"self": 1.0}, {"self": 0.3, "pool": 0.2, "random": 0.2, "rule": 0.3}],
                         ids=["self", "mixed"])
def test_vector_source_plays_the_same_rollout_as_aec(mix):
    a = rollout("aec", mix)
    v = rollout("vector", mix)
    assert a.env_steps == v.env_steps and len(a) == len(v)
    assert torch.equal(a.obs, v.obs)
    assert torch.equal(a.masks, v.masks)
    assert torch.equal(a.actions, v.actions)
    assert np.allclose(a.rewards, v.rewards, rtol=1e-6, atol=1e-6)   # the engine's rewards are float32
    assert np.array_equal(a.dones, v.dones) and np.array_equal(a.next_index, v.next_index)
    assert np.array_equal(a.seats, v.seats)


def test_vector_source_takes_the_vint_variants_as_the_aec_source():
    # the honours rule changes the rewards of finished deals; both sources play it the same way
    a = rollout("aec", {"self": 1.0}, env_kwargs={"honours": "net", "game_race": "deal_end"})
    v = rollout("vector", {"self": 1.0}, env_kwargs={"honours": "net", "game_race": "deal_end"})
    assert np.allclose(a.rewards, v.rewards, rtol=1e-6, atol=1e-6) and np.array_equal(a.dones, v.dones)
    default = rollout("vector", {"self": 1.0})
    assert not np.allclose(default.rewards, v.rewards)
    with pytest.raises(ValueError, match="honours must be one of"):
        make_game_batch("vector", games.get("vint"), 2, {"honours": "sum"})


def dense(obs):
    return obs.to_dense() if hasattr(obs, "to_dense") else obs


from vint_env import games

ENGINE_GAMES = [(games.get(g).env_name, {}) for g in games.engine_games()]   # every game the engine plays


@pytest.mark.parametrize("game,env_kwargs", ENGINE_GAMES + [("whist_v0", {"no_trump": True}),
                                                           ("whist_v0", {"ten_is_honour": True})],
                         ids=[g for g, _ in ENGINE_GAMES] + ["whist-no-trump", "whist-ten-honour"])
@pytest.mark.parametrize("network", ["mlp", "sparse"])
def test_engine_rollouts_equal_aec_rollouts_for_every_engine_game(game, env_kwargs, network):
    mix = {"self": 0.3, "pool": 0.2, "random": 0.2, "rule": 0.3}
    a = rollout("aec", mix, game=game, env_kwargs=env_kwargs, network=network, record_states=True)
    v = rollout("vector", mix, game=game, env_kwargs=env_kwargs, network=network, record_states=True)
    assert a.env_steps == v.env_steps and len(a) == len(v) and a.stats["deals"] == v.stats["deals"]
    assert torch.equal(a.states, v.states)          # a centralised critic's input: each decision's state()
    assert torch.equal(dense(a.obs), dense(v.obs))
    assert torch.equal(a.masks, v.masks) and torch.equal(a.actions, v.actions)
    assert np.allclose(a.rewards, v.rewards, rtol=1e-6, atol=1e-6)
    assert np.array_equal(a.dones, v.dones) and np.array_equal(a.next_index, v.next_index)
    assert np.array_equal(a.seats, v.seats)
    if network == "sparse":   # the sparse network's rollouts carry the active entries, not the dense rows
        assert not isinstance(v.obs, torch.Tensor) and v.obs.index.shape[1] < v.obs.size // 5


def test_vector_source_refuses_other_games_and_options():
    with pytest.raises(ValueError, match="deal episodes only"):
        make_game_batch("vector", games.get("vint"), 2, {"episode": "rubber"})
    with pytest.raises(ValueError, match="does not take env_kwargs"):
        make_game_batch("vector", games.get("vint"), 2, {"max_deals": 3})


def test_solo_whist_rule_bot_plays_compiled_in_the_engine_with_the_python_bots_actions():
    # Against the rule bot, the engine source asks its compiled twin (all bot seats of a step in one call):
    # the rollout is the one the Python bots make seat by seat.
    def solo_rollout(compiled: bool):
        batch = make_game_batch("vector", games.get("solo_whist"), 8, {})
        torch.manual_seed(0)
        net = build_network("sparse", batch.obs_size, batch.num_actions, {"hidden_sizes": [32]})
        col = SelfPlayCollector(batch, {"rule": 0.8, "self": 0.2}, 60,
                                lambda kind: load_agent(kind, game="solo_whist"), compiled_bots=compiled)
        return batch, col.collect(net, [net], np.random.default_rng(3), torch.Generator().manual_seed(3))

    batch, fast = solo_rollout(True)
    assert batch._rule_bot is not None                    # the compiled bot played
    slow_batch, slow = solo_rollout(False)
    assert slow_batch._rule_bot is None
    assert fast.env_steps == slow.env_steps and torch.equal(fast.actions, slow.actions)
    assert np.array_equal(fast.rewards, slow.rewards) and np.array_equal(fast.seats, slow.seats)
