"""Bad input gets a clear error at the boundary (issue 10, "Also from an adversarial test run")."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from vint_env import solo_whist_v0, vint_v0, whist_v0
from vint_env.agents.human import HumanAgent
from vint_env.cards import DeckError, random_deal, validate_deal
from vint_env.rules import IllegalActionError, MalformedActionError
from vint_env.rules.solo_whist_calls import PASS as SOLO_PASS
from vint_env.rules.solo_whist_calls import SOLO
from vint_env.vector import SoloWhistEngine, VintEngine, WhistEngine

ENVS = [vint_v0, whist_v0, solo_whist_v0]
BAD_SCALES = [float("nan"), float("inf"), -float("inf"), True, 0, -1, "0.1", None]


@pytest.mark.parametrize("scale", BAD_SCALES, ids=repr)
@pytest.mark.parametrize("module", ENVS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_envs_refuse_a_reward_scale_that_is_not_finite_and_positive(module, scale):
    with pytest.raises(ValueError, match=r"reward_scale must be a finite positive number"):
        module.raw_env(reward_scale=scale)


@pytest.mark.parametrize("scale", BAD_SCALES, ids=repr)
@pytest.mark.parametrize("engine", [VintEngine, WhistEngine, SoloWhistEngine])
def test_engines_refuse_a_reward_scale_that_is_not_finite_and_positive(engine, scale):
    with pytest.raises(ValueError, match=r"reward_scale must be a finite positive number"):
        engine(reward_scale=scale)


def test_numpy_scalars_are_numbers_too():
    assert vint_v0.raw_env(reward_scale=np.float32(0.5)).reward_scale == 0.5
    raw = vint_v0.raw_env(episode="rubber", max_deals=np.int64(3), viewer=np.int8(2))
    assert raw.max_deals == 3 and type(raw.max_deals) is int and raw.viewer == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"viewer": True}, r"viewer must be one of \(0, 1, 2, 3\) or None, got True"),
    ({"viewer": 1.0}, r"viewer must be one of \(0, 1, 2, 3\)"),
    ({"max_deals": True}, "max_deals must be a positive integer, got True"),
    ({"max_deals": 3.0}, "max_deals must be a positive integer"),
])
def test_bools_and_floats_are_not_integers(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vint_v0.raw_env(**kwargs)
    if "viewer" in kwargs:
        with pytest.raises(ValueError, match=message):
            solo_whist_v0.raw_env(**kwargs)


def test_vint_train_refuses_an_infinite_reward_scale_before_training(tmp_path):
    pytest.importorskip("torch")
    from vint_env.training.cli import main
    smoke = "configs/smoke.yaml"
    code = main(["--config", smoke, "--set", "env_kwargs.reward_scale=.inf", "--run-dir", str(tmp_path / "r"),
                 "--no-progress"])
    assert code == 2
    assert not (tmp_path / "r" / "checkpoints").exists()


@pytest.mark.parametrize("hands, message", [
    (lambda h: (h[0] | (1 << 60), h[1], h[2], h[3]), "bits outside the 52-card deck"),
    (lambda h: (-h[0], h[1], h[2], h[3]), "bits outside the 52-card deck"),
    (lambda h: (True, h[1], h[2], h[3]), "integer card mask"),
    (lambda h: (float(h[0]), h[1], h[2], h[3]), "integer card mask"),
])
def test_validate_deal_refuses_masks_outside_the_deck(hands, message):
    good = random_deal(np.random.default_rng(0))
    assert validate_deal(tuple(np.int64(h) for h in good)) == good      # NumPy integers are fine
    with pytest.raises(DeckError, match=message):
        validate_deal(hands(good))
    env = vint_v0.env()
    with pytest.raises(DeckError, match=message):
        env.reset(options={"deal": hands(good)})
    with pytest.raises(DeckError, match=message):
        VintEngine().init(deals=[hands(good)])


MALFORMED = [999, 88, -1, None, 1.5, True, np.bool_(True), float("inf"), float("nan"), "pass", [52]]


@pytest.mark.parametrize("mode", ["raise", "terminate"])
@pytest.mark.parametrize("action", MALFORMED, ids=repr)
def test_malformed_actions_get_the_same_clear_error_in_every_mode(mode, action):
    env = vint_v0.env(illegal_action=mode)
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.raises(MalformedActionError, match=rf"{agent} sent action"):
        env.step(action)
    assert env.agent_selection == agent and not any(env.terminations.values())   # nothing happened


@pytest.mark.parametrize("action", [52, np.int64(52), np.int8(52), 52.0])
def test_integer_actions_of_any_kind_are_accepted(action):
    env = vint_v0.env()
    env.reset(seed=0)
    first = env.agent_selection
    env.step(action)                      # pass
    assert env.agent_selection != first


def test_terminate_mode_still_terminates_on_a_well_formed_illegal_action():
    env = vint_v0.env(illegal_action="terminate")
    env.reset(seed=0)
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)                      # PettingZoo's wrapper logs a warning and ends the episode
    assert all(env.terminations.values()) and env.rewards[env.agents[0]] in (-1, 0)
    raw = vint_v0.env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(illegal)


def test_human_agent_in_solo_whist_reads_calls_and_shows_them_by_name():
    """Regression: the human agent parsed Solo Whist calls as cards, refused 'pass' and 'solo', showed bare ids."""
    env = solo_whist_v0.env()
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    legal = np.flatnonzero(obs["action_mask"])
    assert SOLO_PASS in legal and SOLO in legal
    prompts, printed = [], []
    answers = iter(["solo", "pass"])
    human = HumanAgent("solo_whist", input_fn=lambda p: (prompts.append(p), next(answers))[1],
                       print_fn=printed.append)
    assert human.act(obs) == SOLO
    assert human.act(obs) == SOLO_PASS
    assert "legal: pass proposal solo" in prompts[0] and "55" not in prompts[0]


def _checkpoint(tmp_path, network):
    torch = pytest.importorskip("torch")
    from vint_env.agents.learned.networks import build_network
    from vint_env.agents.learned.policy import save_checkpoint
    net = build_network("mlp", 1102, 88, {"hidden_sizes": [8]})
    return save_checkpoint(tmp_path / "c.pt", {
        "game": "vint_v0", "env_kwargs": {}, "obs_size": 1102, "num_actions": 88,
        "network": network, "model": net.state_dict(), "config": {}}), torch


def test_checkpoint_cannot_make_the_loader_import_a_module(tmp_path):
    path, _ = _checkpoint(tmp_path, {"name": "this:Whatever", "kwargs": {}})
    from vint_env.agents.learned.policy import CheckpointError, PPOAgent
    sys.modules.pop("this", None)
    with pytest.raises(CheckpointError, match=r"unknown network 'this:Whatever'.*\['cards', 'mlp', 'sparse'\]"):
        PPOAgent.load(path, game="vint")
    assert "this" not in sys.modules


def test_checkpoint_with_huge_sizes_is_refused_without_allocating(tmp_path):
    path, torch = _checkpoint(tmp_path, {"name": "mlp", "kwargs": {"hidden_sizes": [200_000, 200_000]}})
    from vint_env.agents.learned.policy import CheckpointError, PPOAgent
    import tracemalloc
    tracemalloc.start()
    with pytest.raises(CheckpointError, match=r"weights do not fit network 'mlp'.*network \(200000, 1102\), "
                                              r"file \(8, 1102\)"):
        PPOAgent.load(path, game="vint")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 50 * 2**20


def test_checkpoint_with_bad_network_kwargs_is_a_checkpoint_error(tmp_path):
    path, _ = _checkpoint(tmp_path, {"name": "mlp", "kwargs": {"hidden_sizes": [-3]}})
    from vint_env.agents.learned.policy import CheckpointError, PPOAgent
    with pytest.raises(CheckpointError, match="rejects its kwargs"):
        PPOAgent.load(path, game="vint")
