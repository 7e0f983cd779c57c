"""The opponent pool: past snapshots of the learner that play against it (``opponent_mix.pool``).

Every ``pool_add_every`` updates the learner's weights are copied in; the oldest is dropped past
``pool_size``.  The weights travel in checkpoints (:meth:`OpponentPool.state`); the modules that
play them are built once and reloaded before each rollout.
"""

from __future__ import annotations

import copy

from torch import nn


class OpponentPool:
    """Past policies of one learner, oldest first."""

    def __init__(self, size: int):
        self.size = int(size)
        self.weights: list[dict] = []          # state_dicts of past snapshots, oldest first
        self._nets: list[nn.Module] = []

    def __len__(self) -> int:
        return len(self.weights)

    def add(self, net: nn.Module) -> None:
        """Snapshot ``net``'s current weights (a copy, on the CPU: where the pool plays and is saved)."""
        self.weights.append({k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()})
        del self.weights[:-self.size]

    def modules(self, template: nn.Module) -> list[nn.Module]:
        """One eval-mode network per snapshot (copies of ``template``'s architecture, on the CPU, where
        collection plays), weights loaded."""
        while len(self._nets) < len(self.weights):
            self._nets.append(copy.deepcopy(template).to("cpu").eval())
        for net, weights in zip(self._nets, self.weights):
            net.load_state_dict(weights)
        return self._nets[:len(self.weights)]

    def state(self) -> list[dict]:
        return self.weights

    def load(self, weights: list[dict]) -> None:
        self.weights = list(weights)
