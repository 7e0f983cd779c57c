"""Where training games come from: a batch of games the trainer steps together.

A *game batch* holds ``num_envs`` games and exposes what self-play needs: the
:class:`GameBatch` protocol, the one interface of a rollout source.
:class:`AECGameBatch` is a Python loop over PettingZoo AEC envs (the reference
path), :class:`~vint_env.training.vector_source.VectorGameBatch` the batched engine
(``vint_env.vector``); :func:`make_game_batch` picks the source named by ``env_source``
in the config, so either plugs in without touching the trainer.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from vint_env.games import AGENT_SEAT as SEAT, AGENTS, Game


@runtime_checkable
class GameBatch(Protocol):
    """What self-play collection (``selfplay.py``) needs from a batch of ``num_envs`` games."""

    game: Game                        # the game's record
    num_envs: int
    obs_size: int
    num_actions: int
    state_size: int | None            # length of the games' state() vectors; None: the source has none
    last_real_credits: np.ndarray     # the credits of the last step before any training shaping

    def start_many(self, ids, seeds) -> np.ndarray:
        """New deals in games ``ids``, game ``ids[k]`` dealt by ``seeds[k]`` as the env's ``reset(seed=...)``
        deals it; the credits ``[n, 4]`` given at the start (normally 0)."""

    def acting_seats(self) -> np.ndarray:
        """The seat to move in every game (``-1``: its deal is over)."""

    def observe(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Observations ``[n, D]`` float32 and masks ``[n, A]`` bool of the seat to move in games ``ids``."""

    def observe_active(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(index, weight, masks)``: the same observations as their active entries (sparse networks)."""

    def step(self, ids: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One action in each game ``ids``; ``(credits [n, 4], done [n])``: ``credits[k, s]`` is the reward seat
        ``s`` of game ``ids[k]`` received by this step, to be added to that seat's last transition."""

    def bot_view(self, i: int) -> tuple[dict, object, str]:
        """``(observation dict, env or None, agent name)`` of game ``i``'s seat to move, for scripted bots."""

    def compiled_bot_actions(self, kind: str, ids: np.ndarray) -> np.ndarray | None:
        """The actions of scripted bot ``kind`` for the seat to move in games ``ids``, chosen by a compiled
        twin of the bot inside the source (the same actions as the Python bot's), or ``None`` where the
        source has none: the collector then asks the Python bot seat by seat (``bot_view``)."""

    def states(self, ids: np.ndarray) -> np.ndarray:
        """Full-information state vectors ``[n, S]`` of games ``ids`` (a centralised critic's input)."""


class AECGameBatch:
    """PettingZoo AEC envs (four agents ``player_0..3``) stepped one by one.

    Rewards follow PettingZoo's AEC accounting: when an agent comes up (to
    act, or for its dead step at the end of the deal), ``env.last()`` gives the
    reward it accumulated since its own last action; that is the credit this
    batch reports for the agent's seat.  At the end of a deal every agent's
    final ``last()`` carries its share of the result, whichever seat moved last.
    """

    def __init__(self, envs: list, shaper=None):
        if not envs:
            raise ValueError("a game batch needs at least one env")
        self.envs = list(envs)
        game = getattr(self.envs[0], "GAME", None)
        if not isinstance(game, Game):
            raise ValueError(f"a game batch plays the package's envs (a GAME record); "
                             f"{type(self.envs[0]).__name__} has none")
        self.game: Game = game                # the game's record (who sits where)
        if shaper is not None and shaper.active:
            shaper.check_env(self.envs[0])
        else:
            shaper = None
        self.shaper = shaper                  # vint_env/training/shaping.py: extra credits, or None
        self.last_real_credits = np.zeros((0, 4))   # the real (unshaped) credits of the last step
        num_envs = self.num_envs = len(self.envs)
        space = self.envs[0].observation_space(AGENTS[0])
        self.obs_size = int(space["observation"].shape[0])
        self.num_actions = int(self.envs[0].action_space(AGENTS[0]).n)
        state_space = getattr(self.envs[0], "state_space", None)   # PettingZoo's optional full state
        self.state_size = None if state_space is None else int(state_space.shape[0])
        self._seat = np.full(num_envs, -1, dtype=np.int64)
        self._obs: list[dict | None] = [None] * num_envs

    @classmethod
    def for_game(cls, game: Game, num_envs: int, env_kwargs: dict | None = None, shaper=None) -> AECGameBatch:
        """``num_envs`` envs of ``game`` (its record).  ``raw_env``: the same AEC API without PettingZoo's
        checking wrappers, which cost a third of the step time here."""
        try:
            envs = [game.raw_env(**(env_kwargs or {})) for _ in range(num_envs)]
        except TypeError as e:
            raise ValueError(f"env_kwargs {env_kwargs!r} rejected by {game.name}: {e}") from None
        return cls(envs, shaper)

    def start(self, i: int, seed: int) -> np.ndarray:
        """New deal in game ``i``; returns credits ``[4]`` (rewards given at reset, normally 0)."""
        env = self.envs[i]
        env.reset(seed=int(seed))
        credits = np.zeros(4, dtype=np.float64)
        self._advance(i, credits)
        return credits

    def start_many(self, ids, seeds) -> np.ndarray:
        return np.array([self.start(i, s) for i, s in zip(ids, seeds)]).reshape(len(ids), 4)

    def acting_seats(self) -> np.ndarray:
        return self._seat

    def observe(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.stack([self._obs[i]["observation"] for i in ids]).astype(np.float32, copy=False)
        masks = np.stack([self._obs[i]["action_mask"] for i in ids]).astype(bool)
        return obs, masks

    def observe_active(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from vint_env.agents.learned.sparse import active_entries
        obs, masks = self.observe(ids)
        return (*active_entries(obs), masks)

    def bot_view(self, i: int):
        return self._obs[i], self.envs[i], AGENTS[self._seat[i]]

    def compiled_bot_actions(self, kind: str, ids: np.ndarray) -> None:
        return None                          # the envs' bots are the Python ones

    def states(self, ids: np.ndarray) -> np.ndarray:
        """Full-information state vectors ``[n, S]`` of games ``ids`` (centralised critic; training only)."""
        if self.state_size is None:
            raise ValueError("these envs have no state_space: no state() for a centralised critic")
        return np.stack([self.envs[i].state() for i in ids]).astype(np.float32, copy=False)

    def step(self, ids: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        credits = np.zeros((len(ids), 4), dtype=np.float64)
        done = np.zeros(len(ids), dtype=bool)
        extra = np.zeros((len(ids), 4), dtype=np.float64)
        shaper = self.shaper
        for k, (i, a) in enumerate(zip(ids, actions)):
            env = self.envs[i]
            before = shaper.tricks_so_far(env) if shaper is not None else None
            env.step(int(a))
            if shaper is not None:
                extra[k] = shaper.step_credits(env, before)
            done[k] = self._advance(i, credits[k])
        self.last_real_credits = credits
        return (credits + extra if shaper is not None else credits), done

    def _advance(self, i: int, credits: np.ndarray) -> bool:
        """Collect ``last()`` rewards until an agent must act (False) or the deal is over (True)."""
        env = self.envs[i]
        while env.agents:
            agent = env.agent_selection
            seat = SEAT[agent]
            dead = env.terminations[agent] or env.truncations[agent]
            obs, reward, _, _, _ = env.last(observe=not dead)
            credits[seat] += reward
            if not dead:
                self._seat[i] = seat
                self._obs[i] = obs
                return False
            env.step(None)
        self._seat[i] = -1
        self._obs[i] = None
        return True


def make_game_batch(source: str, game: Game, num_envs: int, env_kwargs: dict | None = None, shaper=None):
    """The game batch of ``game`` (its record) named by the config's ``env_source`` (``shaper``: training
    reward shaping, AEC only)."""
    if source == "aec":
        return AECGameBatch.for_game(game, num_envs, env_kwargs, shaper)
    if shaper is not None and shaper.active:
        raise ValueError("reward shaping (shaping_* keys) needs env_source 'aec'")
    if source == "vector":
        try:
            from .vector_source import VectorGameBatch
        except ImportError as e:
            raise ValueError(f"env_source 'vector' is not available: {e}") from None
        return VectorGameBatch(game, num_envs, env_kwargs)
    raise ValueError(f"unknown env_source {source!r}; known: 'aec', 'vector'")
