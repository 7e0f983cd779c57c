"""Checkpoints: atomic round trip as an agent, and clear refusal of corrupt or mismatched files."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env import vint_v0
from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import (
    CheckpointError,
    PPOAgent,
    load_checkpoint,
    save_checkpoint,
)

OBS, ACT = 1102, 88


def payload(game="vint_v0", obs=OBS, act=ACT, hidden=(16,)):
    torch.manual_seed(0)
    net = build_network("mlp", obs, act, {"hidden_sizes": list(hidden)})
    return net, {"game": game, "env_kwargs": {}, "obs_size": obs, "num_actions": act,
                 "network": {"name": "mlp", "kwargs": {"hidden_sizes": list(hidden)}},
                 "model": net.state_dict(), "config": {}}


def test_round_trip_acts_like_the_network(tmp_path):
    net, p = payload()
    path = save_checkpoint(tmp_path / "a.pt", p)
    assert [f.name for f in tmp_path.iterdir()] == ["a.pt"]  # no temporary file left behind
    agent = PPOAgent.load(path, game="vint_v0")
    env = vint_v0.env()
    env.reset(seed=3)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        a = agent.act(obs)
        assert obs["action_mask"][a] == 1
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(obs["observation"])[None])
        logits[0, torch.as_tensor(obs["action_mask"] == 0)] = -torch.inf
        assert a == int(logits.argmax())
        env.step(a)
    batch = np.stack([env.observe(env.agent_selection)["observation"]] * 2)
    masks = np.stack([env.observe(env.agent_selection)["action_mask"]] * 2)
    assert agent.act_batch(batch, masks).shape == (2,)


def test_sampling_agent_is_seeded(tmp_path):
    _, p = payload()
    path = save_checkpoint(tmp_path / "a.pt", p)
    env = vint_v0.env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    runs = []
    for _ in range(2):
        agent = PPOAgent.load(path, greedy=False, seed=7)
        runs.append([agent.act(obs) for _ in range(20)])
    assert runs[0] == runs[1]
    assert all(obs["action_mask"][a] for a in runs[0])


def test_corrupt_and_truncated_files_refused(tmp_path):
    _, p = payload()
    good = save_checkpoint(tmp_path / "good.pt", p)
    data = good.read_bytes()
    (tmp_path / "trunc.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    for name in ("trunc.pt", "junk.pt"):
        with pytest.raises(CheckpointError, match="corrupt"):
            PPOAgent.load(tmp_path / name)
    with pytest.raises(CheckpointError, match="does not exist"):
        PPOAgent.load(tmp_path / "missing.pt")
    torch.save({"weights": 1}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a vint-env PPO checkpoint"):
        PPOAgent.load(tmp_path / "other.pt")


def test_mismatched_game_or_sizes_refused(tmp_path):
    _, p = payload(game="vint_v0")
    path = save_checkpoint(tmp_path / "v.pt", p)
    with pytest.raises(CheckpointError, match="trained on 'vint_v0', not 'whist_v0'"):
        PPOAgent.load(path, game="whist_v0")
    _, p = payload(obs=900)
    path = save_checkpoint(tmp_path / "small.pt", p)
    with pytest.raises(CheckpointError, match="observations of size 900.*vint_v0 now has 1102"):
        PPOAgent.load(path, game="vint_v0")
    agent = PPOAgent.load(path)  # without a game, the sizes are checked when it acts
    env = vint_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="expected observations of size 900"):
        agent.act(env.observe(env.agent_selection))


def test_weights_that_do_not_fit_the_network_refused(tmp_path):
    _, p = payload()
    p["network"] = {"name": "mlp", "kwargs": {"hidden_sizes": [32]}}
    path = save_checkpoint(tmp_path / "w.pt", p)
    with pytest.raises(CheckpointError, match="weights do not fit"):
        PPOAgent.load(path)


def test_atomic_write_keeps_old_file_when_save_fails(tmp_path):
    _, p = payload()
    path = save_checkpoint(tmp_path / "a.pt", p)
    before = path.read_bytes()
    bad = dict(p, config={"unpicklable": lambda: None})
    with pytest.raises(Exception):
        save_checkpoint(path, bad)
    assert path.read_bytes() == before
    assert sorted(f.name for f in tmp_path.iterdir()) == ["a.pt"]
    load_checkpoint(path, game="vint_v0")
