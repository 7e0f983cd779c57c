"""Decisions' action values under a network's own play, by batched rollouts on the fast engine.

``teacher_values: rollout_auction`` (:mod:`vint_env.training.value_targets`) labels each call of a
teacher with the points its seat ends the deal with if it makes that call and all four seats then play
on as the teacher, one env copy and one rollout at a time.  With a network in the seats that costs a
forward pass per card of every rollout (seconds a deal).  :func:`action_values` does the same on the
batched engine (:mod:`vint_env.vector`): ``deals`` deals are played by the network (greedy) in all
four seats; every decision with a choice of the kind asked for (``decisions``: the auction's calls and
Solo Whist's trump choice, the play's cards, or both) is copied once per legal action, the action
imposed, and all copies are played to the end of the deal together, the network choosing every action
of every seat, one batched forward pass a step.  The value of an action is the points its seat receives
from that decision to the end of the deal (the game's points: Solo Whist's own payment, a partnership
game's side difference), on the true deal.  With ``opponents="rule"`` the network sits in one seat only
and the engine's compiled rule bot in the other three (each deal once for each seat), so that the
decisions are valued for the table the network meets in an evaluation against the rule bot, not for a
table of copies of itself.  :func:`call_values` is the calls alone.

With ``samples=K`` the forks are played on ``K`` deals of the cards the deciding seat cannot see, dealt
again consistently with its view (:mod:`vint_env.training.redeal`), and an action's value is its mean
outcome over them: a search on information (PIMC) whose rollouts are the network's own play, on the
same decisions, row for row, as the true deal's values.

Regressed from the observation (the imitation loss's value rows), the true deal's values are the
policy's own action values ``Q_pi(info, a)`` averaged over the deals consistent with what the player has
seen: the greedy network trained on them is one step of policy iteration over ``pi``, card play
included (a call the network's card play cannot make is valued as the network plays it, not as the rule
bot would).  The data are a :class:`~vint_env.training.teacher_data.TeacherData` whose rows are the
valued decisions (action: the network's own greedy choice; return: its value, on the true deal its real
outcome).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from vint_env.games import Game
from vint_env.cards import NUM_CARDS
from vint_env.vector.state import VintBatchState

from .redeal import deals_like
from .teacher_data import TeacherData


def take_rows(state: VintBatchState, idx: np.ndarray) -> VintBatchState:
    """A new batch state holding copies of games ``idx`` of ``state`` (repeats allowed)."""
    return VintBatchState(**{k: v[idx] for k, v in vars(state).items()})


def join_states(states: list[VintBatchState]) -> VintBatchState:
    """A new batch state holding copies of the games of ``states``, one batch after the other."""
    return VintBatchState(**{k: np.concatenate([getattr(s, k) for s in states]) for k in vars(states[0])})


class PolicyLogits:
    """The policy logits of ``net`` alone (no value head), the first layer of an MLP read sparsely.

    The observations are 0/1 and mostly zero (Solo Whist: some 80 of 1096 entries), so the first
    layer is the sum of the weight rows of the active entries (``embedding_bag``): the same numbers
    as ``net(obs)[0]`` up to float rounding, at a fraction of the cost."""

    def __init__(self, net: torch.nn.Module):
        from vint_env.agents.learned.networks import MLPActorCritic
        self.net = net
        self.sparse = isinstance(net, MLPActorCritic)
        if self.sparse:
            first = net.actor_torso[0]
            self.rows = first.weight.detach().t().contiguous()          # [D, H]
            self.bias = first.bias.detach()
            self.rest = net.actor_torso[1:]

    @torch.no_grad()
    def __call__(self, obs: np.ndarray) -> torch.Tensor:
        if not self.sparse:
            return self.net(torch.as_tensor(np.asarray(obs, dtype=np.float32)))[0]
        from vint_env.agents.learned.sparse import active_entries
        index, weight = active_entries(np.asarray(obs))
        h = torch.nn.functional.embedding_bag(torch.from_numpy(index).long(), self.rows,
                                              per_sample_weights=torch.from_numpy(weight), mode="sum")
        return self.net.policy_head(self.rest(h + self.bias))


@torch.no_grad()
def greedy(net, obs: np.ndarray, mask: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """The network's most valued legal action per row (``net``: a network or its :class:`PolicyLogits`)."""
    if not isinstance(net, PolicyLogits):
        net = PolicyLogits(net)
    out = np.empty(len(obs), dtype=np.int64)
    for s in range(0, len(obs), chunk):
        logits = net(obs[s:s + chunk])
        legal = torch.as_tensor(mask[s:s + chunk]).bool()
        out[s:s + chunk] = logits.masked_fill(~legal, float("-inf")).argmax(-1).numpy()
    return out


def _actions(net, state: VintBatchState, live: np.ndarray, learner: np.ndarray | None, bot) -> np.ndarray:
    """The action of every live game: the network's (greedy) in every seat, or, with a rule ``bot``, the
    network's where the seat to move is the game's ``learner`` seat and the bot's elsewhere (``net=None``:
    the bot's in every seat)."""
    act = np.zeros(state.batch_size, dtype=np.int64)
    mine = (np.zeros_like(live) if net is None else live if bot is None
            else live & (state.current_player == learner))
    if mine.any():
        act[mine] = greedy(net, state.observation[mine], state.legal_action_mask[mine])
    if bot is not None and (live & ~mine).any():
        act[live & ~mine] = bot.actions(state, live & ~mine)
    return act


def play_out(engine, state: VintBatchState, net, seats: np.ndarray, bot=None) -> np.ndarray:
    """Play every game of ``state`` (auto-reset off) to the end of its deal with ``net`` (greedy) in all
    seats, or, with the engine's rule ``bot`` (its memory of these games), ``net`` in seat ``seats[b]`` only
    and the bot in the other three (``net=None``: the bot, or a teacher with its interface, in all four);
    ``[B]`` the rewards seat ``seats[b]`` receives on the way (env units).
    Plays ``state`` on."""
    got = np.zeros(state.batch_size)
    rows = np.arange(state.batch_size)
    live = ~state.terminated
    while live.any():
        if live.mean() < 0.5 and live.sum() > 0:          # drop the finished games: fewer rows to step
            keep = np.flatnonzero(live)
            if bot is not None:
                bot = bot.take_rows(state.batch_size, keep)
            state, rows, seats = take_rows(state, keep), rows[keep], seats[keep]
            live = live[keep]
        engine.step(state, _actions(net, state, live, seats, bot))
        np.add.at(got, rows, np.where(live, state.rewards[np.arange(state.batch_size), seats], 0.0))
        live = live & ~state.terminated
    return got


def _auction_choice(state: VintBatchState, live: np.ndarray) -> np.ndarray:
    mask = state.legal_action_mask
    return live & (mask[:, NUM_CARDS:].any(1)) & (mask.sum(1) > 1)


def _card_choice(state: VintBatchState, live: np.ndarray) -> np.ndarray:
    mask = state.legal_action_mask
    return live & ~(mask[:, NUM_CARDS:].any(1)) & (mask.sum(1) > 1)


#: Who sits in the other seats while a decision is valued (``action_values``'s ``opponents``).
OPPONENTS = ("self", "rule")
#: Which decisions are valued: the auction's (calls, Solo Whist's trump choice), the play's (cards), or both.
DECISIONS = {"calls": _auction_choice, "cards": _card_choice,
             "all": lambda state, live: _auction_choice(state, live) | _card_choice(state, live)}


def call_values(net: torch.nn.Module, game: Game, seed: int, deals: int, batch: int = 256,
                fork_chunk: int = 8192, say=None, opponents: str = "self") -> TeacherData:
    """The auction's decisions valued: :func:`action_values` with ``decisions="calls"``."""
    return action_values(net, game, seed, deals, batch, fork_chunk, say, opponents, decisions="calls")


def action_values(net: torch.nn.Module, game: Game, seed: int, deals: int, batch: int = 256,
                  fork_chunk: int = 8192, say=None, opponents: str = "self", decisions: str = "calls",
                  keep: float = 1.0, samples: int = 0) -> TeacherData:
    """``deals`` deals of ``game`` played by ``net``, every decision of ``net`` with a choice of the kind
    ``decisions`` names (``"calls"``: the auction's; ``"cards"``: the play's; ``"all"``) valued for each legal action
    by rollouts (see the module docstring); with ``keep < 1`` a share ``keep`` of them, drawn from
    ``seed``.  Deal ``k`` is the engine's deal of seed ``seed * 1_000_003 + k``: the data depend on
    ``(net, game, seed, deals, opponents, decisions, keep, samples)`` only.

    ``samples=0``: each value is the outcome on the true deal.  ``samples=K``: a search on what the seat
    knows (PIMC): the mean outcome over ``K`` deals of the cards it cannot see, dealt again consistently
    with its view (:func:`vint_env.training.redeal.deals_like`), each played out as above; the decisions
    (and the rows) are the same as with ``samples=0``, so the two can be compared row by row.

    ``opponents="self"``: ``net`` plays all four seats, and every seat's calls are valued with ``net`` in
    the others (policy iteration for a table of copies).  ``opponents="rule"``: each deal is played four
    times, ``net`` in one seat and the engine's compiled rule bot (the game record's ``engine_rule_bot``)
    in the other three, once for each seat; ``net``'s calls are valued with the bot playing the other
    seats, as the evaluation harness seats an agent against the rule bot."""
    say = say or (lambda msg: None)
    if opponents not in OPPONENTS:
        raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}, got {opponents!r}")
    if decisions not in DECISIONS:
        raise ValueError(f"decisions must be one of {', '.join(DECISIONS)}, got {decisions!r}")
    if not 0.0 < keep <= 1.0:
        raise ValueError(f"keep must be a share in (0, 1], got {keep!r}")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ValueError(f"samples must be a whole number >= 0, got {samples!r}")
    chosen = DECISIONS[decisions]
    draw = np.random.default_rng(seed)                   # which decisions are kept
    deal_again = np.random.default_rng([seed, 1])        # the search's deals (apart: the same rows either way)
    record = game
    engine = record.engine_class()(auto_reset=False)
    if opponents == "rule" and record.engine_rule_bot is None:
        from vint_env.games import all_games
        have = ", ".join(g.name for g in all_games() if g.engine_rule_bot is not None)
        raise ValueError(f"opponents='rule' needs a rule bot compiled for {record.name}'s engine; "
                         f"it has none (games with one: {have})")
    to_points = record.points_scale / engine.reward_scale          # env rewards -> the game's points
    net.eval()
    net = PolicyLogits(net)
    copies = 4 if opponents == "rule" else 1
    parts = []
    t0 = time.perf_counter()
    for first in range(0, deals, batch):
        n = min(batch, deals - first)
        ids = np.repeat(np.arange(first, first + n), copies)
        learner = np.tile(np.arange(4), n) if copies == 4 else None
        state = engine.init(seed=(seed * 1_000_003 + ids).astype(np.int64))
        bot = record.engine_rule_bot_for(engine) if copies == 4 else None
        snaps, snap_deal, snap_bots = [], [], []
        live = ~state.terminated
        while live.any():
            valued = chosen(state, live)
            if learner is not None:
                valued &= state.current_player == learner
            if keep < 1.0:
                valued &= draw.random(state.batch_size) < keep
            choice = np.flatnonzero(valued)
            if choice.size:
                snaps.append(take_rows(state, choice))
                snap_deal.append(ids[choice])
                if bot is not None:                   # the bot's memory of these games as it is now
                    snap_bots.append(bot.take_rows(state.batch_size, choice))
            engine.step(state, _actions(net, state, live, learner, bot))
            live = live & ~state.terminated
        if not snaps:
            continue
        snap = join_states(snaps)
        deal_of = np.concatenate(snap_deal)
        snap_bot = None if bot is None else type(bot).joined(snap_bots)
        obs, mask = snap.observation.astype(np.float32), snap.legal_action_mask.astype(bool)
        seat = snap.current_player.astype(np.int64)
        mine = greedy(net, obs, mask)
        if samples:                              # the same forks on deals the seat cannot tell apart
            rep = np.repeat(np.arange(snap.batch_size), samples)
            dealt = deals_like(engine, snap, seat, samples, deal_again)
            dealt_bot = None if snap_bot is None else snap_bot.take_rows(snap.batch_size, rep)
            per_deal = fork_values(engine, dealt, dealt_bot, seat[rep], mask[rep], net, to_points, fork_chunk)
            values = per_deal.reshape(snap.batch_size, samples, -1).mean(1)
            rollouts = int(mask[rep].sum())
        else:
            values = fork_values(engine, snap, snap_bot, seat, mask, net, to_points, fork_chunk)
            rollouts = int(mask.sum())
        returns = values[np.arange(len(mine)), mine]
        parts.append(TeacherData.from_arrays(obs, mask, mine, returns, seat, deal_of, values))
        done = first + n
        rate = done / (time.perf_counter() - t0)
        left = (deals - done) / rate
        say(f"{decisions} values: {done}/{deals} deals, {sum(len(p) for p in parts)} decisions, "
            f"{rollouts} rollouts in the last batch, {rate:.1f} deals/s, about {left / 60:.0f} min left")
    return TeacherData.concat(parts)


def fork_values(engine, snap: VintBatchState, snap_bot, seat: np.ndarray, mask: np.ndarray, net, to_points: float,
                fork_chunk: int = 8192) -> np.ndarray:
    """``[B, A]``: for each game of ``snap`` and each legal action of ``mask``, the points seat ``seat[b]``
    receives if it takes that action and the deal is played out (:func:`play_out`; NaN off the mask)."""
    row_of, action_of = np.nonzero(mask)                 # one fork per (decision, legal action)
    values = np.full(mask.shape, np.nan, dtype=np.float32)
    for s in range(0, len(row_of), fork_chunk):
        r, a = row_of[s:s + fork_chunk], action_of[s:s + fork_chunk]
        fork = take_rows(snap, r)
        fork_bot = None if snap_bot is None else snap_bot.take_rows(snap.batch_size, r)
        engine.step(fork, a)
        got = fork.rewards[np.arange(len(r)), seat[r]].copy()
        got += play_out(engine, fork, net, seat[r].copy(), fork_bot)
        values[r, a] = got * to_points
    return values


__all__ = ["DECISIONS", "OPPONENTS", "action_values", "call_values", "fork_values", "play_out", "take_rows", "join_states", "greedy"]
