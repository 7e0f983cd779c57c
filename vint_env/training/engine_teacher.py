"""A teacher's deals played on the batched engine: :func:`teacher_data.play_deals`'s data at the engine's speed.

:mod:`vint_env.training.teacher_data` plays the teacher's deals agent by agent in Python envs; a teacher
that the batched engine (:mod:`vint_env.vector`) can play makes the very same data there, every deal of
a batch stepped at once: ``teacher_engine: true`` in the training config.  Teachers the engine plays
(:func:`engine_teacher`): the game's rule bot compiled for the engine (its record's ``engine_rule_bot``:
Solo Whist's, equal to the Python bot decision by decision), spec ``rule``; and a residual agent over
that bot (:class:`~vint_env.agents.learned.residual.ResidualAgent`: ``residual``, or a ``ppo:PATH``
checkpoint that says it is played that way), the critic network's batched forward pass deciding where it
overrides the bot, as the agent decides one observation at a time.

Deal ``k`` is the deal the env's ``reset`` deals for the seed :func:`~vint_env.training.teacher_data.deal_seeds`
gives it (the engine is dealt those hands, that dealer and that turned card, as
:class:`~vint_env.training.vector_source.VectorGameBatch` deals a seed), and the rows come deal by deal in
the order of the decisions: the data of ``play_deals`` row for row (observations, masks, actions, seats,
returns; with ``values="rollout_auction"`` each call's values, the teacher playing every seat of the
rollouts, on the engine's forks: :func:`~vint_env.training.engine_values.fork_values`), up to float
rounding in the values' sums and in the critic's logits (tests/training/test_engine_teacher.py plays both).
"""

from __future__ import annotations

import numpy as np
import torch

from vint_env.agents.learned.residual import judged_rows, residual_choice
from vint_env.cards import NUM_CARDS
from vint_env.games import Game

from .engine_values import fork_values, join_states, take_rows
from .teacher_data import TeacherData, deal_seeds

#: The value kinds the engine's teacher data has: none, or the calls' values by rollouts.
ENGINE_VALUES = ("", "rollout_auction")
#: The agent spec kinds that may name a teacher the engine plays (a ``network`` or ``baseline`` must hold a
#: residual agent over the rule bot: :func:`engine_teacher` checks the agent itself).
ENGINE_TEACHERS = ("rule", "residual", "network", "baseline")


class EngineTeacher:
    """The compiled rule bot in every seat of an engine batch, its choices overridden by a critic network
    where a :class:`~vint_env.agents.learned.residual.ResidualAgent` would override them (``critic=None``:
    the bot alone).  The bot's interface: ``actions(state, rows)``, ``take_rows``, ``joined``."""

    def __init__(self, bot, critic: torch.nn.Module | None = None, margin: float = 0.0, actions: str = "all"):
        self.bot, self.critic, self.margin, self.kind = bot, critic, float(margin), actions

    @torch.no_grad()
    def actions(self, state, rows) -> np.ndarray:
        """The teacher's action in each game of ``rows`` (indices or a boolean mask); the bot is asked in every
        one (its memory of the deal is fed, as the residual agent's base is asked at every decision)."""
        rows = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else np.asarray(rows, dtype=np.int64)
        base = self.bot.actions(state, rows)
        if self.critic is None or rows.size == 0:
            return base
        mask = state.legal_action_mask[rows].astype(bool)
        at = np.flatnonzero(judged_rows(mask, base, self.kind))     # the others need no forward pass
        if at.size == 0:
            return base
        obs = torch.as_tensor(np.asarray(state.observation[rows[at]], dtype=np.float32))
        out = base.copy()
        out[at] = residual_choice(self.critic(obs)[0].numpy(), mask[at], base[at], self.margin, self.kind)
        return out

    def take_rows(self, batch_size: int, rows) -> EngineTeacher:
        return EngineTeacher(self.bot.take_rows(batch_size, rows), self.critic, self.margin, self.kind)

    @staticmethod
    def joined(teachers) -> EngineTeacher:
        first = teachers[0]
        return EngineTeacher(type(first.bot).joined([t.bot for t in teachers]), first.critic, first.margin, first.kind)


def engine_teacher(game: Game, teacher: str, engine) -> EngineTeacher:
    """The teacher spec ``teacher`` as an :class:`EngineTeacher` for ``engine``'s batches, or a ValueError
    naming what the engine cannot play."""
    from vint_env.agents.learned.residual import ResidualAgent
    from vint_env.agents.registry import load_agent
    if game.engine_rule_bot is None:
        raise ValueError(f"teacher_engine plays the teacher on the batched engine with the rule bot compiled "
                         f"for it; {game.name} has none: set teacher_engine to false")
    agent = load_agent(teacher, game=game)
    rule = type(game.rule_agent())
    if type(agent) is rule:
        return EngineTeacher(game.engine_rule_bot_for(engine))
    if isinstance(agent, ResidualAgent) and type(agent.base) is rule:
        critic = agent.policy.network.eval()
        return EngineTeacher(game.engine_rule_bot_for(engine), critic, agent.margin, agent.actions)
    raise ValueError(f"teacher {teacher!r} ({type(agent).__name__}) cannot play on the batched engine: "
                     f"teacher_engine takes the game's rule bot (rule) or a residual agent over it "
                     f"(residual, or a ppo:PATH residual checkpoint); set teacher_engine to false")


def engine_teacher_data(game: Game, env_kwargs: dict, teacher: str, seed: int, first: int, count: int,
                        values: str = "", fork_chunk: int = 8192) -> TeacherData:
    """Deals ``first .. first+count-1`` played on the batched engine by ``teacher`` in every seat: the rows of
    :func:`~vint_env.training.teacher_data.play_deals` with the same arguments (see the module docstring)."""
    from .value_targets import check_values
    from .vector_source import VectorGameBatch
    if values not in ENGINE_VALUES:
        raise ValueError(f"teacher_engine makes teacher_values {ENGINE_VALUES}, not {values!r}")
    check_values(values, game, env_kwargs)
    batch = VectorGameBatch(game, count, env_kwargs)
    engine, ids = batch.engine, np.arange(first, first + count)
    batch.start_many(np.arange(count), [deal_seeds(seed, int(k))[0] for k in ids])
    state = batch.state
    play = engine_teacher(game, teacher, engine)         # a game with a rule bot compiled for its engine: four seats
    to_points = game.points_scale / engine.reward_scale
    received = np.zeros((count, 4))
    rows: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "seat", "deal", "before", "step")}
    snaps, snap_rows, snap_players = [], [], []
    live, step = ~state.terminated, 0
    while live.any():
        at = np.flatnonzero(live)
        act = np.zeros(count, dtype=np.int64)
        act[at] = play.actions(state, at)
        mask = state.legal_action_mask[at].astype(bool)
        seat = state.current_player[at].astype(np.int64)
        n0 = sum(len(a) for a in rows["action"])
        for k, v in (("obs", state.observation[at].copy()), ("mask", mask), ("action", act[at]), ("seat", seat),
                     ("deal", at), ("before", received[at, seat]), ("step", np.full(at.size, step))):
            rows[k].append(v)
        if values:
            valued = (mask.sum(1) > 1) & mask[:, NUM_CARDS:].any(1)
            if valued.any():
                g = at[valued]
                snaps.append(take_rows(state, g))
                snap_players.append(play.take_rows(count, g))   # after the teacher saw the position
                snap_rows.append(n0 + np.flatnonzero(valued))
        engine.step(state, act)
        received[at] += state.rewards[at]
        live &= ~state.terminated
        step += 1
    cat = {k: np.concatenate(v) for k, v in rows.items()}
    returns = received[cat["deal"], cat["seat"]] - cat["before"]
    table = None
    if values:
        table = np.full(cat["mask"].shape, np.nan, dtype=np.float32)
        auction = cat["mask"][:, NUM_CARDS:].any(1)           # a forced call: 0 for its one action
        forced = auction & (cat["mask"].sum(1) == 1)
        table[forced, cat["action"][forced]] = 0.0
        if snaps:
            snap = join_states(snaps)
            r = np.concatenate(snap_rows)
            taken = cat["action"][r]
            others = cat["mask"][r].copy()
            others[np.arange(r.size), taken] = False          # the teacher's own call: the deal's real outcome
            table[r] = fork_values(engine, snap, type(play).joined(snap_players), cat["seat"][r], others, None,
                                   to_points, fork_chunk)
            table[r, taken] = returns[r] * to_points
    order = np.lexsort((cat["step"], cat["deal"]))           # deal by deal, each in the order of its decisions
    return TeacherData.from_arrays(cat["obs"][order], cat["mask"][order], cat["action"][order], returns[order],
                                   cat["seat"][order], ids[cat["deal"][order]],
                                   None if table is None else table[order])


def generate_on_engine(game: Game, env_kwargs: dict, teacher: str, seed: int, deals: int, values: str = "",
                       chunk_deals: int = 1000, on_deals=None) -> TeacherData:
    """``deals`` deals in engine batches of ``chunk_deals`` (one process; the data do not depend on it);
    ``on_deals(n)`` is told each batch's ``n`` deals as it is done."""
    if deals < 1:
        raise ValueError(f"teacher data needs at least one deal, got {deals}")
    on_deals = on_deals or (lambda n: None)
    parts = []
    for first in range(0, deals, chunk_deals):
        n = min(chunk_deals, deals - first)
        parts.append(engine_teacher_data(game, env_kwargs, teacher, seed, first, n, values))
        on_deals(n)
    return TeacherData.concat(parts)


__all__ = ["ENGINE_TEACHERS", "ENGINE_VALUES", "EngineTeacher", "engine_teacher", "engine_teacher_data", "generate_on_engine"]
