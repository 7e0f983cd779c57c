"""Cards valued by rollouts of a network's own play, in sampled deals (the search agent's ``eval=rollout``).

Where double-dummy values a card by what it keeps if all four then play perfectly with every hand
open, a rollout values it by what it keeps if all four then play as the network plays, each seeing
only its own observation (SPARTA's evaluation in Hanabi: the blueprint's play after the action).  For
every deal of the beliefs and every card to value, the batched engine replays the deal so far
(:class:`~vint_env.agents.search.replay.WorldReplay`), plays the card, then plays the deal out with the
network's most probable legal action at every turn, all deals and cards side by side; the card's
value in a deal is the deal's final points for the player's side (its points minus the other side's,
as the engine scores them: honours included, the same in every rollout of one deal).
"""

from __future__ import annotations

import numpy as np

from ...vector import four_seat_kernels

__all__ = ["rollout_values"]


def rollout_values(replay, dealt: np.ndarray, dealer: int, turned, actions, cards: list[int], policy_logits,
                   max_steps: int = 400) -> np.ndarray:
    """``values[D, C]``: the player's side's points at the end of the deal for each deal of ``dealt[D, 4]``
    (hands as dealt, relative seats, the player at seat 0) and card of ``cards`` played now, the rest
    played greedily by ``policy_logits(observations [B, D]) -> logits [B, A]`` in every seat."""
    d, c = len(dealt), len(cards)
    worlds = np.repeat(np.asarray(dealt, dtype=np.int64), c, axis=0)
    state, _ = replay.run(worlds, dealer, turned, actions, asked=lambda seat: False)
    total = np.zeros(d * c)
    over = np.zeros(d * c, dtype=bool)
    action = np.tile(np.asarray(cards, dtype=np.int64), d)
    for _ in range(max_steps):
        failed = four_seat_kernels.step(state, action, replay.engine.spec, False)
        if failed >= 0:             # the engine refused a row and wrote nothing
            raise RuntimeError(f"rollouts: the engine refused the action of world {failed}")
        total += np.where(over, 0, state.points[:, 0])
        over |= state.terminated
        if over.all():
            return total.reshape(d, c)
        logits = np.asarray(policy_logits(state.observation), dtype=np.float64)
        legal = state.legal_action_mask.astype(bool)
        action = np.where(legal, logits, -np.inf).argmax(axis=1)
        action = np.where(over, _any_legal(legal), action)
    raise RuntimeError(f"rollouts did not end within {max_steps} steps")


def _any_legal(legal: np.ndarray) -> np.ndarray:
    """A legal action of each row (finished games ignore theirs), the first one; 0 where none is."""
    return legal.argmax(axis=1)
