"""Training reward shaping: per-trick credits, excluded premiums and the symlog transform sum to the
right values, and never reach the logged returns or the evaluation (always real points)."""

import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.training.config import ConfigError, load_config
from vint_env.training.evaluation import HarnessEvaluator
from vint_env.training.trainer import Trainer
from vint_env.training.shaping import RewardShaper, symlog
from vint_env.training.sources import AECGameBatch, make_game_batch

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


class Shaper(RewardShaper):
    """Keeps the deal-end info the env gave (the dead steps after the deal clear the env's infos)."""

    def step_credits(self, env, before):
        info = env.infos["player_0"]
        if "points" in info:
            self.deal_info = info
        return super().step_credits(env, before)


def play_deal(batch, seed, rng):
    """One deal of game 0 with random legal actions: (shaped credits per step, real credits per step,
    the deal-end info)."""
    batch.start(0, seed)
    shaped, real = [], []
    while batch.acting_seats()[0] >= 0:
        _, masks = batch.observe(np.array([0]))
        a = rng.choice(np.flatnonzero(masks[0]))
        credits, done = batch.step(np.array([0]), np.array([a]))
        shaped.append(credits[0].copy())
        real.append(batch.last_real_credits[0].copy())
    return np.array(shaped), np.array(real), batch.shaper.deal_info


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whist_tricks_and_premiums(seed):
    shaper = Shaper(trick_reward=0.1, exclude_items=["honours", "coronets"])
    batch = AECGameBatch.for_game(games.get("whist"), 1, shaper=shaper)
    shaped, real, info = play_deal(batch, seed, np.random.default_rng(seed))
    scale = batch.envs[0].reward_scale
    ns, ew = info["deal"]["tricks"]
    sc = info["deal"]["scores"]
    premiums = sum(sc["NS"][k] - sc["EW"][k] for k in ("honours", "coronets"))
    # the real rewards are the game's; the shaped ones add 0.1 a trick and leave the premiums out
    assert real.sum(0) == pytest.approx(np.array([1, -1, 1, -1]) * info["points"] * scale)
    expected = 0.1 * (ns - ew) + (info["points"] - premiums) * scale
    assert shaped.sum(0) == pytest.approx(np.array([1, -1, 1, -1]) * expected)
    # the trick credits come at the trick: 13 steps (every fourth card) pay +-0.1 before the end
    per_trick = (shaped - real)[:-1]
    paying = np.flatnonzero(np.abs(per_trick).sum(1) > 0)
    assert len(paying) == 12 and all((p + 1) % 4 == 0 for p in paying)
    assert np.allclose(np.abs(per_trick[paying]), 0.1)
    assert np.allclose(shaped.sum(1), 0)          # still zero-sum


def test_vint_symlog_deal_reward():
    shaper = Shaper(deal_transform="symlog", deal_scale=0.2, exclude_items=["honours"])
    batch = AECGameBatch.for_game(games.get("vint"), 1, shaper=shaper)
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(40):
        shaped, real, info = play_deal(batch, seed, rng)
        sc = info["deal"]["scores"]
        kept = (info["points"] - (sc["NS"]["honours"] - sc["EW"]["honours"])) * 0.001
        want = 0.2 * math.copysign(math.log1p(abs(kept) / 0.2), kept)
        assert shaped.sum(0) == pytest.approx(np.array([1, -1, 1, -1]) * want)
        seen += abs(kept) > 1.0
    assert seen > 0                      # random bids fail badly: the transform met big deals
    assert symlog(0.001, 1.0) == pytest.approx(0.001, rel=1e-3) and symlog(-50, 1.0) == pytest.approx(-math.log(51))


def test_shaping_refusals():
    with pytest.raises(ValueError, match="needs a partnership game"):
        AECGameBatch.for_game(games.get("solo_whist"), 1, shaper=RewardShaper(trick_reward=0.1))
    with pytest.raises(ValueError, match="needs env_source 'aec'"):
        make_game_batch("vector", games.get("vint"), 1, shaper=RewardShaper(trick_reward=0.1))
    batch = AECGameBatch.for_game(games.get("whist"), 1, shaper=RewardShaper(exclude_items=["honors"]))
    with pytest.raises(ValueError, match=r"\['honors'\] are not score items.*'honours'"):
        play_deal(batch, 1, np.random.default_rng(1))
    with pytest.raises(ConfigError, match="shaping_deal_transform must be"):
        load_config(None, ["shaping_deal_transform=log"])
    with pytest.raises(ConfigError, match=r"shaping.shaping_deal_scale must be in \(0, "):
        load_config(None, ["shaping_deal_scale=0"])


def test_shaping_never_reaches_logged_returns_or_evaluation(tmp_path):
    base = ["game=whist_v0", "opponent_mix={random: 1.0}", "num_envs=4", "num_steps=52", "eval_opponents=[random]"]
    plain = Trainer(load_config(SMOKE, base), tmp_path / "plain")
    shaped = Trainer(load_config(SMOKE, base + ["shaping_trick_reward=0.5", "shaping_exclude_items=[honours]"]),
                     tmp_path / "shaped")
    a, b = plain.update_once(), shaped.update_once()
    # the same games were played (shaping changes no action in the first rollout) ...
    assert a["deals_vs_random"] == b["deals_vs_random"] > 0
    # ... the logged returns are the real ones, while the training signal differed
    assert a["return_vs_random"] == pytest.approx(b["return_vs_random"])
    assert a["value_loss"] != b["value_loss"]
    # the evaluator plays the harness's own envs: a shaped config evaluates in real points, the same
    path = shaped.save()
    ev_plain = HarnessEvaluator.from_config(plain.cfg, plain.game)(path, 1, 4)
    ev_shaped = HarnessEvaluator.from_config(shaped.cfg, shaped.game)(path, 1, 4)
    assert ev_plain == ev_shaped
