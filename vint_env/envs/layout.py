"""Moved: :mod:`vint_env.games.layout` (re-exported here so that old imports keep working)."""

from ..games.layout import Block, Layout, mask_bits, masks_bits  # noqa: F401
