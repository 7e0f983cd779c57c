"""One rule bot instance is safe at every seat: its memory of the tricks is kept per agent (issue 25).

The bots' memories are seat-relative (the first discards of "my left" ...), so a bot shared by two seats must play
exactly as two bots would, deal after deal.
"""

import pytest

from vint_env import games
from vint_env.agents import load_agent


def _actions(game, shared: bool, seed: int, episode_kwargs) -> list[int]:
    env = game.env(**episode_kwargs)
    one = load_agent("rule", game=game.name)
    bots = {a: one if shared else load_agent("rule", game=game.name) for a in env.possible_agents}
    actions = []
    env.reset(seed=seed)
    for bot in set(bots.values()):
        bot.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else bots[agent].act(obs, agent=agent)
        actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("name, kwargs", [("whist", {}), ("vint", {}), ("solo_whist", {}), ("vint2p", {}),
                                          ("whist", {"episode": "rubber", "max_deals": 4})])
def test_one_instance_at_every_seat_plays_as_one_bot_per_seat(name, kwargs):
    game = games.get(name)
    for seed in range(4):
        assert _actions(game, True, seed, kwargs) == _actions(game, False, seed, kwargs), seed


def test_the_memories_are_kept_per_agent_and_forgotten_at_reset():
    bot = load_agent("rule", game="whist")
    env = games.get("whist").env()
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(bot.act(obs, agent=agent))
        if env.unwrapped.deal.play.tricks_played >= 8:
            break
    memories = {a: bot.memories.of(a) for a in env.possible_agents}
    assert len({id(m) for m in memories.values()}) == 4
    assert all(len(m.leads) >= 7 for m in memories.values())           # every seat saw the completed tricks
    bot.reset(seed=0)
    assert all(not bot.memories.of(a).leads for a in env.possible_agents)
