"""One conformance suite for every game, parametrised over ``games.all_games()`` and the variants its record declares.

PettingZoo's own ``api_test``, ``seed_test``, ``parallel_api_test`` and ``render_test`` run on the default env
and on one env per declared variant (every allowed value of every option with a fixed set of values), and the
record and the env agree: names, spaces, agents, and the rewards of a finished deal are the record's
``deal_result`` points times the reward scale.
"""

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from vint_env import games
from vint_env.games import TWO_PLAYER


def _variants():
    """(game, options): the default env, then each declared option at each of its other allowed values."""
    out = []
    for game in games.all_games():
        out.append((game, {}))
        for p in game.parameters:
            allowed = (False, True) if p.type is bool else p.allowed
            if allowed is None or p.name == "viewer":
                continue
            for value in allowed:
                if value == p.default:
                    continue
                options = {p.name: value}
                try:
                    game.check_options(options)
                except ValueError:               # valid alone, not with the other defaults (vint2p auction=single)
                    options = {**options, "way": 1}
                out.append((game, options))
    out.append((games.get("whist"), {"no_trump": True, "ten_is_honour": True}))
    return out


VARIANTS = _variants()
IDS = [f"{g.name}-" + (",".join(f"{k}={v}" for k, v in o.items()) or "default") for g, o in VARIANTS]


@pytest.mark.parametrize("game, options", VARIANTS, ids=IDS)
def test_pettingzoo_api(game, options):
    api_test(game.env(**options), num_cycles=200)


@pytest.mark.filterwarnings("ignore:render_mode=.human.. no window:UserWarning")   # render_test, headless
@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_pettingzoo_seed_parallel_and_render(game):
    seed_test(game.env, num_cycles=200)
    for episode in game.episodes[1:]:
        seed_test(lambda: game.env(episode=episode), num_cycles=200)
    parallel_api_test(game.parallel_env(), num_cycles=200)
    render_test(lambda render_mode=None: game.env(render_mode=render_mode))


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_the_env_is_what_its_record_says(game):
    env = game.env()
    assert env.metadata["name"] == game.env_name
    assert len(env.possible_agents) == (2 if game.format == TWO_PLAYER else 4)
    assert list(env.possible_agents) == list(games.AGENTS[:len(env.possible_agents)])
    for agent in env.possible_agents:
        assert env.action_space(agent).n == game.num_actions
        assert env.observation_space(agent)["observation"].shape == (game.layout.size,)
        assert env.observation_space(agent)["action_mask"].shape == (game.num_actions,)
    assert env.unwrapped.state_space.shape == (game.state_size,)
    assert env.unwrapped.reward_scale == game.reward_scale
    env.reset(seed=0)
    assert env.unwrapped.state().shape == (game.state_size,)


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_a_finished_deal_pays_the_records_deal_result_times_the_scale(game):
    for seed in range(6):
        env = game.env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        result = game.deal_result(env.unwrapped.deal)
        expected = [p * game.reward_scale for p in result.points]
        assert np.allclose([total[a] for a in env.possible_agents], expected), seed
        assert abs(sum(result.points)) < 1e-9                                     # zero-sum
