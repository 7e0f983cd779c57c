"""Imitation warm start: behaviour cloning from a teacher's games, and the KL term toward it.

:func:`behaviour_clone` fits the policy to the teacher's decisions with the
masked cross-entropy ``-log pi(a_teacher | obs)`` (the softmax over the legal
actions only, as :class:`~vint_env.agents.learned.networks.MaskedCategorical` plays),
and optionally the value head to the returns the teacher's seats received.
Where the teacher data carry card values (``teacher_values: dd``,
:mod:`vint_env.training.value_targets`), those rows are regressed instead: the
logits of the legal cards to ``value_scale x (points - best points)``, so
the clone ranks cards by their expected double-dummy worth rather than
copying the teacher's card (:func:`row_losses`).

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

from vint_env.agents.learned.networks import MaskedCategorical

from .teacher_data import TeacherData


def value_targets(values: torch.Tensor, masks: torch.Tensor, scale: float, unit: float = 0.0) -> torch.Tensor:
    """``scale x (value - best value)`` on the legal cards of each row (0 for the best, negative for the
    rest; NaN off the mask): the logits a row of card values asks for.  With ``unit > 0`` the
    difference ``d`` is first compressed to ``-unit x log(1 + |d| / unit)``: about ``d`` while it is
    small against ``unit``, logarithmic beyond (Vint: a trick is worth tens of points, a failed slam
    thousands; without it a few huge differences dominate the squared error)."""
    best = values.masked_fill(~masks | values.isnan(), float("-inf")).max(-1, keepdim=True).values
    diff = values - best
    if unit > 0:
        diff = -unit * torch.log1p(diff.abs() / unit)
    return scale * diff


def row_losses(logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
               values: torch.Tensor | None = None, value_scale: float = 1.0,
               teacher_bonus: float = 0.0, value_unit: float = 0.0) -> torch.Tensor:
    """Per row: the masked cross-entropy ``-log pi(a_teacher | obs)``, or, on rows with card values, the
    mean squared error of the legal cards' logits to :func:`value_targets` (the policy's logits then
    rank the cards by their expected value, softmax temperature ``1 / value_scale`` per point).

    ``teacher_bonus`` points are added to the value of the teacher's card first: the clone keeps the
    teacher's choice unless another card is worth that much more on average.  Among cards of equal
    double-dummy worth (which low card to play, the signal a partner reads) it then plays as the
    teacher does, so partners trained on the teacher's games read it as they learnt to."""
    ce = -MaskedCategorical(logits, masks).log_prob(actions)
    if values is None:
        return ce
    has = ~values.isnan().all(-1)
    if not bool(has.any()):
        return ce
    legal = masks & ~values.isnan()
    if teacher_bonus:
        values = values.clone()
        rows = torch.arange(len(actions), device=actions.device)
        values[rows, actions] += teacher_bonus        # NaN stays NaN on rows without values
    target = value_targets(values, masks, value_scale, value_unit).masked_fill(~legal, 0.0)
    se = ((logits - target) ** 2).masked_fill(~legal, 0.0).sum(-1) / legal.sum(-1).clamp(min=1)
    return torch.where(has, se, ce)


def bc_loss(net: nn.Module, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
            returns: torch.Tensor | None = None, value_coef: float = 0.0, values: torch.Tensor | None = None,
            value_scale: float = 1.0, teacher_bonus: float = 0.0,
            value_unit: float = 0.0) -> tuple[torch.Tensor, dict]:
    """Mean of :func:`row_losses` (+ ``value_coef`` x the value head's squared error to ``returns``);
    returns ``(loss, figures)``."""
    logits, value = net(obs)
    loss = row_losses(logits, masks, actions, values, value_scale, teacher_bonus, value_unit).mean()
    figures = {"imitation_loss": loss.item()}
    if value_coef > 0 and returns is not None:
        v_loss = 0.5 * ((value - returns) ** 2).mean()
        loss = loss + value_coef * v_loss
        figures["value_loss"] = v_loss.item()
    with torch.no_grad():
        figures.update(_scores(logits, masks, actions, values).finish())
    return loss, figures


class _Scores:
    """Running sums for :func:`evaluate_clone`'s figures."""

    def __init__(self, margins=()):
        self.n = self.agree = self.choices = self.agree_choices = self.vn = self.vbest = 0
        self.ce = self.regret = self.teacher_regret = 0.0
        self.margins = tuple(float(m) for m in margins)
        self.residual = {m: [0.0, 0] for m in self.margins}   # margin -> [points given up, overrides]

    def finish(self) -> dict:
        out = {"cross_entropy": self.ce / (self.n - self.vn) if self.n > self.vn else float("nan"),
               "agreement": self.agree / self.n if self.n else float("nan"),
               "agreement_on_choices": self.agree_choices / self.choices if self.choices else float("nan")}
        if self.vn:
            out.update({"best_card_rate": self.vbest / self.vn, "value_regret": self.regret / self.vn,
                        "teacher_value_regret": self.teacher_regret / self.vn})
            for m, (lost, overrides) in self.residual.items():
                out[f"residual_value_regret@{m:g}"] = lost / self.vn
                out[f"residual_override_rate@{m:g}"] = overrides / self.vn
        return out


def _scores(logits, masks, actions, values, into: _Scores | None = None) -> _Scores:
    """Agreement with the teacher (rows without values: its action; rows with values: a best card), the
    cross-entropy on rows without values, and on rows with values the share of best cards and the mean
    points given up against the best card, by the policy's choice and by the teacher's."""
    sc = into or _Scores()
    dist = MaskedCategorical(logits, masks)
    mode = dist.mode()
    has = (torch.zeros(len(actions), dtype=torch.bool, device=actions.device) if values is None
           else ~values.isnan().all(-1))
    hit = mode == actions
    if bool(has.any()):
        v = values[has].nan_to_num(float("-inf"))
        best = v.max(-1).values
        got = v.gather(1, mode[has, None]).squeeze(1)
        taught = v.gather(1, actions[has, None]).squeeze(1)
        hit[has] = got == best
        sc.vn += int(has.sum())
        sc.vbest += int((got == best).sum())
        sc.regret += float((best - got).sum())
        sc.teacher_regret += float((best - taught).sum())
        if sc.margins:      # the residual agent: the teacher's action unless the network prefers its own by > m
            lg = logits[has]
            gap = lg.gather(1, mode[has, None]).squeeze(1) - lg.gather(1, actions[has, None]).squeeze(1)
            for m in sc.margins:
                over = gap > m
                sc.residual[m][0] += float((best - torch.where(over, got, taught)).sum())
                sc.residual[m][1] += int(over.sum())
    ce_rows = ~has
    if bool(ce_rows.any()):
        sc.ce += float(-dist.log_prob(actions)[ce_rows].sum())
    choice = masks.sum(-1) > 1
    sc.n += len(actions)
    sc.agree += int(hit.sum())
    sc.choices += int(choice.sum())
    sc.agree_choices += int((hit & choice).sum())
    return sc


@torch.no_grad()
def evaluate_clone(net: nn.Module, data: TeacherData, rows: np.ndarray | None = None,
                   batch_size: int = 4096, margins=()) -> dict:
    """How ``net`` (greedy) matches the teacher on ``rows`` of ``data`` (all by default): cross-entropy
    and agreement, and where the data have values the share of best actions chosen and the points
    given up per valued decision (``value_regret``; ``teacher_value_regret`` is the teacher's own).
    For each of ``margins`` (logits), the same for the residual agent that plays the teacher's action
    unless the network's best exceeds it by more than the margin (``residual_value_regret@M``) and how
    often it departs from the teacher (``residual_override_rate@M``): a residual agent's margin can
    be read off held-out data before any match is played."""
    was_training = net.training
    net.eval()
    rows = np.arange(len(data)) if rows is None else np.asarray(rows)
    sc = _Scores(margins)
    device = next(net.parameters()).device
    for start in range(0, len(rows), batch_size):
        idx = rows[start:start + batch_size]
        obs, masks, actions, values = _batch(data, idx, device)
        logits, _ = net(obs)
        _scores(logits, masks, actions, values, into=sc)
    net.train(was_training)
    return sc.finish()


def _batch(data: TeacherData, idx: np.ndarray, device: torch.device):
    """Rows ``idx`` of ``data`` on the network's ``device``: observations, masks, actions, values."""
    return (torch.from_numpy(data.obs(idx)).to(device), torch.from_numpy(data.masks[idx]).to(device),
            torch.from_numpy(data.actions[idx]).to(device),
            None if data.values is None else torch.from_numpy(data.values[idx]).to(device))


def split_deals(data: TeacherData, holdout: float) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, held out)``: the last ``holdout`` share of the deals is held out."""
    deals = np.unique(data.deal_ids)
    n_out = int(round(holdout * len(deals))) if len(deals) > 1 else 0
    out = np.isin(data.deal_ids, deals[len(deals) - n_out:]) if n_out else np.zeros(len(data), dtype=bool)
    return np.flatnonzero(~out), np.flatnonzero(out)


MEASURED_TRAIN_ROWS = 20_000   # training decisions measured after each cloning epoch (a fixed sample)


def behaviour_clone(net: nn.Module, data: TeacherData, epochs: int, batch_size: int, learning_rate: float,
                    seed: int, value_coef: float = 0.0, max_grad_norm: float = 1.0, holdout: float = 0.0,
                    say=None, value_scale: float = 1.0, teacher_bonus: float = 0.0,
                    value_unit: float = 0.0, stop=None, measure_start: bool = False,
                    margins=(), progress=None) -> list[dict]:
    """Train ``net`` on ``data`` for ``epochs`` passes (Adam, minibatches drawn from a generator seeded with
    ``seed``); returns one dict of figures per epoch: the mean training loss, cross-entropy and agreement
    on the training rows after the epoch (on a fixed sample of :data:`MEASURED_TRAIN_ROWS` of them when
    there are more), and the same as ``heldout_*`` on the last ``holdout`` share of the deals, which are
    not trained on.

    ``stop()`` (optional) is asked before every minibatch; once it returns True, cloning ends there: an
    epoch cut short is measured and reported with ``stopped: 1`` and the share of its minibatches done
    (``epoch_done``), and no further epoch starts (a run's budget, :class:`vint_env.training.trainer.Trainer`).
    With ``measure_start`` the first record is ``epoch 0``: the same figures for the network as given,
    before any cloning step.  ``margins``: the held-out figures include the residual agent's at these
    margins (:func:`evaluate_clone`).  The minibatches are the stage ``cloning`` of ``progress``
    (:mod:`vint_env.training.progress`; a bar of minibatches)."""
    from .progress import Quiet
    say = say or (lambda msg: None)
    stop = stop or (lambda: False)
    progress = progress or Quiet(say)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xBC]))
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5)
    device = next(net.parameters()).device          # the run's device: the batches go where the network is
    returns_all = torch.from_numpy(data.returns.astype(np.float32))
    history = []
    train_rows, held_rows = split_deals(data, holdout)
    measured = train_rows
    if len(train_rows) > MEASURED_TRAIN_ROWS:   # measuring every training row would cost a quarter of an epoch
        pick = np.random.default_rng(np.random.SeedSequence([seed, 0xE7]))
        measured = np.sort(pick.choice(train_rows, MEASURED_TRAIN_ROWS, replace=False))

    def measure(figures: dict) -> dict:
        figures.update(evaluate_clone(net, data, measured))
        if len(held_rows):
            figures.update({f"heldout_{k}": v for k, v in evaluate_clone(net, data, held_rows,
                                                                          margins=margins).items()})
        return figures

    per_epoch = max(1, -(-len(train_rows) // batch_size))
    with progress.stage("cloning", epochs * per_epoch, "batch") as bar:
        if measure_start:
            t0 = time.perf_counter()
            history.append({**measure({"epoch": 0}), "seconds": time.perf_counter() - t0})
            say(_note(history[-1], epochs, len(held_rows)))
        net.train()
        for epoch in range(1, epochs + 1):
            if stop():
                break
            t0 = time.perf_counter()
            losses = []
            batches = np.array_split(rng.permutation(train_rows), per_epoch)
            for idx in batches:
                if losses and stop():
                    break
                obs, masks, actions, values = _batch(data, idx, device)
                loss, _ = bc_loss(net, obs, masks, actions, returns_all[idx].to(device), value_coef, values, value_scale,
                                  teacher_bonus, value_unit)
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
                optimizer.step()
                losses.append(loss.item())
                bar.update(1)
            figures = measure({"epoch": epoch, "train_loss": float(np.mean(losses))})
            if len(losses) < len(batches):
                figures.update({"stopped": 1, "epoch_done": len(losses) / len(batches)})
            figures["seconds"] = time.perf_counter() - t0
            history.append(figures)
            say(_note(figures, epochs, len(held_rows)))
            if figures.get("stopped"):
                break
    net.eval()
    return history


def _note(figures: dict, epochs: int, held: int) -> str:
    """The progress line of one cloning epoch."""
    epoch = figures["epoch"]
    when = ("before cloning" if epoch == 0 else f"epoch {epoch}/{epochs}"
            + (f" (stopped by the budget after {figures['epoch_done']:.0%} of it)" if figures.get("stopped") else ""))
    note = (f"behaviour cloning: {when}, cross-entropy {figures['cross_entropy']:.4f}, "
            f"agreement with the teacher {figures['agreement']:.1%} "
            f"({figures['agreement_on_choices']:.1%} where there was a choice)")
    if held:
        note += (f"; on {held} held-out decisions {figures['heldout_agreement']:.1%} "
                 f"({figures['heldout_agreement_on_choices']:.1%})")
        if "heldout_value_regret" in figures:
            note += (f", points given up per valued decision {figures['heldout_value_regret']:.3f} "
                     f"(the teacher's {figures['heldout_teacher_value_regret']:.3f}), "
                     f"best action {figures['heldout_best_card_rate']:.1%}")
            for key in sorted(k for k in figures if k.startswith("heldout_residual_value_regret@")):
                m = key.partition("@")[2]
                note += (f"; corrected bot (margin {m}): {figures[key]:.3f}, departs from the teacher on "
                         f"{figures['heldout_residual_override_rate@' + m]:.1%}")
    return note


def kl_to_reference(ref_logits: torch.Tensor, logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """``KL(reference || policy)`` per row, over the legal actions of ``masks``:
    ``sum_a p_ref(a) (log p_ref(a) - log pi(a))``."""
    ref = MaskedCategorical(ref_logits, masks)
    cur = MaskedCategorical(logits, masks)
    diff = (ref.logits - cur.logits).masked_fill(~ref.mask, 0.0)
    return (ref.probs * diff).sum(-1)
