"""vint2p agents and harness: the rule bot plays every way legally, the dd agent plays open
positions double-dummy, duplicate matches swap the players, and the documented layout is the code's."""

import pathlib

import numpy as np
import pytest

from vint_env import vint2p_v0
from vint_env.agents.registry import load_agent
from vint_env.games.vint2p import VINT2P_LAYOUT
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.match import run_match

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "envs" / "vint2p.md"


def test_env_page_generates_its_observation_table_from_the_layout():
    assert "<!-- generated: observation-table vint2p_v0 -->" in DOC.read_text()
    assert VINT2P_LAYOUT.size == vint2p_v0.raw_env.LAYOUT.size


@pytest.mark.parametrize("way", [1, 2, 3, 4, 5])
def test_rule_bot_plays_every_phase_legally(way):
    env = vint2p_v0.env(way=way)
    bot = load_agent("rule", game="vint2p")
    phases = set()
    for seed in range(6):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            phases.add(env.unwrapped.deal.phase)
            action = bot.act(obs, None, agent)
            assert obs["action_mask"][action]
            env.step(action)
    assert "auction" in phases


def test_dd_agent_plays_way_1_double_dummy():
    pytest.importorskip("endplay")
    from vint_env.agents.search.double_dummy import solve_position
    env = vint2p_v0.env(way=1)
    dd = load_agent("dd", game="vint2p")
    checked = 0
    for seed in range(12):
        env.reset(seed=seed, options={"dealer": seed % 2})
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            raw = env.unwrapped
            action = dd.act(obs, env, agent)
            if raw.deal.phase == "play" and checked < 30:
                values = solve_position(raw.deal.play)
                assert values[action] == max(values.values())
                checked += 1
            env.step(action)
    assert checked >= 13


def test_duplicate_match_swaps_the_players():
    boards = generate_boards(4, seed=3)
    result = run_match("vint2p", "rule", "random", boards, seed=1, env_options={"way": 2}, analysis=False)
    for board in result.boards:
        a, b = board.tables
        assert a.seats == ["A", "B"] and b.seats == ["B", "A"]
        assert a.details["dealer"] == b.details["dealer"] and a.details["way"] == 2
        assert board.score == pytest.approx(a.points[0] + b.points[1])
    with pytest.raises(ValueError, match="way"):
        run_match("vint2p", "rule", "random", boards, env_options={"way": 9})
