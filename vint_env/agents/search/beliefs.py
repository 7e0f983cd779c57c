"""Beliefs about the hidden cards: sampled deals weighted by how likely the others' actions were in them.

PIMC (:mod:`.pimc`) deals the unseen cards uniformly among the deals consistent with what the player
knows.  But the other players chose their calls and cards *because of* the cards they hold: a deal
in which their actions look unlikely is an unlikely deal.  As in the bridge engine BEN, which keeps a
sampled deal only if its neural models of the others' bidding and play would have made the calls and
cards seen, and as policy-based inference in Skat (Solinas, Rebstock and Buro), this module

1. draws ``candidates`` deals uniformly among those consistent with the player's knowledge
   (:class:`~vint_env.agents.search.deal_sampler.DealSampler`: own hand, cards seen, voids shown);
2. replays the deal so far in each of them (:class:`~vint_env.agents.search.replay.WorldReplay`) and
   asks a model of play (:class:`PlayModel`: a shipped network) how likely each other seat's calls and
   cards were, given what that seat saw *in that deal*;
3. weights each deal by that likelihood, softened: every action's probability is mixed with the
   uniform choice among the seat's legal actions (``floor``), and the product raised to a power
   ``tau`` <= 1, so that a model that is wrong about a player costs a little, not everything
   (:func:`log_likelihood`);
4. draws ``samples`` deals from the candidates in proportion to their weights (with replacement:
   a likely deal may be drawn more than once and is then solved once, :func:`resample`).

By Bayes' rule, with a uniform prior over the consistent deals, the weights are the posterior of
each candidate given the actions seen (up to the softening), so the deals drawn in step 4 are draws
from that posterior as the candidates grow.  The player's own actions are never weighed (its hand
is known) and forced actions say nothing (one legal action in every deal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PlayModel", "NetworkPlayModel", "action_probabilities", "log_likelihood", "resample", "normalise"]


class PlayModel:
    """A model of how the players choose: the probabilities of the actions taken."""

    def probabilities(self, observation: np.ndarray, mask: np.ndarray, action: np.ndarray) -> np.ndarray:
        """``P(action[i] | observation[i])`` among the legal actions ``mask[i]``, for each row ``i``."""
        raise NotImplementedError


class NetworkPlayModel(PlayModel):
    """A policy network as the model: the softmax of its logits over the legal actions, at
    ``temperature`` (a critic's logits are values: a temperature turns them into a choice that
    favours the better actions)."""

    def __init__(self, network, temperature: float = 1.0):
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature!r}")
        self.network = network
        self.temperature = float(temperature)

    def probabilities(self, observation, mask, action):
        if len(action) == 0:
            return np.zeros(0)
        return action_probabilities(self.logits(observation), mask, action, self.temperature)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The network's action logits ``[R, A]`` (float64) of observations ``[R, D]``."""
        import torch
        with torch.no_grad():
            obs = torch.as_tensor(observation)
            policy = getattr(self.network, "policy_logits", None)
            logits = (policy(obs) if policy is not None else self.network(obs)[0]).double().numpy()
        return np.nan_to_num(logits, nan=-1e30, posinf=1e30, neginf=-1e30)


def action_probabilities(logits: np.ndarray, mask: np.ndarray, action: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(logits / temperature)`` over the legal actions of each row, at the action taken.

    >>> action_probabilities(np.array([[0.0, np.log(3.0), 5.0]]), np.array([[1, 1, 0]]), np.array([1]), 1.0)
    array([0.75])
    """
    z = np.where(mask.astype(bool), logits / temperature, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p[np.arange(len(action)), action] / p.sum(axis=1)


def log_likelihood(probabilities: np.ndarray, legal_counts: np.ndarray, floor: float, tau: float) -> np.ndarray:
    """The softened log-likelihood of each world: ``tau * sum_r log((1 - floor) * p[r, w] + floor / n[r, w])``
    over the decisions ``r`` (``probabilities[R, N]``, ``legal_counts[R, N]`` the legal actions of each).

    >>> p = np.array([[1.0, 0.0], [0.5, 0.5]]); n = np.array([[2, 2], [2, 2]])
    >>> np.round(log_likelihood(p, n, floor=0.0, tau=1.0), 3).tolist()
    [-0.693, -inf]
    >>> np.round(log_likelihood(p, n, floor=0.5, tau=1.0), 3).tolist()
    [-0.981, -2.079]
    """
    if probabilities.size == 0:
        return np.zeros(probabilities.shape[1] if probabilities.ndim == 2 else 0)
    with np.errstate(divide="ignore"):
        soft = np.log((1.0 - floor) * probabilities + floor / legal_counts)
    return tau * soft.sum(axis=0)


def normalise(log_weights: np.ndarray) -> np.ndarray:
    """Weights summing to 1 from log-weights (uniform if every one is -inf)."""
    top = np.max(log_weights)
    if not np.isfinite(top):
        return np.full(len(log_weights), 1.0 / len(log_weights))
    w = np.exp(log_weights - top)
    return w / w.sum()


def resample(weights: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """How many times each candidate is drawn in ``k`` draws with replacement in proportion to
    ``weights`` (systematic resampling: one uniform number, the counts within one of ``k * w``)."""
    positions = (rng.random() + np.arange(k)) / k
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0
    picks = np.searchsorted(cumulative, positions, side="right")
    return np.bincount(np.minimum(picks, len(weights) - 1), minlength=len(weights))


@dataclass
class Belief:
    """Deals of the hidden cards with their weights (summing to 1) and how they were made."""

    deals: list[tuple[int, ...]]
    weights: np.ndarray
    candidates: int
    weighted: bool
    effective: float          # the candidates' effective sample size, 1 / sum(w^2)
