"""Self-play adapter for training: B games, one shared policy, "the player to move".

The contract (what a PPO trainer needs to know)
-----------------------------------------------
Every step, each of the B games has exactly one player to move, whatever
its seat; the one policy acts for all of them:

>>> import numpy as np
>>> env = SelfPlayVecEnv(num_envs=4, seed=0)
>>> step = env.reset()
>>> step.obs.shape, step.mask.shape, step.seat.shape
((4, 1102), (4, 88), (4,))
>>> rng = np.random.default_rng(0)
>>> actions = np.array([rng.choice(np.flatnonzero(m)) for m in step.mask])
>>> step = env.step(actions)

``reset()`` / ``step(actions[B])`` return a :class:`SelfPlayStep`:

- ``obs[B, D]`` (float32), ``mask[B, A]`` (int8), ``seat[B]``: the
  observation, legal actions and seat (0..3) of the player to move *next*;
- ``done[B]``: the action just taken ended that game's deal; the game was
  dealt again at once, so ``obs``/``mask``/``seat`` already belong to the
  new deal (the first player to move there is its dealer in Vint, the
  dealer's left in Whist and Solo Whist);
- ``seat_rewards[B, 4]`` (float32): on ``done``, every seat's reward for
  the deal that ended (the env's rewards: points x ``reward_scale``,
  side 0 = seats 0 & 2 positive when it won, the other side the negative;
  in Solo Whist each seat's own payment); zero otherwise;
- ``reward[B]``: ``seat_rewards[b, actor]`` for the seat that just acted.

Rewards reach each seat at the end of the deal, not when it acts.  A seat's
trajectory in a game is its own decisions only (in Vint a few calls and 13
cards), interleaved with the other three seats' in the one stream of steps.
When a deal ends, the reward of seat s belongs to *s's last decision in that
deal*, which was usually a few steps earlier (only the seat that played the
last card acted on the ``done`` step).  So do not train on ``reward`` alone
(that would credit only the last player, and never the other three), and do
not bootstrap a seat from the next step's observation (it is another
player's).  Record ``seat`` with every transition and let :func:`seat_gae`
split the stream into the four per-seat trajectories of each game: it gives
every transition the reward of its own seat at the deal's end and
bootstraps it from the value of the same seat's next decision.

Arrays returned are the engine's buffers, overwritten by the next ``step``:
copy them (e.g. into the rollout buffer) before stepping again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import games


class SelfPlayStep(NamedTuple):
    obs: np.ndarray           # [B, D] observation of the player to move next
    mask: np.ndarray          # [B, A] int8 legal actions of the player to move next
    seat: np.ndarray          # [B] int64 seat of the player to move next
    reward: np.ndarray        # [B] float32 reward of the seat that just acted (0 unless done)
    done: np.ndarray          # [B] bool: the action ended the deal (and the game was dealt again)
    seat_rewards: np.ndarray  # [B, 4] float32 every seat's reward of the deal that ended (0 unless done)


class SelfPlayVecEnv:
    """B games in self-play for one shared policy (see the module docstring for the contract).

    ``num_envs``: B; ``seed``: an integer; ``game``: a game the batched engine
    plays (``"vint"``, default, ``"whist"`` or ``"solo_whist"``: see :func:`vint_env.games.engine_games`); other
    keyword options go to :class:`~vint_env.vector.VintEngine` (``passout``, ``reward_scale``,
    ``obs_dtype``, ``parallel``), :class:`~vint_env.vector.WhistEngine` (``no_trump``,
    ``ten_is_honour`` ...) or :class:`~vint_env.vector.SoloWhistEngine` (``payments`` ...).
    """

    def __init__(self, num_envs: int, seed: int = 0, game: str = "vint", **engine_options):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        record = games.get(game)
        if "auto_reset" in engine_options:
            raise ValueError("SelfPlayVecEnv always deals again at once (auto_reset cannot be changed)")
        self.engine = record.engine_class()(**engine_options)
        self.game = record.name
        self.num_envs = int(num_envs)
        self.seed = seed
        self.observation_size = self.engine.observation_size
        self.num_actions = self.engine.num_actions
        self.state = None
        self._reward = np.zeros(self.num_envs, dtype=np.float32)
        self._seat_rewards = np.zeros((self.num_envs, 4), dtype=np.float32)
        self._seat = np.zeros(self.num_envs, dtype=np.int64)
        self._last_seat = np.zeros(self.num_envs, dtype=np.int64)

    def reset(self, seed: int | None = None) -> SelfPlayStep:
        """Deal B new games (from ``seed``, else the constructor's)."""
        if seed is not None:
            self.seed = seed
        self.state = self.engine.init(seed=self.seed, batch_size=self.num_envs)
        self._reward[:] = 0
        self._seat_rewards[:] = 0
        return self._result()

    def step(self, actions) -> SelfPlayStep:
        """One action per game, for its player to move; illegal actions raise ``IllegalActionError``."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        st = self.engine.step(self.state, actions)
        self._seat_rewards[:] = st.rewards
        # Every game had a player to move, the seat given with the last result: it acted.
        self._reward[:] = self._seat_rewards[np.arange(self.num_envs), self._last_seat]
        return self._result()

    def global_state(self) -> np.ndarray:
        """``[B, 212 + D]``: the env's ``state()`` of every game now, for a centralised critic."""
        if self.state is None:
            raise RuntimeError("call reset() before global_state()")
        return self.engine.global_state(self.state)

    def _result(self) -> SelfPlayStep:
        st = self.state
        self._seat[:] = st.current_player
        self._last_seat[:] = self._seat
        return SelfPlayStep(st.observation, st.legal_action_mask, self._seat, self._reward, st.terminated,
                            self._seat_rewards)


def seat_gae(seats, values, dones, seat_rewards, gamma: float = 1.0, lam: float = 0.95):
    """Per-seat GAE for a self-play rollout of T steps in B games.

    Inputs, for step t of game b: ``seats[t, b]`` the seat that acted,
    ``values[t, b]`` the value estimate of its observation, and the result
    of that action: ``dones[t, b]`` and ``seat_rewards[t, b, 4]`` (as
    :class:`SelfPlayStep` gave them).

    Each transition is linked to the *same seat's* next decision in the same
    game: its reward is that seat's reward if the deal ended before the seat
    moved again (its last decision of the deal), and it bootstraps from the
    value of the seat's next decision otherwise.  Returns ``(advantages,
    returns, complete)`` of shape [T, B]: ``complete`` is False for a seat's
    last transition in the rollout when its deal had not ended by the
    rollout's end (its successor is in the next rollout): leave those out of
    the loss (at most 4 per game per rollout; which ones depends only on
    time, so leaving them out biases nothing).  Earlier transitions of that
    seat bootstrap from its value, as truncated GAE does.

    >>> seats = np.array([[0], [1], [0], [1]])          # two seats alternating (for brevity)
    >>> dones = np.array([[0], [0], [0], [1]], bool)
    >>> r = np.zeros((4, 1, 4)); r[3, 0] = [2.0, -2.0, 2.0, -2.0]
    >>> adv, ret, complete = seat_gae(seats, np.zeros((4, 1)), dones, r, gamma=1.0, lam=1.0)
    >>> ret[:, 0].tolist(), complete[:, 0].tolist()
    ([2.0, -2.0, 2.0, -2.0], [True, True, True, True])
    """
    seats = np.asarray(seats)
    values = np.asarray(values, dtype=np.float64)
    dones = np.asarray(dones, dtype=bool)
    seat_rewards = np.asarray(seat_rewards, dtype=np.float64)
    if seats.ndim != 2 or values.shape != seats.shape or dones.shape != seats.shape \
            or seat_rewards.shape != seats.shape + (4,):
        raise ValueError(f"expected seats, values, dones of shape [T, B] and seat_rewards [T, B, 4]; got "
                         f"{seats.shape}, {values.shape}, {dones.shape}, {seat_rewards.shape}")
    if ((seats < 0) | (seats > 3)).any():
        raise ValueError("seats must be 0..3")
    t_len, b = seats.shape
    rows = np.arange(b)
    next_value = np.zeros((b, 4))     # value of each seat's next decision (0 after the deal's end)
    next_adv = np.zeros((b, 4))
    pending = np.zeros((b, 4))        # reward waiting for each seat's last decision of a deal
    known = np.zeros((b, 4), dtype=bool)
    adv = np.zeros((t_len, b))
    complete = np.zeros((t_len, b), dtype=bool)
    for t in range(t_len - 1, -1, -1):
        d = dones[t]
        if d.any():
            pending[d] = seat_rewards[t][d]
            next_value[d] = 0.0
            next_adv[d] = 0.0
            known[d] = True
        s = seats[t].astype(np.int64)
        v = values[t]
        k = known[rows, s]
        delta = pending[rows, s] + gamma * next_value[rows, s] - v
        a = delta + gamma * lam * next_adv[rows, s]
        adv[t] = np.where(k, a, 0.0)
        complete[t] = k
        next_value[rows, s] = v
        next_adv[rows, s] = adv[t]
        pending[rows, s] = 0.0
        known[rows, s] = True
    return adv, adv + values, complete
