"""The one play loop (vint_env/envs/playing.py): hooks, stops and points."""

import numpy as np
import pytest

from vint_env import games
from vint_env.agents import RandomAgent
from vint_env.envs.playing import play_episode, start_episode


def _table(game: str, seed: int = 4):
    record = games.get(game)
    env = record.raw_env(reward_scale=record.points_scale)
    agents = [RandomAgent() for _ in env.possible_agents]
    start_episode(env, agents, seed, [seed * 10 + s for s in range(len(agents))])
    return env, agents


@pytest.mark.parametrize("game", ["whist", "vint", "vint2p"])
def test_a_whole_deal_gives_each_seat_its_rewards_and_the_hooks_see_every_decision(game):
    env, agents = _table(game)
    seen = []

    def before(d):
        assert d.action is None and env.agent_selection == d.agent
        assert d.observation["action_mask"][np.flatnonzero(d.observation["action_mask"])].all()
        seen.append(("before", d.seat))

    totals = dict.fromkeys(env.possible_agents, 0.0)

    def after(d):
        assert d.observation["action_mask"][d.action] and d.seconds >= 0
        seen.append(("after", d.seat, d.action))
        for a in totals:
            totals[a] += env.rewards[a]

    played = play_episode(env, agents, before=before, after=after)
    assert not env.agents                                   # every agent took its last step
    assert played.decisions == len(seen) // 2 > 0
    assert [s[0] for s in seen] == ["before", "after"] * played.decisions
    assert played.points == pytest.approx(list(totals.values()))
    assert any(played.points)


def test_a_seat_without_an_agent_stops_the_loop_and_the_game_goes_on_as_with_all_agents():
    """The table's person: the loop returns at that seat, the caller acts, the loop goes on; the deal is the
    one the same agents play without a stop."""
    env, agents = _table("whist")
    whole = []
    play_episode(env, agents, after=lambda d: whole.append((d.seat, d.action)))
    env, agents = _table("whist")
    bots = {s: a for s, a in enumerate(agents) if s != 1}
    actions, returns = [], 0
    while env.agents:
        play_episode(env, bots, after=lambda d: actions.append((d.seat, d.action)))
        returns += 1
        if env.agents:
            assert env.agent_selection == "player_1" and not env.terminations["player_1"]
            action = agents[1].act(env.observe("player_1"))
            env.step(action)
            actions.append((1, action))
    assert actions == whole and len(whole) == 52
    assert returns == 14          # at each of the person's 13 cards, and at the end


def test_stop_ends_the_loop_after_the_step_that_asked():
    env, agents = _table("whist")
    played = play_episode(env, agents, stop=lambda: len(env.unwrapped.deal.play.plays) == 4 * 3)
    assert played.decisions == 12 and env.agents
    assert play_episode(env, agents).decisions == 40


def test_an_illegal_action_is_the_envs_error_not_a_quiet_fix():
    env, agents = _table("whist")

    class Bad(RandomAgent):
        def act(self, observation, env=None, agent=None):
            return 2.5

    with pytest.raises(Exception) as err:
        play_episode(env, [Bad()] * 4)
    assert "2.5" in str(err.value)
