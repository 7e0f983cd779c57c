"""Self-play collection: who sits where, and the learner's transitions.

Every deal of a rollout draws its opponents from ``opponent_mix``:

- ``self``: the learner (the current network) plays all four seats, and all
  four seats' decisions are training samples (one network shared by all seats:
  the observation is seat-relative);
- ``pool``: the learner plays one partnership (a random side), a past
  snapshot of itself the other;
- ``random`` / ``rule``: the learner against a partnership of scripted bots.

Each seat the learner plays is its own trajectory (a *stream*): its
decisions in order, each credited with the reward that seat received until
its next decision (the AEC ``last()`` accounting of the game batch).  The
final reward of a deal lands on each seat's last transition, which is marked
``done``.  Deals in progress when a game reaches ``num_steps`` are played to
the end, so a rollout holds complete deals only and needs no bootstrap value.

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

from .duplicate import check_pairs, rotate_seats, twin
from .sources import GameBatch

LEARNER = -1          # controller code of a learner seat
BOT = -2              # controller code of a scripted bot's seat
POOL0 = 0             # controller codes >= 0: index into the pool
BOT_KINDS = ("random", "rule")


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
        """The rollout with its tensors on ``device`` (the learner's; itself where they are there already)."""
        if self.masks.device == device:
            return self
        move = lambda t: None if t is None else t.to(device)   # noqa: E731 - a tensor or a SparseObs
        return dataclasses.replace(self, obs=move(self.obs), masks=move(self.masks), actions=move(self.actions),
                                   logprobs=move(self.logprobs), values=move(self.values), states=move(self.states))


class StreamBuffer:
    """Grows the learner's samples and links each seat's transitions (NumPy bookkeeping)."""

    def __init__(self, num_envs: int, capacity: int = 4096):
        self.obs: list[torch.Tensor] = []
        self.masks: list[torch.Tensor] = []
        self.actions: list[torch.Tensor] = []
        self.logprobs: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.states: list[torch.Tensor] = []
        self.n = 0
        self.rewards = np.zeros(capacity, dtype=np.float64)
        self.dones = np.zeros(capacity, dtype=bool)
        self.next_index = np.full(capacity, -1, dtype=np.int64)
        self.seats = np.zeros(capacity, dtype=np.int64)
        self.deal_ids = np.zeros(capacity, dtype=np.int64)
        self.last = np.full((num_envs, 4), -1, dtype=np.int64)   # last sample of each (game, seat)
        self.deal_of_game = np.zeros(num_envs, dtype=np.int64)
        self.deals = 0

    def new_deal(self, i: int) -> None:
        self.deal_of_game[i] = self.deals
        self.deals += 1

    def _grow(self, need: int) -> None:
        cap = len(self.rewards)
        if need <= cap:
            return
        new = max(need, 2 * cap)
        self.rewards = np.concatenate([self.rewards, np.zeros(new - cap)])
        self.dones = np.concatenate([self.dones, np.zeros(new - cap, dtype=bool)])
        self.next_index = np.concatenate([self.next_index, np.full(new - cap, -1, dtype=np.int64)])
        self.seats = np.concatenate([self.seats, np.zeros(new - cap, dtype=np.int64)])
        self.deal_ids = np.concatenate([self.deal_ids, np.zeros(new - cap, dtype=np.int64)])

    def add(self, envs: np.ndarray, seats: np.ndarray, obs, masks, actions, logprobs, values, states=None) -> None:
        """Append transitions taken by ``seats`` in games ``envs`` (one per game at most)."""
        if states is not None:
            self.states.append(states)
        k = len(envs)
        self._grow(self.n + k)
        idx = np.arange(self.n, self.n + k)
        self.obs.append(obs)
        self.masks.append(masks)
        self.actions.append(actions)
        self.logprobs.append(logprobs)
        self.values.append(values)
        prev = self.last[envs, seats]
        linked = prev >= 0
        self.next_index[prev[linked]] = idx[linked]
        self.last[envs, seats] = idx
        self.seats[idx] = seats
        self.deal_ids[idx] = self.deal_of_game[envs]
        self.n += k

    def credit(self, envs: np.ndarray, credits: np.ndarray) -> None:
        """Add ``credits[k, s]`` to the last transition of seat ``s`` in game ``envs[k]``
        (seats the learner does not play, or has not played yet, have none: dropped)."""
        last = self.last[envs]                      # [k, 4]
        has = (last >= 0) & (credits != 0.0)
        np.add.at(self.rewards, last[has], credits[has])

    def end_deal(self, i: int) -> np.ndarray:
        """Mark the deal of game ``i`` over; the index of each seat's last transition (``-1``: none)."""
        last = self.last[i].copy()
        self.dones[last[last >= 0]] = True
        self.last[i] = -1
        return last

    def build(self, env_steps: int, stats: dict, side_returns: np.ndarray | None = None) -> Rollout:
        if (self.last >= 0).any():
            raise RuntimeError("rollout ended with a deal in progress")
        cat = (lambda xs: torch.cat(xs)) if self.obs else (lambda xs: torch.zeros(0))
        n = self.n
        obs = SparseObs.cat(self.obs) if self.obs and isinstance(self.obs[0], SparseObs) else cat(self.obs)
        return Rollout(obs=obs, masks=cat(self.masks), actions=cat(self.actions),
                       logprobs=cat(self.logprobs), values=cat(self.values),
                       rewards=self.rewards[:n].copy(), dones=self.dones[:n].copy(),
                       next_index=self.next_index[:n].copy(), seats=self.seats[:n].copy(),
                       deal_ids=self.deal_ids[:n].copy(), env_steps=env_steps, stats=stats,
                       states=torch.cat(self.states) if self.states else None, side_returns=side_returns)


class SelfPlayCollector:
    """Plays ``num_steps`` steps (then finishes the deals) in every game of a batch.

    ``make_bot(kind)`` builds a scripted agent (``"random"``, ``"rule"``): one
    instance per game and seat, reset with a seed drawn from the rollout RNG.
    ``duplicate``: the games are pairs of tables playing the same deals (see the module docstring).
    ``compiled_bots``: a bot the source has compiled (``GameBatch.compiled_bot_actions``: Solo Whist's rule bot
    in the engine) plays through it, all its games in one call; ``False`` asks the Python bots seat by seat.
    """

    def __init__(self, batch: GameBatch, opponent_mix: dict, num_steps: int, make_bot, duplicate: bool = False,
                 compiled_bots: bool = True):
        self.batch = batch
        self.compiled_bots = bool(compiled_bots)
        self.kinds = [k for k, p in opponent_mix.items() if p > 0]
        self.probs = np.array([opponent_mix[k] for k in self.kinds], dtype=np.float64)
        self.probs /= self.probs.sum()
        self.num_steps = num_steps
        self.make_bot = make_bot
        self._bots: dict[tuple[int, int, str], object] = {}
        n = batch.num_envs
        if duplicate:
            check_pairs(n)
        self.duplicate = bool(duplicate)
        self.control = np.full((n, 4), LEARNER, dtype=np.int64)  # LEARNER, pool index, or BOT
        self.bot_kind: list[str | None] = [None] * n
        self.bot_seed = np.zeros((n, 4), dtype=np.int64)
        self.deal_kind: list[str] = ["self"] * n
        self.learner_side = np.zeros(n, dtype=np.int64)

    def _bot(self, i: int, seat: int, kind: str):
        key = (i, seat, kind)
        if key not in self._bots:
            self._bots[key] = self.make_bot(kind)
        return self._bots[key]

    def _new_deal(self, i: int, rng: np.random.Generator, pool_size: int, buf: StreamBuffer) -> int:
        """Draw game ``i``'s next deal (opponents, side, bots' seeds); the seed to start it with."""
        buf.new_deal(i)
        kind = self.kinds[rng.choice(len(self.kinds), p=self.probs)]
        if kind == "pool" and pool_size == 0:
            kind = "self"   # no snapshot yet: the current policy is its own past
        side = int(rng.integers(2))
        self.deal_kind[i] = kind
        self.learner_side[i] = side
        self.control[i] = LEARNER
        self.bot_kind[i] = None
        if kind != "self":
            other = [s for s in range(4) if s % 2 != side]
            if kind == "pool":
                self.control[i, other] = POOL0 + int(rng.integers(pool_size))
            else:
                self.control[i, other] = BOT
                self.bot_kind[i] = kind
                for s in other:
                    self.bot_seed[i, s] = int(rng.integers(2**31))
                    self._bot(i, s, kind).reset(int(self.bot_seed[i, s]))
        return int(rng.integers(2**31))

    def _mirror(self, i: int, j: int, buf: StreamBuffer) -> None:
        """Game ``j``'s next deal is game ``i``'s, every controller one seat on (duplicate training)."""
        buf.new_deal(j)
        self.deal_kind[j] = self.deal_kind[i]
        self.learner_side[j] = 1 - self.learner_side[i]
        self.control[j] = rotate_seats(self.control[i])
        self.bot_kind[j] = self.bot_kind[i]
        self.bot_seed[j] = rotate_seats(self.bot_seed[i])
        for s in np.flatnonzero(self.control[j] == BOT):
            self._bot(j, int(s), self.bot_kind[j]).reset(int(self.bot_seed[j, s]))

    def _deal_again(self, games: list[int], rng: np.random.Generator, pool_size: int,
                    buf: StreamBuffer) -> list[tuple[int, int]]:
        """Draw the next deals of ``games`` (the first tables of their pairs with ``duplicate``, whose
        twins get the same deal); ``(game, seed)`` of every game to start."""
        if not self.duplicate:
            return [(i, self._new_deal(i, rng, pool_size, buf)) for i in games]
        half = self.batch.num_envs // 2
        out = []
        for a in games:
            seed = self._new_deal(a, rng, pool_size, buf)
            self._mirror(a, a + half, buf)
            out += [(a, seed), (a + half, seed)]
        return out

    def _observe(self, ids: np.ndarray, sparse: bool):
        """The observations of games ``ids`` as the policy reads them (dense, or active entries) and masks."""
        if sparse:
            index, weight, masks = self.batch.observe_active(ids)
            return SparseObs(torch.from_numpy(index), torch.from_numpy(weight), self.batch.obs_size), torch.from_numpy(masks)
        obs, masks = self.batch.observe(ids)
        return torch.from_numpy(obs), torch.from_numpy(masks)

    def _sides(self, i: int) -> list[int]:
        """The sides the learner played in game ``i``'s deal (both in self-play)."""
        return [0, 1] if self.deal_kind[i] == "self" else [int(self.learner_side[i])]

    @torch.no_grad()
    def collect(self, policy: torch.nn.Module, pool: list[torch.nn.Module], rng: np.random.Generator,
                gen: torch.Generator, critic: torch.nn.Module | None = None) -> Rollout:
        """One rollout.  With ``critic`` (a centralised critic), the learner's values come from it, on the
        games' ``state()``, which only the critic sees."""
        batch = self.batch
        n = batch.num_envs
        dup = self.duplicate
        half = n // 2
        buf = StreamBuffer(n)
        steps = np.zeros(n, dtype=np.int64)
        active = np.ones(n, dtype=bool)
        ended = np.zeros(n, dtype=bool)                 # duplicate: the deal is over, its twin still plays
        final_last = np.full((n, 4), -1, dtype=np.int64)   # each seat's last transition of the ended deal
        returns: dict[str, list[float]] = {k: [] for k in ("pool",) + BOT_KINDS}
        side_rows: list[tuple[float, float]] = []
        deal_return = np.zeros((n, 4))                  # real rewards (the figures)
        train_return = np.zeros((n, 4))                 # training credits (maybe shaped: what is paired)
        lengths: list[int] = []
        deal_len = np.zeros(n, dtype=np.int64)
        sparse = bool(getattr(policy, "sparse_input", False))
        first = self._deal_again(list(range(half if dup else n)), rng, len(pool), buf)
        credits0 = batch.start_many([i for i, _ in first], [s for _, s in first])
        deal_return[[i for i, _ in first]] += credits0
        train_return[[i for i, _ in first]] += credits0
        total_steps = 0
        while active.any():
            ids = np.flatnonzero(active & ~ended)
            seats = batch.acting_seats()[ids]
            obs_t, masks_t = self._observe(ids, sparse)
            ctrl = self.control[ids, seats]
            actions = np.empty(len(ids), dtype=np.int64)
            rows = np.flatnonzero(ctrl == LEARNER)
            if rows.size:
                logits, values = policy(obs_t[rows])
                states = None
                if critic is not None:
                    states = torch.from_numpy(batch.states(ids[rows]))
                    values = critic(states, torch.from_numpy(seats[rows]))
                dist = MaskedCategorical(logits, masks_t[rows])
                a = dist.sample(gen)
                actions[rows] = a.numpy()
                buf.add(ids[rows], seats[rows], obs_t[rows], masks_t[rows], a, dist.log_prob(a), values, states)
            for p in (np.unique(ctrl[ctrl >= POOL0]) if (ctrl >= POOL0).any() else ()):
                prow = np.flatnonzero(ctrl == p)
                logits, _ = pool[p](obs_t[prow])
                actions[prow] = MaskedCategorical(logits, masks_t[prow]).sample(gen).numpy()
            bot_rows = np.flatnonzero(ctrl == BOT)
            row_kinds = np.array([self.bot_kind[i] for i in ids[bot_rows]], dtype=object)
            for kind in sorted(set(row_kinds)):
                rows_of_kind = bot_rows[row_kinds == kind]
                compiled = batch.compiled_bot_actions(kind, ids[rows_of_kind]) if self.compiled_bots else None
                if compiled is not None:
                    actions[rows_of_kind] = compiled
                    continue
                for k in rows_of_kind:
                    i = ids[k]
                    ob, env, agent = batch.bot_view(i)
                    actions[k] = self._bot(i, seats[k], kind).act(ob, env=env, agent=agent)
            credits, done = batch.step(ids, actions)    # the training signal (maybe shaped)
            real = batch.last_real_credits              # the game's rewards, for the figures
            total_steps += len(ids)
            steps[ids] += 1
            deal_len[ids] += 1
            paid = credits.any(axis=1)
            if paid.any():
                buf.credit(ids[paid], credits[paid])
                train_return[ids[paid]] += credits[paid]
            paid = real.any(axis=1)
            if paid.any():
                deal_return[ids[paid]] += real[paid]
            finished = []          # games (first tables with duplicate) whose deal is settled
            for k in np.flatnonzero(done):
                i = ids[k]
                final_last[i] = buf.end_deal(i)
                lengths.append(int(deal_len[i]))
                deal_len[i] = 0
                if not dup:
                    finished.append(i)
                    continue
                ended[i] = True
                if ended[twin(i, n)]:
                    finished.append(min(i, twin(i, n)))
            again = []
            for a in finished:
                tables = [a, a + half] if dup else [a]
                if dup:   # each learner seat's result relative to the same seat's at the other table
                    for g, t in ((a, a + half), (a + half, a)):
                        last = final_last[g]
                        has = last >= 0
                        buf.rewards[last[has]] -= train_return[t, has]
                for g in tables:
                    kind = self.deal_kind[g]
                    if kind != "self":
                        returns[kind].append(float(deal_return[g, self.learner_side[g]]))
                    for side in self._sides(g):
                        paired = deal_return[g, side] - deal_return[twin(g, n), side] if dup else float("nan")
                        side_rows.append((float(deal_return[g, side]), float(paired)))
                deal_return[tables] = 0
                train_return[tables] = 0
                ended[tables] = False
                if steps[tables].max() >= self.num_steps:
                    active[tables] = False
                else:
                    again.append(a)
            if again:
                started = self._deal_again(again, rng, len(pool), buf)
                credits0 = batch.start_many([i for i, _ in started], [s for _, s in started])
                deal_return[[i for i, _ in started]] += credits0
                train_return[[i for i, _ in started]] += credits0
        stats = {"deals": len(lengths), "deal_length": float(np.mean(lengths)) if lengths else 0.0}
        for kind, r in returns.items():
            stats[f"return_vs_{kind}"] = float(np.mean(r)) if r else float("nan")
            stats[f"deals_vs_{kind}"] = len(r)
        return buf.build(total_steps, stats, np.array(side_rows, dtype=np.float64).reshape(-1, 2))


def default_bot_factory(game):
    """``make_bot(kind)``: the scripted agent ``kind`` (``random``, ``rule``) of ``game`` (its record) from the
    agent registry."""
    from vint_env.agents.registry import load_agent

    def make_bot(kind: str):
        return load_agent(kind, game=game)
    return make_bot
