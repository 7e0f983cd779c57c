"""The check that every tensor a checkpoint file holds is stored in full, before anything reads it.

``torch.load(weights_only=True)`` runs no code, but it rebuilds each tensor from the size,
strides and storage offset the file declares, and those need not agree with the bytes the file
stores: one float stored with strides ``(0, 0)`` reads as an ``N x N`` weight.  Anything that then
touches every element (a finiteness check, a digest, ``load_state_dict``) materialises ``N x N``
elements from a file of a few bytes (``N = 40,000``: 11 GB; ``N = 10**6``: a failed allocation).

:func:`check_stored_tensors` is run by
:func:`~vint_env.agents.learned.policy.load_checkpoint` on the whole file (and by
:func:`~vint_env.agents.learned.policy.network_from_checkpoint` on the weights it is given) before
any tensor's elements are read.  It looks at metadata only (layout, dtype, strides, offset and the
size of the storage) and refuses, with a :class:`CheckpointError` that names the key, a tensor that is

* not a dense CPU tensor of an ordinary dtype (sparse, quantized, nested, complex ...);
* a view: not contiguous (zero or odd strides) or starting at a storage offset;
* larger than its storage: ``numel * element_size`` more than the bytes stored for it;

and a file whose tensors together claim more than :data:`MAX_SHARED_READS` times the bytes of
their distinct storages (tensors may share one storage, as a trainer's pool and behaviour
snapshots do, but not so often that reading each of them becomes a multiplied cost).

Before that, :func:`check_archive` looks at the file's zip directory before ``torch.load`` reads it:
``torch.save`` stores every record uncompressed, and a compressed one (a 390 KB file inflating to a
400 MB storage) or records that together claim more bytes than the file has are refused, so the
storages ``torch.load`` allocates never exceed the file's size.
"""

from __future__ import annotations

import math
import os
import zipfile

import torch

class CheckpointError(ValueError):
    """A checkpoint file that is missing, corrupt, or does not fit the game asked for (defined here, the
    lowest module that raises it; :mod:`~vint_env.agents.learned.policy` exports it)."""


#: The dtypes a checkpoint's tensors may have (weights, optimizer state, counters, masks).
STORED_DTYPES = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64,
                           torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool})
#: The bytes all tensors claim may be at most this many times the bytes of their distinct storages.
MAX_SHARED_READS = 4


def check_archive(path: str | os.PathLike, label: str) -> None:
    """Refuse (:class:`CheckpointError`) a zip checkpoint whose records are
    compressed, or claim more bytes together than the file holds, before ``torch.load`` inflates them
    (a file in torch's older, non-zip format is left to ``torch.load``, which checks each storage's
    size against the bytes that follow it)."""
    with open(path, "rb") as f:
        if f.read(4) != b"PK\x03\x04":      # how torch.load tells its zip format
            return
        size = os.fstat(f.fileno()).st_size
        f.seek(0)
        try:
            records = zipfile.ZipFile(f).infolist()
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
            raise CheckpointError(f"{label} is corrupt or not a torch file: its zip directory does not read "
                                  f"({type(e).__name__}: {e})") from None
    packed = [r.filename for r in records if r.compress_type != zipfile.ZIP_STORED]
    if packed:
        raise CheckpointError(f"{label}: record {packed[0]!r} is compressed; torch.save stores every record "
                              f"as it is, and a compressed one could inflate far beyond the file's size")
    claimed = sum(r.file_size for r in records)
    if claimed > size:
        raise CheckpointError(f"{label}: its records claim {claimed:,} bytes but the file has {size:,}")


def tensors_in(payload, where: str = ""):
    """``(key path, tensor)`` for every tensor in ``payload`` (nested dicts, lists and tuples)."""
    if isinstance(payload, torch.Tensor):
        yield where or "<top>", payload
    elif isinstance(payload, dict):
        for k, v in payload.items():
            yield from tensors_in(v, f"{where}/{k}" if where else str(k))
    elif isinstance(payload, (list, tuple)):
        for i, v in enumerate(payload):
            yield from tensors_in(v, f"{where}/{i}" if where else str(i))


def check_stored_tensors(payload, path: str) -> None:
    """Refuse (:class:`CheckpointError`) a tensor of ``payload`` that
    its stored bytes do not hold in full; reads no tensor's elements (module docstring)."""
    claimed, storages = 0, {}
    for key, t in tensors_in(payload):
        if t.layout != torch.strided or t.is_quantized or t.is_nested or t.device.type != "cpu":
            raise CheckpointError(f"{path}: tensor {key!r} is not a dense CPU tensor "
                                  f"(layout {t.layout}, device {t.device.type}); a checkpoint holds only those")
        if t.dtype not in STORED_DTYPES:
            raise CheckpointError(f"{path}: tensor {key!r} has dtype {t.dtype}, not one a checkpoint holds")
        elements = math.prod(t.shape)
        if t.storage_offset() != 0 or not t.is_contiguous():
            raise CheckpointError(f"{path}: tensor {key!r} of shape {tuple(t.shape)} is a view (strides "
                                  f"{t.stride()}, storage offset {t.storage_offset()}), not a tensor stored in full")
        storage = t.untyped_storage()
        needed, stored = elements * t.element_size(), storage.nbytes()
        if stored < needed:
            raise CheckpointError(f"{path}: tensor {key!r} claims {elements:,} elements of shape {tuple(t.shape)} "
                                  f"({needed:,} bytes) but its storage holds {stored:,} bytes")
        claimed += needed
        storages[storage.data_ptr(), stored] = stored
    distinct = sum(storages.values())
    if claimed > MAX_SHARED_READS * distinct + 4096:
        raise CheckpointError(f"{path}: its tensors claim {claimed:,} bytes but store {distinct:,}; tensors "
                              f"sharing storages may claim at most {MAX_SHARED_READS} times the bytes stored")


def compact_tensors(payload):
    """``payload`` with every tensor that :func:`check_stored_tensors` would call a view (not contiguous,
    or at a storage offset) replaced by a copy stored in full; what a checkpoint writer saves, so that
    the loader never refuses a file the package wrote.  Other tensors are kept as they are, so tensors
    that share one storage still share it.  A tensor on another device (a GPU) is copied to the CPU
    first: a checkpoint holds CPU tensors, and loads on a machine without that device."""
    if isinstance(payload, torch.Tensor):
        if payload.device.type != "cpu":
            payload = payload.cpu()
        if payload.storage_offset() != 0 or not payload.is_contiguous():
            return payload.clone(memory_format=torch.contiguous_format)
        return payload
    if isinstance(payload, dict):
        return type(payload)((k, compact_tensors(v)) for k, v in payload.items())
    if isinstance(payload, list):
        return [compact_tensors(v) for v in payload]
    if isinstance(payload, tuple):
        return tuple(compact_tensors(v) for v in payload)
    return payload
