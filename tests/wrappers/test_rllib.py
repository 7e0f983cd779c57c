"""RLlib: the AEC env through RLlib's PettingZooEnv, masked PPO with one shared policy.

Needs the ``rllib`` extra; skipped with the reason when Ray is absent.  Ray 2.x
no longer has a "local mode": the test starts a small local Ray instance
(one CPU, no dashboard) and samples in the driver (``num_env_runners=0``).
"""

import importlib.util

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason='Ray RLlib is not installed: pip install "torch==2.13.0" -e ".[rllib]"')   # Ray alone (the ray extra) is not RLlib
pytest.importorskip("torch", reason='needs torch: pip install "torch==2.13.0" -e ".[rllib]"')

from vint_env.rules.vint import PASS  # noqa: E402
from vint_env.wrappers.rllib import SHARED_POLICY, ppo_config, rllib_env  # noqa: E402

from test_wrappers import NS_MINUS_EW, ONE_SUIT_EACH_CLUBS_EAST, SEVEN_SPADES  # noqa: E402

AGENTS = ["player_0", "player_1", "player_2", "player_3"]
GAMES = [g for g in ("vint_v0", "whist_v0", "solo_whist_v0") if importlib.util.find_spec(f"vint_env.envs.{g}")]


def run_episode(env, choose, seed=None, options=None):
    """Play one episode of an RLlib MultiAgentEnv; return summed rewards per agent and the last dicts."""
    obs, _ = env.reset(seed=seed, options=options)
    totals = {a: 0.0 for a in AGENTS}
    finished = set()
    steps = 0
    while True:
        (agent, agent_obs), = obs.items()          # turn-based: one agent to act
        mask = agent_obs["action_mask"]
        assert mask.dtype == np.int8 and mask.sum() >= 1
        obs, rewards, terminateds, truncateds, infos = env.step({agent: choose(agent, mask)})
        steps += 1
        for a, r in rewards.items():
            totals[a] += r
        if terminateds["__all__"] or truncateds["__all__"]:
            finished = {a for a in terminateds if a != "__all__" and terminateds[a]}
            return totals, finished, obs, steps


def final_results(game, raw):
    """Each seat's raw result of the finished deal, from the rules state."""
    if game == "solo_whist_v0":
        return dict(zip(AGENTS, raw.deal.payments))
    scores = raw.deal.scores
    points = scores[0].total - scores[1].total          # N/S minus E/W
    return {"player_0": points, "player_1": -points, "player_2": points, "player_3": -points}


@pytest.mark.parametrize("game", GAMES)
def test_rllib_pettingzoo_env_has_the_masking_keys_and_every_seat_gets_its_own_result(game):
    env = rllib_env({"game": game, "reward_scale": 1.0})
    space = env.observation_space["player_0"]
    assert sorted(space.spaces) == ["action_mask", "observations"]
    assert space["action_mask"].dtype == np.int8
    rng = np.random.default_rng(0)
    nonzero = 0
    for seed in range(10):
        totals, finished, last_obs, _ = run_episode(
            env, lambda a, m: int(rng.choice(np.flatnonzero(m))), seed=seed)
        assert finished == set(AGENTS)
        assert set(last_obs) == set(AGENTS)            # every seat sees the final state
        expected = final_results(game, env.env.unwrapped)
        assert totals == expected
        nonzero += any(expected.values())
    assert nonzero >= 5


def test_rllib_env_replays_a_hand_worked_deal():
    env = rllib_env({"game": "vint_v0", "reward_scale": 0.001})

    def choose(agent, mask):
        if mask[SEVEN_SPADES] and agent == "player_0":
            return SEVEN_SPADES
        return PASS if mask[PASS] else int(np.flatnonzero(mask)[0])

    totals, finished, _, steps = run_episode(env, choose, seed=0,
                                            options={"deal": ONE_SUIT_EACH_CLUBS_EAST, "dealer": 0})
    assert steps == 4 + 52
    assert totals["player_0"] == pytest.approx(NS_MINUS_EW * 0.001)
    assert totals["player_3"] == pytest.approx(-NS_MINUS_EW * 0.001)


@pytest.fixture(scope="module")
def ray_local():
    import ray
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             object_store_memory=100 * 1024**2, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def test_ppo_one_training_iteration_with_a_shared_masked_policy(ray_local):
    import torch
    torch.set_num_threads(1)
    config = ppo_config("vint_v0", hidden=(64, 64), train_batch_size=256, minibatch_size=128,
                        num_epochs=1).debugging(seed=0)
    algo = config.build_algo()
    try:
        module = algo.get_module(SHARED_POLICY)
        before = [p.detach().clone() for p in module.parameters()]
        result = algo.train()
        after = list(algo.get_module(SHARED_POLICY).parameters())
        learner = result["learners"][SHARED_POLICY]
        assert np.isfinite(learner["total_loss"])
        assert learner["num_module_steps_trained"] > 0
        runners = result["env_runners"]
        assert runners["num_episodes"] >= 1
        returns = runners["agent_episode_returns_mean"]
        assert set(returns) == set(AGENTS)
        # Zero-sum between the sides, partners equal.
        assert returns["player_0"] == pytest.approx(returns["player_2"])
        assert returns["player_0"] == pytest.approx(-returns["player_1"])
        assert any(not torch.equal(a, b) for a, b in zip(before, after))
    finally:
        algo.stop()


@pytest.mark.slow
def test_example_script_runs(tmp_path):
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"
    out = subprocess.run([sys.executable, str(script), "--game", "whist_v0", "--iterations", "1",
                          "--batch", "300", "--checkpoint", str(tmp_path / "ckpt")],
                         check=True, capture_output=True, text=True).stdout
    assert "iter    1" in out and "checkpoint:" in out


def test_example_trains_with_two_env_runner_processes(tmp_path):
    """The distributed path of the RLlib recipe: sampling in two Ray env-runner processes (as on a
    cluster's workers), not in the driver; the learner trains on what they sampled."""
    import os
    import pathlib
    import re
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}          # the env runners import this checkout
    out = subprocess.run([sys.executable, str(root / "examples" / "rllib_ppo.py"), "--game", "whist_v0",
                          "--iterations", "1", "--batch", "200", "--env-runners", "2"],
                         capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "2 env runner(s)" in out.stdout
    runners = re.search(r"env runners \(host:pid\): (\S+) (\S+)\n", out.stdout)
    assert runners, out.stdout
    pids = {int(r.rsplit(":", 1)[1]) for r in runners.groups()}
    assert len(pids) == 2 and os.getpid() not in pids
    it = re.search(r"iter +1 +deals +(\d+) .* healthy env runners (\d+)", out.stdout)
    assert it and int(it.group(1)) >= 1 and int(it.group(2)) == 2, out.stdout
