"""Named observation layouts: each feature block has a name, a shape and a slice.

A layout is the documented table of an observation vector (docs/envs/index.md, Conventions):
tests, bots and users read features by name instead of by offset.

>>> lay = Layout("demo", [("hand", (52,), "cards held"), ("phase", (2,), "auction, play")])
>>> lay.size, lay.slice("phase")
(54, slice(52, 54, None))
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np


@dataclass(frozen=True)
class Block:
    name: str
    shape: tuple[int, ...]
    description: str
    start: int

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


class Layout:
    """An ordered table name -> (shape, slice, description)."""

    def __init__(self, name: str, blocks):
        self.name = name
        self.blocks: dict[str, Block] = {}
        start = 0
        for bname, shape, description in blocks:
            if bname in self.blocks:
                raise ValueError(f"layout {name!r} has block {bname!r} twice")
            block = Block(bname, tuple(shape), description, start)
            self.blocks[bname] = block
            start += block.size
        self.size = start
        # Offsets as plain ints, for fast encoders.
        self.offset = {b.name: b.start for b in self.blocks.values()}
        # (name, slice, shape, whether flat) per block, for decode (the rule bots decode at every turn).
        self._parts = [(b.name, b.slice, b.shape, len(b.shape) == 1) for b in self.blocks.values()]

    def slice(self, name: str) -> slice:
        return self.blocks[name].slice

    def decode(self, vector) -> dict[str, np.ndarray]:
        """Split an observation vector into its named blocks (reshaped)."""
        v = np.asarray(vector)
        if v.shape[-1] != self.size:
            raise ValueError(f"{self.name} vector must have {self.size} entries, got {v.shape[-1]}")
        lead = v.shape[:-1]
        if not lead:                     # one vector: a flat block is its slice as it is
            return {name: v[s] if flat else v[s].reshape(shape) for name, s, shape, flat in self._parts}
        return {name: v[..., s].reshape(*lead, *shape) for name, s, shape, _ in self._parts}

    def table(self) -> str:
        """Markdown table of the layout (used in the README)."""
        rows = ["| block | offset | shape | meaning |", "|---|---|---|---|"]
        for b in self.blocks.values():
            shape = " x ".join(map(str, b.shape))
            rows.append(f"| `{b.name}` | {b.start}..{b.start + b.size - 1} | {shape} | {b.description} |")
        rows.append(f"| total | | {self.size} | |")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"<Layout {self.name} size={self.size} blocks={list(self.blocks)}>"


def mask_bits(mask: int, n: int = 52) -> np.ndarray:
    """0/1 uint8 vector of the low ``n`` bits of an int mask (bit i -> entry i)."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8),
                         bitorder="little")[:n]


def masks_bits(masks, n: int = 52) -> np.ndarray:
    """0/1 uint8 array ``[len(masks), n]``: row i holds the low ``n`` bits of ``masks[i]``."""
    buf = b"".join(m.to_bytes(7, "little") for m in masks)
    return np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little").reshape(len(masks), 56)[:, :n]
