"""A teacher's deals played on the batched engine (vint_env/training/engine_teacher.py) are the envs' data,
row for row: the same deals, decisions, actions, returns and calls' values as teacher_data.play_deals."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.training.config import ConfigError, config_from_dict
from vint_env.training.engine_teacher import engine_teacher_data, generate_on_engine
from vint_env.training.teacher_data import cache_key, play_deals, teacher_data

SOLO = games.get("solo_whist")


def assert_same(envs, engine, exact_values=False):
    assert len(envs) == len(engine) > 0
    for k in ("masks", "actions", "seats", "deal_ids", "returns"):
        assert np.array_equal(getattr(envs, k), getattr(engine, k)), k
    assert np.array_equal(envs.obs(), engine.obs())
    assert (envs.values is None) == (engine.values is None)
    if envs.values is not None:
        assert np.array_equal(np.isnan(envs.values), np.isnan(engine.values))
        np.testing.assert_allclose(engine.values, envs.values, rtol=0, atol=1e-4, equal_nan=True)


def test_the_rule_bot_on_the_engine_makes_the_envs_data_and_calls_values_row_for_row():
    envs = play_deals(SOLO, {}, "rule", 5, 3, 20, "rollout_auction")
    engine = engine_teacher_data(SOLO, {}, "rule", 5, 3, 20, "rollout_auction")
    assert_same(envs, engine)
    valued = engine.value_rows & (engine.masks.sum(1) > 1)
    assert valued.sum() >= 20                          # calls with a choice, every legal call valued
    assert np.array_equal(~np.isnan(engine.values[valued]), engine.masks[valued])
    # the calls' values differ from call to call: not all one number (a fork that ignored its call would be)
    spread = np.nanmax(engine.values[valued], 1) - np.nanmin(engine.values[valued], 1)
    assert (spread > 0).mean() > 0.5


def test_the_residual_agent_on_the_engine_is_the_python_agent_overrides_included():
    envs = play_deals(SOLO, {}, "residual", 11, 0, 150)
    engine = engine_teacher_data(SOLO, {}, "residual", 11, 0, 150)
    assert_same(envs, engine)
    rule = engine_teacher_data(SOLO, {}, "rule", 11, 0, 150)
    # the critic overrode the bot somewhere: the residual's deals are not the bot's
    assert len(rule) != len(engine) or not np.array_equal(rule.actions, engine.actions)


def test_the_residual_agents_calls_values_are_the_envs():
    assert_same(play_deals(SOLO, {}, "residual", 7, 2, 6, "rollout_auction"),
                engine_teacher_data(SOLO, {}, "residual", 7, 2, 6, "rollout_auction"))


def test_the_data_do_not_depend_on_the_engine_batch():
    one = generate_on_engine(SOLO, {}, "rule", 9, 23, "rollout_auction", chunk_deals=1000)
    split = generate_on_engine(SOLO, {}, "rule", 9, 23, "rollout_auction", chunk_deals=7)
    assert_same(one, split)
    assert np.array_equal(np.unique(one.deal_ids), np.arange(23))


def test_engine_data_are_cached_apart_and_read_back(tmp_path):
    assert cache_key(SOLO, {}, "rule", 1, 5) != cache_key(SOLO, {}, "rule", 1, 5, engine=True)
    made, path, cached = teacher_data(SOLO, {}, "rule", 1, 5, cache_dir=tmp_path, engine_generate=generate_on_engine)
    assert not cached and path.is_file() and "-engine-" in path.name
    again, _, cached = teacher_data(SOLO, {}, "rule", 1, 5, cache_dir=tmp_path, engine_generate=generate_on_engine)
    assert cached
    assert_same(made, again)


def test_teachers_and_values_the_engine_cannot_play_are_refused_by_name():
    with pytest.raises(ValueError, match="random.*cannot play on the batched engine"):
        engine_teacher_data(SOLO, {}, "random", 1, 0, 2)
    with pytest.raises(ValueError, match="teacher_values"):
        engine_teacher_data(SOLO, {}, "rule", 1, 0, 2, "rollout")
    with pytest.raises(ValueError, match="whist has none"):
        engine_teacher_data(games.get("whist"), {}, "rule", 1, 0, 2)


@pytest.mark.parametrize("overrides, fault", [
    ({"run": {"game": "whist"}}, "whist has none"),
    ({"teacher_data": {"teacher": "random"}}, "teacher kinds"),
    ({"teacher_data": {"teacher": "nosuchbot"}}, "teacher"),
    ({"value_targets": {"teacher_values": "rollout"}}, "teacher_values"),
    ({"run": {"env_kwargs": {"episode": "rubber"}}}, "episode"),
])
def test_the_config_refuses_an_engine_teacher_it_cannot_play(overrides, fault):
    base = {"run": {"game": "solo_whist", "total_timesteps": 0},
            "teacher_data": {"teacher": "rule", "teacher_engine": True}, "cloning": {"bc_epochs": 1}}
    for section, keys in overrides.items():
        base[section] = {**base.get(section, {}), **keys}
    with pytest.raises(ConfigError, match=fault):
        config_from_dict(base)
    good = {**base, "run": {"game": "solo_whist", "total_timesteps": 0},
            "teacher_data": {"teacher": "residual", "teacher_engine": True},
            "value_targets": {"teacher_values": "rollout_auction"}}
    assert config_from_dict(good).teacher_data.teacher_engine
