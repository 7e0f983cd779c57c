"""Self-play collection: the learner's transitions of a rollout, each seat its own trajectory.

Every deal of a rollout draws its opponents from ``opponent_mix`` (``seating.py``: the learner at all four
seats, against a past snapshot of itself, or against scripted bots).  Each seat the learner plays is its
own trajectory (a *stream*): its decisions in order, each credited with the reward that seat received
until its next decision (the AEC ``last()`` accounting of the game batch).  The final reward of a deal
lands on each seat's last transition, which is marked ``done``.  Deals in progress when a game reaches
``num_steps`` are played to the end, so a rollout holds complete deals only and needs no bootstrap value.

Duplicate training (``collection.duplicate``, :mod:`vint_env.training.duplicate`): the games are pairs
of tables dealt the same cards, every controller one seat on at the second; once both have finished the
deal, each learner seat's last transition gets the same seat's return at the other table subtracted (a
table that finishes first waits for its twin).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import torch

from vint_env.agents.learned.networks import MaskedCategorical, SparseObs

from .duplicate import check_pairs, twin
from .seating import BOT, BOT_KINDS, LEARNER, POOL0, Seating, learner_sides
from .sources import GameBatch


@dataclass
class Rollout:
    """The learner's transitions of one rollout, in the order they were taken.

    ``next_index[k]``: the index of the same seat's next transition in the same
    deal, ``-1`` after the last one (then ``dones[k]`` is True).
    """

    obs: torch.Tensor | SparseObs      # SparseObs (active entries) for a network with sparse_input
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    rewards: np.ndarray
    dones: np.ndarray
    next_index: np.ndarray
    seats: np.ndarray          # seat (0..3) that took each transition
    deal_ids: np.ndarray       # which deal of the rollout each transition belongs to
    env_steps: int = 0
    stats: dict = field(default_factory=dict)
    states: torch.Tensor | None = None   # env.state() at each transition (centralised critic only)
    side_returns: np.ndarray | None = None   # [m, 2]: each learner side's real return of a deal (a row per
                                             # side the learner played), and its paired return (duplicate
                                             # training; NaN without): the figures of the variance columns

    def __len__(self) -> int:
        return len(self.rewards)

    def to(self, device: torch.device) -> Rollout:
        """The rollout with its tensors on ``device`` (the learner's)."""
        move = lambda t: None if t is None else t.to(device)   # noqa: E731 - a tensor or a SparseObs
        return dataclasses.replace(self, obs=move(self.obs), masks=move(self.masks), actions=move(self.actions),
                                   logprobs=move(self.logprobs), values=move(self.values), states=move(self.states))


class StreamBuffer:
    """The learner's transitions in the order taken, each linked to the same seat's next one in its deal."""

    def __init__(self, num_envs: int):
        self.tensors: dict[str, list] = {k: [] for k in ("obs", "masks", "actions", "logprobs", "values", "states")}
        self.n = 0
        self.rewards = np.zeros(0)                    # what each seat received until its next decision
        self.next_index = np.zeros(0, dtype=np.int64)
        self.seats = np.zeros(0, dtype=np.int64)
        self.deal_ids = np.zeros(0, dtype=np.int64)
        self.last = np.full((num_envs, 4), -1, dtype=np.int64)   # last transition of each (game, seat)
        self.deal_of_game = np.zeros(num_envs, dtype=np.int64)
        self.deals = 0

    def new_deal(self, i: int) -> None:
        self.deal_of_game[i] = self.deals
        self.deals += 1

    def add(self, envs: np.ndarray, seats: np.ndarray, obs, masks, actions, logprobs, values, states=None) -> None:
        """Append transitions taken by ``seats`` in games ``envs`` (one per game at most)."""
        for name, t in zip(self.tensors, (obs, masks, actions, logprobs, values, states)):
            if t is not None:
                self.tensors[name].append(t)
        idx = np.arange(self.n, self.n + len(envs))
        self.n += len(envs)
        if self.n > len(self.rewards):                # full: the arrays double
            size = max(self.n, 2 * len(self.rewards))
            self.rewards, self.next_index, self.seats, self.deal_ids = (
                np.concatenate([a, np.zeros(size - len(a), a.dtype)])
                for a in (self.rewards, self.next_index, self.seats, self.deal_ids))
        self.next_index[idx] = -1
        prev = self.last[envs, seats]                  # each seat's transition before these: linked to them
        self.next_index[prev[prev >= 0]] = idx[prev >= 0]
        self.last[envs, seats] = idx
        self.seats[idx] = seats
        self.deal_ids[idx] = self.deal_of_game[envs]

    def credit(self, envs: np.ndarray, credits: np.ndarray) -> None:
        """Add ``credits[k, s]`` to the last transition of seat ``s`` in game ``envs[k]``
        (seats the learner does not play, or has not played yet, have none: dropped)."""
        last = self.last[envs]                        # [k, 4]
        has = last >= 0
        self.rewards[last[has]] += credits[has]

    def end_deal(self, i: int) -> np.ndarray:
        """End the deal of game ``i``: the index of each seat's last transition (``-1``: none), its ``done`` one."""
        last = self.last[i].copy()
        self.last[i] = -1
        return last

    def build(self, env_steps: int, stats: dict, side_returns: np.ndarray | None = None) -> Rollout:
        """The rollout of the transitions added; each with no next one ended its seat's deal (``done``)."""
        if (self.last >= 0).any():
            raise RuntimeError("rollout ended with a deal in progress")

        def cat(parts):                               # a tensor (or SparseObs) of each add
            if not parts:
                return torch.zeros(0)
            return SparseObs.cat(parts) if isinstance(parts[0], SparseObs) else torch.cat(parts)
        n, taken = self.n, self.tensors
        return Rollout(obs=cat(taken["obs"]), masks=cat(taken["masks"]), actions=cat(taken["actions"]),
                       logprobs=cat(taken["logprobs"]), values=cat(taken["values"]),
                       rewards=self.rewards[:n].copy(), dones=self.next_index[:n] < 0,
                       next_index=self.next_index[:n].copy(), seats=self.seats[:n].copy(),
                       deal_ids=self.deal_ids[:n].copy(), env_steps=env_steps, stats=stats,
                       states=cat(taken["states"]) if taken["states"] else None, side_returns=side_returns)


class SelfPlayCollector:
    """Plays ``num_steps`` steps (then finishes the deals) in every game of a batch: :meth:`collect`.

    ``opponent_mix`` and ``make_bot``: who sits where (:class:`~vint_env.training.seating.Seating`).
    ``duplicate``: the games are pairs of tables playing the same deals (see the module docstring).
    ``compiled_bots``: a bot the source has compiled (``GameBatch.compiled_bot_actions``: Solo Whist's rule bot
    in the engine) plays through it, all its games in one call; ``False`` asks the Python bots seat by seat.
    Against a snapshot or bots the learner plays one side (``seating.learner_sides``: a partnership, a single
    seat in Solo Whist); in self-play, every seat.
    ``record_states``: keep each transition's ``state()`` (every hand), which only a centralised critic reads:
    the learner's critic values them before the update (:func:`~vint_env.training.ppo.critic_values`).
    """

    def __init__(self, batch: GameBatch, opponent_mix: dict, num_steps: int, make_bot, duplicate: bool = False,
                 compiled_bots: bool = True, record_states: bool = False):
        if duplicate:
            check_pairs(batch.num_envs)
        if record_states and batch.state_size is None:
            raise ValueError("record_states: these games have no state() for a centralised critic")
        self.batch, self.num_steps = batch, num_steps
        self.duplicate, self.compiled_bots = bool(duplicate), bool(compiled_bots)
        self.record_states = bool(record_states)
        self.seating = Seating(batch.num_envs, opponent_mix, make_bot, learner_sides(batch.game))

    def _deal_again(self, games: list[int], rng: np.random.Generator, pool_size: int,
                    buf: StreamBuffer) -> list[tuple[int, int]]:
        """Draw the next deals of ``games`` (the first tables of their pairs with ``duplicate``, whose
        twins get the same deal); ``(game, seed)`` of every game to start."""
        out = []
        for a in games:
            seed = self.seating.draw(a, rng, pool_size)
            tables = [a]
            if self.duplicate:
                tables.append(a + self.batch.num_envs // 2)
                self.seating.mirror(a, tables[1])
            for g in tables:
                buf.new_deal(g)
                out.append((g, seed))
        return out

    def _act(self, ids: np.ndarray, policy, pool: list, gen: torch.Generator, buf: StreamBuffer) -> np.ndarray:
        """The actions of the seats to move in games ``ids``: the learner's (added to ``buf``), the pool
        snapshots' and the scripted bots'."""
        batch, seating = self.batch, self.seating
        seats = batch.acting_seats()[ids]
        if getattr(policy, "sparse_input", False):     # the observations as the policy reads them: active entries
            index, weight, masks = batch.observe_active(ids)
            obs = SparseObs(torch.from_numpy(index), torch.from_numpy(weight), batch.obs_size)
        else:
            obs, masks = batch.observe(ids)
            obs = torch.from_numpy(obs)
        masks = torch.from_numpy(masks)
        ctrl = seating.control[ids, seats]
        actions = np.empty(len(ids), dtype=np.int64)
        rows = np.flatnonzero(ctrl == LEARNER)
        if rows.size:
            logits, values = policy(obs[rows])
            states = torch.from_numpy(batch.states(ids[rows])) if self.record_states else None
            dist = MaskedCategorical(logits, masks[rows])
            a = dist.sample(gen)
            actions[rows] = a.numpy()
            buf.add(ids[rows], seats[rows], obs[rows], masks[rows], a, dist.log_prob(a), values, states)
        for p in np.unique(ctrl[ctrl >= POOL0]):
            rows = np.flatnonzero(ctrl == p)
            logits, _ = pool[p](obs[rows])
            actions[rows] = MaskedCategorical(logits, masks[rows]).sample(gen).numpy()
        bot_rows = np.flatnonzero(ctrl == BOT)
        row_kinds = np.array([seating.deal_kind[i] for i in ids[bot_rows]], dtype=object)
        for kind in sorted(set(row_kinds)):
            rows = bot_rows[row_kinds == kind]
            compiled = batch.compiled_bot_actions(kind, ids[rows]) if self.compiled_bots else None
            if compiled is not None:
                actions[rows] = compiled
                continue
            for k in rows:
                ob, env, agent = batch.bot_view(ids[k])
                actions[k] = seating.bot(ids[k], seats[k]).act(ob, env=env, agent=agent)
        return actions

    @torch.no_grad()
    def collect(self, policy: torch.nn.Module, pool: list[torch.nn.Module], rng: np.random.Generator,
                gen: torch.Generator) -> Rollout:
        """One rollout (with ``record_states``, each transition's ``state()`` too)."""
        batch, seating, dup = self.batch, self.seating, self.duplicate
        n, half = batch.num_envs, batch.num_envs // 2
        buf = StreamBuffer(n)
        steps = np.zeros(n, dtype=np.int64)             # each game's steps in the rollout ...
        deal_len = np.zeros(n, dtype=np.int64)          # ... and in its current deal
        active = np.ones(n, dtype=bool)
        ended = np.zeros(n, dtype=bool)                 # the deal is over (duplicate: the twin may still play)
        final_last = np.full((n, 4), -1, dtype=np.int64)   # each seat's last transition of the ended deal
        deal_return = np.zeros((n, 4))                  # real rewards (the figures)
        train_return = np.zeros((n, 4))                 # training credits (maybe shaped: what is paired)
        returns: dict[str, list[float]] = {k: [] for k in ("pool",) + BOT_KINDS}
        side_rows: list[tuple[float, float]] = []
        lengths: list[int] = []

        def start(games: list[int]) -> None:            # the next deals of games (and of their twins)
            started = self._deal_again(games, rng, len(pool), buf)
            tables = [i for i, _ in started]
            credits = batch.start_many(tables, [seed for _, seed in started])
            deal_return[tables] += credits
            train_return[tables] += credits

        start(list(range(half if dup else n)))
        while active.any():
            ids = np.flatnonzero(active & ~ended)
            credits, done = batch.step(ids, self._act(ids, policy, pool, gen, buf))   # maybe shaped
            buf.credit(ids, credits)
            train_return[ids] += credits
            deal_return[ids] += batch.last_real_credits        # the game's rewards, for the figures
            steps[ids] += 1
            deal_len[ids] += 1
            again = []                 # games (first tables with duplicate) to deal again
            for i in ids[np.flatnonzero(done)]:
                final_last[i] = buf.end_deal(i)
                lengths.append(int(deal_len[i]))
                deal_len[i] = 0
                ended[i] = True
                if dup and not ended[twin(i, n)]:
                    continue           # settled once its twin has finished the deal too
                tables = [i % half, i % half + half] if dup else [i]
                if dup:   # each learner seat's result relative to the same seat's at the other table
                    for g, t in (tables, tables[::-1]):
                        last = final_last[g]
                        buf.rewards[last[last >= 0]] -= train_return[t, last >= 0]
                for g in tables:
                    kind = seating.deal_kind[g]
                    if kind != "self":
                        returns[kind].append(float(deal_return[g, seating.learner_side[g]]))
                    for side in seating.sides(g):
                        paired = deal_return[g, side] - deal_return[twin(g, n), side] if dup else float("nan")
                        side_rows.append((float(deal_return[g, side]), float(paired)))
                deal_return[tables] = 0
                train_return[tables] = 0
                ended[tables] = False
                if steps[tables].max() >= self.num_steps:
                    active[tables] = False
                else:
                    again.append(tables[0])
            if again:
                start(again)
        stats = {"deals": len(lengths), "deal_length": float(np.mean(lengths)) if lengths else 0.0}
        for kind, r in returns.items():
            stats[f"return_vs_{kind}"] = float(np.mean(r)) if r else float("nan")
            stats[f"deals_vs_{kind}"] = len(r)
        return buf.build(int(steps.sum()), stats, np.array(side_rows, dtype=np.float64).reshape(-1, 2))
