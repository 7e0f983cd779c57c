"""Agents: the spec registry, the agent interface in the harness, legality over many games."""

import doctest
import importlib
import sys

import numpy as np
import pytest

from vint_env import vint_v0
from vint_env.agents import Agent, RandomAgent
from vint_env.agents.registry import load_agent
from vint_env.evaluation.tables import make_env
from vint_env.evaluation.match import play_table


@pytest.mark.parametrize("module", [
    "vint_env.agents", "vint_env.agents.rule.hand_eval", "vint_env.agents.registry", "vint_env.evaluation.stats",
    "vint_env.evaluation.deals", "vint_env.evaluation",
])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_registry_builds_every_kind():
    assert isinstance(load_agent("random", game="vint", seed=3), RandomAgent)
    assert load_agent("rule", game="vint").name == "rule"
    dd = load_agent("dd", game="vint")
    assert dd.needs_env is True
    assert load_agent("human", game="vint").name == "human"
    assert load_agent("py:vint_env.agents.registry:rule_agent", game="vint").name == "rule"


@pytest.mark.parametrize("spec, message", [
    ("", "non-empty"), ("alphazero", "unknown kind 'alphazero'"), ("network", "needs its PATH"),
    ("random:x", "expected KEY=VALUE, got 'x'; write it random"), ("py:nomodule", "py:MODULE:NAME"),
])
def test_registry_rejects_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec, game="vint")


def test_registry_rejects_bad_game_and_dd_for_solo():
    with pytest.raises(ValueError, match="unknown game"):
        load_agent("random", game="bridge")
    with pytest.raises(ValueError, match="does not play .solo_whist.; it plays vint, whist, vint2p"):
        load_agent("dd", game="solo_whist")


def test_network_spec_without_torch_says_what_is_missing(monkeypatch):
    # As if the train extra (torch) were not installed: the policy module cannot be imported.
    monkeypatch.setitem(sys.modules, "vint_env.agents.learned.policy", None)
    with pytest.raises(ImportError,
                       match=r"agent spec 'network' needs the train extra \(pip install 'vint-env\[train\]'\)"):
        load_agent("ppo:some/ckpt.pt", game="vint")


def test_network_spec_loads_through_policy_module(tmp_path):
    policy = importlib.import_module("vint_env.agents.learned.policy")
    assert hasattr(policy, "PPOAgent") and hasattr(policy.PPOAgent, "load")
    with pytest.raises(Exception) as info:
        load_agent(f"network:{tmp_path / 'missing.pt'}", game="vint")
    assert "missing.pt" in str(info.value)


class SpyAgent(Agent):
    """Records what the harness hands it; plays the lowest legal action."""

    def __init__(self, needs_env):
        self.needs_env = needs_env
        self.envs = []

    def act(self, observation, env=None, agent=None):
        self.envs.append(env)
        assert set(observation) == {"observation", "action_mask"}
        assert agent in {f"player_{i}" for i in range(4)}
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_harness_gives_the_env_only_to_cheating_agents():
    honest, cheat = SpyAgent(False), SpyAgent(True)
    env = vint_v0.raw_env(reward_scale=1.0)
    points, steps = play_table(env, [honest, cheat, SpyAgent(False), SpyAgent(False)], {}, 0, [0, 1, 2, 3])
    assert steps > 0 and sum(points) == pytest.approx(0)
    assert honest.envs and all(e is None for e in honest.envs)
    assert cheat.envs and all(e is env for e in cheat.envs)


def _play_many(specs, n_deals, seed=0, game="vint", **env_kwargs):
    """Play deals with the raw env (which raises on any illegal action)."""
    env = make_env(game, env_kwargs.pop("episode", "deal"))
    for k, v in env_kwargs.items():
        setattr(env, k, v)
    agents = [load_agent(s, game=game) for s in specs]
    totals = np.zeros(4)
    for i in range(n_deals):
        points, _ = play_table(env, agents, {}, seed * 100_000 + i, [i, i + 1, i + 2, i + 3])
        totals += points
    return totals


def test_rule_and_random_agents_only_make_legal_moves():
    _play_many(["rule", "random", "rule", "random"], 120)
    _play_many(["random", "rule", "random", "rule"], 60, seed=1, passout="play")
    _play_many(["rule", "rule", "rule", "rule"], 60, seed=2)


def test_rule_agents_in_rubbers_only_make_legal_moves():
    _play_many(["rule", "random", "rule", "random"], 3, seed=3, episode="rubber")
    _play_many(["rule", "random", "rule", "random"], 3, seed=3, game="whist", episode="rubber")


def test_whist_agents_only_make_legal_moves():
    _play_many(["rule", "random", "rule", "random"], 100, seed=4, game="whist")
    _play_many(["rule", "rule", "rule", "rule"], 100, seed=5, game="whist")
    _play_many(["dd", "rule", "dd", "rule"], 4, seed=6, game="whist")


@pytest.mark.slow
def test_rule_agents_legal_over_thousands_of_games():
    _play_many(["rule", "random", "rule", "random"], 2000, seed=10)
    _play_many(["rule", "rule", "rule", "rule"], 2000, seed=11)
    _play_many(["dd", "rule", "dd", "rule"], 300, seed=12)
    _play_many(["rule", "random", "rule", "random"], 3000, seed=13, game="whist")
    _play_many(["rule", "rule", "rule", "rule"], 3000, seed=14, game="whist")


def test_random_agent_is_seeded():
    obs = {"observation": np.zeros(3), "action_mask": np.array([1, 0, 1, 1, 0, 1], dtype=np.int8)}
    a, b = RandomAgent(5), RandomAgent(5)
    assert [a.act(obs) for _ in range(20)] == [b.act(obs) for _ in range(20)]
    b.reset(6)
    assert {b.act(obs) for _ in range(50)} == {0, 2, 3, 5}


def test_solo_whist_agents_only_make_legal_moves():
    _play_many(["rule", "random", "random", "random"], 100, seed=7, game="solo_whist")
    _play_many(["rule", "rule", "rule", "rule"], 150, seed=8, game="solo_whist")


@pytest.mark.slow
def test_solo_whist_agents_legal_over_thousands_of_games():
    _play_many(["rule", "random", "rule", "random"], 3000, seed=15, game="solo_whist")
    _play_many(["rule", "rule", "rule", "rule"], 3000, seed=16, game="solo_whist")


def test_human_agent_reads_text_and_repeats_on_bad_input():
    from vint_env.agents.human import HumanAgent
    answers = iter(["3NT", "nonsense", "1S"])
    shown = []
    human = HumanAgent("vint", input_fn=lambda prompt: next(answers), print_fn=shown.append)
    env = vint_v0.raw_env()
    env.reset(seed=0, options={"dealer": 0})
    mask = np.zeros(88, dtype=np.int8)
    mask[[52, 53]] = 1                                    # only pass and 1S legal here
    action = human.act({"observation": env.observe("player_0")["observation"], "action_mask": mask},
                       env, "player_0")
    assert action == 53
    assert any("not legal" in str(m) for m in shown) and any("not understood" in str(m) for m in shown)
    assert any("player_0" in str(m) or "N" in str(m) for m in shown)     # the table was rendered
