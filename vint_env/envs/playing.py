"""The one loop that plays an AEC env with an agent at each seat.

:func:`play_episode` steps a PettingZoo AEC env of this package (wrapped or raw) from where it stands:
the seat to move gets its agent's action, an agent that has finished takes its dead step, and the
loop ends with the episode, at a seat with no agent (a person's turn) or when ``stop()`` says so.
Every caller that plays deals with agents uses it: the match harness (:mod:`vint_env.evaluation.match`,
with its recorder and clock as hooks, and the match video), the teacher data of the imitation warm start
(:mod:`vint_env.training.teacher_data`) and the rollouts that value its actions on copies of the AEC env
(:mod:`vint_env.training.value_targets`), the terminal and browser table (:mod:`vint_env.play.table`,
which stops at the person's seat), the random play of the throughput benchmarks
(:mod:`vint_env.random_play`) and the probes in ``experiments/``.

One loop over the envs is not this one, on purpose: the AEC rollout source of PPO training
(:class:`vint_env.training.sources.AECGameBatch`) steps many envs in lockstep, one action each from a
batched network call, so it cannot hand one env to a loop that plays it on.

>>> from vint_env import whist_v0
>>> from vint_env.agents import RandomAgent
>>> env = whist_v0.env()
>>> agents = [RandomAgent() for _ in range(4)]
>>> start_episode(env, agents, seed=0, agent_seeds=[0, 1, 2, 3])
>>> played = play_episode(env, agents)
>>> played.decisions, sum(played.points)                # 52 cards; Whist is zero-sum
(52, 0.0)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence


@dataclass
class Decision:
    """One decision at the table, as the hooks of :func:`play_episode` see it."""

    seat: int                   # the acting agent's index in the env's ``possible_agents``
    agent: str                  # its name there (``"player_2"``)
    observation: dict           # what the env gave it (``observation``, ``action_mask``)
    action: object = None       # what its agent chose (set before ``after`` is called)
    seconds: float = 0.0        # wall seconds its agent's ``act`` took


@dataclass
class Played:
    """What :func:`play_episode` played: the rewards each seat collected (the env's reward units) and the
    number of decisions its agents made."""

    points: list[float]
    decisions: int


def start_episode(env, agents: Sequence | Mapping, seed: int | None, agent_seeds: Sequence[int],
                  options: dict | None = None) -> None:
    """Reset every agent with its seed (``agents`` and ``agent_seeds`` in the same order) and the env with
    ``seed`` and ``options``: a new episode for :func:`play_episode`."""
    for agent, agent_seed in zip(_listed(agents), agent_seeds):
        agent.reset(agent_seed)
    env.reset(seed=seed, options=options)


def play_episode(env, agents: Sequence | Mapping, *, before: Callable[[Decision], None] | None = None,
                 after: Callable[[Decision], None] | None = None,
                 stop: Callable[[], bool] | None = None) -> Played:
    """Play ``env`` on from where it stands with ``agents``, a list by seat or a dict ``{seat: agent}``.

    Each decision: ``before(decision)`` (the observation is set; nothing has acted), the seat's agent
    acts (``act(observation, env, name)``, ``env`` only for an agent with ``needs_env``), the env steps
    with the action as the agent gave it (the env checks it), then ``after(decision)`` (the action and
    the agent's seconds set; the env has stepped).  The loop ends when the env has no agents left, when
    the seat to move has no agent (a missing key, or ``None``: the caller acts there and calls again), or
    after a step where ``stop()`` is true.  The points are each seat's rewards as the env accumulates
    them (``_cumulative_rewards`` when a seat comes up), summed over the steps this call made: over a
    whole episode, the points of each seat when the env is made with the reward scale of points.
    """
    points = [0.0] * len(env.possible_agents)
    decisions = 0
    while env.agents:
        name = env.agent_selection
        seat = int(name.rsplit("_", 1)[1])
        points[seat] += env._cumulative_rewards[name]
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        agent = _agent_at(agents, seat)
        if agent is None:
            break
        decision = Decision(seat, name, env.observe(name))
        if before is not None:
            before(decision)
        start = time.perf_counter()
        decision.action = agent.act(decision.observation, env if agent.needs_env else None, name)
        decision.seconds = time.perf_counter() - start
        env.step(decision.action)
        decisions += 1
        if after is not None:
            after(decision)
        if stop is not None and stop():
            break
    return Played(points, decisions)


def _agent_at(agents: Sequence | Mapping, seat: int):
    if isinstance(agents, Mapping):
        return agents.get(seat)
    return agents[seat] if seat < len(agents) else None


def _listed(agents: Sequence | Mapping) -> list:
    return [agents[s] for s in sorted(agents)] if isinstance(agents, Mapping) else list(agents)


__all__ = ["Decision", "Played", "play_episode", "start_episode"]
