"""Policy networks and the masked categorical distribution (PyTorch).

A policy network maps a batch of flat observations ``[B, D]`` to action
logits ``[B, A]`` and state values ``[B]``.  The PPO trainer
(``training/ppo.py``) and :class:`~vint_env.agents.policy.PPOAgent` only use
that contract, so a user can swap in their own network:

- register it: ``register_network("mine", MyNet)`` and set ``network: mine``
  in the training config, or
- name it by import path in the config: ``network: "mypkg.nets:MyNet"``.

A network class takes ``(obs_size, num_actions, **network_kwargs)`` and
returns ``(logits, value)`` from ``forward(obs)``.

Illegal actions are handled by :class:`MaskedCategorical`, never by the
network: their probability is exactly zero, and entropy is over the legal
actions only.

This module and ``policy.py`` are the only places in ``vint_env`` that
import torch, so the rest of the package works without it.
"""

from __future__ import annotations

import importlib
import math

import torch
from torch import nn


class MLPActorCritic(nn.Module):
    """The baseline: two MLPs (actor and critic) over the flat observation.

    ``hidden_sizes``: widths of the hidden layers (tanh), shared by both MLPs;
    ``shared_torso``: one torso for both heads instead of two separate MLPs.
    Orthogonal initialisation as in CleanRL (policy head gain 0.01, value
    head gain 1).
    """

    def __init__(self, obs_size: int, num_actions: int, hidden_sizes=(256, 256),
                 shared_torso: bool = False):
        super().__init__()
        if not hidden_sizes or any(int(h) <= 0 for h in hidden_sizes):
            raise ValueError(f"hidden_sizes must be a non-empty list of positive widths, got {hidden_sizes!r}")
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.shared_torso = bool(shared_torso)
        self.actor_torso = _mlp(obs_size, hidden_sizes)
        self.critic_torso = None if self.shared_torso else _mlp(obs_size, hidden_sizes)
        width = int(hidden_sizes[-1])
        self.policy_head = _init(nn.Linear(width, num_actions), gain=0.01)
        self.value_head = _init(nn.Linear(width, 1), gain=1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.actor_torso(obs)
        hv = h if self.critic_torso is None else self.critic_torso(obs)
        return self.policy_head(h), self.value_head(hv).squeeze(-1)


def _init(layer: nn.Linear, gain: float = math.sqrt(2)) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def _mlp(n_in: int, hidden_sizes) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden_sizes:
        layers += [_init(nn.Linear(n_in, int(width))), nn.Tanh()]
        n_in = int(width)
    return nn.Sequential(*layers)


NETWORKS: dict[str, type[nn.Module]] = {"mlp": MLPActorCritic}


def register_network(name: str, cls: type[nn.Module]) -> None:
    """Make ``cls`` available as ``network: <name>`` in training configs."""
    NETWORKS[name] = cls


def network_class(name: str) -> type[nn.Module]:
    """The network class for a config name: a registered name or ``"module:Class"``."""
    if name in NETWORKS:
        return NETWORKS[name]
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as e:
            raise ValueError(f"network {name!r}: cannot import {attr!r} from {module_name!r} ({e})") from None
        if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
            raise ValueError(f"network {name!r} is not a torch.nn.Module subclass")
        return cls
    raise ValueError(f"unknown network {name!r}; known: {sorted(NETWORKS)} or an import path 'module:Class'")


def build_network(name: str, obs_size: int, num_actions: int, kwargs: dict | None = None) -> nn.Module:
    """Instantiate the network ``name`` for the given sizes."""
    cls = network_class(name)
    try:
        return cls(obs_size, num_actions, **(kwargs or {}))
    except TypeError as e:
        raise ValueError(f"network {name!r} rejected its arguments {kwargs!r}: {e}") from None


class MaskedCategorical:
    """Categorical distribution over the legal actions only.

    ``logits [B, A]``, ``mask [B, A]`` (bool or 0/1; every row needs at least
    one legal action).  Illegal actions get probability exactly 0 and are
    never sampled; ``entropy`` sums over legal actions only; ``log_prob`` of
    an illegal action is ``-inf``.

    >>> d = MaskedCategorical(torch.zeros(1, 4), torch.tensor([[1, 0, 1, 0]]))
    >>> d.probs
    tensor([[0.5000, 0.0000, 0.5000, 0.0000]])
    >>> round(float(d.entropy()), 4) == round(math.log(2), 4)
    True
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor):
        mask = mask.bool()
        if mask.shape != logits.shape:
            raise ValueError(f"mask shape {tuple(mask.shape)} differs from logits shape {tuple(logits.shape)}")
        if not bool(mask.any(-1).all()):
            raise ValueError("a row of the action mask has no legal action")
        self.mask = mask
        masked = logits.masked_fill(~mask, float("-inf"))
        self.logits = masked - torch.logsumexp(masked, dim=-1, keepdim=True)  # log-probabilities
        self.probs = self.logits.exp()

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        return torch.multinomial(self.probs, 1, generator=generator).squeeze(-1)

    def mode(self) -> torch.Tensor:
        """The most probable legal action of each row."""
        return self.logits.argmax(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        # masked_fill (not torch.where) keeps 0 * -inf out of both the value and the gradient
        return -(self.probs * self.logits.masked_fill(~self.mask, 0.0)).sum(-1)
