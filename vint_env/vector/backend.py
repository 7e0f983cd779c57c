"""The Python side of the engine's compiled kernels, written once for every kernel module.

Each kernel module (:mod:`.four_seat_kernels` for Vint, Whist and Solo Whist, :mod:`.vint2p_kernels` for
two-player Vint) compiles the same set of checking and choosing kernels for its games; a
:class:`KernelBackend` takes them as arguments and gives the backend interface the engine calls
(``check_rows``, ``random_legal``, ``first_refused``, ``legal_actions``, ``illegal_games``), with the
argument checks every route passes.  What selects the game inside a kernel is the kernel options' ``code``
field (``game`` for the four-seat kernels, ``way`` for two-player Vint's).
"""

from __future__ import annotations

import numpy as np

from .state import EngineStateError, KernelOptions, RowSeal, VintBatchState


def unsealed(state: VintBatchState) -> RowSeal:
    """A seal with no row sealed (every row gets the row check): for a caller without the state's own."""
    return RowSeal(state.small.shape[0], state.small.shape[1], state.words.shape[1])


def step_actions(state: VintBatchState, actions: np.ndarray) -> np.ndarray:
    """One action per game as int64 in memory of its own (no array of the state changes it under a kernel)."""
    acts = np.array(actions, dtype=np.int64)
    if acts.shape != (state.batch_size,):
        raise ValueError(f"step takes one action per game: shape ({state.batch_size},), got {acts.shape}")
    return acts


def view_games(state: VintBatchState, games) -> np.ndarray:
    """Game indices as int64, each a game of the state (else :class:`EngineStateError`)."""
    games = np.array(games, dtype=np.int64)
    if games.size and (games.min() < 0 or games.max() >= state.batch_size):
        raise EngineStateError(f"game indices must be in 0..{state.batch_size - 1}")
    return games


def check_observation_out(state: VintBatchState, out: np.ndarray) -> None:
    """``out`` must be an array a view kernel may write a whole observation batch into."""
    if out.shape != state.observation.shape or out.dtype != state.observation.dtype or not out.flags.c_contiguous:
        raise EngineStateError(f"out must be a C-contiguous {state.observation.dtype}{list(state.observation.shape)}")


class KernelBackend:
    """The backend interface over one kernel module's compiled kernels, given as arguments.

    ``code``: the kernel options' field that selects the game inside the kernels (``"game"``, ``"way"``).
    ``row_faults``: the row check's messages, by fault code - 1.  The kernels (numba-compiled, cached in
    their own module), each taking the state's ``small`` and ``words`` arrays and the code:

    - ``first_fault(small, words, code, found)``: ``found = [game, fault code]`` of the first broken row;
    - ``first_refused(small, words, actions, code, *seal)``: the first game a step would refuse, or -1;
    - ``random_legal(small, words, u, out, code, *seal)``: a legal action per game into ``out``; the first
      game whose row fails the row check, or -1;
    - ``legal_into(small, words, out, code)``: the legal actions of game 0 as a 0/1 row of ``out``;
    - ``illegal(small, words, actions, code, bad)``: the games whose action is not legal into ``bad``, their
      count returned;
    - ``views_serial`` / ``views_parallel(small, words, viewers, obs, mask, write_mask, *view_options(spec))``:
      the observation of ``viewers[b]`` in each game (and the mask, with ``write_mask``), on one thread or on
      numba's; ``viewer``: what a viewer is (``"seat"``, ``"player"``), ``viewers``: how many there are.
    """

    def __init__(self, *, code: str, row_faults: tuple[str, ...], first_fault, first_refused, random_legal,
                 legal_into, illegal, views_serial, views_parallel, view_options, viewer: str, viewers: int):
        self.code = code
        self._views = (views_serial, views_parallel)
        self._view_options = view_options
        self.viewer, self.viewers = viewer, viewers
        self.row_faults = row_faults
        self._first_fault = first_fault
        self._first_refused = first_refused
        self._random_legal = random_legal
        self._legal_into = legal_into
        self._illegal = illegal

    def check_rows(self, state: VintBatchState, spec: KernelOptions) -> None:
        """Raise :class:`EngineStateError` naming the first game whose values a kernel could not index by."""
        found = np.zeros(2, dtype=np.int64)
        self._first_fault(state.small, state.words, getattr(spec, self.code), found)
        if found[1]:
            b = int(found[0])
            raise EngineStateError(f"game {b} of the state holds values no engine makes: "
                                   f"{self.row_faults[found[1] - 1]} (small row {state.small[b].tolist()})")

    def random_legal(self, state: VintBatchState, u: np.ndarray, spec: KernelOptions,
                     seal: RowSeal | None = None) -> np.ndarray:
        """The ``floor(u[b] * n_legal)``-th legal action of each game, judged from the state (-1 where a deal is
        over); every row passes the row check unless sealed in ``seal``."""
        out = np.empty(state.batch_size, dtype=np.int64)
        seal = seal if seal is not None else unsealed(state)
        if self._random_legal(state.small, state.words, np.asarray(u, dtype=np.float64), out,
                              getattr(spec, self.code), *seal.arrays) >= 0:
            self.check_rows(state, spec)
        return out

    def first_refused(self, state: VintBatchState, actions: np.ndarray, spec: KernelOptions,
                      seal: RowSeal | None = None) -> int:
        """The step kernels' first pass alone: the first game ``step`` would refuse, -1 if none."""
        seal = seal if seal is not None else unsealed(state)
        return self._first_refused(state.small, state.words, np.array(actions, dtype=np.int64),
                                   getattr(spec, self.code), *seal.arrays)

    def legal_actions(self, state: VintBatchState, game: int, spec: KernelOptions, num_actions: int) -> np.ndarray:
        """The legal actions of the player to move in game ``game`` of the state, from its values (not its mask)."""
        self.check_rows(state, spec)
        out = np.zeros((1, num_actions), dtype=np.int8)
        self._legal_into(state.small[game:game + 1].copy(), state.words[game:game + 1].copy(), out,
                         getattr(spec, self.code))
        return np.flatnonzero(out[0])

    def illegal_games(self, state: VintBatchState, actions: np.ndarray, spec: KernelOptions) -> np.ndarray:
        """Indices of the live games whose action is not legal (judged from the state, not from its mask array)."""
        self.check_rows(state, spec)
        acts = np.array(actions, dtype=np.int64)
        bad = np.empty(state.batch_size, dtype=np.int64)
        n = self._illegal(state.small, state.words, acts, getattr(spec, self.code), bad)
        return bad[:n]

    def write_observation(self, state: VintBatchState, viewers: np.ndarray, out: np.ndarray, spec: KernelOptions,
                          parallel: bool = False) -> np.ndarray:
        """The observation of ``viewers[b]`` (a seat, or two-player Vint's player) in each game into ``out`` (a
        new ``[B, D]`` array of the state's dtype)."""
        self.check_rows(state, spec)
        if viewers.shape != (state.batch_size,) or ((viewers < 0) | (viewers >= self.viewers)).any():
            raise EngineStateError(f"{self.viewer}s must be {state.batch_size} {self.viewer}s "
                                   f"0..{self.viewers - 1}")
        check_observation_out(state, out)
        self._views[parallel](state.small, state.words, np.array(viewers, dtype=np.int8), out,
                              state.legal_action_mask, False, *self._view_options(spec))
        return out
