"""Stable-Baselines3: sb3-contrib's MaskablePPO trains on the Gymnasium wrapper and evaluates."""

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib", reason='needs the "wrappers" extra: pip install "torch==2.13.0" -e ".[wrappers]"')
torch = pytest.importorskip("torch")

import gymnasium as gym  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import vint_env  # noqa: E402,F401


def test_maskable_ppo_trains_a_few_thousand_steps_and_evaluates():
    torch.set_num_threads(1)
    # illegal_action="raise": a single unmasked illegal action would fail the test.
    vec = make_vec_env("vint_env/Vint-v0", n_envs=2, seed=0,
                       env_kwargs={"seats": 0, "opponents": "random", "illegal_action": "raise",
                                   "reward_scale": 1e-4})
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (2, 88) and masks.dtype == bool and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec, n_steps=512, batch_size=256, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [64, 64]}, verbose=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    logged = model.logger.name_to_value
    assert np.isfinite(logged["train/loss"]) and logged["train/n_updates"] > 0

    eval_env = gym.make("vint_env/Vint-v0", seats=0, opponents="random", illegal_action="raise",
                        reward_scale=1e-4)
    eval_env.reset(seed=123)
    rewards, lengths = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True,
                                       use_masking=True, return_episode_rewards=True, warn=False)
    assert len(rewards) == 20
    # A deal has at least one call of the learner and its 13 cards.
    assert min(lengths) >= 14 and max(lengths) <= 40
    assert all(np.isfinite(rewards)) and any(r != 0 for r in rewards)

    # The trained policy acts legally when asked directly with a mask.
    obs, info = eval_env.reset(seed=7)
    action, _ = model.predict(obs, action_masks=eval_env.unwrapped.action_masks(), deterministic=True)
    assert info["action_mask"][int(action)] == 1


def test_self_play_opponents_play_the_model_being_trained():
    from vint_env.wrappers import SingleAgentEnv
    from vint_env.wrappers.sb3 import SB3Agent

    torch.set_num_threads(1)
    vec = make_vec_env(SingleAgentEnv, n_envs=2, seed=1,
                       env_kwargs={"game": "vint_v0", "seats": "random", "illegal_action": "raise"})
    model = MaskablePPO("MlpPolicy", vec, n_steps=256, batch_size=256, n_epochs=1, seed=1,
                        policy_kwargs={"net_arch": [32]}, verbose=0)
    seen = []

    class Watching(SB3Agent):
        def act(self, observation, env=None, agent=None):
            action = super().act(observation, env, agent)
            assert observation["action_mask"][action] == 1
            seen.append(action)
            return action

    vec.env_method("set_opponents", Watching(model))
    model.learn(total_timesteps=512)
    assert len(seen) > 512                       # three opponent moves per learner move, roughly

    # Sampling is seeded by reset(seed): same seed, same choices; probabilities respect the mask.
    agent = SB3Agent(model)
    env = SingleAgentEnv("vint_v0", seats=0, opponents="random")
    obs, info = env.reset(seed=0)
    full = {"observation": obs, "action_mask": info["action_mask"]}
    probs = agent.action_probabilities(full)
    assert probs.sum() == pytest.approx(1.0) and (probs[info["action_mask"] == 0] == 0).all()
    picks = []
    for _ in range(2):
        agent.reset(seed=3)
        picks.append([agent.act(full) for _ in range(10)])
    assert picks[0] == picks[1]
    assert SB3Agent(model, deterministic=True).act(full) == int(np.argmax(probs))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["vint", "whist_v0"])
def test_example_script_runs(game):
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "sb3_maskable_ppo.py"
    out = subprocess.run([sys.executable, str(script), "--game", game, "--steps", "1024", "--envs", "2",
                          "--eval-deals", "10"], check=True, capture_output=True, text=True).stdout
    assert f"{game.removesuffix('_v0')}, before training:" in out and "after training:" in out
