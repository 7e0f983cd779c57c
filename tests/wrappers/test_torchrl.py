"""TorchRL: the AEC env through TorchRL's PettingZooWrapper(use_mask=True), random masked policy."""

import numpy as np
import pytest

pytest.importorskip("torchrl", reason='needs the "wrappers" extra: pip install "torch==2.13.0" -e ".[wrappers]"')

import torch  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402

from vint_env import vint_v0  # noqa: E402

AGENTS = ["player_0", "player_1", "player_2", "player_3"]


def make_env(seed=0):
    # One group with all four seats: a shared policy reads td["players", ...] of shape [4, ...].
    return PettingZooWrapper(vint_v0.env(reward_scale=1.0), use_mask=True, seed=seed,
                             group_map={"players": AGENTS})


def random_masked_policy(generator):
    def policy(td):
        mask = td["players", "action_mask"]                 # [4, 88] bool; non-acting agents: all True
        logits = torch.zeros(mask.shape)
        td["players", "action"] = MaskedCategorical(logits=logits, mask=mask).sample()
        return td
    return policy


def test_pettingzoo_wrapper_builds_with_masks_and_shared_group():
    env = make_env()
    td = env.reset()
    assert td["players", "observation", "observation"].shape == (4, 1102)
    assert td["players", "action_mask"].shape == (4, 88)
    acting = td["players", "mask"]
    assert acting.sum() == 1                                 # turn-based: one agent acts
    seat = int(acting.nonzero()[0, 0])
    legal = env._env.unwrapped.legal_actions()
    assert td["players", "action_mask"][seat].nonzero().flatten().tolist() == legal


def test_rollout_with_a_random_masked_policy_plays_legal_deals_and_scores_them():
    torch.manual_seed(0)
    env = make_env(seed=1)
    rollout = env.rollout(500, policy=random_masked_policy(None), break_when_any_done=False)
    acting = rollout["players", "mask"]                      # [T, 4]
    actions = rollout["players", "action"]                   # [T, 4]
    masks = rollout["players", "action_mask"]                # [T, 4, 88]
    t = torch.arange(len(rollout))
    seat = acting.float().argmax(-1)
    assert (acting.sum(-1) == 1).all()
    assert masks[t, seat, actions[t, seat]].all()            # the acting seat's action was legal
    done = rollout["next", "done"].flatten()
    assert done.sum() >= 5                                   # several deals (auto-reset in between)
    rewards = rollout["next", "players", "reward"].squeeze(-1)[done]   # [deals, 4]
    np.testing.assert_allclose(rewards[:, 0], rewards[:, 2])
    np.testing.assert_allclose(rewards[:, 0], -rewards[:, 1])
    np.testing.assert_allclose(rewards[:, 1], rewards[:, 3])
    assert (rewards[:, 0] != 0).any()
    # No reward before a deal ends.
    assert (rollout["next", "players", "reward"].squeeze(-1)[~done] == 0).all()


def test_seeded_rollouts_reproduce():
    def run():
        torch.manual_seed(5)
        return make_env(seed=7).rollout(80, policy=random_masked_policy(None), break_when_any_done=False)
    a, b = run(), run()
    assert torch.equal(a["players", "action"], b["players", "action"])
    assert torch.equal(a["next", "players", "reward"], b["next", "players", "reward"])


@pytest.mark.parametrize("game", ["whist_v0", "solo_whist_v0"])
def test_other_games_roll_out_with_masks(game):
    import importlib
    module = importlib.import_module(f"vint_env.envs.{game}")
    env = PettingZooWrapper(module.env(reward_scale=1.0), use_mask=True, seed=2, group_map={"players": AGENTS})
    torch.manual_seed(2)
    rollout = env.rollout(300, policy=random_masked_policy(None), break_when_any_done=True)
    done = rollout["next", "done"].flatten()
    assert done[-1] and done.sum() == 1
    final = rollout["next", "players", "reward"].squeeze(-1)[-1]
    assert float(final.sum()) == pytest.approx(0.0)
