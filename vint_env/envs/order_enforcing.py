"""PettingZoo's order enforcement without its cost on the AEC loop.

PettingZoo's ``OrderEnforcingWrapper`` reaches every attribute of the wrapped
env (``agent_selection``, ``terminations``, ``_cumulative_rewards`` ...)
through two ``__getattr__`` calls, about ten times per AEC step.
:class:`OrderEnforcingEnv` is that wrapper (a subclass: ``isinstance`` checks,
``unwrapped``, ``env`` and every error and warning are the same) whose
hot attributes are plain properties and whose ``last``, ``step``, ``observe``
and ``agent_iter`` go to the wrapped env directly.
"""

from __future__ import annotations

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import (AECOrderEnforcingIterable,
                                                       AECOrderEnforcingIterator,
                                                       OrderEnforcingWrapper)


def _after_reset(name: str) -> property:
    """The wrapped env's attribute ``name``; before reset, the AttributeError PettingZoo gives."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (after reset).")


class OrderEnforcingEnv(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` with a direct path for the AEC loop."""

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
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def observe(self, agent):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    def __next__(self):
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection
