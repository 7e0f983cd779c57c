"""PPO building blocks against hand computations: masked distribution, GAE, one update."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.training.ppo import compute_gae
from vint_env.agents.learned.networks import MaskedCategorical, MLPActorCritic, build_network


def test_masked_categorical_never_samples_illegal():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 10, generator=g) * 5
    logits[:, 3] = 50.0  # the network's favourite action is illegal in every row
    mask = torch.rand(64, 10, generator=g) < 0.4
    mask[:, 3] = False
    mask[torch.arange(64), torch.randint(0, 10, (64,), generator=g)] |= True
    mask[:, 3] = False
    mask[~mask.any(-1), 0] = True
    d = MaskedCategorical(logits, mask)
    for _ in range(50):
        a = d.sample(g)
        assert mask[torch.arange(64), a].all()
    assert (d.probs[~mask] == 0).all()
    assert torch.allclose(d.probs.sum(-1), torch.ones(64))
    assert mask[torch.arange(64), d.mode()].all()


def test_masked_categorical_matches_hand_computation():
    # logits (1, 2, 3, 4), actions 1 and 3 illegal: probabilities over {0, 2} only.
    logits = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    mask = torch.tensor([[1, 0, 1, 0]])
    d = MaskedCategorical(logits, mask)
    z = math.exp(1) + math.exp(3)
    p0, p2 = math.exp(1) / z, math.exp(3) / z
    assert d.probs[0].tolist() == pytest.approx([p0, 0.0, p2, 0.0])
    assert float(d.log_prob(torch.tensor([0]))) == pytest.approx(math.log(p0))
    assert float(d.log_prob(torch.tensor([2]))) == pytest.approx(math.log(p2))
    assert float(d.log_prob(torch.tensor([1]))) == -math.inf
    assert float(d.entropy()) == pytest.approx(-(p0 * math.log(p0) + p2 * math.log(p2)))
    # entropy with a single legal action is exactly zero, and uniform over k legal is log k
    assert float(MaskedCategorical(torch.randn(1, 5), torch.tensor([[0, 0, 1, 0, 0]])).entropy()) == 0.0
    assert float(MaskedCategorical(torch.zeros(1, 6), torch.tensor([[1, 1, 0, 1, 0, 0]])).entropy()) \
        == pytest.approx(math.log(3))


def test_masked_categorical_gradients_are_finite():
    logits = torch.randn(4, 6, requires_grad=True)
    mask = torch.tensor([[1, 0, 0, 0, 0, 0], [1, 1, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1]])
    d = MaskedCategorical(logits, mask)
    (d.entropy().sum() + d.log_prob(torch.tensor([0, 4, 5, 2])).sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert (logits.grad[~mask.bool()] == 0).all()  # illegal logits get no gradient


def test_masked_categorical_rejects_empty_rows():
    with pytest.raises(ValueError, match="no legal action"):
        MaskedCategorical(torch.zeros(2, 3), torch.tensor([[1, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        MaskedCategorical(torch.zeros(2, 3), torch.ones(2, 4))


def test_gae_hand_computed_with_interleaved_seats():
    # Two seats interleaved: seat A takes transitions 0, 2, 3 (done); seat B 1, 4 (done).
    rewards = np.array([0.0, 0.5, 0.0, 1.0, -1.0])
    values = np.array([0.2, 0.1, 0.4, 0.6, -0.3])
    dones = np.array([False, False, False, True, True])
    nxt = np.array([2, 4, 3, -1, -1])
    g, lam = 0.9, 0.8
    # By hand, from the end of each trajectory:
    a3 = 1.0 - 0.6                                    # 0.4
    a2 = (0.0 + g * 0.6 - 0.4) + g * lam * a3          # 0.14 + 0.288 = 0.428
    a0 = (0.0 + g * 0.4 - 0.2) + g * lam * a2          # 0.16 + 0.30816 = 0.46816
    a4 = -1.0 - (-0.3)                                 # -0.7
    a1 = (0.5 + g * -0.3 - 0.1) + g * lam * a4         # 0.13 - 0.504 = -0.374
    adv, ret = compute_gae(rewards, values, dones, nxt, g, lam)
    assert adv.tolist() == pytest.approx([a0, a1, a2, a3, a4])
    assert ret.tolist() == pytest.approx((np.array([a0, a1, a2, a3, a4]) + values).tolist())


def test_gae_lambda_one_gamma_one_is_return_minus_value():
    rewards = np.array([0.0, 0.0, 2.0])
    values = np.array([1.0, 1.5, 0.5])
    adv, ret = compute_gae(rewards, values, np.array([False, False, True]), np.array([1, 2, -1]), 1.0, 1.0)
    assert ret.tolist() == pytest.approx([2.0, 2.0, 2.0])
    assert adv.tolist() == pytest.approx([1.0, 0.5, 1.5])


def test_gae_rejects_a_broken_trajectory():
    with pytest.raises(ValueError, match="successor"):
        compute_gae(np.zeros(2), np.zeros(2), np.array([False, True]), np.array([0, -1]), 1.0, 1.0)


def test_build_network_contract_and_errors():
    net = build_network("mlp", 10, 4, {"hidden_sizes": [8]})
    logits, value = net(torch.zeros(3, 10))
    assert logits.shape == (3, 4) and value.shape == (3,)
    with pytest.raises(ValueError, match="import path 'module:Class' is not accepted"):   # issue 23 item 3
        build_network("vint_env.agents.learned.networks:MLPActorCritic", 10, 4)
    with pytest.raises(ValueError, match="unknown network"):
        build_network("transformer", 10, 4)
    with pytest.raises(ValueError, match="rejected its arguments"):
        build_network("mlp", 10, 4, {"hiden_sizes": [8]})
    with pytest.raises(ValueError, match="unknown network"):
        build_network("this:d", 10, 4)
