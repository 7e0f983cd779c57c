"""A deal's actions replayed in many candidate worlds at once, with the batched engine (:class:`WorldReplay`).

A *world* is one way the hidden cards may lie: the four hands as dealt.  Given the actions of the
deal so far in order (:mod:`.history`), the engine (:mod:`vint_env.vector.engine`, the env's rules
and observations bit for bit) plays them in every world side by side, and hands back, at every
action of a seat the caller asks about, what that seat saw in each world (its observation and legal
actions) and what it did.  That is what a model of the other players' play needs to say how likely
their actions were in each world (:mod:`.beliefs`).  Seats are the observer's relative seats: the
observer sits at the engine's seat 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...vector import four_seat_kernels
from ...vector.deals import start_deals
from ...vector.state import VintBatchState

__all__ = ["Decisions", "WorldReplay"]


@dataclass
class Decisions:
    """The decisions of the seats asked about, in every world: ``observation[R, N, D]``,
    ``mask[R, N, A]`` (legal actions, 0/1), ``action[R]`` (what the seat did) and ``seat[R]``, for
    ``R`` decisions (in the order taken) and ``N`` worlds."""

    observation: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    seat: np.ndarray

    @property
    def count(self) -> int:
        return int(self.action.shape[0])


class WorldReplay:
    """Replays actions in candidate worlds (see the module docstring).

    ``engine``: a batched engine of the game (``auto_reset=False``), with the rules the observer's
    table plays (Vint's pass-out variant ...).
    """

    def __init__(self, engine):
        self.engine = engine

    def start(self, dealt: np.ndarray, dealer: int, turned: int | None = None) -> VintBatchState:
        """An engine state of ``N`` worlds at the start of the deal: ``dealt[N, 4]`` the hands as dealt
        (card masks, relative seats), the relative ``dealer``, the dealer's turned card (Whist).

        The worlds come from the deal sampler, which deals every card once: the engine's checks of
        injected deals (one Python call a deal) and of each step's state are left out, as they cost more
        than the replay itself; ``tests/agents/test_search.py`` checks the replay against the env."""
        e = self.engine
        n = len(dealt)
        state = VintBatchState.empty(n, e.observation_size, e.num_actions, e.obs_dtype)
        hands = np.ascontiguousarray(np.asarray(dealt, dtype=np.int64).astype(np.uint64))
        turned_cards = None if turned is None else np.full(n, int(turned), dtype=np.int64)
        start_deals(state, np.arange(n), e.spec, hands, np.full(n, int(dealer), dtype=np.int8), turned_cards)
        four_seat_kernels.write_views(state, e.spec)
        return state

    def step(self, state: VintBatchState, action: int) -> None:
        """Every world takes ``action`` (legal in each: the caller checked it)."""
        failed = four_seat_kernels.step(state, np.full(state.batch_size, action, dtype=np.int64), self.engine.spec,
                                        False)
        if failed >= 0:             # the engine refused a row and wrote nothing
            raise RuntimeError(f"replay: action {action} refused in world {failed}")

    def run(self, dealt: np.ndarray, dealer: int, turned: int | None, actions, asked) -> tuple[object, Decisions]:
        """Play ``actions`` (``(relative seat, action)`` in order) in every world of ``dealt``; returns the
        engine state after them and the :class:`Decisions` of the actions whose seat ``asked(seat)`` is
        true and where some world allowed the seat more than one action (a forced action says nothing).

        A ValueError if an action was not that seat's turn or not legal in some world: the worlds must
        be consistent with what the observer saw."""
        state = self.start(dealt, dealer, turned)
        n = len(dealt)
        e = self.engine
        wanted = sum(1 for seat, _ in actions if asked(seat))
        obs = np.empty((wanted, n, e.observation_size), dtype=np.float32)
        masks = np.empty((wanted, n, e.num_actions), dtype=np.int8)
        acts, seats = [], []
        for seat, action in actions:
            if not (state.current_player == seat).all():
                raise ValueError(f"replay: seat {seat} acted, but the engine has seats "
                                 f"{sorted(set(state.current_player.tolist()))} to move")
            mask = state.legal_action_mask
            if not mask[:, action].all():
                raise ValueError(f"replay: action {action} of seat {seat} is illegal in some world")
            if asked(seat) and (mask.sum(axis=1) > 1).any():
                r = len(acts)
                obs[r] = state.observation
                masks[r] = mask
                acts.append(action)
                seats.append(seat)
            self.step(state, action)
        r = len(acts)
        return state, Decisions(obs[:r], masks[:r], np.array(acts, dtype=np.int64), np.array(seats, dtype=np.int64))
