"""Imitation warm start: behaviour cloning from a teacher's games, and the KL term toward it.

:func:`behaviour_clone` fits the policy to the teacher's decisions with the
masked cross-entropy ``-log pi(a_teacher | obs)`` (the softmax over the legal
actions only, as :class:`~vint_env.agents.networks.MaskedCategorical` plays),
and optionally the value head to the returns the teacher's seats received.

The cloned network, frozen, is the *reference* of PPO fine-tuning:
:func:`kl_to_reference` is ``KL(reference || policy)`` over the legal
actions, added to the PPO loss with a weight that decays over the budget,
so the policy starts from the teacher's play and leaves it only as far as
its own returns pay for.  (For a deterministic teacher cloned exactly, this
is the cross-entropy to the teacher's action.)
"""

from __future__ import annotations

import time

import numpy as np
import torch
from torch import nn

from vint_env.agents.networks import MaskedCategorical

from .teacher_data import TeacherData


def bc_loss(net: nn.Module, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
            returns: torch.Tensor | None = None, value_coef: float = 0.0) -> tuple[torch.Tensor, dict]:
    """Masked cross-entropy to the teacher's actions (+ ``value_coef`` x the value head's squared error
    to ``returns``); returns ``(loss, figures)``."""
    logits, value = net(obs)
    dist = MaskedCategorical(logits, masks)
    ce = -dist.log_prob(actions).mean()
    loss = ce
    figures = {"cross_entropy": ce.item()}
    if value_coef > 0 and returns is not None:
        v_loss = 0.5 * ((value - returns) ** 2).mean()
        loss = loss + value_coef * v_loss
        figures["value_loss"] = v_loss.item()
    with torch.no_grad():
        agree = dist.mode() == actions
        choice = masks.sum(-1) > 1
        figures["agreement"] = agree.float().mean().item()
        figures["agreement_on_choices"] = agree[choice].float().mean().item() if choice.any() else float("nan")
    return loss, figures


@torch.no_grad()
def evaluate_clone(net: nn.Module, data: TeacherData, rows: np.ndarray | None = None,
                   batch_size: int = 4096) -> dict:
    """Cross-entropy and agreement of ``net`` with the teacher on ``rows`` of ``data`` (all by default;
    greedy play)."""
    was_training = net.training
    net.eval()
    rows = np.arange(len(data)) if rows is None else np.asarray(rows)
    n, ce, agree, choices, agree_choices = len(rows), 0.0, 0, 0, 0
    for start in range(0, n, batch_size):
        idx = rows[start:start + batch_size]
        obs, masks, actions = _batch(data, idx)
        logits, _ = net(obs)
        dist = MaskedCategorical(logits, masks)
        ce += float(-dist.log_prob(actions).sum())
        hit = dist.mode() == actions
        choice = masks.sum(-1) > 1
        agree += int(hit.sum())
        choices += int(choice.sum())
        agree_choices += int((hit & choice).sum())
    net.train(was_training)
    return {"cross_entropy": ce / n, "agreement": agree / n,
            "agreement_on_choices": agree_choices / choices if choices else float("nan")}


def _batch(data: TeacherData, idx: np.ndarray):
    return (torch.from_numpy(data.obs(idx)), torch.from_numpy(data.masks[idx]),
            torch.from_numpy(data.actions[idx]))


def split_deals(data: TeacherData, holdout: float) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, held out)``: the last ``holdout`` share of the deals is held out."""
    deals = np.unique(data.deal_ids)
    n_out = int(round(holdout * len(deals))) if len(deals) > 1 else 0
    out = np.isin(data.deal_ids, deals[len(deals) - n_out:]) if n_out else np.zeros(len(data), dtype=bool)
    return np.flatnonzero(~out), np.flatnonzero(out)


def behaviour_clone(net: nn.Module, data: TeacherData, epochs: int, batch_size: int, learning_rate: float,
                    seed: int, value_coef: float = 0.0, max_grad_norm: float = 1.0, holdout: float = 0.0,
                    say=None) -> list[dict]:
    """Train ``net`` on ``data`` for ``epochs`` passes (Adam, minibatches drawn from a generator seeded with
    ``seed``); returns one dict of figures per epoch: the mean training loss, cross-entropy and agreement
    on the training rows after the epoch, and the same as ``heldout_*`` on the last ``holdout`` share of
    the deals, which are not trained on."""
    say = say or (lambda msg: None)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xBC]))
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5)
    returns_all = torch.from_numpy(data.returns.astype(np.float32))
    history = []
    train_rows, held_rows = split_deals(data, holdout)
    net.train()
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        losses = []
        for idx in np.array_split(rng.permutation(train_rows), max(1, -(-len(train_rows) // batch_size))):
            obs, masks, actions = _batch(data, idx)
            loss, _ = bc_loss(net, obs, masks, actions, returns_all[idx], value_coef)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
        figures = {"epoch": epoch, "train_loss": float(np.mean(losses)), **evaluate_clone(net, data, train_rows)}
        if len(held_rows):
            figures.update({f"heldout_{k}": v for k, v in evaluate_clone(net, data, held_rows).items()})
        figures["seconds"] = time.perf_counter() - t0
        history.append(figures)
        note = (f"behaviour cloning: epoch {epoch}/{epochs}, cross-entropy {figures['cross_entropy']:.4f}, "
                f"agreement with the teacher {figures['agreement']:.1%} "
                f"({figures['agreement_on_choices']:.1%} where there was a choice)")
        if len(held_rows):
            note += (f"; on {len(held_rows)} held-out decisions {figures['heldout_agreement']:.1%} "
                     f"({figures['heldout_agreement_on_choices']:.1%})")
        say(note)
    net.eval()
    return history


def kl_to_reference(ref_logits: torch.Tensor, logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """``KL(reference || policy)`` per row, over the legal actions of ``masks``:
    ``sum_a p_ref(a) (log p_ref(a) - log pi(a))``."""
    ref = MaskedCategorical(ref_logits, masks)
    cur = MaskedCategorical(logits, masks)
    diff = (ref.logits - cur.logits).masked_fill(~ref.mask, 0.0)
    return (ref.probs * diff).sum(-1)
