"""The batched engine (``vint_env.vector``) as a game batch for the trainer.

The :class:`~vint_env.training.sources.GameBatch` protocol, as :class:`~vint_env.training.sources.AECGameBatch`,
played by the game's batched engine (its record's ``engine``: Vint and Whist now) in NumPy
arrays stepped by numba: one engine step moves every live game at once.  A game started with
seed ``s`` gets the deal, dealer (and turned card) that the env's ``raw_env().reset(seed=s)``
deals, so both sources play the very same games (``tests/training/test_training_vector.py`` checks that
rollouts agree action for action).

Deal episodes; the env options are the engine's (``vint_v0``'s ``reward_scale``, ``passout``,
``honours``, ``game_race``; ``whist_v0``'s ``reward_scale``, ``no_trump``, ``ten_is_honour``;
``vint2p_v0``'s ``way``, ``auction`` and the Vint variants).  The agents' seats are the engine's
``deciding_players`` (the seat to move, or in two-player Vint the player who decides for it).
"""

from __future__ import annotations

import inspect

import numpy as np

from vint_env.cards import random_deal
from vint_env.games import AGENTS, Game

ENGINE_ONLY = ("backend", "obs_dtype", "auto_reset", "parallel")   # the engine's own knobs, not env options


def engine_options(engine_class) -> tuple[str, ...]:
    """The env options an engine takes (its constructor's, without its own knobs), and ``episode``."""
    names = [p for p in inspect.signature(engine_class.__init__).parameters if p != "self"]
    return tuple(p for p in names if p not in ENGINE_ONLY) + ("episode", "backend")


class VectorGameBatch:
    """``num_envs`` deals of one game in its batched engine (``auto_reset=False``)."""

    def __init__(self, game: Game, num_envs: int, env_kwargs: dict | None = None):
        from vint_env import games
        record = game
        if not record.has_engine:
            raise ValueError(f"env_source 'vector' plays {', '.join(g.name for g in games.all_games() if g.has_engine)}"
                             f" only (the games of the batched engine), not {record.name!r}")
        engine_class = record.engine_class()
        kwargs = dict(env_kwargs or {})
        supported = engine_options(engine_class)
        unknown = set(kwargs) - set(supported)
        if unknown:
            raise ValueError(f"env_source 'vector' does not take env_kwargs {sorted(unknown)}; "
                             f"it takes {supported}")
        if kwargs.pop("episode", "deal") != "deal":
            raise ValueError("env_source 'vector' plays deal episodes only (episode='deal')")
        self.engine = engine_class(**kwargs, auto_reset=False)
        self.record = record
        # Two-player Vint: the env draws the dealer, the widow and the piles too; an env of the same options
        # deals each seed (deal_options_of_seed), so both sources play the very same games.
        env_options = {k: v for k, v in kwargs.items() if k != "backend"}
        self._dealer_env = record.raw_env(**env_options) if hasattr(self.engine, "deal_options") else None
        self.turns_card = record.turns_card and not getattr(self.engine, "no_trump", False)
        self.game = game
        self.num_envs = int(num_envs)
        self.obs_size = int(self.engine.observation_size)
        self.num_actions = int(self.engine.num_actions)
        self.state_size = int(self.engine.game.state_layout.size)   # the env's state(): a centralised critic's input
        self.last_real_credits = np.zeros((0, 4))   # no training shaping here: the credits of the last step
        self.state = self.engine.init(seed=0, batch_size=self.num_envs)
        self.state.terminated[:] = True     # no game is live until start()
        self._seat = np.full(self.num_envs, -1, dtype=np.int64)
        self._actions = np.zeros(self.num_envs, dtype=np.int64)
        self._rule_bot = None               # the compiled Solo Whist rule bot, made at its first use

    def deal_of_seed(self, seed: int):
        """``(hands, dealer, turned card or None)`` that the env's ``reset(seed=seed)`` deals."""
        from vint_env.envs.base import random_turned_card
        rng = np.random.default_rng(int(seed))
        dealer = int(rng.integers(4))
        hands = random_deal(rng)
        return hands, dealer, (random_turned_card(rng, hands[dealer]) if self.turns_card else None)

    def start(self, i: int, seed: int) -> np.ndarray:
        return self.start_many([i], [seed])[0]

    def deal_options_of_seed(self, seed: int) -> dict:
        """Two-player Vint: the reset options of the deal the env's ``reset(seed=seed)`` deals (the hands, the
        dealing player, way 5's widow, ways 2 and 3's piles)."""
        env = self._dealer_env
        env.reset(seed=int(seed))
        deal = env.deal
        options = {"deal": tuple(deal.dealt), "dealer": deal.dealer}
        if deal.way == 5:
            options["widow"] = [c for c in range(52) if deal.widow >> c & 1]
        if deal.piles:
            options["piles"] = {seat: list(order) for seat, order in deal.piles.items()}
        return options

    def start_many(self, ids, seeds) -> np.ndarray:
        """New deals in games ``ids`` (one engine reset for all); credits ``[n, 4]`` (zero)."""
        ids = np.asarray(ids, dtype=np.int64)
        if self._dealer_env is not None:
            deals = [self.deal_options_of_seed(s) for s in seeds]
            extra = {"widows": [d["widow"] for d in deals]} if "widow" in deals[0] else {}
            if "piles" in deals[0]:
                extra["piles"] = [d["piles"] for d in deals]
            self.engine.reset(self.state, games=ids, deals=[d["deal"] for d in deals],
                              dealers=[d["dealer"] for d in deals], **extra)
        else:
            deals = [self.deal_of_seed(s) for s in seeds]
            extra = {"turned": [d[2] for d in deals]} if self.turns_card else {}
            self.engine.reset(self.state, games=ids, deals=[d[0] for d in deals], dealers=[d[1] for d in deals],
                              **extra)
        self._seat[ids] = self.engine.deciding_players(self.state)[ids]
        return np.zeros((len(ids), 4), dtype=np.float64)

    def acting_seats(self) -> np.ndarray:
        return self._seat

    def observe(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(self.state.observation[ids], dtype=np.float32)
        masks = self.state.legal_action_mask[ids].astype(bool)
        return obs, masks

    def observe_active(self, ids: np.ndarray):
        """``(index, weight, masks)``: the active entries of the observations of games ``ids``, read in
        place from the engine's arrays (no dense copy), and their masks."""
        from vint_env.agents.learned.sparse import active_entries
        index, weight = active_entries(self.state.observation, rows=ids)
        return index, weight, self.state.legal_action_mask[ids].astype(bool)

    def bot_view(self, i: int):
        ob = {"observation": np.array(self.state.observation[i], dtype=np.float32),
              "action_mask": np.array(self.state.legal_action_mask[i], dtype=np.int8)}
        return ob, None, AGENTS[self._seat[i]]

    def compiled_bot_actions(self, kind: str, ids: np.ndarray) -> np.ndarray | None:
        """The rule bot of a game whose record names one compiled for the engine (``engine_rule_bot``: Solo
        Whist's, equal to the Python bot decision by decision); every other bot is the Python one (``None``)."""
        if kind != "rule" or self.record.engine_rule_bot is None:
            return None
        if self._rule_bot is None:
            self._rule_bot = self.record.engine_rule_bot_for(self.engine)
        return self._rule_bot.actions(self.state, ids)

    def step(self, ids: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        live = self._seat >= 0
        if not np.array_equal(np.flatnonzero(live), np.sort(ids)):
            raise ValueError("the batched engine steps every live game at once: ids must be exactly the live games")
        acts = self._actions
        acts[:] = 0
        acts[ids] = actions
        self.engine.step(self.state, acts)
        done = self.state.terminated[ids].copy()
        credits = np.zeros((len(ids), 4), dtype=np.float64)     # the agents' columns (two-player Vint: two)
        rewards = self.state.rewards[ids]
        credits[:, :rewards.shape[1]] = np.where(done[:, None], rewards, 0.0)
        seats = np.asarray(self.engine.deciding_players(self.state), dtype=np.int64)
        self._seat[ids] = np.where(done, -1, seats[ids])
        self.last_real_credits = credits
        return credits, done

    def states(self, ids: np.ndarray) -> np.ndarray:
        """Full-information state vectors ``[n, S]`` of games ``ids``: the env's ``state()`` (the engine's
        ``global_state``; centralised critic, training only)."""
        return self.engine.global_state(self.state)[ids]
