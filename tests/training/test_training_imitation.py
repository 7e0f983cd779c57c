"""Imitation warm start: teacher data deterministic and cached, cloning fits a deterministic teacher,
the KL-to-teacher term equals a hand computation, and the trainer wires it in (config, checkpoint, resume)."""

import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.training.config import ConfigError, load_config
from vint_env.training.imitation import bc_loss, behaviour_clone, evaluate_clone, kl_to_reference
from vint_env.training.logs import RunLogger
from vint_env.training.trainer import Trainer
from vint_env.training.teacher_data import TeacherData, generate, teacher_data
from vint_env.agents.learned.networks import build_network

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
FIELDS = ("obs_packed", "masks", "actions", "returns", "seats", "deal_ids")


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def same(a: TeacherData, b: TeacherData) -> bool:
    return a.packed == b.packed and all(np.array_equal(getattr(a, k), getattr(b, k)) for k in FIELDS)


@pytest.fixture(scope="module")
def whist_rule_data():
    return generate(games.get("whist"), {}, "rule", seed=5, deals=8)


def test_teacher_data_is_a_function_of_the_seed(whist_rule_data):
    d = whist_rule_data
    assert len(d) == 8 * 52 and d.packed and d.obs_size == 965      # every card play of 8 deals
    assert same(d, generate(games.get("whist"), {}, "rule", seed=5, deals=8, chunk_deals=3))
    assert not np.array_equal(d.actions, generate(games.get("whist"), {}, "rule", seed=6, deals=8).actions)
    # the teacher's action is legal, and the observations unpack to the env's 0/1 vectors
    assert d.masks[np.arange(len(d)), d.actions].all()
    assert set(np.unique(d.obs(np.arange(10)))) <= {0.0, 1.0}
    # deal episodes pay at the end only: every decision of a seat carries that seat's deal result,
    # partners alike and opponents the negative
    for k in range(8):
        rows = d.deal_ids == k
        per_seat = {s: set(d.returns[rows & (d.seats == s)].tolist()) for s in range(4)}
        assert all(len(v) == 1 for v in per_seat.values())
        r = [per_seat[s].pop() for s in range(4)]
        assert r[0] == r[2] == -r[1] == -r[3] and r[0] != 0


def test_teacher_data_same_with_worker_processes():
    one = generate(games.get("vint"), {}, "rule", seed=2, deals=4, workers=1, chunk_deals=2)
    two = generate(games.get("vint"), {}, "rule", seed=2, deals=4, workers=2, chunk_deals=2)
    assert same(one, two) and len(one) > 0


def test_teacher_data_cache(tmp_path, whist_rule_data):
    notes = []
    data, path, cached = teacher_data(games.get("whist"), {}, "rule", 5, 8, cache_dir=tmp_path, say=notes.append)
    assert not cached and path.is_file() and path.parent == tmp_path
    assert path.name.startswith("whist_v0-rule-seed5-8deals-")
    assert same(data, whist_rule_data)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]          # no temporary file left
    again, path2, cached2 = teacher_data(games.get("whist"), {}, "rule", 5, 8, cache_dir=tmp_path)
    assert cached2 and path2 == path and same(again, data)
    # other options, another file
    _, path3, _ = teacher_data(games.get("whist"), {"reward_scale": 1.0}, "rule", 5, 8, cache_dir=tmp_path)
    assert path3 != path
    # a damaged file is made again
    path.write_bytes(b"not an npz")
    fixed, _, cached4 = teacher_data(games.get("whist"), {}, "rule", 5, 8, cache_dir=tmp_path, say=notes.append)
    assert not cached4 and same(fixed, data) and any("generating it again" in n for n in notes)


def test_teacher_cache_key_follows_the_observation_layout(monkeypatch):
    """Data cached before observation blocks were added (or moved) are not reused after."""
    import dataclasses

    from vint_env.training.teacher_data import cache_key
    from vint_env import games
    from vint_env.games.layout import Layout
    record = games.get("whist")
    before = cache_key(games.get("whist"), {}, "rule", 5, 8)
    blocks = [(b.name, b.shape, b.description) for b in record.layout.blocks.values()]
    grown = dataclasses.replace(record, layout=Layout(record.layout.name, blocks + [("extra", (4,), "new")]))
    real_get = games.get
    monkeypatch.setattr(games, "get", lambda name: grown if real_get(name) is record else real_get(name))
    assert cache_key(games.get("whist"), {}, "rule", 5, 8) != before


def test_cloning_fits_a_deterministic_teacher(whist_rule_data):
    torch.manual_seed(0)
    d = whist_rule_data
    net = build_network("mlp", d.obs_size, d.masks.shape[1], {"hidden_sizes": [128, 128]})
    before = evaluate_clone(net, d)
    history = behaviour_clone(net, d, epochs=12, batch_size=64, learning_rate=3e-3, seed=0)
    ces = [h["cross_entropy"] for h in history]
    assert ces[-1] < 0.1 * before["cross_entropy"] and ces[-1] < ces[0]
    assert history[-1]["agreement"] == 1.0          # greedy clone plays the rule bot's card everywhere
    assert before["agreement_on_choices"] < 0.6
    # and the loss is the masked cross-entropy: the mean of -log pi(teacher's action) over legal actions
    idx = np.arange(5)
    obs, masks, actions = (torch.from_numpy(d.obs(idx)), torch.from_numpy(d.masks[idx]),
                           torch.from_numpy(d.actions[idx]))
    loss, figures = bc_loss(net, obs, masks, actions)
    logits = net(obs)[0].detach().numpy()
    hand = 0.0
    for r in range(5):
        legal = np.flatnonzero(d.masks[r])
        hand -= logits[r, d.actions[r]] - math.log(np.exp(logits[r, legal]).sum())
    assert float(loss.detach()) == pytest.approx(hand / 5, rel=1e-4)


def test_kl_to_reference_by_hand():
    # legal actions 0, 1, 3 (2 illegal, with a logit that must not count)
    mask = torch.tensor([[True, True, False, True]])
    ref_logits = torch.tensor([[0.0, math.log(2.0), 9.0, math.log(5.0)]])   # p_ref = 1/8, 2/8, 0, 5/8
    pol_logits = torch.tensor([[0.0, 0.0, -3.0, 0.0]])                       # pi = 1/3, 1/3, 0, 1/3
    p = [1 / 8, 2 / 8, 5 / 8]
    hand = sum(pi * math.log(pi / (1 / 3)) for pi in p)
    assert float(kl_to_reference(ref_logits, pol_logits, mask)) == pytest.approx(hand, rel=1e-6)
    assert float(kl_to_reference(ref_logits, ref_logits, mask)) == pytest.approx(0.0, abs=1e-7)
    # a one-hot (deterministic) reference: KL is the cross-entropy -log pi(teacher's action)
    onehot = torch.tensor([[-1e9, 0.0, 0.0, -1e9]])
    assert float(kl_to_reference(onehot, pol_logits, mask)) == pytest.approx(math.log(3), rel=1e-6)


def test_imitation_config_keys():
    cfg = load_config(None, ["teacher=rule", "kl_coef=0.2", "kl_decay=0.5"])
    assert (cfg.teacher_data.teacher, cfg.init.kl_coef, cfg.init.kl_decay) == ("rule", 0.2, 0.5)
    with pytest.raises(ConfigError, match="kl_coef=0.2 pulls toward the cloned teacher"):
        load_config(None, ["kl_coef=0.2"])
    with pytest.raises(ConfigError, match="kl_decay must be in"):
        load_config(None, ["teacher=rule", "kl_decay=0"])
    with pytest.raises(ConfigError, match=r"teacher_data.teacher_deals must be in \[1, 100000000\], got 0"):
        load_config(None, ["teacher=rule", "teacher_deals=0"])
    with pytest.raises(ConfigError, match="did you mean 'teacher_deals'"):
        load_config(None, ["teacher_deal=3"])
    with pytest.raises(ConfigError, match="teacher: agent spec: unknown kind 'nobody'"):
        load_config(SMOKE, ["teacher=nobody", "opponent_mix={self: 1.0}"])


def test_trainer_warm_start_kl_and_resume(tmp_path):
    cfg = load_config(SMOKE, ["game=whist_v0", "teacher=rule", "teacher_deals=4", "bc_epochs=2", "kl_coef=0.5",
                              "kl_decay=0.5", "opponent_mix={self: 1.0}", "eval_opponents=[]", "num_envs=2",
                              "num_steps=20", "total_timesteps=120", f"runs_dir={tmp_path / 'runs'}"])
    t = Trainer(cfg, tmp_path / "run", logger=RunLogger(tmp_path / "run", tensorboard=False))
    t.train()
    assert t.state.pretrained and t.reference is not None
    assert not any(p.requires_grad for p in t.reference.parameters())
    assert list((tmp_path / "runs" / "teacher_cache").glob("whist_v0-rule-seed1-4deals-*.npz"))
    rows = t.logger.rows
    assert [r["bc/epoch"] for r in rows if r.get("bc/epoch")] == ["0", "1", "2"]   # 0: before cloning
    first = next(r for r in rows if r.get("kl_coef"))
    assert float(first["kl_coef"]) == pytest.approx(0.5) and float(first["kl_to_teacher"]) >= 0
    # the reference is in the checkpoint: a resumed trainer has it, and does not clone again
    u = Trainer(cfg, tmp_path / "run")
    u.restore(tmp_path / "run" / "checkpoints" / "latest.pt")
    assert u.state.pretrained
    for (k, a), (_, b) in zip(t.reference.state_dict().items(), u.reference.state_dict().items()):
        assert torch.equal(a, b), k
    # the KL weight decays to 0 at kl_decay of the budget
    assert u.kl_coef_now(0.25) == pytest.approx(0.25) and u.kl_coef_now(0.5) == 0.0 == u.kl_coef_now(0.9)


def test_held_out_deals_are_not_trained_on(whist_rule_data):
    from vint_env.training.imitation import split_deals
    train, held = split_deals(whist_rule_data, 0.25)
    assert set(whist_rule_data.deal_ids[held]) == {6, 7} and set(whist_rule_data.deal_ids[train]) == set(range(6))
    torch.manual_seed(0)
    net = build_network("mlp", 965, 52, {"hidden_sizes": [32]})
    h = behaviour_clone(net, whist_rule_data, epochs=1, batch_size=64, learning_rate=1e-3, seed=0, holdout=0.25)
    assert "heldout_agreement" in h[0] and 0 <= h[0]["heldout_agreement"] <= 1


def test_teacher_data_of_two_player_vint_seats_its_two_players():
    # Two-player Vint has two agents: every decision belongs to seat 0 or 1, both decide in each deal,
    # and the deal's zero-sum result is paid to the player and its negative to the other.
    d = generate(games.get("vint2p"), {"way": 4}, "rule", seed=3, deals=4)
    assert d.masks[np.arange(len(d)), d.actions].all()
    assert set(np.unique(d.seats)) == {0, 1}
    for k in range(4):
        rows = d.deal_ids == k
        per_seat = {s: set(d.returns[rows & (d.seats == s)].tolist()) for s in (0, 1)}
        assert all(len(v) == 1 for v in per_seat.values()), per_seat
        assert per_seat[0].pop() == -per_seat[1].pop()
