"""Issue 49 High 2: a checkpoint's tensors are checked to be stored in full before any is read.

A file may store one float and declare it an ``N x N`` weight (a stride-0, expanded view); the
loader used to check finiteness (and compute the digest) before the shapes, materialising ``N x N``
elements: 11 GB from 2.5 MB at ``N = 40,000``, a raw RuntimeError at ``N = 10**6``.  Every such file
is now a CheckpointError naming the key, before anything reads its elements; and a fuzz test holds
every mutation of a valid checkpoint's weights to "an agent that acts, or a CheckpointError".
"""

from __future__ import annotations

import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import (DIGEST_KEY, CheckpointError, PPOAgent, load_checkpoint,
                                            network_from_checkpoint, tensor_digest)

OBS, ACT = 1102, 88
HIDDEN = [8]


def payload() -> dict:
    torch.manual_seed(0)
    net = build_network("mlp", OBS, ACT, {"hidden_sizes": HIDDEN})
    return {"format": "vint-env/ppo-checkpoint", "version": 1, "game": "vint_v0", "env_kwargs": {},
            "obs_size": OBS, "num_actions": ACT, "network": {"name": "mlp", "kwargs": {"hidden_sizes": HIDDEN}},
            "model": net.state_dict(), "config": {}}


def write(path, ckpt: dict, digest: str | None = None):
    """``ckpt`` as a file; ``digest``: None (an older file, no digest), or the value stored as its digest."""
    if digest is not None:
        ckpt = {**ckpt, DIGEST_KEY: digest}
    torch.save(ckpt, path)
    return path


def first_weight(ckpt: dict) -> str:
    return next(k for k, v in ckpt["model"].items() if v.dim() == 2)


@pytest.mark.parametrize("digest", [None, "0" * 64], ids=["no-digest", "with-digest"])
@pytest.mark.parametrize("where", ["model", "trainer"])
def test_a_weight_claiming_n_by_n_elements_from_one_stored_is_refused_before_it_is_read(tmp_path, digest, where):
    ckpt = payload()
    hostile = torch.zeros(1).expand(20_000, 20_000)          # 400 million elements, 4 bytes stored
    if where == "model":
        ckpt["model"] = {**ckpt["model"], first_weight(ckpt): hostile}
        key = f"model/{first_weight(ckpt)}"
    else:                                                    # optimizer state a --resume would load
        ckpt["trainer"] = {"optimizer": {"state": {0: {"exp_avg": hostile}}}}
        key = "trainer/optimizer/state/0/exp_avg"
    path = write(tmp_path / "hostile.pt", ckpt, digest)
    assert path.stat().st_size < 100_000
    start = time.perf_counter()
    with pytest.raises(CheckpointError, match=f"tensor '{key}' of shape \\(20000, 20000\\) is a view"):
        PPOAgent.load(path, game="vint")
    with pytest.raises(CheckpointError, match="is a view"):
        load_checkpoint(path)
    # Materialising 400 million floats takes seconds and 1.6 GB; the check reads metadata only.
    assert time.perf_counter() - start < 1.0


def test_a_weight_claiming_ten_to_the_twelve_elements_is_a_checkpoint_error_not_a_runtime_error(tmp_path):
    ckpt = payload()
    ckpt["model"] = {**ckpt["model"], first_weight(ckpt): torch.zeros(1).expand(10**6, 10**6)}
    path = write(tmp_path / "huge.pt", ckpt, "0" * 64)
    with pytest.raises(CheckpointError, match=r"\(1000000, 1000000\) is a view"):
        PPOAgent.load(path, game="vint")


def test_network_from_checkpoint_checks_a_dict_it_is_given_directly():
    ckpt = payload()
    ckpt["model"] = {**ckpt["model"], first_weight(ckpt): torch.zeros(1).expand(10**6, 10**6)}
    with pytest.raises(CheckpointError, match="is a view"):
        network_from_checkpoint(ckpt, "given")


@pytest.mark.parametrize("make, message", [
    (lambda w: w.t(), "is a view"),                                   # transposed: odd strides
    (lambda w: torch.cat([torch.zeros(1), w.reshape(-1)])[1:].reshape(w.shape), "storage offset 1"),
    (lambda w: w[:, ::2], "is a view"),                               # every second column
    (lambda w: w.to(torch.complex64), "dtype torch.complex64"),
    (lambda w: w.to_sparse(), "not a dense CPU tensor"),
])
def test_views_and_odd_tensors_are_refused_naming_the_key(tmp_path, make, message):
    ckpt = payload()
    key = first_weight(ckpt)
    ckpt["model"] = {**ckpt["model"], key: make(ckpt["model"][key])}
    with pytest.raises(CheckpointError, match=f"'model/{key}'.*{message}"):
        PPOAgent.load(write(tmp_path / "odd.pt", ckpt), game="vint")


def test_a_dtype_other_than_the_networks_is_refused_before_its_values_are_read(tmp_path):
    ckpt = payload()
    key = first_weight(ckpt)
    ckpt["model"] = {**ckpt["model"], key: ckpt["model"][key].double()}
    with pytest.raises(CheckpointError, match=f"{key}: network dtype torch.float32, file torch.float64"):
        PPOAgent.load(write(tmp_path / "f64.pt", ckpt), game="vint")


def test_one_storage_read_many_times_over_is_refused(tmp_path):
    ckpt = payload()
    shared = torch.zeros(10_000)
    ckpt["trainer"] = {"pool": [{"w": shared} for _ in range(100)]}    # one storage, 100 tensors
    with pytest.raises(CheckpointError, match=r"tensors claim 4,0\d\d,\d\d\d bytes but store 1\d\d,\d\d\d; .* at most 4 times"):
        load_checkpoint(write(tmp_path / "shared.pt", ckpt, "0" * 64))
    ckpt["trainer"] = {"pool": [{"w": shared}], "behaviour": {"pool": [{"w": shared}]}}   # as a trainer saves
    path = write(tmp_path / "twice.pt", ckpt)
    path = write(path, load_checkpoint(path), tensor_digest(load_checkpoint(path)))
    assert load_checkpoint(path)["trainer"]["pool"][0]["w"].shape == (10_000,)


# ---------------------------------------------------------------- fuzz

DTYPES = [torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.int64, torch.bool, torch.uint8,
          torch.complex64]


def _mutation():
    """One change to a weight dict: ``(name, apply(weights, draw) -> weights)``."""
    return st.sampled_from(["shape", "dtype", "drop", "extra", "nan", "inf", "transpose", "expand",
                            "offset", "step", "not-a-tensor", "empty", "scalar", "rename"])


def _mutate(weights: dict, kind: str, data) -> dict:
    weights = dict(weights)
    keys = sorted(k for k, v in weights.items() if isinstance(v, torch.Tensor) and v.numel() > 0)
    if not keys:
        return weights
    key = data.draw(st.sampled_from(keys))
    w = weights[key]
    if kind == "shape":
        dims = data.draw(st.lists(st.integers(0, 40), min_size=0, max_size=3))
        weights[key] = torch.zeros(dims)
    elif kind == "dtype":
        weights[key] = w.to(data.draw(st.sampled_from(DTYPES)))
    elif kind == "drop":
        del weights[key]
    elif kind == "extra":
        weights[data.draw(st.sampled_from(["extra", key + ".x", "value_first.weight", "first.weight"]))] = \
            torch.zeros(data.draw(st.integers(1, 8)), data.draw(st.integers(1, 8)))
    elif kind in ("nan", "inf") and w.is_floating_point():      # an integer tensor holds no NaN or inf
        w = w.clone()
        w.reshape(-1)[data.draw(st.integers(0, w.numel() - 1))] = float(kind)
        weights[key] = w
    elif kind == "transpose" and w.dim() == 2:
        weights[key] = w.t()
    elif kind == "expand":
        n = data.draw(st.sampled_from([1, 2, 1000, 10**6]))
        weights[key] = torch.zeros(1).expand(*(n for _ in range(max(w.dim(), 1))))
    elif kind == "offset":
        flat = torch.cat([torch.zeros(data.draw(st.integers(1, 5))), w.reshape(-1)])
        weights[key] = flat[flat.numel() - w.numel():].reshape(w.shape)
    elif kind == "step" and w.dim() >= 1 and w.shape[0] > 1:
        weights[key] = torch.cat([w, w])[::2]
    elif kind == "not-a-tensor":
        weights[key] = data.draw(st.sampled_from([0, 1.5, "w", None, [1, 2], {"a": 1}]))
    elif kind == "empty":
        weights[key] = torch.zeros(0)
    elif kind == "scalar":
        weights[key] = torch.tensor(1.0)
    elif kind == "rename":
        weights[key + "_"] = weights.pop(key)
    return weights


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kinds=st.lists(_mutation(), min_size=1, max_size=3), with_digest=st.booleans())
def test_any_mutation_of_the_weights_gives_an_agent_or_a_checkpoint_error(tmp_path, data, kinds, with_digest):
    ckpt = payload()
    weights = ckpt["model"]
    for kind in kinds:
        weights = _mutate(weights, kind, data)
    ckpt["model"] = weights
    path = tmp_path / "fuzz.pt"
    try:
        digest = tensor_digest(ckpt) if with_digest and "expand" not in kinds else None
        write(path, ckpt, digest)
    except Exception:      # torch.save refuses some of these itself; nothing to load then
        return
    try:
        agent = PPOAgent.load(path, game="vint")
    except CheckpointError:
        return
    action = agent.act_batch(np.zeros((1, OBS), dtype=np.float32), np.ones((1, ACT), dtype=bool))
    assert 0 <= int(action[0]) < ACT


# ---------------------------------------------------------------- the archive, before torch.load

def _rezip(source, target, compress=None):
    import zipfile
    with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, "w") as out:
        for info in z.infolist():
            data = z.read(info.filename)
            if compress is not None and info.filename.endswith("/data/0"):
                out.writestr(info.filename, data, compress_type=compress)
            else:
                out.writestr(info, data)
    return target


def test_a_compressed_record_is_refused_before_torch_inflates_it(tmp_path):
    import zipfile
    good = write(tmp_path / "good.pt", payload())
    PPOAgent.load(good, game="vint")                                  # torch.save stores records as they are
    packed = _rezip(good, tmp_path / "packed.pt", compress=zipfile.ZIP_DEFLATED)
    torch.load(packed, weights_only=True)                             # torch itself would inflate it
    with pytest.raises(CheckpointError, match=r"record '\w+/data/0' is compressed"):
        PPOAgent.load(packed, game="vint")


def test_a_zip_whose_directory_does_not_read_is_a_checkpoint_error(tmp_path):
    path = tmp_path / "broken.pt"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(path)


def test_an_older_non_zip_checkpoint_still_loads(tmp_path):
    path = tmp_path / "legacy.pt"
    torch.save(payload(), path, _use_new_zipfile_serialization=False)
    assert PPOAgent.load(path, game="vint").obs_size == OBS


TOP_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 10**12), st.floats(allow_nan=True),
                       st.text(max_size=8), st.lists(st.integers(-3, 10**9), max_size=3),
                       st.dictionaries(st.sampled_from(["name", "kwargs", "hidden_sizes", "margin", "actions"]),
                                       st.one_of(st.none(), st.integers(-3, 10**9), st.text(max_size=5),
                                                 st.lists(st.integers(-3, 10**9), max_size=3)), max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(st.sampled_from(["game", "obs_size", "num_actions", "network", "model", "residual",
                                                "bidder", "version", "env_kwargs"]),
                               st.one_of(TOP_VALUES, st.just("<drop>")), min_size=1, max_size=3))
def test_any_change_to_a_checkpoints_fields_gives_an_agent_or_a_checkpoint_error(tmp_path, changes):
    ckpt = payload()
    for key, value in changes.items():
        if value == "<drop>":
            ckpt.pop(key, None)
        else:
            ckpt[key] = value
    path = write(tmp_path / "fields.pt", ckpt, tensor_digest(ckpt))
    try:
        agent = PPOAgent.load(path, game="vint")
    except CheckpointError:
        return
    action = agent.act_batch(np.zeros((1, OBS), dtype=np.float32), np.ones((1, ACT), dtype=bool))
    assert 0 <= int(action[0]) < ACT
