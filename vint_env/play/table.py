"""One table where a person plays one seat against bots, driven step by step.

The PettingZoo env is the game: a :class:`TableDriver` keeps one env, lets
the bots act until it is the person's turn (or a deal ends), and takes the
person's action when it comes.  The terminal (`vint-play`,
:mod:`.session`) asks for that action on its prompt; the browser
(`vint-serve`) takes it from a request.  Both seat their bots with
:func:`seat_bots` and see every action and every finished deal through the
driver's callbacks.

The deals are the harness's boards: deal ``n`` of a table with seed ``s`` is
:func:`~vint_env.evaluation.deals.generate_board` ``(s, n)``, the env reset
with seed ``s * 1000 + n``, so a deal can be replayed through the env alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .. import games
from ..agents.base import Agent
from ..agents.registry import load_agent, short_spec
from ..agents.spec import AgentSpec, parse_spec
from ..envs.playing import Decision, play_episode
from ..inputs import excerpt
from ..evaluation.deals import generate_board
from ..evaluation.tables import make_env, reset_options
from ..evaluation.replay import DealReplay, TableRecorder


class TableStopped(RuntimeError):
    """The table was stopped (:meth:`TableDriver.stop`) while its bots were playing."""


@dataclass
class Seating:
    """Who sits where: the person's seat and a bot for every other seat (in two-player Vint: the
    person's player number and a bot for the other player; the keys are the env's agent indices)."""

    human: int
    bots: dict[int, Agent]
    labels: dict[int, str] = field(default_factory=dict)     # seat -> "you", "partner, rule", ...
    specs: dict[int, str] = field(default_factory=dict)      # seat -> the bot's agent spec


def seat_bots(game, human: int, partner: str | None = None, opponents: str = "rule") -> Seating:
    """The person at ``human`` and bots at the other seats of ``game``'s env (``game``: its record or its name).

    Partnership games: ``partner`` (default ``rule``) sits opposite, ``opponents`` at the sides; the
    other formats have no partner (``partner`` must be None) and ``opponents`` plays every other
    player.  A bad seat, spec or combination is a ValueError naming it.
    """
    record = games.get(game)
    players = 2 if record.format == games.TWO_PLAYER else 4
    if isinstance(human, bool) or not isinstance(human, int) or not 0 <= human < players:
        raise ValueError(f"{record.name}: seat must be one of 0..{players - 1}, got {human!r}")
    if not isinstance(opponents, (str, AgentSpec)):
        raise ValueError(f"opponents must be an agent spec string, got {excerpt(opponents)}")
    if partner is not None and not isinstance(partner, (str, AgentSpec)):
        raise ValueError(f"partner must be an agent spec string, got {excerpt(partner)}")
    if partner is not None and not record.partnership:
        raise ValueError(f"{record.name} has no fixed partner: the opponents play every other seat")
    opponents = parse_spec(opponents)
    partner = parse_spec(partner or "rule")
    for spec in (opponents, partner):
        if spec.kind == "human":
            raise ValueError("agent spec 'human' reads a terminal: one person plays a table, "
                             "the other seats are bots")
    specs = {}
    if record.partnership:
        specs[(human + 2) % players] = partner
    for s in range(players):
        if s != human and s not in specs:
            specs[s] = opponents
    bots = {s: load_agent(spec, game=record) for s, spec in specs.items()}
    labels = {human: "you"}
    for s, spec in specs.items():
        label = short_spec(spec)        # a checkpoint by its run and file name, not its whole path
        labels[s] = f"partner, {label}" if record.partnership and s == (human + 2) % players else label
    return Seating(human, bots, labels, {s: str(spec) for s, spec in specs.items()})


class TableDriver:
    """The env of one table, the bots at its seats and the record of every deal played.

    ``on_action(seat, action, deal, tricks_before, table_seat)`` is called after every action (the person's
    too; ``table_seat``: the seat it was made for, in two-player Vint maybe a dummy),
    ``on_deal_start(deal)`` before the first action of a deal, ``on_deal_end(record)`` when a deal is over.
    A ``hint_agent`` (the rule bot) acts in the person's place at every turn of theirs, so its memory
    of the deal stays right; what it would do is :attr:`suggestion`.
    """

    def __init__(self, game, seating: Seating, episode: str = "deal", seed: int = 0,
                 env_options: dict | None = None, hint_agent: Agent | None = None,
                 on_action: Callable | None = None, on_deal_start: Callable | None = None,
                 on_deal_end: Callable[[DealReplay], None] | None = None):
        self.record = games.get(game)
        self.game = self.record.name
        self.seating = seating
        self.episode = episode
        self.seed = seed
        self.env_options = dict(env_options or {})
        self.env = make_env(self.record, episode, **self.env_options)
        self.raw = self.env.unwrapped
        self.agents = tuple(self.env.possible_agents)
        if hasattr(self.raw, "viewer"):
            self.raw.viewer = seating.human
        self.on_action = on_action
        self.on_deal_start = on_deal_start
        self.on_deal_end = on_deal_end
        self.number = 0                     # the episode being played (deal mode: the deal; rubber mode: the rubber)
        self.recorder = TableRecorder(self.record)
        self.finished: list[DealReplay] = []   # every finished deal of the table, all episodes (with its outcome)
        self.deal_ended = False             # the last step finished a deal (cleared by advance)
        self._announced = None
        self.hint_agent = hint_agent
        self.suggestion: int | None = None    # the hint agent's action for the person's turn now
        self._steps = 0
        self._hinted_at = -1
        self._stepping = None                 # (deal, tricks before, seat played for) of the action under way
        self.stopped = False                 # set by stop(): no bot acts any more

    def stop(self) -> None:
        """Let no bot act any more (from any thread): the decision being made is the last, then
        :class:`TableStopped` ends the work of the call that asked for it."""
        self.stopped = True

    # ------------------------------------------------------------------ episodes
    def board(self, number: int):
        """The board (deal, dealer, turned card) of episode ``number``."""
        return generate_board(self.seed, number)

    def start(self, number: int | None = None) -> None:
        """Start episode ``number`` (default: the next one) and let the bots act."""
        self.number = self.number + 1 if number is None else number
        board = self.board(self.number)
        # a rubber deals its own cards after the first dealer (two players: the dealing player)
        options = (reset_options(self.record, board) if self.episode == "deal"
                   else {"dealer": board.dealer % len(self.agents)})
        for seat, bot in self.seating.bots.items():
            bot.reset(self.seed * 10 + seat)
        if self.hint_agent is not None:
            self.hint_agent.reset(self.seed)
        self.env.reset(seed=self.seed * 1000 + self.number, options=options)
        self.recorder = TableRecorder(self.record)
        self.deal_ended = False
        self._hinted_at = -1
        self.advance()

    def _announce(self) -> None:
        """``on_deal_start`` once per deal, before anything of it is shown or played."""
        deal = self.raw.deal
        if deal is not self._announced:
            self._announced = deal
            if self.on_deal_start:
                self.on_deal_start(deal)

    @property
    def details(self) -> list[dict]:
        """The table facts of each finished deal (contract, tricks ...): their outcomes' ``details``."""
        return [deal.outcome.details for deal in self.finished]

    @property
    def over(self) -> bool:
        """The episode is over (every deal of it played; the agents' last steps may be left)."""
        env = self.env
        return all(env.terminations[a] or env.truncations[a] for a in env.agents)

    @property
    def to_move(self) -> int | None:
        """The seat (env agent index) to act, None once the episode is over."""
        if self.over:
            return None
        name = self.env.agent_selection
        if self.env.terminations[name] or self.env.truncations[name]:
            return None
        return self.agents.index(name)

    @property
    def human_to_move(self) -> bool:
        return self.to_move == self.seating.human and not self.deal_ended

    def observation(self, seat: int | None = None) -> dict:
        return self.env.observe(self.agents[self.seating.human if seat is None else seat])

    def actions_this_deal(self) -> list[tuple[int, int]]:
        """``(seat, action)`` of every action so far in the deal being played."""
        rec = self.recorder
        return list(rec.deals[-1].actions) if rec.deals and rec._deal is self.raw.deal else []

    def legal(self) -> list[int]:
        """The person's legal actions now ([] when it is not the person's turn)."""
        if not self.human_to_move:
            return []
        return [int(a) for a in self.observation()["action_mask"].nonzero()[0]]

    # ------------------------------------------------------------------ steps
    def advance(self) -> None:
        """Let the bots act until it is the person's turn, a deal ends or the episode is over
        (:func:`~vint_env.envs.playing.play_episode`: the person's seat has no agent there)."""
        self.deal_ended = False
        play_episode(self.env, self.seating.bots, before=self._bot_to_act, after=self._after_bot,
                     stop=lambda: self.deal_ended)
        if self.human_to_move:
            self._announce()
            self._hint()

    def _bot_to_act(self, decision: Decision) -> None:
        if self.stopped:
            raise TableStopped("this table was stopped")
        self._before_step()

    def _after_bot(self, decision: Decision) -> None:
        self._after_step(decision.seat, decision.action)

    def _hint(self) -> None:
        """The hint agent's action for the person's turn (once per turn: it keeps memory)."""
        if self.hint_agent is None or self._hinted_at == self._steps:
            return
        self._hinted_at = self._steps
        hint = self.hint_agent
        name = self.agents[self.seating.human]
        self.suggestion = int(hint.act(self.observation(), self.env if hint.needs_env else None, name))

    def play(self, action: int) -> None:
        """The person's action (legal: check with :meth:`legal` first), then the bots' until the next stop."""
        if not self.human_to_move:
            raise ValueError("it is not your turn")
        self._step(self.seating.human, action)
        if not self.deal_ended:
            self.advance()

    def _step(self, seat: int, action: int) -> None:
        self._before_step()
        self.env.step(action)
        self._after_step(seat, action)

    def _before_step(self) -> None:
        """Note the deal as it stands before an action (its record, the tricks so far, the seat played for)."""
        raw = self.raw
        self._announce()
        self.recorder.before(raw)
        deal = raw.deal
        play = getattr(deal, "play", None)
        self._stepping = (deal, len(play.trick_winners) if play is not None else 0, deal.current_player)

    def _after_step(self, seat: int, action: int) -> None:
        deal, tricks_before, table_seat = self._stepping
        self._steps += 1
        self.suggestion = None
        self.recorder.after(self.raw, seat, action)
        if self.on_action:
            self.on_action(seat, action, deal, tricks_before, table_seat)
        if deal.is_over:
            self.deal_ended = True
            record = self.recorder.deals[-1]
            self.finished.append(record)
            if self.on_deal_end:
                self.on_deal_end(record)
