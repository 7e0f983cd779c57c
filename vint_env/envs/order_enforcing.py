"""PettingZoo's order enforcement without its cost on the AEC loop.

PettingZoo's ``OrderEnforcingWrapper`` reaches every attribute of the wrapped
env (``agent_selection``, ``terminations``, ``_cumulative_rewards`` ...)
through two ``__getattr__`` calls, about ten times per AEC step.
:class:`OrderEnforcingEnv` is that wrapper (a subclass of the public
``pettingzoo.utils.wrappers.OrderEnforcingWrapper``: ``isinstance`` checks,
``unwrapped``, ``env`` and every error and warning are the same) whose
hot attributes are plain properties and whose ``last``, ``step``, ``observe``
and ``agent_iter`` go to the wrapped env directly.  It keeps its own record of
the calls (``_ready``: reset was called; ``_moved``: a step or reset since the
last agent was handed out) and its own iterator: it reads no private attribute
of PettingZoo and subclasses none of its private classes.
"""

from __future__ import annotations

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper


def _after_reset(name: str) -> property:
    """The wrapped env's attribute ``name``; before reset, the AttributeError PettingZoo gives."""

    def get(self):
        if not self._ready:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (after reset).")


class OrderEnforcingEnv(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` with a direct path for the AEC loop."""

    def __init__(self, env):
        self._ready = False       # reset() was called
        self._moved = False       # step() or reset() since agent_iter last gave an agent
        super().__init__(env)

    def reset(self, seed=None, options=None) -> None:
        self._ready = self._moved = True
        super().reset(seed=seed, options=options)

    agents = _after_reset("agents")
    agent_selection = _after_reset("agent_selection")
    rewards = _after_reset("rewards")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    infos = _after_reset("infos")
    num_agents = _after_reset("num_agents")

    @property
    def _cumulative_rewards(self):
        return self.env._cumulative_rewards

    def last(self, observe: bool = True):
        if not self._ready:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._ready:
            EnvLogger.error_step_before_reset()
        self._moved = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def observe(self, agent):
        if not self._ready:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._ready:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterator(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterator:
    """``agent_iter``: the agent to act until the episode ends or ``max_iter`` agents were given,
    a step (or reset) between two of them, as PettingZoo's own iterator asks."""

    def __init__(self, wrapper: OrderEnforcingEnv, max_iter: int):
        self.wrapper = wrapper
        self.iters_til_term = max_iter

    def __iter__(self):
        return self

    def __next__(self):
        wrapper = self.wrapper
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._moved, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._moved = False
        return env.agent_selection
