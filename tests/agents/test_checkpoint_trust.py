"""Issue 23 items 3, 5 and 13: what a checkpoint may decide, NaN weights, and the tensor digest."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import (DIGEST_KEY, CheckpointError, PPOAgent, load_checkpoint,
                                            save_checkpoint, tensor_digest)

OBS, ACT = 1102, 88


def payload(hidden=(8,)):
    torch.manual_seed(0)
    net = build_network("mlp", OBS, ACT, {"hidden_sizes": list(hidden)})
    return net, {"game": "vint_v0", "env_kwargs": {}, "obs_size": OBS, "num_actions": ACT,
                 "network": {"name": "mlp", "kwargs": {"hidden_sizes": list(hidden)}},
                 "model": net.state_dict(), "config": {}}


# ---------------------------------------------------------------- 13: digest

def test_a_flipped_byte_in_a_weight_is_refused(tmp_path):
    net, p = payload()
    path = save_checkpoint(tmp_path / "c.pt", p)
    load_checkpoint(path)                                            # intact: loads
    raw = bytearray(path.read_bytes())
    weight = net.state_dict()["torso.0.weight"] if "torso.0.weight" in net.state_dict() else \
        next(v for v in net.state_dict().values() if v.numel() > 100)
    at = raw.find(weight.reshape(-1)[:8].numpy().tobytes())
    assert at > 0
    raw[at + 17] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="damaged: its tensors do not match the SHA-256"):
        load_checkpoint(path)
    with pytest.raises(CheckpointError, match="damaged"):
        PPOAgent.load(path)


def test_an_older_checkpoint_without_a_digest_still_loads(tmp_path):
    net, p = payload()
    old = {"format": "vint-env/ppo-checkpoint", "version": 1, **p}
    torch.save(old, tmp_path / "old.pt")                             # as written before the digest existed
    agent = PPOAgent.load(tmp_path / "old.pt", game="vint")
    assert DIGEST_KEY not in load_checkpoint(tmp_path / "old.pt")
    resaved = save_checkpoint(tmp_path / "new.pt", p)                # saving again adds it
    assert load_checkpoint(resaved)[DIGEST_KEY] == tensor_digest(load_checkpoint(resaved))
    assert agent.obs_size == OBS


def test_the_digest_covers_dtype_shape_and_name_not_only_bytes():
    a = {"model": {"w": torch.zeros(4)}}
    assert tensor_digest(a) != tensor_digest({"model": {"w": torch.zeros(2, 2)}})
    assert tensor_digest(a) != tensor_digest({"model": {"v": torch.zeros(4)}})
    assert tensor_digest(a) != tensor_digest({"model": {"w": torch.zeros(4, dtype=torch.int32)}})
    assert tensor_digest(a) == tensor_digest({"model": {"w": torch.zeros(4)}, DIGEST_KEY: "x"})


# ---------------------------------------------------------------- 5: NaN weights

@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused_at_load(tmp_path, bad):
    net, p = payload()
    weights = {k: v.clone() for k, v in p["model"].items()}
    first = next(iter(weights))
    weights[first].view(-1)[3] = bad
    path = save_checkpoint(tmp_path / "nan.pt", {**p, "model": weights})
    with pytest.raises(CheckpointError, match=f"NaN or infinite values \\({first}"):
        PPOAgent.load(path, game="vint")


class _Nonsense(torch.nn.Module):
    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, obs):
        logits = torch.full((obs.shape[0], ACT), self.value)
        logits[:, 5] = 0.0 if self.value != self.value else logits[:, 5]
        return logits, torch.zeros(obs.shape[0])


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("greedy", [True, False])
def test_an_agent_never_returns_a_masked_action_whatever_its_logits(value, greedy):
    agent = PPOAgent(_Nonsense(value), "vint_v0", OBS, ACT, greedy=greedy)
    mask = np.zeros((3, ACT), dtype=np.int8)
    mask[0, [52, 60]] = 1
    mask[1, 87] = 1
    mask[2, [5, 40]] = 1
    for _ in range(20):
        actions = agent.act_batch(np.zeros((3, OBS), dtype=np.float32), mask)
        assert all(mask[i, a] for i, a in enumerate(actions)), actions
    one = agent.act({"observation": np.zeros(OBS, dtype=np.float32), "action_mask": mask[0]})
    assert one in (52, 60)


# ---------------------------------------------------------------- 3: a checkpoint chooses no import

def _trainer_checkpoint(run_dir, change):
    from vint_env.training.config import load_config
    from vint_env.training.trainer import Trainer
    cfg = load_config("configs/smoke.yaml")
    trainer = Trainer(cfg, run_dir)
    path = trainer.save()
    ckpt = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    ckpt.pop(DIGEST_KEY)
    change(ckpt)
    save_checkpoint(run_dir / "checkpoints" / "latest.pt", ckpt)
    return path


def _resume(run_dir, *extra):
    code = textwrap.dedent(f"""
        import sys
        from vint_env.training.cli import main
        code = main(["--resume", {str(run_dir)!r}, "--no-progress", *{list(extra)!r}])
        print("imported this:", "this" in sys.modules)
        sys.exit(code)
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("field, value, message", [
    ("network", "this:d", "unknown network 'this:d'"),
    ("teacher", "py:this:d", "names code to import teacher: py:this:d"),
    ("eval_opponents", ["random", "py:this:d"], "names code to import eval_opponents: py:this:d"),
    # issue 31 item 2: the guard decides on the parsed spec, so blanks before the kind change nothing
    ("teacher", " py:this:d", "names code to import teacher: py:this:d"),
    ("teacher", "\tpy:this:d", "names code to import teacher: py:this:d"),
    ("eval_opponents", ["random", " py:this:d"], "names code to import eval_opponents: py:this:d"),
])
def test_resume_never_imports_what_the_stored_config_names(tmp_path, field, value, message):
    run_dir = tmp_path / "run"
    from vint_env.training.config import SECTION_OF
    _trainer_checkpoint(run_dir, lambda ckpt: ckpt["config"][SECTION_OF[field]].__setitem__(field, value))
    done = _resume(run_dir)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Beautiful is better than ugly" not in done.stdout       # what importing `this` prints
    assert "imported this: False" in done.stdout
