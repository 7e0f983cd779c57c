"""The sparse first layer is the dense layer as a function: outputs and gradients on random observations."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.agents.learned.networks import SparseActorCritic, SparseInput, SparseObs, build_network
from vint_env.agents.learned.sparse import active_entries


def random_obs(rng, n, d, density=0.06, values=False):
    obs = (rng.random((n, d)) < density).astype(np.float32)
    if values:   # a few entries that are not 0/1, as scaled scores would be
        obs *= np.where(rng.random((n, d)) < 0.2, rng.normal(size=(n, d)), 1.0).astype(np.float32)
    obs[0] = 0.0   # a row with no active entry
    return obs


@pytest.mark.parametrize("values", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_sparse_input_equals_the_dense_layer(seed, values):
    rng = np.random.default_rng(seed)
    d, width = 97, 16
    layer = SparseInput(d, width)
    dense = torch.nn.Linear(d, width)
    with torch.no_grad():
        dense.weight.copy_(layer.weight.T)
        dense.bias.copy_(layer.bias)
    obs = torch.from_numpy(random_obs(rng, 64, d, values=values))
    probe = torch.randn(64, width)
    for given in (obs, SparseObs.from_dense(obs)):   # a dense batch, or its active entries
        layer.zero_grad()
        dense.zero_grad()
        out_s, out_d = layer(given), dense(obs)
        torch.testing.assert_close(out_s, out_d, rtol=1e-5, atol=1e-5)
        (torch.tanh(out_s) * probe).sum().backward()
        (torch.tanh(out_d) * probe).sum().backward()
        torch.testing.assert_close(layer.weight.grad, dense.weight.grad.T, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(layer.bias.grad, dense.bias.grad, rtol=1e-5, atol=1e-5)


def test_active_entries_round_trip():
    rng = np.random.default_rng(5)
    obs = random_obs(rng, 50, 200, values=True)
    index, weight = active_entries(obs)
    assert index.shape[1] == (obs != 0).sum(1).max()
    assert np.array_equal(SparseObs(torch.from_numpy(index), torch.from_numpy(weight), 200).to_dense().numpy(), obs)
    with pytest.raises(ValueError, match="more than width"):
        active_entries(obs, width=2)
    both = SparseObs.cat([SparseObs.from_dense(obs[:10]), SparseObs.from_dense(obs[10:])])
    assert torch.equal(both.to_dense(), torch.from_numpy(obs)) and len(both[3:7]) == 4


def test_the_fast_tanh_is_tanh():
    from vint_env.agents.learned.networks import Tanh
    x = torch.linspace(-12, 12, 10001)
    torch.testing.assert_close(Tanh()(x), torch.tanh(x), rtol=0, atol=1e-6)


def test_sparse_network_is_the_dense_trunk_with_shared_heads():
    rng = np.random.default_rng(0)
    net = build_network("sparse", 120, 30, {"hidden_sizes": [32, 16]})
    assert isinstance(net, SparseActorCritic)
    obs = torch.from_numpy(random_obs(rng, 8, 120))
    logits, value = net(obs)
    assert logits.shape == (8, 30) and value.shape == (8,)
    first = torch.tanh(obs @ net.first.weight + net.first.bias)
    h = net.trunk(first)
    torch.testing.assert_close(logits, net.policy_head(h), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(value, net.value_head(h).squeeze(-1), rtol=1e-5, atol=1e-6)
    logits2, _ = net(SparseObs.from_dense(obs))
    torch.testing.assert_close(logits, logits2)
    with pytest.raises(ValueError, match="expected observations"):
        net(torch.zeros(2, 7))
    apart = build_network("sparse", 120, 30, {"hidden_sizes": [32, 16], "shared": False})
    _, value = apart(obs)
    hv = apart.value_trunk(torch.tanh(obs @ apart.first.weight[:, 32:] + apart.first.bias[32:]))
    torch.testing.assert_close(value, apart.value_head(hv).squeeze(-1), rtol=1e-5, atol=1e-6)
    assert apart.multiply_adds(10) > net.multiply_adds(10)
    with pytest.raises(ValueError, match="hidden_sizes"):
        build_network("sparse", 120, 30, {"hidden_sizes": []})


def test_the_value_trunk_has_its_own_widths_and_old_checkpoints_load():
    rng = np.random.default_rng(1)
    obs = torch.from_numpy(random_obs(rng, 8, 120))
    net = build_network("sparse", 120, 30, {"hidden_sizes": [32, 16], "shared": False,
                                            "value_hidden_sizes": [8, 4]})
    assert net.first.weight.shape == (120, 32 + 8) and net.value_head.in_features == 4
    logits, value = net(obs)
    first = torch.tanh(obs @ net.first.weight + net.first.bias)
    torch.testing.assert_close(logits, net.policy_head(net.trunk(first[:, :32])), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(value, net.value_head(net.value_trunk(first[:, 32:])).squeeze(-1),
                               rtol=1e-5, atol=1e-6)
    assert net.multiply_adds(10) == 10 * 32 + 32 * 16 + 16 * 30 + 10 * 8 + 8 * 4 + 4
    # a checkpoint written when the two first layers were apart (first.* and value_first.*) loads as before
    old = {k: v.clone() for k, v in net.state_dict().items()}
    old["value_first.weight"], old["first.weight"] = old["first.weight"][:, 32:], old["first.weight"][:, :32]
    old["value_first.bias"], old["first.bias"] = old["first.bias"][32:], old["first.bias"][:32]
    again = build_network("sparse", 120, 30, {"hidden_sizes": [32, 16], "shared": False,
                                              "value_hidden_sizes": [8, 4]})
    again.load_state_dict(old)
    for a, b in zip(again(obs), (logits, value)):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match="value_hidden_sizes needs shared: false"):
        build_network("sparse", 120, 30, {"hidden_sizes": [32], "value_hidden_sizes": [8]})
    with pytest.raises(ValueError, match="value_hidden_sizes must be"):
        build_network("sparse", 120, 30, {"hidden_sizes": [32], "shared": False, "value_hidden_sizes": []})


def test_a_sparse_checkpoint_loads_as_an_agent(tmp_path):
    from vint_env import games
    from vint_env.agents.learned.policy import PPOAgent, save_checkpoint
    game = games.get("whist")
    d, a = game.layout.size, 52
    net = build_network("sparse", d, a, {"hidden_sizes": [32, 32]})
    save_checkpoint(tmp_path / "c.pt", {"game": game.env_name, "env_kwargs": {}, "obs_size": d, "num_actions": a,
                                        "network": {"name": "sparse", "kwargs": {"hidden_sizes": [32, 32]}},
                                        "model": net.state_dict(), "config": {}})
    agent = PPOAgent.load(tmp_path / "c.pt", game=game.env_name)
    obs = np.zeros((1, d), dtype=np.float32)
    obs[0, :5] = 1
    mask = np.zeros((1, a), dtype=np.int8)
    mask[0, 7] = 1
    assert agent.act_batch(obs, mask).tolist() == [7]


def test_a_checkpoint_file_of_the_old_two_layer_layout_loads_and_starts_a_run(tmp_path):
    """A ``shared: false`` checkpoint written before the fusion (first.* and value_first.*) passes the
    loader's shape check (the network's own upgrade runs first) and plays as the fused network."""
    from vint_env import games
    from vint_env.agents.learned.policy import load_checkpoint, network_from_checkpoint, save_checkpoint
    game = games.get("whist")
    d, a = game.layout.size, 52
    kwargs = {"hidden_sizes": [32, 16], "shared": False}
    net = build_network("sparse", d, a, kwargs)
    old = {k: v.clone() for k, v in net.state_dict().items()}
    old["value_first.weight"], old["first.weight"] = old["first.weight"][:, 32:], old["first.weight"][:, :32]
    old["value_first.bias"], old["first.bias"] = old["first.bias"][32:], old["first.bias"][:32]
    save_checkpoint(tmp_path / "old.pt", {"game": game.env_name, "env_kwargs": {}, "obs_size": d, "num_actions": a,
                                          "network": {"name": "sparse", "kwargs": kwargs}, "model": old,
                                          "config": {}})
    ckpt = load_checkpoint(tmp_path / "old.pt", game=game.env_name)
    loaded = network_from_checkpoint(ckpt, "old.pt")
    obs = torch.from_numpy(random_obs(np.random.default_rng(3), 4, d))
    for x, y in zip(loaded(obs), net(obs)):
        torch.testing.assert_close(x, y)
    assert "value_first.weight" in ckpt["model"]          # the file's dict is not rewritten by the check
