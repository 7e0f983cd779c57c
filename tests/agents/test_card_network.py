"""The card-sharing network ('cards'): sizes for every game, weights shared across cards, checkpoints."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.agents.learned.networks import CardActorCritic, build_network
from vint_env.agents.learned.policy import PPOAgent, save_checkpoint


@pytest.mark.parametrize("game", games.names())
def test_every_game_builds_from_its_observation_size(game):
    env = games.get(game).env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    size, actions = len(obs["observation"]), len(obs["action_mask"])
    net = build_network("cards", size, actions)
    assert net.game == games.get(game).name
    logits, value = net(torch.rand(3, size))
    assert logits.shape == (3, actions) and value.shape == (3,)
    # every observation entry is read once: as a card's feature or in the global vector
    seen = np.concatenate([net.card_index.numpy().ravel(), net.global_index.numpy()])
    assert sorted(seen) == list(range(size))


def test_card_features_come_from_the_card_indexed_blocks():
    net = build_network("cards", games.get("whist").layout.size, 52)
    layout = games.get("whist").layout
    hand = layout.slice("hand")
    # feature 0 of card c is hand[c]; the played block's seat-2 row gives another feature of card c
    assert [int(net.card_index[c, 0]) for c in (0, 51)] == [hand.start, hand.start + 51]
    played = layout.blocks["played"]
    assert played.start + 2 * 52 + 7 in set(net.card_index[7].tolist())


def test_two_cards_of_a_suit_swapped_swap_their_logits():
    """Weights shared across cards: swap two cards of one suit everywhere (their features and their
    embeddings) and their logits swap, the other cards' logits and the value stay."""
    torch.manual_seed(0)
    size = games.get("whist").layout.size
    net = build_network("cards", size, 52)
    x = torch.rand(4, size)
    i, j = 14, 20                                  # both in suit 1
    y = x.clone()
    idx = net.card_index
    y[:, idx[i]], y[:, idx[j]] = x[:, idx[j]], x[:, idx[i]]
    with torch.no_grad():
        la, va = net(x)
        net.embedding[[i, j]] = net.embedding[[j, i]].clone()
        lb, vb = net(y)
    perm = list(range(52))
    perm[i], perm[j] = j, i
    assert torch.allclose(lb, la[:, perm], atol=1e-5)
    assert torch.allclose(vb, va, atol=1e-5)
    assert not torch.allclose(la[:, i], la[:, j])


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="cannot tell the game"):
        CardActorCritic(123, 52)
    with pytest.raises(ValueError, match="whist's observation has 965"):
        CardActorCritic(1102, 88, game="whist")
    with pytest.raises(ValueError, match="card actions"):
        CardActorCritic(965, 10)
    with pytest.raises(ValueError, match="rejected its arguments"):
        build_network("cards", 965, 52, {"depth": 3})


def test_checkpoint_round_trip_plays_like_the_network(tmp_path):
    torch.manual_seed(1)
    env = games.get("vint").env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    size, actions = len(obs["observation"]), len(obs["action_mask"])
    net = build_network("cards", size, actions, {"width": 16, "global_sizes": [32]})
    path = save_checkpoint(tmp_path / "c.pt", {
        "game": "vint_v0", "env_kwargs": {}, "obs_size": size, "num_actions": actions,
        "network": {"name": "cards", "kwargs": {"width": 16, "global_sizes": [32]}},
        "model": net.state_dict(), "config": {}})
    agent = PPOAgent.load(path, game="vint_v0")
    for _ in range(60):
        obs = env.observe(env.agent_selection)
        a = agent.act(obs)
        assert obs["action_mask"][a] == 1
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(np.asarray(obs["observation"], dtype=np.float32))[None])
        masked = np.where(np.asarray(obs["action_mask"], bool), logits[0].numpy(), -np.inf)
        assert a == int(masked.argmax())
        env.step(a)
        if all(env.terminations.values()):
            break
