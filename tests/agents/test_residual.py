"""The rule bot corrected by a learnt critic: it plays the bot's action unless the network values another
by more than the margin; checkpoints say so with a checked ``residual`` entry."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import CheckpointError, PPOAgent, save_checkpoint
from vint_env.agents.registry import load_agent
from vint_env.agents.learned.residual import ResidualAgent


def write(tmp_path, residual, seed=0):
    torch.manual_seed(seed)
    size = games.get("whist").layout.size
    net = build_network("mlp", size, 52, {"hidden_sizes": [16]})
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(30)                      # big logits: the network disagrees with the bot often and firmly
    path = tmp_path / "r.pt"
    save_checkpoint(path, {"game": "whist_v0", "env_kwargs": {}, "obs_size": size, "num_actions": 52,
                           "network": {"name": "mlp", "kwargs": {"hidden_sizes": [16]}},
                           "model": net.state_dict(), "residual": residual})
    return path


def play(agent_for_seat, seed=4):
    """One Whist deal; per decision (observation, chosen action)."""
    env = games.get("whist").env()
    env.reset(seed=seed)
    agents = [agent_for_seat(s) for s in range(4)]
    for a in agents:
        a.reset(seed)
    out = []
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        action = agents[seat].act(obs)
        out.append((seat, obs, action))
        env.step(action)
    return out


def test_an_infinite_margin_is_the_rule_bot_and_zero_margin_follows_the_network(tmp_path):
    path = write(tmp_path, {"base": "rule", "margin": 1e9, "actions": "all"})
    rule_moves = [a for _, _, a in play(lambda s: load_agent("rule", game="whist"))]
    agent_moves = [a for _, _, a in play(lambda s: PPOAgent.load(path, game="whist"))]
    assert agent_moves == rule_moves
    path = write(tmp_path, {"base": "rule", "margin": 0.0, "actions": "cards"})
    agents = {}
    moves = play(lambda s: agents.setdefault(s, PPOAgent.load(path, game="whist")))
    assert isinstance(agents[0], ResidualAgent)
    net = agents[0].policy
    for seat, obs, action in moves:
        assert action == net.act(obs)       # margin 0: the network's best action wherever it is not the bot's
    overrides = sum(a.overrides for a in agents.values())
    assert overrides > 0


def test_a_bad_residual_entry_is_refused(tmp_path):
    for bad, msg in (({"base": "pimc", "margin": 1.0, "actions": "all"}, "residual base"),
                     ({"base": "rule", "margin": -1, "actions": "all"}, "residual margin"),
                     ({"base": "rule", "margin": 1.0, "actions": "bids"}, "residual actions"),
                     ({"base": "rule"}, "keys 'base', 'margin' and 'actions'")):
        path = write(tmp_path, bad)
        with pytest.raises(CheckpointError, match=msg):
            PPOAgent.load(path, game="whist")


def test_a_checkpoint_without_the_entry_is_a_plain_policy(tmp_path):
    path = write(tmp_path, None)
    assert type(PPOAgent.load(path, game="whist")) is PPOAgent


def test_held_out_residual_regret_by_hand():
    """The corrected bot's points given up, read off labelled decisions: the teacher's action unless the
    network's best beats it by more than the margin (worked out by hand for three margins)."""
    from vint_env.training.imitation import _Scores, _scores
    nan = float("nan")
    logits = torch.tensor([[3.0, 0.0, -9.0], [5.0, 0.0, -9.0], [0.0, 1.0, 7.0]])
    masks = torch.tensor([[True, True, False], [True, True, False], [True, True, True]])
    values = torch.tensor([[1.0, 0.0, nan], [0.0, 2.0, nan], [nan, nan, nan]])   # row 2: no values
    actions = torch.tensor([1, 1, 2])                                             # the teacher's
    sc = _scores(logits, masks, actions, values, into=_Scores(margins=(2, 4, 6))).finish()
    # margin 2: row 0 overridden (gap 3, gives up 0), row 1 overridden (gap 5, gives up 2)
    assert sc["residual_value_regret@2"] == pytest.approx(1.0) and sc["residual_override_rate@2"] == 1.0
    # margin 4: row 0 keeps the teacher's (gives up 1), row 1 still overridden
    assert sc["residual_value_regret@4"] == pytest.approx(1.5) and sc["residual_override_rate@4"] == 0.5
    # margin 6: the teacher everywhere
    assert sc["residual_value_regret@6"] == pytest.approx(0.5) and sc["residual_override_rate@6"] == 0.0
    assert sc["teacher_value_regret"] == pytest.approx(0.5) and sc["value_regret"] == pytest.approx(1.0)


@pytest.mark.parametrize("actions", ["auction", "cards"])
def test_the_network_overrides_only_the_decisions_it_is_allowed(tmp_path, actions):
    """Solo Whist, a firmly opinionated network, margin 0: with 'auction' every card is the rule bot's and
    some call is not; with 'cards' every call is the bot's and some card is not."""
    torch.manual_seed(2)
    env = games.get("solo_whist").env()
    env.reset(seed=0)
    obs0 = env.observe(env.agent_selection)
    size, n = len(obs0["observation"]), len(obs0["action_mask"])
    net = build_network("mlp", size, n, {"hidden_sizes": [16]})
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(30)
    path = tmp_path / "s.pt"
    save_checkpoint(path, {"game": "solo_whist_v0", "env_kwargs": {}, "obs_size": size, "num_actions": n,
                           "network": {"name": "mlp", "kwargs": {"hidden_sizes": [16]}}, "model": net.state_dict(),
                           "residual": {"base": "rule", "margin": 0.0, "actions": actions}})
    agent = PPOAgent.load(path, game="solo_whist")
    assert isinstance(agent, ResidualAgent)
    rule = load_agent("rule", game="solo_whist")
    differ = {"card": 0, "call": 0}
    for seed in range(12):
        env.reset(seed=seed)
        agent.reset(seed)
        rule.reset(seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            # the rule bot sees every decision, as the residual agent's base does
            mine, bots = agent.act(obs), rule.act(obs)
            assert obs["action_mask"][mine] == 1
            if mine != bots:
                differ["card" if bots < 52 else "call"] += 1
            env.step(mine if env.possible_agents.index(name) == 0 else bots)
    if actions == "auction":
        assert differ["card"] == 0 and differ["call"] > 0
    else:
        assert differ["call"] == 0 and differ["card"] > 0
