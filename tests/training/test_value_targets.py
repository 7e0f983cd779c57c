"""Double-dummy card values as imitation targets: the values are the points each card keeps (checked by an
exhaustive search of the last tricks), they are deterministic and cached apart from plain teacher data,
the value-regression loss equals a hand computation, and games without a solver are refused by name."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("endplay")

from vint_env import games
from vint_env.training.config import ConfigError, load_config
from vint_env.training.imitation import behaviour_clone, evaluate_clone, row_losses, value_targets
from vint_env.training.teacher_data import TeacherData, cache_key, generate
from vint_env.training.value_targets import check_values
from vint_env.agents.learned.networks import build_network
from vint_env.rules.tricks import TrickPlay

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


@pytest.fixture(scope="module")
def whist_values():
    return generate(games.get("whist"), {}, "rule", seed=3, deals=4, values="dd")


def test_legal_cards_and_only_they_have_values_in_whole_points(whist_values):
    d = whist_values
    assert d.values is not None and d.values.shape == d.masks.shape
    rows = d.value_rows
    assert rows.all()                                  # Whist: every decision is a card
    # illegal cards never have a value, legal ones always do
    assert np.array_equal(~np.isnan(d.values), d.masks)
    best = np.nanmax(d.values, axis=1)
    diffs = best[:, None] - d.values
    finite = diffs[~np.isnan(diffs)]
    assert np.all(finite >= 0) and np.allclose(finite, np.round(finite))


def test_values_match_an_exhaustive_search_at_the_end_of_the_deal():
    from vint_env.agents.registry import load_agent
    from vint_env.envs import whist_v0
    from vint_env.training.value_targets import DealValues
    env = whist_v0.raw_env()
    agents = [load_agent("rule", game="whist") for _ in range(4)]
    checked = 0
    for seed in range(6):
        env.reset(seed=seed)
        valuer = DealValues(games.get("whist"), 52)
        expect = {}
        row = 0
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                env.step(None)
                continue
            ob = env.observe(name)
            play = env.unwrapped.deal.play
            if valuer.note(row, env, ob) and play.tricks_played >= 10 and len(play.legal_cards()) > 1:
                seat = play.current_player
                per_card = {}
                for card in play.legal_cards():
                    after = play.copy()
                    after.play(card)
                    per_card[card] = after.side_tricks()[seat & 1] + _future(after, seat & 1)
                expect[row] = per_card
            env.step(int(agents[int(name[-1])].act(ob, env=env, agent=name)))
            row += 1
        solved = valuer.solve()
        for r, per_card in expect.items():
            v = solved[r]
            best = max(per_card.values())
            assert {c for c in per_card if v[c] == np.nanmax(v)} == {c for c, t in per_card.items() if t == best}
            for a, ta in per_card.items():
                for b, tb in per_card.items():
                    assert np.sign(v[a] - v[b]) == np.sign(ta - tb)      # more tricks, more points
                checked += 1
    assert checked > 20


def _future(play: TrickPlay, side: int) -> int:
    """Tricks ``side`` takes from here with perfect play by all four (exhaustive)."""
    if play.is_over:
        return 0
    mover = play.current_player & 1
    outcomes = []
    for card in play.legal_cards():
        after = play.copy()
        before = after.side_tricks()[side]
        after.play(card)
        outcomes.append(after.side_tricks()[side] - before + _future(after, side))
    return max(outcomes) if mover == side else min(outcomes)


def test_value_data_are_deterministic_saved_whole_and_cached_apart(tmp_path, whist_values):
    again = generate(games.get("whist"), {}, "rule", seed=3, deals=4, values="dd")
    assert np.array_equal(again.values, whist_values.values, equal_nan=True)
    path = tmp_path / "d.npz"
    whist_values.save(path)
    back = TeacherData.load(path)
    assert np.array_equal(back.values, whist_values.values, equal_nan=True)
    assert np.array_equal(back.actions, whist_values.actions)
    plain = cache_key(games.get("whist"), {}, "rule", 3, 4)
    valued = cache_key(games.get("whist"), {}, "rule", 3, 4, "dd")
    assert plain != valued and "ddvalues" in valued


def test_vint_auction_keeps_the_teachers_action_and_the_play_gets_values():
    d = generate(games.get("vint"), {}, "rule", seed=2, deals=3, values="dd")
    rows = d.value_rows
    auction = d.masks[:, 52:].any(axis=1)               # a call is legal only in the auction
    assert auction.any() and rows.any()
    assert not rows[auction].any()
    assert rows[~auction].all()
    assert np.isnan(d.values[auction]).all()


def test_the_loss_is_the_squared_error_to_scaled_value_differences_and_cross_entropy_elsewhere():
    logits = torch.tensor([[1.0, 0.0, -1.0, 5.0], [0.0, 0.0, 0.0, 0.0]])
    masks = torch.tensor([[True, True, True, False], [True, True, False, False]])
    actions = torch.tensor([0, 1])
    nan = float("nan")
    values = torch.tensor([[3.0, 2.0, 3.0, nan], [nan, nan, nan, nan]])
    target = value_targets(values, masks, 2.0)
    assert target[0, :3].tolist() == [0.0, -2.0, 0.0]
    losses = row_losses(logits, masks, actions, values, value_scale=2.0)
    # row 0: ((1-0)^2 + (0+2)^2 + (-1-0)^2) / 3 legal cards; row 1: -log(1/2)
    assert losses[0].item() == pytest.approx((1 + 4 + 1) / 3)
    assert losses[1].item() == pytest.approx(np.log(2))


def test_cloning_values_picks_the_best_cards_it_was_shown(whist_values):
    torch.manual_seed(0)
    net = build_network("mlp", whist_values.obs_size, 52, {"hidden_sizes": [64]})
    before = evaluate_clone(net, whist_values)
    behaviour_clone(net, whist_values, epochs=40, batch_size=64, learning_rate=3e-3, seed=0, value_scale=2.0)
    after = evaluate_clone(net, whist_values)
    assert after["value_regret"] < before["value_regret"]
    assert after["best_card_rate"] > 0.95
    assert after["teacher_value_regret"] == pytest.approx(before["teacher_value_regret"])


def test_a_game_without_a_solver_or_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="solo_whist"):
        check_values("dd", games.get("solo_whist"))
    with pytest.raises(ValueError, match="teacher_values must be one of"):
        check_values("montecarlo", games.get("whist"))
    with pytest.raises(ConfigError, match="solo_whist"):
        load_config(SMOKE, ["game=solo_whist_v0", "teacher=rule", "teacher_values=dd"])
    with pytest.raises(ConfigError, match="needs a teacher"):
        load_config(SMOKE, ["game=whist_v0", "teacher_values=dd"])


def test_a_clone_only_run_needs_a_teacher_and_trains_no_update(tmp_path):
    with pytest.raises(ConfigError, match="total_timesteps"):
        load_config(SMOKE, ["total_timesteps=0"])
    from vint_env.training.trainer import Trainer
    cfg = load_config(SMOKE, ["game=whist_v0", "teacher=rule", "teacher_values=dd", "teacher_deals=2",
                              "bc_epochs=1", "total_timesteps=0", "eval_every=0", "eval_opponents=[]",
                              "opponent_mix={self: 1.0}", f"runs_dir={tmp_path}", "teacher_cache=false"])
    trainer = Trainer(cfg, tmp_path / "run")
    final = trainer.train()
    assert trainer.state.update == 0 and trainer.state.global_step == 0
    assert trainer.state.pretrained
    assert not final.get("stopped_early")


def test_the_teacher_bonus_raises_the_teachers_card_before_the_targets_are_made():
    logits = torch.zeros(1, 3)
    masks = torch.ones(1, 3, dtype=torch.bool)
    values = torch.tensor([[1.0, 2.0, 2.0]])
    # teacher played card 0, one point worse; a bonus of 1.5 makes it the best by 0.5
    plain = row_losses(logits, masks, torch.tensor([0]), values, 1.0)
    bonus = row_losses(logits, masks, torch.tensor([0]), values, 1.0, teacher_bonus=1.5)
    assert plain.item() == pytest.approx(1 / 3)                        # targets -1, 0, 0
    assert bonus.item() == pytest.approx((0 + 0.25 + 0.25) / 3)        # targets 0, -0.5, -0.5


def test_a_value_unit_compresses_big_differences_logarithmically():
    values = torch.tensor([[0.0, -20.0, -2000.0]])
    masks = torch.ones(1, 3, dtype=torch.bool)
    t = value_targets(values, masks, 0.05, unit=20.0)
    assert t[0, 0].item() == 0.0
    assert t[0, 1].item() == pytest.approx(-0.05 * 20 * np.log(2))
    assert t[0, 2].item() == pytest.approx(-0.05 * 20 * np.log(101))
    assert torch.equal(value_targets(values, masks, 0.05), 0.05 * values)
