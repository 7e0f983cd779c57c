"""Solo Whist's rule bot inside the batched engine: :class:`SoloWhistRuleBot`, numba-compiled.

The same bot as :class:`vint_env.agents.rule.solo_whist.SoloWhistRuleAgent`, decision by decision
(tests/vector/test_solo_whist_rule_kernel.py plays both over thousands of decisions), for the games of a
:class:`~vint_env.vector.engine.SoloWhistEngine` batch whose seat to move it plays, so that rollouts
against it run at the engine's speed.  The reference is deterministic given its observation and its
memory of the tricks (no random tie-break: every choice is a max or min over a key that ends in the suit
or the card id), so nothing random is reproduced here.

It reads from the engine's state only what the seat's observation shows: its own hand, the turned card,
the calls and the legal actions (the state's ``legal_action_mask``, the player to move's), the trick in
progress and the last one, the cards each seat has played (as dealt minus held: the observation's
``played`` block), the voids shown, the sides.  Never another seat's hand.

Like the reference (:class:`~vint_env.agents.rule.play_view.TrickMemory`), it remembers what its
observation forgets, per game and seat: each seat's first discard and the tricks a partner led and won.
That memory is fed at the seat's own turns, so **ask the bot at every turn of every seat it plays in a
deal** (as a Python bot is asked); it forgets a seat's memory at each of the seat's calls in the auction
and whenever the game's deal changes (``state.deal_index``), as the reference forgets at each call and
at ``reset``.
"""

from __future__ import annotations

import numpy as np

from ..games.solo_whist_bidding import (ABONDANCE_TRICKS, ACCEPT_TRICKS, DECLAREE_TRICKS, MISERE_DANGER,
                                       OPEN_MISERE_DANGER, PROPOSAL_TRICKS, SOLO_TRICKS)
from .solo_whist_rule_kernels import MEMORY_SIZE, M_DEAL, NUM_LIMITS, rule_actions_kernel
from .state import COL

_CUR = COL["current_player"]


def bidding_limits() -> np.ndarray:
    """The reference's bidding thresholds as the kernel reads them (``solo_whist_rule_kernels.L_*``): sure tricks
    in half tricks for a proposal, an acceptance, a solo, an abondance, a déclarée; the misère dangers."""
    limits = np.array([2 * PROPOSAL_TRICKS, 2 * ACCEPT_TRICKS, 2 * SOLO_TRICKS, 2 * ABONDANCE_TRICKS,
                       2 * DECLAREE_TRICKS, MISERE_DANGER, OPEN_MISERE_DANGER], dtype=np.float64)
    assert limits.size == NUM_LIMITS
    return limits


class SoloWhistRuleBot:
    """Solo Whist's rule bot for the games of a :class:`~vint_env.vector.engine.SoloWhistEngine` batch.

    ``actions(state, rows)`` gives, for each game index in ``rows``, the action the rule bot chooses for the
    seat to move there (int64, one per row), as ``SoloWhistRuleAgent.act`` would on that seat's observation.
    One instance keeps a memory for every game and seat of one batch size (see the module docstring: ask it
    at every turn of the seats it plays).
    """

    def __init__(self, engine):
        from .engine import SoloWhistEngine
        if not isinstance(engine, SoloWhistEngine):
            raise TypeError(f"SoloWhistRuleBot plays a SoloWhistEngine's games, got {type(engine).__name__}")
        self.engine = engine
        self.memory: np.ndarray | None = None
        self.limits = bidding_limits()

    def actions(self, state, rows) -> np.ndarray:
        """The rule bot's action in each game of ``rows`` (game indices, or a boolean mask over the batch)."""
        self.engine.check_state(state)
        rows = self._rows(state, rows)
        memory = self._memory(state.batch_size)
        out = np.empty(rows.size, dtype=np.int64)
        bad = rule_actions_kernel(state.small, state.words, state.legal_action_mask, state.deal_index, rows,
                                  memory, self.limits, out)
        if bad >= 0:
            raise RuleBotError(self._refusal(state, int(rows[bad])))
        return out

    def take_rows(self, batch_size: int, rows) -> SoloWhistRuleBot:
        """A bot for the games ``take_rows(state, rows)`` holds (``state`` of ``batch_size`` games; repeats
        allowed): each game's memory copied from game ``rows[i]`` of this bot as it is now, so that a copied
        game plays on as the original would (a rollout forked from it, or the batch with its finished games
        dropped)."""
        bot = SoloWhistRuleBot(self.engine)
        bot.memory = self._memory(batch_size)[np.asarray(rows, dtype=np.int64)].copy()
        return bot

    @staticmethod
    def joined(bots) -> SoloWhistRuleBot:
        """One bot for the games of ``bots``' batches put one after the other (as the states concatenated):
        their memories copied, each bot one that :meth:`take_rows` made or one already asked."""
        if any(b.memory is None for b in bots):
            raise ValueError("joined needs bots that remember their batches (made by take_rows, or asked once)")
        bot = SoloWhistRuleBot(bots[0].engine)
        bot.memory = np.concatenate([b.memory for b in bots])
        return bot

    def _rows(self, state, rows) -> np.ndarray:
        r = np.asarray(rows)
        if r.dtype == bool:
            if r.shape != (state.batch_size,):
                raise ValueError(f"a boolean rows mask must have shape ({state.batch_size},), got {r.shape}")
            return np.flatnonzero(r)
        if r.size and r.dtype.kind not in "iu":
            raise ValueError(f"rows must be game indices (integers) or a boolean mask, got dtype {r.dtype}")
        r = r.astype(np.int64).ravel()
        if r.size and (r.min() < 0 or r.max() >= state.batch_size):
            raise ValueError(f"rows must be game indices 0..{state.batch_size - 1}")
        return r

    def _memory(self, batch_size: int) -> np.ndarray:
        if self.memory is None:
            self.memory = np.zeros((batch_size, 4, MEMORY_SIZE), dtype=np.int64)
            self.memory[:, :, M_DEAL] = -1
        elif self.memory.shape[0] != batch_size:
            raise ValueError(f"this SoloWhistRuleBot remembers a batch of {self.memory.shape[0]} games; "
                             f"got a state of {batch_size} (make one bot per batch)")
        return self.memory

    @staticmethod
    def _refusal(state, b: int) -> str:
        seat = int(state.small[b, _CUR])
        if seat < 0:
            return f"game {b}: the deal is over, no seat is to move (ask the rule bot only where a seat is to move)"
        return (f"game {b}: the rule bot's choice for seat {seat} is not among the legal actions "
                f"(is the state's legal_action_mask the engine's?)")


class RuleBotError(ValueError):
    """The rule bot was asked where it cannot act: a game whose deal is over, or one whose legal mask refuses
    its choice."""


__all__ = ["RuleBotError", "SoloWhistRuleBot"]
