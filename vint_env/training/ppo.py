"""Masked PPO with self-play, read top to bottom as CleanRL's ``ppo.py``.

One iteration (:func:`iteration`) is four steps, in this order in this file:

1. collect a rollout (:func:`collect_rollout`): the current network plays a batch of games
   against itself, its past snapshots or scripted bots (``seating.py``: who sits where), and
   ``selfplay.py`` gathers the :class:`~vint_env.training.selfplay.Rollout` of the learner's transitions;
2. compute advantages (:func:`compute_gae`): GAE over each seat's own trajectory;
3. update (:func:`ppo_update`): minibatch epochs of the clipped objective, the value loss and the
   entropy bonus, with this update's annealed coefficients (:func:`coefficients`);
4. log: the figures of the rollout and the update (:func:`rollout_figures`).

A change to the loss or to the advantages reads this file, ``selfplay.py`` (the rollout's fields)
and the ``ppo`` section of ``config.py``.  The run around the iterations (budget, opponent pool,
warm start, evaluations, checkpoints, resume) is :class:`~vint_env.training.trainer.Trainer`.

Device: the network, its optimizer and the update's minibatches live on the run's device; collection
plays on the CPU, where its small batches run fastest (``device.py``).

Reproducibility: the caller seeds ``rng`` and ``gen`` per update (``streams.seeded``); with the same
generators, weights and optimizer, an iteration is the same, bit for bit.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch
from torch import nn

from vint_env.agents.learned.networks import MaskedCategorical

from .config import PPOParams
from .device import on_cpu
from .imitation import kl_to_reference
from .schedule import linear
from .selfplay import Rollout, SelfPlayCollector


# --------------------------------------------------------------------------- 1. collect a rollout
@torch.no_grad()
def collect_rollout(collector: SelfPlayCollector, net: nn.Module, pool: list[nn.Module], rng: np.random.Generator,
                    gen: torch.Generator) -> Rollout:
    """One rollout of ``net`` (and the pool's snapshots ``pool``) in eval mode, without gradients, on the CPU."""
    net = on_cpu(net)                               # one row per game a step: too small for an accelerator
    net.eval()
    return collector.collect(net, pool, rng, gen)


@torch.no_grad()
def critic_values(net: nn.Module, critic: nn.Module, rollout: Rollout, chunk: int = 8192) -> Rollout:
    """The rollout with the values of a centralised ``critic`` (``critic.py``): the policy's value head on each
    observation plus the critic's correction from the full deal (its ``state()`` and the seat), both as they
    are before this update, whoever collected the rollout (the learner itself or a collector process, one
    update behind)."""
    if rollout.states is None:
        raise ValueError("a centralised critic needs the rollout's state() vectors (collect with record_states)")
    net.eval()
    critic.eval()
    device = next(critic.parameters()).device
    seats = torch.from_numpy(rollout.seats)
    values = []
    for i in range(0, len(rollout), chunk):
        rows = slice(i, i + chunk)
        head = net(rollout.obs[rows].to(device))[1]
        values.append((head + critic(rollout.states[rows].to(device), seats[rows].to(device))).float().cpu())
    return dataclasses.replace(rollout, values=torch.cat(values) if values else torch.zeros(0))


# --------------------------------------------------------------------------- 2. advantages
def compute_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, next_index: np.ndarray,
                gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates over interleaved seat trajectories.

    Transition ``k`` is followed (in its seat's trajectory) by transition
    ``next_index[k] > k``, or ends the trajectory (``dones[k]``: value 0 after
    it).  Returns ``(advantages, returns)`` with ``returns = advantages + values``.

    >>> adv, ret = compute_gae(np.array([0., 1.]), np.array([.5, .5]), np.array([False, True]),
    ...                        np.array([1, -1]), gamma=1.0, gae_lambda=1.0)
    >>> adv.tolist(), ret.tolist()
    ([0.5, 0.5], [1.0, 1.0])
    """
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float64)
    for k in range(n - 1, -1, -1):
        if dones[k]:
            next_value, next_adv = 0.0, 0.0
        else:
            j = next_index[k]
            if j <= k:
                raise ValueError(f"transition {k} is not done but its successor is {j}")
            next_value, next_adv = values[j], adv[j]
        delta = rewards[k] + gamma * next_value - values[k]
        adv[k] = delta + gamma * gae_lambda * next_adv
    return adv, adv + values


# --------------------------------------------------------------------------- 3. update
def coefficients(params: PPOParams, frac: float) -> dict:
    """The learning rate, clip and entropy coefficients at budget fraction ``frac`` (linear annealing)."""
    def annealed(start: float, final: float | None) -> float:
        return start if final is None else linear(start, final, frac)
    return {"budget_fraction": frac,
            "learning_rate": annealed(params.learning_rate, 0.0 if params.anneal_lr else None),
            "clip_coef": annealed(params.clip_coef, params.clip_coef_final),
            "ent_coef": annealed(params.ent_coef, params.ent_coef_final)}


def ppo_update(net: nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout, advantages: np.ndarray,
               returns: np.ndarray, params: PPOParams, rng: np.random.Generator, clip_coef: float, ent_coef: float,
               ref_logits: torch.Tensor | None = None, kl_coef: float = 0.0, critic: nn.Module | None = None) -> dict:
    """``update_epochs`` passes of minibatch PPO over the rollout; returns loss figures.

    ``clip_coef`` and ``ent_coef``: this update's values of the (possibly annealed) coefficients.
    ``critic``: a centralised critic adding its correction (on the rollout's states) to the policy's value
    head's values.  ``ref_logits`` (the frozen reference policy's logits on the rollout's observations) with
    ``kl_coef > 0`` adds ``kl_coef * KL(reference || policy)`` to the loss."""
    device = rollout.masks.device                     # the learner's (learn moves the rollout there)
    b_adv = torch.as_tensor(advantages, dtype=torch.float32, device=device)
    b_ret = torch.as_tensor(returns, dtype=torch.float32, device=device)
    b_val = rollout.values
    n = len(rollout)
    clipfracs, approx_kls, kl_refs = [], [], []
    for _epoch in range(params.update_epochs):
        epoch_kls = []
        for mb_np in np.array_split(rng.permutation(n), min(params.num_minibatches, n)):
            mb = torch.from_numpy(mb_np).to(device)
            logits, new_value = net(rollout.obs[mb])
            if critic is not None:   # the value head's value plus the critic's correction from the full deal
                new_value = new_value + critic(rollout.states[mb], torch.from_numpy(rollout.seats[mb_np]).to(device))
            dist = MaskedCategorical(logits, rollout.masks[mb])
            new_logp = dist.log_prob(rollout.actions[mb])
            entropy = dist.entropy()
            log_ratio = new_logp - rollout.logprobs[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                epoch_kls.append(((ratio - 1) - log_ratio).mean().item())
                clipfracs.append(((ratio - 1.0).abs() > clip_coef).float().mean().item())

            mb_adv = b_adv[mb]
            if params.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

            # Clipped policy objective
            pg_loss = torch.max(-mb_adv * ratio,
                                -mb_adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()

            # Value loss, optionally clipped around the rollout's values
            if params.clip_vloss:
                v_clipped = b_val[mb] + torch.clamp(new_value - b_val[mb], -clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((new_value - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - b_ret[mb]) ** 2).mean()

            entropy_loss = entropy.mean()
            loss = pg_loss - ent_coef * entropy_loss + params.vf_coef * v_loss
            if ref_logits is not None and kl_coef > 0:
                kl_ref = kl_to_reference(ref_logits[mb], logits, rollout.masks[mb]).mean()
                loss = loss + kl_coef * kl_ref
                kl_refs.append(kl_ref.item())

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([p for group in optimizer.param_groups for p in group["params"]],
                                     params.max_grad_norm)
            optimizer.step()
        approx_kls += epoch_kls
        if params.target_kl > 0 and np.mean(epoch_kls) > params.target_kl:
            break
    y_pred, y_true = rollout.values.cpu().numpy(), returns
    var_y = np.var(y_true)
    return {
        "policy_loss": pg_loss.item(),
        "value_loss": v_loss.item(),
        "entropy": entropy_loss.item(),
        "loss": loss.item(),
        "approx_kl": float(np.mean(approx_kls)),
        "clipfrac": float(np.mean(clipfracs)),
        "explained_variance": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
        **({"kl_to_teacher": float(np.mean(kl_refs))} if kl_refs else {}),
    }


def learn(net: nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout, params: PPOParams, coefs: dict,
          rng: np.random.Generator, reference: nn.Module | None = None, critic: nn.Module | None = None) -> dict:
    """Steps 2 and 3: the advantages of ``rollout`` and the PPO update on it, with this update's ``coefs``
    (:func:`coefficients`, and ``kl_coef`` toward the frozen ``reference``); the loss figures.  With a centralised
    ``critic``, the advantages are the critic's (:func:`critic_values`) and its value loss trains it."""
    if critic is not None:
        rollout = critic_values(net, critic, rollout)
    advantages, returns = compute_gae(rollout.rewards, rollout.values.numpy().astype(np.float64),
                                      rollout.dones, rollout.next_index, params.gamma, params.gae_lambda)
    rollout = rollout.to(next(net.parameters()).device)        # the minibatches on the network's device
    ref_logits = None
    if reference is not None and coefs["kl_coef"] > 0:
        with torch.no_grad():
            ref_logits = reference(rollout.obs)[0]
    net.train()
    if critic is not None:
        critic.train()
    losses = ppo_update(net, optimizer, rollout, advantages, returns, params, rng,
                        clip_coef=coefs["clip_coef"], ent_coef=coefs["ent_coef"], ref_logits=ref_logits,
                        kl_coef=coefs.get("kl_coef", 0.0), critic=critic)
    net.eval()
    return losses


# --------------------------------------------------------------------------- 4. log
def rollout_figures(rollout: Rollout, collect_seconds: float, update_seconds: float, wall_seconds: float,
                    duplicate: bool = False) -> dict:
    """The rollout's figures to log beside the losses: results by opponent, variance, sizes and speed."""
    variance = {}
    if rollout.side_returns is not None and len(rollout.side_returns) > 1:
        from .duplicate import variance_figures
        figures = variance_figures(rollout.side_returns)
        variance = {"return_var": figures["return_var"],
                    **({"paired_return_var": figures["paired_return_var"]} if duplicate else {})}
    return {
        **rollout.stats,
        **variance,
        "rollout_env_steps": rollout.env_steps,
        "rollout_samples": len(rollout),
        "env_steps_per_s": rollout.env_steps / collect_seconds,       # collection only
        "samples_per_s": len(rollout) / wall_seconds,                 # learner samples / wall time
        "update_seconds": update_seconds,
    }


# --------------------------------------------------------------------------- one iteration
def iteration(net: nn.Module, optimizer: torch.optim.Optimizer, collector: SelfPlayCollector,
              pool: list[nn.Module], params: PPOParams, coefs: dict, rng: np.random.Generator,
              gen: torch.Generator, reference: nn.Module | None = None,
              critic: nn.Module | None = None) -> tuple[Rollout, dict]:
    """Collect, compute advantages, update, log: ``(rollout, scalars)`` of one PPO iteration."""
    optimizer.param_groups[0]["lr"] = coefs["learning_rate"]
    t0 = time.perf_counter()
    rollout = collect_rollout(collector, net, pool, rng, gen)
    t1 = time.perf_counter()
    losses = learn(net, optimizer, rollout, params, coefs, rng, reference, critic)
    t2 = time.perf_counter()
    return rollout, {**coefs, **losses, **rollout_figures(rollout, t1 - t0, t2 - t1, t2 - t0,
                                                            collector.duplicate)}
