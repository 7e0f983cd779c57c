"""The batched Vint engine (``vint_env.vector``) as a game batch for the trainer.

Same contract as :class:`vint_env.training.sources.AECGameBatch` (see ``sources.py``),
played by :class:`vint_env.vector.VintEngine` in NumPy arrays (numba when
installed): one engine step moves every live game at once.  A game started
with seed ``s`` gets the deal and dealer that ``vint_v0.raw_env().reset(seed=s)``
deals, so both sources play the very same games (``tests/test_training_vector.py``
checks that rollouts agree action for action).

Vint only (the engine plays Vint deals), deal episodes; env options
``reward_scale`` and ``passout`` as ``vint_v0``.
"""

from __future__ import annotations

import numpy as np

from vint_env.cards import random_deal
from vint_env.games import AGENTS
SUPPORTED_KWARGS = ("reward_scale", "passout", "honours", "game_race", "episode", "backend")


class VectorGameBatch:
    """``num_envs`` Vint deals in one :class:`~vint_env.vector.VintEngine` (``auto_reset=False``)."""

    def __init__(self, game: str, num_envs: int, env_kwargs: dict | None = None):
        from vint_env import games
        from vint_env.vector import VintEngine
        if games.get(game) is not VintEngine.game:     # the deal-start and kwargs below are Vint's
            raise ValueError(f"env_source 'vector' plays {VintEngine.game.env_name} only, not {game!r}")
        kwargs = dict(env_kwargs or {})
        unknown = set(kwargs) - set(SUPPORTED_KWARGS)
        if unknown:
            raise ValueError(f"env_source 'vector' does not take env_kwargs {sorted(unknown)}; "
                             f"it takes {SUPPORTED_KWARGS}")
        if kwargs.pop("episode", "deal") != "deal":
            raise ValueError("env_source 'vector' plays deal episodes only (episode='deal')")
        self.engine = VintEngine(**kwargs, auto_reset=False)     # the engine's defaults are the game's
        self.game = game
        self.num_envs = int(num_envs)
        self.obs_size = int(self.engine.observation_size)
        self.num_actions = int(self.engine.num_actions)
        self.state = self.engine.init(seed=0, batch_size=self.num_envs)
        self.state.terminated[:] = True     # no game is live until start()
        self._seat = np.full(self.num_envs, -1, dtype=np.int64)
        self._actions = np.zeros(self.num_envs, dtype=np.int64)

    def start(self, i: int, seed: int) -> np.ndarray:
        # the deal vint_v0.raw_env().reset(seed=seed) makes: dealer first, then the hands
        rng = np.random.default_rng(int(seed))
        dealer = int(rng.integers(4))
        hands = random_deal(rng)
        self.engine.reset(self.state, games=[i], deals=[hands], dealers=[dealer])
        self._seat[i] = int(self.state.current_player[i])
        return np.zeros(4, dtype=np.float64)

    def acting_seats(self) -> np.ndarray:
        return self._seat

    def observe(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(self.state.observation[ids], dtype=np.float32)
        masks = self.state.legal_action_mask[ids].astype(bool)
        return obs, masks

    def bot_view(self, i: int):
        ob = {"observation": np.array(self.state.observation[i], dtype=np.float32),
              "action_mask": np.array(self.state.legal_action_mask[i], dtype=np.int8)}
        return ob, None, AGENTS[self._seat[i]]

    def step(self, ids: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        live = self._seat >= 0
        if not np.array_equal(np.flatnonzero(live), np.sort(ids)):
            raise ValueError("the batched engine steps every live game at once: ids must be exactly the live games")
        acts = self._actions
        acts[:] = 0
        acts[ids] = actions
        self.engine.step(self.state, acts)
        done = self.state.terminated[ids].copy()
        credits = np.where(done[:, None], self.state.rewards[ids], 0.0).astype(np.float64)
        seats = np.asarray(self.state.current_player, dtype=np.int64)
        self._seat[ids] = np.where(done, -1, seats[ids])
        return credits, done
