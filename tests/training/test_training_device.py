"""``run.device``: ``cpu`` and ``auto`` (the CPU on a machine without an accelerator) train exactly as the trainer
did before the option, and a device that is not there is a named error before any run folder is written.
What only a GPU can check is ``python -m training.gpu_check`` (not a test: no GPU here)."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vint_env.agents.learned.networks import scatter_rows_torch  # noqa: E402
from vint_env.agents.learned.sparse import scatter_rows  # noqa: E402
from vint_env.training.cli import main as train_main  # noqa: E402
from vint_env.training.config import ConfigError, load_config  # noqa: E402
from vint_env.training.device import DeviceError, resolve_device  # noqa: E402
from vint_env.training.logs import RunLogger  # noqa: E402
from vint_env.training.trainer import Trainer  # noqa: E402

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
TIMING = ("env_steps_per_s", "samples_per_s", "update_seconds", "elapsed_minutes", "process_cpu_minutes")
#: The smoke run's loss at updates 1-3 (``configs/smoke.yaml``, no evaluation), logged by the trainer on main
#: 3bc40f5, before the device option (torch 2.13 on the CPU); the whole network after update 3 was checked
#: equal too, bit for bit, with device cpu and auto.
LOSSES_BEFORE_THE_OPTION = [404.13751220703125, 436.63525390625, 499.9024658203125]

no_accelerator = pytest.mark.skipif(resolve_device("auto").type != "cpu", reason="auto picks an accelerator here")


def smoke_run(tmp_path, *settings):
    cfg = load_config(SMOKE, ["eval_opponents=[]", *settings])
    t = Trainer(cfg, tmp_path, logger=RunLogger(tmp_path, tensorboard=False))
    t.train()
    rows = [{k: v for k, v in r.items() if k not in TIMING} for r in t.logger.rows]
    return t, rows


@no_accelerator
def test_cpu_and_auto_train_as_before_the_option(tmp_path):
    default, rows = smoke_run(tmp_path / "default")
    assert default.device == torch.device("cpu") and default.cfg.run.device == "auto"
    assert [float(r["loss"]) for r in rows] == pytest.approx(LOSSES_BEFORE_THE_OPTION, rel=1e-6)
    for device in ("cpu", "auto"):
        t, again = smoke_run(tmp_path / device, f"device={device}")
        assert again == rows, device
        for (k, a), (_, b) in zip(default.net.state_dict().items(), t.net.state_dict().items()):
            assert torch.equal(a, b), (device, k)
        assert all(p.device.type == "cpu" for p in t.net.parameters())


def test_a_device_that_is_not_there_is_a_named_error_and_no_run_folder_is_made(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="device 'cuda' is not available on this machine"):
        resolve_device("cuda")
    with pytest.raises(DeviceError, match="device must be one of auto, cpu, cuda, mps, got 'tpu'"):
        resolve_device("tpu")
    with pytest.raises(ConfigError, match="device"):
        load_config(SMOKE, ["device=tpu"])                  # the config refuses it too
    runs = tmp_path / "runs"
    for args in (["--device", "cuda"], ["--set", "device=cuda"]):
        code = train_main(["--config", str(SMOKE), "--set", f"runs_dir={runs}", *args])
        assert code == 2
        assert "vint-train: error: device 'cuda' is not available on this machine" in capsys.readouterr().err
        assert not runs.exists()


def test_the_sparse_layers_gradient_off_the_cpu_is_the_compiled_loops():
    # the scatter a GPU's backward pass uses (torch operations) against the CPU's compiled loop
    rng = np.random.default_rng(0)
    index = rng.integers(0, 50, size=(8, 6)).astype(np.int32)
    weight = rng.random((8, 6)).astype(np.float32)
    weight[:, -2:] = 0.0                                   # padding entries add nothing
    grad_out = rng.standard_normal((8, 5)).astype(np.float32)
    expected = np.zeros((50, 5), dtype=np.float32)
    scatter_rows(index, weight, grad_out, expected)
    got = scatter_rows_torch(torch.from_numpy(index), torch.from_numpy(weight), torch.from_numpy(grad_out), 50)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)
