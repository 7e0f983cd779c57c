"""A centralised critic: a correction to the policy's value from the full deal (``env.state()``), training only.

Multi-agent PPO's full-information baseline: the critic sees every hand, so
the value it helps give can explain the deal's result better than one seat's
view can, and the advantages the actor learns from be less noisy (in 20
minutes of Solo Whist it did not: docs/baselines.md).  The value
of a decision is the policy's own value head (on the seat's observation) plus
this critic's output (on the state and the acting seat): the head keeps what
the observation tells, the critic adds what only the hidden hands tell.  Its
last layer starts at zero, so a run warm-started from a trained network starts
from that network's values, not from a blank critic's.  The actor (the policy
network saved as the agent) still sees only its observation: the critic lives
in the trainer's checkpoint state, never in the policy, and no evaluation calls
``state()``.

Input: the env's state vector and a one-hot of the acting seat (whose value
it is); output: the correction to that seat's value.
"""

from __future__ import annotations

import torch
from torch import nn

from vint_env.agents.learned.networks import _init, _mlp


class CentralCritic(nn.Module):
    def __init__(self, state_size: int, hidden_sizes=(256, 256), seats: int = 4):
        super().__init__()
        if not hidden_sizes or any(int(h) <= 0 for h in hidden_sizes):
            raise ValueError(f"critic_hidden_sizes must be a non-empty list of positive widths, got {hidden_sizes!r}")
        self.state_size = state_size
        self.seats = seats
        self.torso = _mlp(state_size + seats, hidden_sizes)
        self.head = _init(nn.Linear(int(hidden_sizes[-1]), 1), gain=0.0)   # starts adding nothing

    def forward(self, states: torch.Tensor, seats: torch.Tensor) -> torch.Tensor:
        onehot = nn.functional.one_hot(seats.long(), self.seats).to(states.dtype)
        return self.head(self.torso(torch.cat([states, onehot], dim=-1))).squeeze(-1)
