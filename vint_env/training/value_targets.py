"""Action values as imitation targets: what each legal card is worth on the true deal, double-dummy.

Behaviour cloning copies a teacher's choices, so a clone is at best as good
as its teacher.  With ``teacher_values: dd`` the teacher still plays the deals
(its play decides which positions are seen), but every card decision is
labelled with the *points* each legal card is worth to the deciding side if
all four players then play double-dummy on the true deal: the tricks that
card keeps (DDS, all cards of a position in one search, all positions of a
deal in one batch) turned into the side's points for the deal by the game's
own scoring (a Vint contract's overtricks, undertricks and slams; Whist's
tricks over six), with premiums fixed by the deal (honours, coronets) left
out because no card changes them.

A policy that regresses these values from its *observation* learns, for
each card, the mean of its double-dummy worth over the deals consistent
with what the player has seen, weighted by how often the teacher's play
reaches that observation: the quantity PIMC estimates by sampling deals, at
the cost of one forward pass instead of a dozen DDS solves.

Auction decisions (Vint) and games without a double-dummy solver keep the
teacher's action as their target (:func:`value_games` lists the games that
have values).

With ``teacher_values: rollout`` (every game, auction and play alike; Solo
Whist has no double-dummy solver) each decision with a choice is labelled,
for every legal action, with the points the deciding seat ends the deal with
if it takes that action and then all four seats follow the teacher to the
end *on the true deal*: a rollout of a copy of the env and of the four
teacher agents (:class:`RolloutValues`).  The action the teacher took is not
rolled out: its value is the deal's real outcome.  Regressed from the
observation, these values are the teacher's action values ``Q(info, a)``
averaged over the deals consistent with what the player has seen, so the
greedy clone is one step of policy improvement over the teacher.
``teacher_values: rollout_auction`` values only the auction's decisions (the
calls, and Solo Whist's trump choice) that way; card decisions keep the
teacher's card as their target: Solo Whist's auction has a few decisions
a deal, its card play some 25 with a choice, so the same time buys about
five times the deals.
"""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np

from vint_env.envs.playing import play_episode
from vint_env.games import Game

VALUE_KINDS = ("", "dd", "rollout", "rollout_auction")
ROLLOUT_KINDS = ("rollout", "rollout_auction")


def value_games() -> tuple[str, ...]:
    """Games whose card decisions get double-dummy values (four hands, fixed partnerships)."""
    from vint_env.agents.search.pimc_games import POSITION_OF
    return tuple(sorted(POSITION_OF))


def check_values(kind: str, game: Game, env_kwargs: dict | None = None) -> None:
    """Refuse a value kind that is unknown or that the game (its record; or its env options) does not have,
    naming both."""
    if kind not in VALUE_KINDS:
        raise ValueError(f"teacher_values must be one of {VALUE_KINDS}, got {kind!r}")
    name = game.name
    if kind == "dd" and name not in value_games():
        raise ValueError(f"teacher_values 'dd' needs a four-hand game with fixed partnerships "
                         f"({', '.join(value_games())}), not {name!r}: its card play has no double-dummy solver")
    episode = (env_kwargs or {}).get("episode", "deal")
    if kind in ROLLOUT_KINDS and episode != "deal":
        raise ValueError(f"teacher_values {kind!r} values each action by the end of its deal: it needs deal "
                         f"episodes (env_kwargs episode='deal'), not episode={episode!r}")


class DealValues:
    """Collects the card decisions of one deal, then solves them all in one DDS batch.

    ``note(row, env, observation)`` before each decision (False if it is not a
    card decision); ``solve()`` after the deal returns, per noted decision,
    an array of the env's action size with each legal card's points and NaN
    elsewhere.
    """

    def __init__(self, game: Game, num_actions: int):
        from vint_env.agents.search.pimc_games import POSITION_OF
        self.record = game
        self.position_of = POSITION_OF[self.record.name]
        self.layout = self.record.layout
        self.num_actions = num_actions
        self.requests: list = []     # (row, dds position, tricks won, points table, legal); forced: (row, legal)

    def note(self, row: int, env, observation: dict) -> bool:
        """Record decision ``row`` if it is a card decision with a choice; True if recorded."""
        play = getattr(env.unwrapped.deal, "play", None)
        if play is None:                       # the auction (Vint): no card to value
            return False
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if len(legal) == 1:                    # forced: worth 0 against itself, nothing to solve
            self.requests.append((row, None, 0, {}, legal))
            return True
        pos = self.position_of(self.record.decode(observation["observation"]))
        won = pos.side_tricks[0]
        points = {t: pos.points(t) for t in range(won, 14)}
        trick = tuple(play.trick)
        self.requests.append((row, (tuple(play.hands), play.trump, play.leader, trick), won, points, legal))
        return True

    def solve(self) -> dict[int, np.ndarray]:
        from vint_env.agents.search.dds_batch import solve_positions
        out: dict[int, np.ndarray] = {}
        todo = [r for r in self.requests if len(r[4]) > 1]
        solved = solve_positions([r[1] for r in todo]) if todo else []
        by_row = {r[0]: s for r, s in zip(todo, solved)}
        for row, _pos, won, points, legal in self.requests:
            v = np.full(self.num_actions, np.nan, dtype=np.float32)
            if len(legal) == 1:
                v[legal[0]] = 0.0
            else:
                tricks = by_row[row]
                if set(tricks) != set(legal):
                    raise RuntimeError(f"double-dummy cards {sorted(tricks)} are not the legal cards {legal}")
                for a in legal:
                    v[a] = points[won + tricks[a]]
            out[row] = v
        self.requests = []
        return out


def clone_env(env):
    """An independent copy of a raw card-game env in the middle of a deal episode: stepping it leaves
    ``env`` untouched and goes exactly as ``env`` would (the rules state copied, the PettingZoo
    bookkeeping copied, the observation rows re-encoded from the copied deal when first observed)."""
    from vint_env.envs.base import FreshViews
    from vint_env.envs.seat_views import SeatViews
    if getattr(env, "rubber", None) is not None:
        raise ValueError("clone_env copies deal episodes only, not a rubber")
    new = copy.copy(env)
    new.deal = env.deal.copy()
    new._rng = copy.deepcopy(env._rng)
    new.agents = list(env.agents)
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        setattr(new, name, dict(getattr(env, name)))
    new._views = (SeatViews(new.LAYOUT, new._encode, new._write_trick_counts) if new.INCREMENTAL_VIEWS
                  else FreshViews(new.LAYOUT.size, new._encode))
    return new


def clone_agent(agent):
    """A copy of an agent in mid-deal (its memory and random state), sharing its network, if any
    (a policy network is only read while playing)."""
    torch = sys.modules.get("torch")
    memo = {}
    if torch is not None:
        memo = {id(v): v for v in vars(agent).values() if isinstance(v, torch.nn.Module)}
    if not memo:
        try:                   # a pickle round trip copies a rule bot's memory 3x faster than deepcopy
            return pickle.loads(pickle.dumps(agent, pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            pass
    return copy.deepcopy(agent, memo)


class RolloutValues:
    """Values every legal action of the teacher's decisions by rollouts on the true deal.

    ``agents``: the four teacher agents playing the deal (seat order), read at each
    ``note(row, env, observation)`` (called before the teacher acts), which keeps a copy of the env
    and of the agents when there is a choice.  ``solve(taken)`` after the deal returns, per noted
    decision, an array of the env's action size: for each legal action the points (the game's
    points, for the deciding seat: its side's in a partnership game) the seat receives from that
    decision to the end of the deal if it takes the action and all four seats then play as the
    teacher (the deciding agent has seen the position: what it would have chosen is replaced by
    the action); NaN elsewhere; a forced action gets 0.  ``taken``: ``{row: (action, return)}``, the
    action the teacher took and the env rewards the seat went on to receive: that action's value,
    not rolled out (without it, every legal action is rolled out).  ``cards=False``: card decisions
    are not recorded (no values: their target stays the teacher's card).
    """

    def __init__(self, game: Game, num_actions: int, agents: list, cards: bool = True):
        self.points_scale = game.points_scale
        self.num_actions = num_actions
        self.agents = agents
        self.cards = cards
        self.requests: list = []     # (row, legal, seat name, env copy or None, agent copies, to points)

    def note(self, row: int, env, observation: dict) -> bool:
        """Record decision ``row`` (every decision, or with ``cards=False`` every one but the cards'); True
        if recorded."""
        raw = env.unwrapped
        if getattr(raw, "episode", "deal") != "deal":
            raise ValueError(f"teacher_values 'rollout' needs deal episodes, not episode={raw.episode!r}")
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not self.cards and legal[0] < 52:       # a card decision (cards are actions 0..51, calls after)
            return False
        if len(legal) == 1:
            self.requests.append((row, legal, None, None, None, 0.0))
            return True
        name = raw.agent_selection
        env_copy, agents = clone_env(raw), [clone_agent(a) for a in self.agents]
        # The deciding seat sees this position before its action is imposed, as in a deal where the teacher
        # decides (a rule bot's memory of the tricks, a sampling policy's random state move on).
        agents[raw.possible_agents.index(name)].act(observation, env=env_copy, agent=name)
        self.requests.append((row, legal, name, env_copy, agents, self.points_scale / raw.reward_scale))
        return True

    def solve(self, taken: dict | None = None) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for row, legal, seat, env, agents, to_points in self.requests:
            v = np.full(self.num_actions, np.nan, dtype=np.float32)
            if env is None:
                v[legal[0]] = 0.0
                out[row] = v
                continue
            todo = list(legal)
            if taken is not None and row in taken:
                action, got = taken[row]
                if action not in legal:
                    raise ValueError(f"decision {row}: the teacher's action {action} is not legal ({legal})")
                v[action] = got * to_points
                todo.remove(action)
            for i, a in enumerate(todo):
                last = i == len(todo) - 1          # the kept copies serve the last rollout
                v[a] = to_points * rollout(env if last else clone_env(env),
                                           agents if last else [clone_agent(x) for x in agents], seat, a)
            out[row] = v
        self.requests = []
        return out


def rollout(env, agents: list, seat: str, action: int) -> float:
    """The rewards (env units) ``seat`` receives from its ``action`` to the end of the deal, all four
    seats then played by ``agents`` (seat order, :func:`~vint_env.envs.playing.play_episode`); plays ``env``
    and the agents on."""
    env.step(action)
    got = env.rewards[seat]

    def seat_done() -> bool:
        return env.terminations[seat] or env.truncations[seat]

    def collect(decision) -> None:
        nonlocal got
        got += env.rewards[seat]

    if not seat_done():
        play_episode(env, [_LastTrickPlayed(agent, env) for agent in agents], after=collect, stop=seat_done)
    return float(got)


class _LastTrickPlayed:
    """A seat of a rollout: its agent (shown the env), except in the last trick, where each hand holds
    one card and nobody decides anything: that card, without asking the agent."""

    needs_env = False

    def __init__(self, agent, env):
        self.agent, self.env = agent, env

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        play = getattr(self.env.deal, "play", None)
        if play is not None and play.tricks_played == 12:
            return self.env.legal_actions()[0]
        return int(self.agent.act(observation, env=self.env, agent=agent))


__all__ = ["VALUE_KINDS", "ROLLOUT_KINDS", "value_games", "check_values", "DealValues", "RolloutValues", "clone_env",
           "clone_agent", "rollout"]
