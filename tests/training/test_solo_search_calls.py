"""The search-taught calls (training/solo_search_calls.py): targets, and the card play kept exactly."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.agents.learned.networks import build_network
from vint_env.cards import NUM_CARDS
from vint_env.training.teacher_data import TeacherData


def _data(n=64, seed=0):
    g = games.get("solo_whist")
    rng = np.random.default_rng(seed)
    obs = (rng.random((n, g.observation_size)) < 0.07).astype(np.float32)
    masks = np.zeros((n, g.num_actions), dtype=bool)
    masks[:, NUM_CARDS:NUM_CARDS + 4] = True
    values = np.where(masks, rng.normal(0, 3, masks.shape), np.nan).astype(np.float32)
    actions = np.full(n, NUM_CARDS, dtype=np.int64)
    return TeacherData.from_arrays(obs, masks, actions, values[:, NUM_CARDS], np.zeros(n), np.arange(n), values)


def test_the_target_is_the_searchs_call_only_where_it_gains_more_than_the_margin():
    from training.solo_search_calls import search_targets
    data = _data()
    rows = np.arange(len(data))
    best = np.nanargmax(data.values, 1)
    ahead = data.values[rows, best] - data.values[rows, data.actions]
    for margin in (0.0, 1.0, 3.0):
        target = search_targets(data, margin)
        np.testing.assert_array_equal(target, np.where(ahead > margin, best, data.actions))
    data.values[0] = np.nan                       # every re-deal failed: the network's own call
    assert search_targets(data, 0.0)[0] == data.actions[0]


def test_training_the_head_moves_the_calls_toward_the_targets_and_leaves_every_card_logit():
    from training.solo_search_calls import search_targets, train_calls
    g = games.get("solo_whist")
    torch.manual_seed(0)
    net = build_network("sparse", g.observation_size, g.num_actions, {"hidden_sizes": [256], "shared": False})
    data = _data(256)
    target = search_targets(data, 0.0)
    obs = torch.from_numpy(data.obs())
    with torch.no_grad():
        before = net.policy_logits(obs).clone()
    history = train_calls(net, data, data.values, target, np.arange(200), np.arange(200, 256), 64, "head",
                          epochs=30, lr=3e-2, seed=0, say=lambda m: None)
    with torch.no_grad():
        after = net.policy_logits(obs)
    assert torch.equal(after[:, :NUM_CARDS], before[:, :NUM_CARDS])     # the card play is the start's
    assert not torch.equal(after[:, NUM_CARDS:], before[:, NUM_CARDS:])
    picked = after[:200].masked_fill(~torch.from_numpy(data.masks[:200]), -1e9).argmax(1).numpy()
    assert np.mean(picked == target[:200]) > 0.9                       # it learnt the training targets
    assert history[-1]["held_agree"] >= 0.0 and len(history) == 30
