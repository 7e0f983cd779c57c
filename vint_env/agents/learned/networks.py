"""Policy networks and the masked categorical distribution (PyTorch).

A policy network maps a batch of flat observations ``[B, D]`` to action
logits ``[B, A]`` and state values ``[B]``.  The PPO trainer
(``vint_env/training/ppo.py``) and :class:`~vint_env.agents.learned.policy.PPOAgent` only use
that contract, so a user can swap in their own network:

- register it: ``register_network("mine", MyNet)`` and set ``network: mine``
  in the training config (train from Python after registering it).  A config
  or a checkpoint names a network only from this registry, never by import
  path: nothing read from a file decides what is imported (docs/guarantees.md).

A network class takes ``(obs_size, num_actions, **network_kwargs)`` and
returns ``(logits, value)`` from ``forward(obs)``.

Illegal actions are handled by :class:`MaskedCategorical`, never by the
network: their probability is exactly zero, and entropy is over the legal
actions only.

This module and ``policy.py`` are the only places in ``vint_env`` that
import torch, so the rest of the package works without it.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ...cards import NUM_CARDS   # actions 0..51 are the cards in every game


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

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The action logits alone (``forward(obs)[0]``, without computing the value), the first layer read
        as a sum of the weight rows of the observation's non-zero entries (the observations are almost
        empty: a tenth of the multiply-adds of the dense product, the same function)."""
        first = self.actor_torso[0]
        if obs.dim() != 2 or obs.shape[0] == 0 or torch.is_grad_enabled():
            return self.policy_head(self.actor_torso(obs))
        from .sparse import active_entries
        index, weight = active_entries(obs.detach().float().numpy())
        h = nn.functional.embedding_bag(torch.from_numpy(index).long(), first.weight.t().contiguous(),
                                        per_sample_weights=torch.from_numpy(weight), mode="sum") + first.bias
        return self.policy_head(self.actor_torso[1:](h))


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


class CardActorCritic(nn.Module):
    """A network that shares its weights across the 52 cards.

    A card-blind MLP must learn "the king is high once the ace is out" for every card separately.
    This network reads the observation as a table of cards: for each card, the entries of every
    observation block indexed by card (the hand, the trick, the cards played by each seat, the
    highest cards left, ...: the blocks whose last axis has 52 entries) form the card's feature row;
    the other entries (trump, voids, auction, scores) form a global vector.  One MLP, the same for all
    cards, maps each card's row, its learnt embedding and the global vector to a card vector; a second
    layer mixes each card vector with the mean of its suit's vectors and of all cards; the card
    logits (actions 0..51) come from one shared head over the card vectors.  Calls (actions 52 and
    up: Vint's and Solo Whist's auctions) and the state value come from heads over the global vector
    and the pooled card vectors.

    ``game``: the game whose observation layout is read (default: the one game whose observation has
    ``obs_size`` entries); ``width``: size of a card vector; ``global_sizes``: the global MLP's widths.
    """

    def __init__(self, obs_size: int, num_actions: int, game: str | None = None, width: int = 64,
                 global_sizes=(256,)):
        super().__init__()
        from vint_env import games
        if game is None:
            fits = [g for g in games.all_games() if g.layout.size == obs_size]
            if len(fits) != 1:
                raise ValueError(f"network 'cards' cannot tell the game from an observation of {obs_size} "
                                 f"entries (games that fit: {[g.name for g in fits]}); give network_kwargs game")
            record = fits[0]
        else:
            record = games.get(game)
        layout = record.layout
        if layout.size != obs_size:
            raise ValueError(f"network 'cards': {record.name}'s observation has {layout.size} entries, "
                             f"not {obs_size}")
        if num_actions < 52:
            raise ValueError(f"network 'cards' needs the 52 card actions first, got {num_actions} actions")
        if not global_sizes or any(int(h) <= 0 for h in global_sizes) or int(width) <= 0:
            raise ValueError(f"width and global_sizes must be positive, got {width!r}, {global_sizes!r}")
        self.game, self.obs_size, self.num_actions = record.name, obs_size, num_actions
        card_rows, glob = [], []
        for b in layout.blocks.values():
            if b.shape[-1] == NUM_CARDS:
                rows = b.size // NUM_CARDS
                card_rows += [list(range(b.start + r * NUM_CARDS, b.start + (r + 1) * NUM_CARDS))
                              for r in range(rows)]
            else:
                glob += list(range(b.start, b.start + b.size))
        # card_index[c, f]: the observation entry of feature f of card c
        self.register_buffer("card_index", torch.tensor(card_rows, dtype=torch.long).T.contiguous(),
                             persistent=False)
        self.register_buffer("global_index", torch.tensor(glob, dtype=torch.long), persistent=False)
        w, features = int(width), len(card_rows)
        self.global_mlp = _mlp(len(glob), global_sizes)
        g = int(global_sizes[-1])
        self.embedding = nn.Parameter(torch.randn(NUM_CARDS, w) * 0.1)
        self.card_in = _init(nn.Linear(features, w))
        self.global_to_card = _init(nn.Linear(g, w))
        self.card_mid = _init(nn.Linear(w, w))
        self.mix = _init(nn.Linear(3 * w, w))
        self.card_head = _init(nn.Linear(w, 1), gain=0.01)
        self.call_head = _init(nn.Linear(g + 2 * w, num_actions - NUM_CARDS), gain=0.01) \
            if num_actions > NUM_CARDS else None
        self.value_torso = _mlp(g + 2 * w, (g,))
        self.value_head = _init(nn.Linear(g, 1), gain=1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = obs.shape[0]
        g = self.global_mlp(obs[:, self.global_index])                           # [B, G]
        cards = obs[:, self.card_index]                                          # [B, 52, F]
        x = torch.relu(self.card_in(cards) + self.embedding + self.global_to_card(g)[:, None, :])
        x = torch.relu(self.card_mid(x))                                         # [B, 52, W]
        suit = x.view(n, 4, 13, -1).mean(2).repeat_interleave(13, dim=1)         # each card's suit mean
        every = x.mean(1, keepdim=True).expand_as(x)
        y = torch.relu(self.mix(torch.cat([x, suit, every], dim=-1)))           # [B, 52, W]
        pooled = torch.cat([g, y.mean(1), y.amax(1)], dim=-1)
        logits = self.card_head(y).squeeze(-1)                                   # [B, 52]
        if self.call_head is not None:
            logits = torch.cat([logits, self.call_head(pooled)], dim=-1)
        return logits, self.value_head(self.value_torso(pooled)).squeeze(-1)


class SparseObs:
    """A batch of observations as their active entries: ``index [B, K]`` (int32) and ``weight [B, K]``
    (float32; 0 pads).  Indexing takes rows (``obs[mb]``), as a dense batch's would; :meth:`from_dense`
    and :meth:`cat` make one (``vint_env/agents/learned/sparse.py``)."""

    def __init__(self, index: torch.Tensor, weight: torch.Tensor, size: int):
        self.index, self.weight, self.size = index, weight, int(size)

    @classmethod
    def from_dense(cls, obs) -> SparseObs:
        from .sparse import active_entries
        device = obs.device if isinstance(obs, torch.Tensor) else None
        arr = obs.detach().cpu().numpy() if isinstance(obs, torch.Tensor) else obs
        index, weight = active_entries(arr)
        return cls(torch.from_numpy(index), torch.from_numpy(weight), arr.shape[1]).to(device)

    def to(self, device) -> SparseObs:
        """The batch on torch device ``device`` (itself where it is already there, or ``device`` is None)."""
        if device is None or self.index.device == torch.device(device):
            return self
        return SparseObs(self.index.to(device), self.weight.to(device), self.size)

    @classmethod
    def cat(cls, parts: list[SparseObs]) -> SparseObs:
        k = max(p.index.shape[1] for p in parts)
        pad = lambda t, v: torch.nn.functional.pad(t, (0, k - t.shape[1]), value=v)   # noqa: E731
        return cls(torch.cat([pad(p.index, 0) for p in parts]), torch.cat([pad(p.weight, 0.0) for p in parts]),
                   parts[0].size)

    def __getitem__(self, rows) -> SparseObs:
        return SparseObs(self.index[rows], self.weight[rows], self.size)

    def __len__(self) -> int:
        return self.index.shape[0]

    @property
    def shape(self) -> tuple[int, int]:
        return (self.index.shape[0], self.size)

    def to_dense(self) -> torch.Tensor:
        out = torch.zeros(len(self), self.size, device=self.weight.device)
        out.scatter_add_(1, self.index.long(), self.weight)
        return out


class _GatherSum(torch.autograd.Function):
    """``out[b] = sum_k weight[b, k] * W[index[b, k]]``: forward by ``embedding_bag``, the gradient of ``W``
    by :func:`~vint_env.agents.learned.sparse.scatter_rows` (no gradient to the observation)."""

    @staticmethod
    def forward(ctx, index, weight, w):
        ctx.save_for_backward(index, weight)
        ctx.rows = w.shape[0]
        return torch.nn.functional.embedding_bag(index, w, per_sample_weights=weight, mode="sum")

    @staticmethod
    def backward(ctx, grad_out):
        from .sparse import scatter_rows
        index, weight = ctx.saved_tensors
        if grad_out.device.type != "cpu":      # an accelerator: torch's scatter (the compiled loop is CPU only)
            return None, None, scatter_rows_torch(index, weight, grad_out, ctx.rows)
        grad_w = torch.zeros(ctx.rows, grad_out.shape[1], dtype=grad_out.dtype)
        scatter_rows(index.numpy(), weight.numpy(), grad_out.contiguous().numpy(), grad_w.numpy())
        return None, None, grad_w


def scatter_rows_torch(index: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor, rows: int) -> torch.Tensor:
    """:func:`~vint_env.agents.learned.sparse.scatter_rows` in torch operations, for a device other than the
    CPU: ``grad_w[index[b, k]] += weight[b, k] * grad_out[b]`` into a new ``[rows, width]`` tensor."""
    grad_w = torch.zeros(rows, grad_out.shape[1], dtype=grad_out.dtype, device=grad_out.device)
    contributions = (weight[..., None] * grad_out[:, None, :]).reshape(-1, grad_out.shape[1])
    return grad_w.index_add_(0, index.reshape(-1).long(), contributions)


class SparseInput(nn.Module):
    """``obs @ W + b`` computed from the observation's active (non-zero) entries only.

    The observations are wide and almost empty (Whist: 965 entries, about 57 non-zero), so a dense
    first layer mostly multiplies zeros.  This layer sums the rows of ``weight [D, width]`` picked by
    the active entries, each times its value: the same function as ``nn.Linear(obs_size, width)``
    (whose weight is this one transposed), at a cost that follows the information instead of the
    width.  It takes a dense batch ``[B, D]`` or a :class:`SparseObs`."""

    def __init__(self, obs_size: int, width: int):
        super().__init__()
        self.obs_size, self.width = int(obs_size), int(width)
        dense = _init(nn.Linear(obs_size, width))          # the dense layer's initialisation, transposed
        self.weight = nn.Parameter(dense.weight.detach().T.contiguous())
        self.bias = nn.Parameter(dense.bias.detach().clone())

    def forward(self, obs) -> torch.Tensor:
        if not isinstance(obs, SparseObs):
            if obs.dim() != 2 or obs.shape[1] != self.obs_size:
                raise ValueError(f"expected observations [B, {self.obs_size}], got {tuple(obs.shape)}")
            obs = SparseObs.from_dense(obs.float())
        elif obs.size != self.obs_size:
            raise ValueError(f"expected observations of {self.obs_size} entries, got {obs.size}")
        return _GatherSum.apply(obs.index, obs.weight, self.weight) + self.bias


class Tanh(nn.Module):
    """``tanh(x)`` written as ``2 sigmoid(2x) - 1``: the same function, three times faster than ``torch.tanh``
    on a CPU (``torch.tanh``'s kernel is not vectorised as ``sigmoid``'s is), equal to it within 1e-6."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(2.0 * x) * 2.0 - 1.0


def _fast_mlp(n_in: int, hidden_sizes) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden_sizes:
        layers += [_init(nn.Linear(n_in, int(width))), Tanh()]
        n_in = int(width)
    return nn.Sequential(*layers)


class SparseActorCritic(nn.Module):
    """One trunk shared by the policy and value heads, whose first layer reads only the non-zero entries
    (``shared: false``: a value trunk of its own, as ``mlp`` has, with widths ``value_hidden_sizes``,
    ``hidden_sizes`` unless given; the two trunks' first layers are one :class:`SparseInput`, the policy's
    columns then the value's, so a pass gathers the active rows once).

    ``hidden_sizes``: widths of the trunk's layers (tanh); the first is a :class:`SparseInput` (the same
    function as a dense layer), the others dense.  A forward pass costs about
    ``active * h1 + h1 * h2 + ... + h_last * (A + 1)`` multiply-adds a sample instead of the ``mlp``
    network's ``2 * (D * h1 + h1 * h2 + ...) + h_last * (A + 1)``: about 6 times fewer at 256x256 on
    Whist.  Orthogonal initialisation as in CleanRL (policy head gain 0.01, value head gain 1)."""

    def __init__(self, obs_size: int, num_actions: int, hidden_sizes=(256, 256), shared: bool = True,
                 value_hidden_sizes=None):
        super().__init__()
        for key, sizes in (("hidden_sizes", hidden_sizes), ("value_hidden_sizes", value_hidden_sizes)):
            if (sizes is not None or key == "hidden_sizes") and (not sizes or any(int(h) <= 0 for h in sizes)):
                raise ValueError(f"{key} must be a non-empty list of positive widths, got {sizes!r}")
        if shared and value_hidden_sizes is not None:
            raise ValueError("value_hidden_sizes needs shared: false (a shared trunk has no value trunk of its own)")
        self.obs_size, self.num_actions = obs_size, num_actions
        self.sparse_input = True    # takes a SparseObs as well as a dense batch (the collectors hand it one)
        self.hidden_sizes = [int(h) for h in hidden_sizes]
        self.shared = bool(shared)
        self.value_hidden_sizes = None if self.shared else [int(h) for h in (value_hidden_sizes or hidden_sizes)]
        # One sparse first layer for both trunks (the policy's columns, then the value's): one gather and
        # one scatter a pass instead of two, the same function as two layers side by side.
        self.first = SparseInput(obs_size, self.hidden_sizes[0])
        if not self.shared:
            value_first = SparseInput(obs_size, self.value_hidden_sizes[0])
            self.first.weight = nn.Parameter(torch.cat([self.first.weight.detach(), value_first.weight.detach()], 1))
            self.first.bias = nn.Parameter(torch.cat([self.first.bias.detach(), value_first.bias.detach()]))
            self.first.width = self.first.weight.shape[1]
        self.first_activation = Tanh()
        self.trunk = _fast_mlp(self.hidden_sizes[0], self.hidden_sizes[1:])
        if not self.shared:          # a value trunk of its own, as the mlp network has
            self.value_trunk = _fast_mlp(self.value_hidden_sizes[0], self.value_hidden_sizes[1:])
        self.policy_head = _init(nn.Linear(self.hidden_sizes[-1], num_actions), gain=0.01)
        width = self.hidden_sizes[-1] if self.shared else self.value_hidden_sizes[-1]
        self.value_head = _init(nn.Linear(width, 1), gain=1.0)

    def forward(self, obs) -> tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(obs, SparseObs):
            obs = SparseObs.from_dense(self._dense(obs))
        first = self.first_activation(self.first(obs))
        if self.shared:
            h = hv = self.trunk(first)
        else:
            h0 = self.hidden_sizes[0]
            h, hv = self.trunk(first[:, :h0]), self.value_trunk(first[:, h0:])
        return self.policy_head(h), self.value_head(hv).squeeze(-1)

    def policy_logits(self, obs) -> torch.Tensor:
        """The action logits alone (``forward(obs)[0]``, without the value trunk)."""
        if not isinstance(obs, SparseObs):
            obs = SparseObs.from_dense(self._dense(obs))
        first = self.first_activation(self.first(obs))
        return self.policy_head(self.trunk(first if self.shared else first[:, :self.hidden_sizes[0]]))

    @staticmethod
    def upgrade_weights(state_dict: dict, prefix: str = "") -> dict:
        """Checkpoints written before the two trunks' first layers were fused hold them apart
        (``first.*`` and ``value_first.*``): fuse them, in place, into today's layout."""
        if prefix + "value_first.weight" in state_dict:
            for name, dim in (("weight", 1), ("bias", 0)):
                state_dict[prefix + "first." + name] = torch.cat(
                    [state_dict[prefix + "first." + name], state_dict.pop(prefix + "value_first." + name)], dim)
        return state_dict

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        self.upgrade_weights(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _dense(self, obs: torch.Tensor) -> torch.Tensor:
        if obs.dim() != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"expected observations [B, {self.obs_size}], got {tuple(obs.shape)}")
        return obs.float()

    def multiply_adds(self, active: float) -> float:
        """Multiply-adds of one forward pass on an observation with ``active`` non-zero entries."""
        def trunk(sizes):
            return active * sizes[0] + sum(a * b for a, b in zip(sizes, sizes[1:]))
        if self.shared:
            return trunk(self.hidden_sizes) + self.hidden_sizes[-1] * (self.num_actions + 1)
        return (trunk(self.hidden_sizes) + self.hidden_sizes[-1] * self.num_actions
                + trunk(self.value_hidden_sizes) + self.value_hidden_sizes[-1])


def multiply_adds(net: nn.Module, active: float) -> float:
    """Multiply-adds of one forward pass of ``net`` on an observation with ``active`` non-zero entries
    (the networks of this module; the dense ones pay for every entry).  ValueError for another network."""
    if hasattr(net, "multiply_adds"):
        return float(net.multiply_adds(active))
    if isinstance(net, MLPActorCritic):
        linears = [m for m in net.modules() if isinstance(m, nn.Linear)]
        return float(sum(m.in_features * m.out_features for m in linears))
    raise ValueError(f"multiply_adds does not know the network {type(net).__name__}")


NETWORKS: dict[str, type[nn.Module]] = {"mlp": MLPActorCritic, "cards": CardActorCritic,
                                        "sparse": SparseActorCritic}


def register_network(name: str, cls: type[nn.Module]) -> None:
    """Make ``cls`` available as ``network: <name>`` in training configs."""
    NETWORKS[name] = cls


def network_class(name: str) -> type[nn.Module]:
    """The network class registered under ``name`` (a config or checkpoint never names a module to import)."""
    if isinstance(name, str) and name in NETWORKS:
        return NETWORKS[name]
    hint = (" (an import path 'module:Class' is not accepted: register the class with register_network() "
            "and name it)") if isinstance(name, str) and ":" in name else ""
    raise ValueError(f"unknown network {name!r}; known: {sorted(NETWORKS)}{hint}")


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
