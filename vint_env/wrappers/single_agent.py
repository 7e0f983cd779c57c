"""A Gymnasium single-agent view of a four-seat game: the learner against opponents.

:class:`SingleAgentEnv` puts one learner in one seat (or in both seats of a
partnership) of a PettingZoo AEC env of this package and lets opponent
agents play the other seats.  Each ``step`` plays the learner's action,
then the opponents' moves until the learner is to move again or the
episode ends, and returns the **learner's own** reward accumulated over all
those moves (including a deal-ending reward earned on an opponent's move).

>>> env = SingleAgentEnv("vint_v0", seats=0, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> obs.shape, obs.dtype, env.action_space
((1102,), dtype('float32'), Discrete(88))
>>> mask = env.action_masks()       # what sb3-contrib's MaskablePPO reads
>>> obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

Observation: the acting learner seat's flat observation vector (seat-relative,
the same vector as the AEC env's ``observation``); its legal-action mask is
given by :meth:`SingleAgentEnv.action_masks` and in ``info["action_mask"]``.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any, Callable, Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import games
from ..agents.base import Agent

#: The env names of the games this package ships (from :mod:`vint_env.games`).
GAMES = games.env_names()

#: Named learner placements: a seat, a partnership, or a random seat per episode.
PARTNERSHIPS = {"NS": (0, 2), "EW": (1, 3)}

ILLEGAL_ACTION_MODES = ("terminate", "raise")


def make_aec_env(game: games.Game | str, **env_kwargs):
    """The raw AEC env of ``game`` (its record, or ``"vint_v0"`` or ``"vint"``; see :func:`vint_env.games.names`)."""
    return games.get(game).raw_env(**env_kwargs)


class UnsupportedRenderModeError(ValueError, TypeError):
    """A render mode the game cannot render.

    Also a ``TypeError``: Stable-Baselines3's ``make_vec_env`` retries without a render
    mode on a ``TypeError`` (it asks every env for ``render_mode="rgb_array"``, which the
    games now draw).
    """


class WrapperOptionError(ValueError, TypeError):
    """An option of :class:`SingleAgentEnv` of the wrong type or value (also a ``TypeError``, as it was)."""


class PolicyAgent(Agent):
    """An :class:`Agent` around a plain callable ``policy(observation_dict) -> action``."""

    def __init__(self, policy: Callable[[dict], int], name: str | None = None):
        if not callable(policy):
            raise WrapperOptionError(f"a policy must be callable, got {policy!r}")
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "policy")

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        return int(self.policy(observation))


def as_agent(spec, game: games.Game | str = "vint_v0") -> Agent:
    """An opponent from an :class:`Agent`, an agent spec (``"random"``, ``"rule"``, ``"dd"``, ...,
    see :func:`vint_env.agents.registry.load_agent`) or a callable ``policy(observation_dict)``."""
    if isinstance(spec, Agent) or (hasattr(spec, "act") and callable(spec.act)):
        return spec
    if isinstance(spec, str):
        from ..agents.registry import load_agent
        return load_agent(spec, game=game)
    if callable(spec):
        return PolicyAgent(spec)
    raise WrapperOptionError(f"an opponent must be an Agent, an agent spec string or a callable policy, "
                             f"got {spec!r}")


def parse_seats(seats) -> tuple[int, ...] | None:
    """Learner seats from ``seats``: 0..3, ``"NS"``/``"EW"``, a sequence of seats, or ``"random"`` (None)."""
    if isinstance(seats, str):
        if seats == "random":
            return None
        if seats.upper() in PARTNERSHIPS:
            return PARTNERSHIPS[seats.upper()]
        raise ValueError(f"seats must be 0..3, 'NS', 'EW', 'random' or a sequence of seats, got {seats!r}")
    if isinstance(seats, (int, np.integer)) and not isinstance(seats, bool):
        seats = (int(seats),)
    try:
        chosen = tuple(int(s) for s in seats)
    except (TypeError, ValueError):
        raise ValueError(f"seats must be 0..3, 'NS', 'EW', 'random' or a sequence of seats, "
                         f"got {seats!r}") from None
    if not chosen or len(set(chosen)) != len(chosen) or any(s not in (0, 1, 2, 3) for s in chosen) \
            or len(chosen) > 3:
        raise ValueError(f"seats must be distinct seats 0..3 (one to three of them), got {seats!r}")
    return chosen


class SingleAgentEnv(gymnasium.Env):
    """One learner (a seat, or a partnership's two seats) against opponent agents.

    Args:
        game: ``"vint_v0"``, ``"whist_v0"`` or ``"solo_whist_v0"``, or a raw AEC env
            instance of this package (then ``env_kwargs`` must be empty).
        seats: the learner's seat 0..3 (N, E, S, W), a partnership ``"NS"`` / ``"EW"``
            (the learner drives both seats), a sequence of seats, or ``"random"``
            (one seat drawn per episode from the env's seeded generator).
        opponents: who plays the other seats: an :class:`~vint_env.agents.Agent`, an
            agent name (``"random"``, ``"rule"``, ... via ``vint_env.agents.load_agent``),
            a callable ``policy(observation_dict) -> action``, or a mapping
            ``seat -> any of these`` giving one per non-learner seat.  A spec string builds
            one agent per seat; one agent object given for several seats plays all of them.
        illegal_action: ``"terminate"`` (default): an action outside the learner's mask ends
            the episode with reward ``illegal_reward`` and ``info["illegal_action"]``
            set (Gymnasium's API and plain, unmasked PPO need every action of the space
            to be steppable); ``"raise"``: raise the env's ``IllegalActionError``.
        illegal_reward: the reward of an illegal action in ``"terminate"`` mode.
        render_mode: ``"ansi"`` (text), ``"rgb_array"`` (an RGB frame, for Gymnasium's
            ``RecordVideo``) or ``"human"`` (a window): the AEC env's rendering.
        **env_kwargs: passed to the game's ``raw_env`` (e.g. ``episode="rubber"``,
            ``reward_scale=...``).

    Reward: the learner's reward from the AEC env (the points difference of its side
    times ``reward_scale``), summed over everything that happened since its last move;
    for several learner seats, the mean of their rewards (partners' rewards are equal).

    ``reset(seed=..., options=...)`` passes ``options`` (e.g. ``{"deal": PBN, "dealer": 0}``)
    to the AEC env; the same seed replays the same deal, opponents' moves included.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, game="vint_v0", seats=0, opponents="random", *,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **env_kwargs):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise UnsupportedRenderModeError(f"render_mode must be one of {self.metadata['render_modes']} "
                                             f"or None, got {render_mode!r}")
        if isinstance(game, (str, games.Game)):
            self.aec = make_aec_env(game, render_mode=render_mode, **env_kwargs)
        else:
            if env_kwargs:
                raise ValueError(f"env keyword arguments {sorted(env_kwargs)} need a game name, "
                                 "not an env instance")
            if not hasattr(game, "observe") or not hasattr(game, "possible_agents"):
                raise WrapperOptionError(f"game must be a game name or a raw AEC env of vint_env, got {game!r}")
            self.aec = game.unwrapped
            if render_mode is not None and render_mode != self.aec.render_mode:
                raise ValueError("give render_mode to the AEC env you pass, not to SingleAgentEnv")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.metadata = {**self.metadata, "render_modes": list(self.aec.metadata["render_modes"]),
                         "name": self.aec.metadata["name"]}
        self.render_mode = self.aec.render_mode
        self.illegal_action = illegal_action
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, Real) \
                or not math.isfinite(illegal_reward):
            raise WrapperOptionError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
        self.illegal_reward = float(illegal_reward)
        self.agent_names = list(self.aec.possible_agents)
        self._fixed_seats = parse_seats(seats)
        name = self.aec.metadata["name"]
        self.record = games.get(name)        # the env's game, resolved once: the opponents get the record
        if self._fixed_seats and len(self._fixed_seats) > 1 and not self.record.partnership:
            raise ValueError(f"{name} has no fixed partnerships: the learner takes one seat, "
                             f"got seats={seats!r}")
        self._opponent_spec = self._parse_opponents(opponents)

        first = self.agent_names[0]
        self.observation_space = self.aec.observation_space(first)["observation"]
        self.action_space: spaces.Discrete = self.aec.action_space(first)
        self.learner_seats: tuple[int, ...] = self._fixed_seats or (0,)
        self.illegal_actions = 0
        self._warned_illegal = False
        self._over = True
        self._last_info: dict[str, Any] = {}
        self._current_mask = np.zeros(self.action_space.n, dtype=np.int8)

    # construction helpers --------------------------------------------------------
    def _parse_opponents(self, opponents) -> dict[int, Agent]:
        if isinstance(opponents, Mapping):
            table = {}
            for seat, spec in opponents.items():
                if seat not in (0, 1, 2, 3):
                    raise ValueError(f"opponents keys must be seats 0..3, got {seat!r}")
                table[int(seat)] = as_agent(spec, self.record)
            if self._fixed_seats is None:
                if set(table) != {0, 1, 2, 3}:
                    raise ValueError("with seats='random' give an opponent for every seat 0..3 "
                                     "(the learner's seat changes each episode)")
            else:
                missing = sorted(set(range(4)) - set(self._fixed_seats) - set(table))
                if missing:
                    raise ValueError(f"no opponent given for seat(s) {missing}")
            return table
        if isinstance(opponents, str):      # a spec: one agent per seat
            return {s: as_agent(opponents, self.record) for s in range(4)}
        agent = as_agent(opponents, self.record)
        return {s: agent for s in range(4)}

    def set_opponents(self, opponents) -> None:
        """Replace the opponents (same forms as the constructor's), from the next opponent move on.

        For self-play: ``env.set_opponents(SB3Agent(model))`` after building the model
        on this env (``vec_env.env_method("set_opponents", ...)`` on a vector env).
        """
        self._opponent_spec = self._parse_opponents(opponents)

    # Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        # Every episode draws its seeds from the wrapper's generator, so a seeded reset
        # replays the deal and the opponents' choices, and so do the unseeded ones after it.
        env_seed, *agent_seeds = (int(x) for x in self.np_random.integers(2**62, size=5))
        if self._fixed_seats is None:
            self.learner_seats = (int(self.np_random.integers(4)),)
        self.aec.reset(seed=env_seed, options=options)
        reset_done: set[int] = set()
        for seat in range(4):
            agent = self._opponent_spec.get(seat)
            if seat in self.learner_seats or agent is None or id(agent) in reset_done:
                continue
            agent.reset(seed=agent_seeds[seat])
            reset_done.add(id(agent))
        self._over = False
        self._last_info = {}
        reward = self._play_opponents()
        if self._over:
            raise RuntimeError(f"{self.metadata['name']}: the episode ended before the learner "
                               f"(seats {self.learner_seats}) had a move (reward {reward})")
        return self._observation_and_info()

    def step(self, action):
        if self._over:
            raise RuntimeError("step() called on a finished episode: call reset() first")
        action = self._check_in_space(action)
        seat = self.aec.current_seat
        if not self.aec._is_legal(action) and self.illegal_action == "terminate":
            return self._illegal(action, seat)
        reward = self._aec_step(action)   # "raise" mode: the AEC env raises its own clear error
        if not self._over:
            reward += self._play_opponents()
        terminated = self._over and any(self.aec.terminations.values())
        truncated = self._over and not terminated
        obs, info = self._observation_and_info()
        return obs, reward, terminated, truncated, info

    def _check_in_space(self, action) -> int:
        try:
            a = int(action)
            ok = a == action and 0 <= a < self.action_space.n
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"action {action!r} is not in the action space {self.action_space}")
        return a

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner seat to move, as a bool array (all False when over)."""
        return self._current_mask.astype(bool)

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()

    # internals ------------------------------------------------------------------------
    def _aec_step(self, action: int) -> float:
        """Step the AEC env; the learner's share of the rewards that step gave."""
        self.aec.step(action)
        names = self.agent_names
        reward = sum(self.aec.rewards[names[s]] for s in self.learner_seats) / len(self.learner_seats)
        if self.aec.current_seat < 0:
            self._over = True
            self._last_info = dict(self.aec.infos[names[self.learner_seats[0]]])
        return float(reward)

    def _play_opponents(self) -> float:
        """Let opponents move until a learner seat is to move or the episode ends."""
        reward = 0.0
        aec = self.aec
        while not self._over and aec.current_seat not in self.learner_seats:
            seat = aec.current_seat
            name = self.agent_names[seat]
            agent = self._opponent_spec[seat]
            obs = aec.observe(name)
            action = agent.act(obs, env=aec if agent.needs_env else None, agent=name)
            reward += self._aec_step(action)
        return reward

    def _illegal(self, action: int, seat: int):
        self.illegal_actions += 1
        text = f"illegal action {action} ({self.aec.action_text(action)}) by seat {seat}"
        if not self._warned_illegal:
            gymnasium.logger.warn(f"{self.metadata['name']}: {text}; the episode ends with reward "
                                  f"{self.illegal_reward} (illegal_action='terminate'; use "
                                  "action_masks() or illegal_action='raise')")
            self._warned_illegal = True
        obs = self.aec.observe(self.agent_names[seat])["observation"]
        self._over = True
        self._current_mask = np.zeros(self.action_space.n, dtype=np.int8)
        info = {"action_mask": self._current_mask, "seat": seat, "illegal_action": text}
        return obs, self.illegal_reward, True, False, info

    def _observation_and_info(self) -> tuple[np.ndarray, dict]:
        """The acting learner seat's observation (the first learner seat's once over) and info."""
        seat = self.aec.current_seat
        if self._over or seat not in self.learner_seats:
            seat = self.learner_seats[0]
        obs = self.aec.observe(self.agent_names[seat])
        info = dict(self._last_info) if self._over else {}
        self._current_mask = obs["action_mask"]          # all zeros once over
        info["action_mask"] = self._current_mask
        info["seat"] = seat
        return obs["observation"], info
