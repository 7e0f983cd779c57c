"""Schedules tied to the budget a run actually has.

A run stops at ``total_timesteps`` env steps or after ``max_minutes`` of
training, whichever comes first, so annealing by steps alone leaves a run
stopped by the clock at a fraction of its schedule (a learning rate still
high at the end).  :func:`budget_fraction` is the share of the budget used,
the larger of the two shares; the annealed hyper-parameters (learning rate,
entropy and clip coefficients, the imitation term's weight) follow it.

With ``max_minutes`` the fraction depends on wall time, so two runs of one
config (or a run and its resumed copy) may anneal slightly differently;
without it the schedule is a function of the env steps only.

>>> budget_fraction(global_step=250, total_timesteps=1000, seconds=30, max_minutes=1)
0.5
>>> linear(3e-4, 0.0, 0.25)
0.000225
"""

from __future__ import annotations


def budget_fraction(global_step: int, total_timesteps: int, seconds: float, max_minutes: float) -> float:
    """Share of the run's budget used, in [0, 1]: the larger of steps / ``total_timesteps`` and
    seconds / ``max_minutes`` (the clock counts only when ``max_minutes > 0``)."""
    frac = global_step / total_timesteps if total_timesteps > 0 else 1.0   # 0: a clone-only run
    if max_minutes > 0:
        frac = max(frac, seconds / (60.0 * max_minutes))
    return min(1.0, max(0.0, frac))


def budget_spent(global_step: int, total_timesteps: int, seconds: float, max_minutes: float) -> bool:
    """Whether the run has reached ``total_timesteps`` or ``max_minutes``."""
    return global_step >= total_timesteps or (max_minutes > 0 and seconds >= 60.0 * max_minutes)


def linear(start: float, end: float, frac: float) -> float:
    """``start`` at fraction 0, ``end`` at fraction 1, linear between."""
    return start + (end - start) * frac
