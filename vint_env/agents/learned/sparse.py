"""Observations as their active entries, and the two loops a sparse first layer needs (numba).

The observations of every game are wide and almost empty (Whist: 965 entries, about 57 non-zero), so
a network's first layer can read them as a list of active entries per row: ``index [B, K]`` (entry
numbers) and ``weight [B, K]`` (their values; 0 pads a row with fewer than ``K`` entries, at index 0).
:func:`active_entries` makes that from a dense ``[B, D]`` array in one pass; :func:`scatter_rows` is
the first layer's weight gradient (``grad_W[index[b, k]] += weight[b, k] * grad_out[b]``), the sum
that ``torch.nn.EmbeddingBag``'s own backward does several times slower on a CPU.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _count_active(obs: np.ndarray, rows: np.ndarray) -> int:
    most = 0
    for i in rows:
        k = 0
        for d in range(obs.shape[1]):
            if obs[i, d] != 0:
                k += 1
        most = max(most, k)
    return most


@numba.njit(cache=True, nogil=True)
def _fill_active(obs: np.ndarray, rows: np.ndarray, index: np.ndarray, weight: np.ndarray) -> None:
    for r in range(rows.shape[0]):
        i = rows[r]
        k = 0
        for d in range(obs.shape[1]):
            x = obs[i, d]
            if x != 0:
                index[r, k] = d
                weight[r, k] = x
                k += 1


def active_entries(obs: np.ndarray, width: int | None = None, rows: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(index [B, K] int32, weight [B, K] float32)`` of the non-zero entries of ``obs [B, D]`` (of its rows
    ``rows`` only, when given), in entry order, padded with (0, 0.0); ``K`` = ``width`` or the most active
    entries of a row.

    >>> index, weight = active_entries(np.array([[0, 1, 0, 2], [1, 0, 0, 0]], dtype=np.float32))
    >>> index.tolist(), weight.tolist()
    ([[1, 3], [0, 0]], [[1.0, 2.0], [1.0, 0.0]])
    """
    obs = np.ascontiguousarray(obs)
    if obs.ndim != 2:
        raise ValueError(f"expected observations [B, D], got shape {obs.shape}")
    rows = np.arange(obs.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    most = _count_active(obs, rows)
    k = most if width is None else int(width)
    if k < most:
        raise ValueError(f"a row has {most} active entries, more than width {k}")
    index = np.zeros((rows.shape[0], max(k, 1)), dtype=np.int32)
    weight = np.zeros((rows.shape[0], max(k, 1)), dtype=np.float32)
    _fill_active(obs, rows, index, weight)
    return index, weight


@numba.njit(cache=True, nogil=True, fastmath=True)
def scatter_rows(index: np.ndarray, weight: np.ndarray, grad_out: np.ndarray, grad_w: np.ndarray) -> None:
    """``grad_w[index[b, k]] += weight[b, k] * grad_out[b]`` for every ``b, k`` (``grad_w`` zeroed by the caller)."""
    h = grad_out.shape[1]
    for b in range(index.shape[0]):
        for k in range(index.shape[1]):
            w = weight[b, k]
            if w != 0:
                row = index[b, k]
                for j in range(h):
                    grad_w[row, j] += w * grad_out[b, j]
