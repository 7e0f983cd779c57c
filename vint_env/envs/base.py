"""What the three PettingZoo AEC card-game envs share.

A game env subclasses :class:`CardGameEnv` and supplies its rules state and
encoders through a handful of hooks (``_start``, ``_apply``, ``_encode``,
...); this class does the PettingZoo bookkeeping: agents, spaces, seeding,
rewards, dead steps, masks, illegal-action errors and rendering dispatch.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from numbers import Integral
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..games import AGENT_SEAT, AGENTS
from ..rules.phase import Phase
from ..rules.tricks import IllegalActionError, MalformedActionError, check_action  # noqa: F401
from ..seeds import check_seed
from .order_enforcing import OrderEnforcingEnv
from .seat_views import SeatViews


class UnknownAgentError(KeyError, ValueError):
    """An agent name the env does not have (``observe("player_9")``)."""

    def __str__(self) -> str:          # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


@dataclass
class StepOutcome:
    """What one applied action did to the episode (one step's; what a whole deal came to is the game record's
    :class:`~vint_env.games.outcome.DealOutcome`).

    ``points``: raw points per seat earned by this action (a deal or rubber
    premium), or ``None``; ``infos``: extra info given to every agent.
    """

    points: list[float] | None = None
    terminated: bool = False
    truncated: bool = False
    infos: dict[str, Any] = field(default_factory=dict)


# What most actions do: nothing to score, the episode goes on (shared, never mutated).
NOTHING = StepOutcome()


_SUIT_BYTES = [bytes((x >> i) & 1 for i in range(13)) for x in range(1 << 13)]   # 13 bits -> 13 bytes


def _bits_mask(bits: int, n: int) -> np.ndarray:
    """Writable int8 mask of ``n`` >= 52 entries from a 52-bit int mask (bit i -> entry i)."""
    buf = bytearray(b"".join((_SUIT_BYTES[bits & 8191], _SUIT_BYTES[bits >> 13 & 8191],
                              _SUIT_BYTES[bits >> 26 & 8191], _SUIT_BYTES[bits >> 39 & 8191])))
    if n > 52:
        buf.extend(bytes(n - 52))
    return np.frombuffer(buf, dtype=np.int8)


class FreshViews:
    """Observation views encoded afresh at every ``observe`` (the interface of :class:`SeatViews`),
    for a game whose layout or seating :class:`SeatViews` does not follow."""

    def __init__(self, size: int, encode):
        self._size = size
        self._encode = encode

    def invalidate(self) -> None:
        pass

    def card_played(self, seat: int, card: int, deal, next_seat: int) -> None:
        pass

    def observation(self, seat: int, deal) -> np.ndarray:
        out = np.zeros(self._size, dtype=np.float32)
        self._encode(seat, out)
        return out


class CardGameEnv(AECEnv):
    """Shared PettingZoo AEC machinery for the four-seat card games.

    Subclasses set ``GAME`` (the game's record, which gives ``metadata``,
    ``NUM_ACTIONS``, ``LAYOUT``, ``STATE_SIZE`` and ``ACTION_TEXT``) and implement the
    hooks below.  ``AGENT_NAMES``: the agents, one per seat (default four);
    a game whose players also act for dummies (two-player Vint) lists its
    players, its ``_current_seat`` returns the index of the player to act,
    and it sets ``INCREMENTAL_VIEWS = False`` (its observations are encoded
    afresh at each ``observe``, not followed card by card by :class:`SeatViews`).
    """

    AGENT_NAMES: tuple[str, ...] = AGENTS
    INCREMENTAL_VIEWS = True
    NUM_ACTIONS: int
    RESET_OPTIONS: tuple[str, ...] = ()
    LAYOUT: Any
    STATE_SIZE: int

    GAME: Any = None

    def __init_subclass__(cls, **kwargs):
        """An env class that names its game record (``GAME = ...``) takes its PettingZoo ``metadata`` (the env
        name), ``NUM_ACTIONS``, ``LAYOUT``, ``STATE_SIZE`` and ``ACTION_TEXT`` from the record."""
        super().__init_subclass__(**kwargs)
        game = cls.__dict__.get("GAME")
        if game is not None:
            cls.metadata = {"name": game.env_name, "render_modes": ["ansi", "rgb_array", "human"],
                            "is_parallelizable": True, "render_fps": 2}
            cls.NUM_ACTIONS, cls.LAYOUT, cls.STATE_SIZE = game.num_actions, game.layout, game.state_size
            cls.ACTION_TEXT = staticmethod(game.action_text)

    def __init__(self, render_mode: str | None = None, reward_scale: float = 1.0):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        # reward_scale comes checked by the game's declared parameters (each env's GAME.check_options)
        self.render_mode = render_mode
        self._window = None
        self.reward_scale = float(reward_scale)
        agents = self.AGENT_NAMES
        self._agent_index = {a: i for i, a in enumerate(agents)}
        self.possible_agents = list(agents)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.LAYOUT.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.NUM_ACTIONS,), dtype=np.int8),
        })
        act_space = spaces.Discrete(self.NUM_ACTIONS)
        self.observation_spaces = {a: obs_space for a in agents}
        self.action_spaces = {a: act_space for a in agents}
        self.state_space = spaces.Box(0.0, 1.0, (self.STATE_SIZE,), dtype=np.float32)
        self._rng = np.random.default_rng()
        self._seat = -1
        self._views = (SeatViews(self.LAYOUT, self._encode, self._write_trick_counts) if self.INCREMENTAL_VIEWS
                       else FreshViews(self.LAYOUT.size, self._encode))
        # Whether some reward / info was set by the last step (so a quiet step must clear it).
        self._rewards_set = self._infos_set = False

    # PettingZoo API -------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict (e.g. {{'deal': PBN, 'dealer': 0}}) or None, "
                             f"got {options!r}")
        # A reset that fails (a bad option) leaves the env as it was: its attributes and its random stream.
        saved, rng_state = dict(self.__dict__), self._rng.bit_generator.state
        try:
            if seed is not None:
                self._rng = np.random.default_rng(seed)
            options = dict(options or {})
            self._start(options)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            self._rng.bit_generator.state = rng_state
            raise
        if options:
            # A warning, not an error: PettingZoo's api_test resets with a dummy option.
            warnings.warn(f"{self.metadata['name']}: ignoring unknown reset option(s) {sorted(options)}; "
                          f"known: {self.RESET_OPTIONS}", stacklevel=2)
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}
        self._seat = self._current_seat()
        self.agent_selection = agents[self._seat]
        self._skip_agent_selection = None
        self._views.invalidate()
        self._rewards_set = self._infos_set = False
        #: The actions applied since ``reset``, in order (what replays the episode from its deal).
        self.action_history: list[int] = []

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self.check_action(action, agent)
        if not self._is_legal(a):
            legal = self._legal_actions()
            raise IllegalActionError(
                f"illegal action {a} ({self.action_text(a)}) by {agent}; legal actions: "
                + ", ".join(f"{x} ({self.action_text(x)})" for x in legal))
        self._cumulative_rewards[agent] = 0.0
        deal, seat = self.deal, self._seat
        outcome = self._apply(a)
        self.action_history.append(a)
        agents = self.possible_agents
        if outcome is NOTHING:
            # The common step, kept lean: no reward, no info, the same episode goes on.
            if self._rewards_set:
                for ag in agents:
                    self.rewards[ag] = 0.0
                self._rewards_set = False
            if self._infos_set:
                for ag in agents:
                    self.infos[ag] = {}
                self._infos_set = False
            self._seat = nxt = self._current_seat()
            self.agent_selection = agents[nxt]
            # Keep the seats' observations up to date: a card or a call in place, else re-encode.
            if self.deal is deal and a < 52 and not self._card_changes_more(a):
                self._views.card_played(seat, a, deal, nxt)
            elif not (self.deal is deal and a >= 52 and self._write_call(seat, a)):
                self._views.invalidate()
            if self.render_mode == "human":
                self.render()
            return
        self._views.invalidate()
        self._rewards_set = outcome.points is not None
        self._infos_set = bool(outcome.infos)
        if outcome.points is not None:
            for i, ag in enumerate(agents):
                self.rewards[ag] = outcome.points[i] * self.reward_scale
        else:
            for ag in agents:
                self.rewards[ag] = 0.0
        for ag in agents:
            self.infos[ag] = dict(outcome.infos) if outcome.infos else {}
        if outcome.terminated or outcome.truncated:
            for ag in agents:
                self.terminations[ag] = outcome.terminated
                self.truncations[ag] = outcome.truncated
            self._seat = -1
            # Finished agents take their dead steps in seat order, the actor first.
            self.agent_selection = agent
        else:
            self._seat = self._current_seat()
            self.agent_selection = agents[self._seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        seat = self._agent_index.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise UnknownAgentError(f"{self.metadata['name']}: no agent {agent!r}; its agents are "
                                    f"{', '.join(self.possible_agents)}")
        deal = self.deal
        if seat != self._seat:
            mask = np.zeros(self.NUM_ACTIONS, dtype=np.int8)
        elif deal.phase == Phase.PLAY:
            mask = _bits_mask(deal.play.legal_mask(), self.NUM_ACTIONS)
        else:
            mask = np.zeros(self.NUM_ACTIONS, dtype=np.int8)
            mask[self._legal_actions()] = 1
        return {"observation": self._views.observation(seat, deal), "action_mask": mask}

    def state(self) -> np.ndarray:
        return self._encode_state()

    def render(self):
        """``"ansi"``: the table as text; ``"rgb_array"``: its frame, an ``(H, W, 3)`` uint8 array
        (:mod:`.picture`); ``"human"``: the frame in a pygame window (:mod:`.window`; without pygame
        or a display the text is printed). Hands are shown as ``viewer`` may see them."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; "
                                  "pass render_mode='ansi', 'rgb_array' or 'human'")
            return None
        if self.render_mode == "ansi":
            return self._render_text()
        frame = self.render_frame()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            from .window import TableWindow
            self._window = TableWindow(self.metadata["name"], self.metadata["render_fps"])
        self._window.show(frame, self._render_text)
        return None

    def render_frame(self) -> np.ndarray:
        """The table's RGB frame (whatever the ``render_mode``), as ``render_mode="rgb_array"`` renders it."""
        from .picture import TableView, draw
        if self.deal is None:
            return draw(TableView(title=f"{self.metadata['name']}: not reset", hands=()))
        return draw(self._table_view())

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # helpers ----------------------------------------------------------------
    @property
    def current_seat(self) -> int:
        """Seat to move, -1 when the episode is over."""
        return self._seat

    def check_action(self, action, agent: str | None = None) -> int:
        """``action`` as an int action id of this game, or :class:`MalformedActionError` (None, bool,
        non-integer, out of range): the same error whatever the ``illegal_action`` mode."""
        who = f"{agent or self.agent_selection} sent action"
        if action is None:
            raise MalformedActionError(f"{who} None but is to move; only finished agents step with None")
        return check_action(action, self.NUM_ACTIONS, who)

    def legal_actions(self) -> list[int]:
        """Legal actions of the agent to move (empty when over)."""
        return self._legal_actions() if self._seat >= 0 else []

    # hooks ------------------------------------------------------------------
    # The game's rules state lives in ``self.deal`` (a state machine with
    # ``current_player``, ``legal_actions()``, ``is_legal(a)`` and ``apply(a)``;
    # in card play ``phase == "play"`` and ``play`` is its `TrickPlay`, and
    # actions 0..51 are the cards); ``ACTION_TEXT`` is the game's action-to-text
    # function.  ``_apply`` returns ``NOTHING`` when an action neither scores
    # nor ends the episode.
    ACTION_TEXT = staticmethod(str)
    deal: Any = None

    def _start(self, options: dict) -> None:
        """Start an episode; pop the reset options used (left-overs are warned about)."""
        raise NotImplementedError

    def _current_seat(self) -> int:
        return self.deal.current_player

    def _legal_actions(self) -> list[int]:
        return self.deal.legal_actions()

    def _is_legal(self, action: int) -> bool:
        return self.deal.is_legal(action)

    def _apply(self, action: int) -> StepOutcome:
        raise NotImplementedError

    def _encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The reference observation encoder (into the zeroed ``out`` when given)."""
        raise NotImplementedError

    def _write_trick_counts(self, rows: np.ndarray, play) -> None:
        """Clear and rewrite the trick-count block of the four seats' observation ``rows``."""
        raise NotImplementedError

    def _write_call(self, seat: int, action: int) -> bool:
        """Write ``seat``'s call ``action`` (just applied) into ``self._views.rows`` and return True,
        or return False to have every seat's observation re-encoded."""
        return False

    def _card_changes_more(self, card: int) -> bool:
        """Whether playing ``card`` (just applied, deal not over) changes the observations
        beyond the trick-play blocks that :class:`SeatViews` writes."""
        return False

    def _encode_state(self) -> np.ndarray:
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def _table_view(self):
        """What the table shows, as a :class:`~.picture.TableView` (hands as ``viewer`` may see them)."""
        raise NotImplementedError

    def action_text(self, action: int) -> str:
        """Text of an action id (``'SA'``, ``'pass'``, ``'3NT'`` ...), ``'out of range'`` if none."""
        try:
            return self.ACTION_TEXT(action)
        except ValueError:
            return "out of range"

def wrap(raw: CardGameEnv, illegal_action: str = "raise"):
    """PettingZoo's classic wrapper stack around a raw env, kept thin.

    ``illegal_action="raise"`` (default) lets the raw env raise an
    :class:`IllegalActionError`; ``"terminate"`` uses PettingZoo's
    ``TerminateIllegalWrapper`` (the offender gets -1, the episode ends).
    The outer wrapper is :class:`OrderEnforcingEnv`, PettingZoo's
    ``OrderEnforcingWrapper`` with the same checks and errors but no
    ``__getattr__`` chain on the AEC loop's attributes.  The classic envs'
    ``AssertOutOfBoundsWrapper`` is left out: the raw env already rejects an
    out-of-range action, with a clearer message, and every wrapper level costs
    each attribute access of the AEC loop.
    """
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
    env = raw
    if illegal_action == "terminate":
        env = _TerminateIllegal(env, illegal_reward=-1)
    return OrderEnforcingEnv(env)


class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` for well-formed actions only: a malformed one
    (999, -1, 1.5, None, True) gets the raw env's :class:`MalformedActionError`, as in "raise" mode,
    instead of being looked up in the mask (where -1 reads the last entry)."""

    def step(self, action):
        raw = self.env.unwrapped
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            action = raw.check_action(action, agent)
        super().step(action)


def env_factories(raw_env_class):
    """The module-level ``env`` and ``parallel_env`` of a game, PettingZoo style."""

    def env(illegal_action: str = "raise", **kwargs):
        return wrap(raw_env_class(**kwargs), illegal_action=illegal_action)

    def parallel_env(**kwargs):
        """Turn-based parallel version: only the agent to move acts each step."""
        return turn_based_aec_to_parallel(env(**kwargs))

    name = raw_env_class.metadata["name"]
    env.__doc__ = f"`{name}` with PettingZoo's classic wrapper stack (see :func:`wrap`)."
    parallel_env.__doc__ = f"`{name}`, turn-based parallel version: only the agent to move acts each step."
    return env, parallel_env


def take_option(options: dict, name: str, default):
    return options.pop(name) if name in options else default


# Reset options shared by the games: replayed deals, dealer, turned card ------------

def take_deals(options: dict, several: bool) -> list:
    """Pop the reset options ``deal`` / ``deals``: the deals (PBN or four hand masks) to play first.

    ``several``: whether the episode can hold more than one deal (rubber mode).
    """
    from ..cards import DeckError, parse_pbn, validate_deal
    deal = take_option(options, "deal", None)
    deals = take_option(options, "deals", None)
    if deal is not None and deals is not None:
        raise ValueError("give either the reset option 'deal' or 'deals', not both")
    if deals is not None and not isinstance(deals, (list, tuple)):
        raise DeckError(f"reset option 'deals' must be a list of deals (PBN strings or 4-tuples of hand masks)"
                        + ("; for one PBN string use the option 'deal'" if isinstance(deals, str) else "")
                        + f", got {type(deals).__name__} {deals!r:.40}")
    queued = [deal] if deal is not None else list(deals or [])
    if len(queued) > 1 and not several:
        raise ValueError("reset option 'deals' with more than one deal needs episode='rubber'")
    for d in queued:
        if not isinstance(d, (str, list, tuple, np.ndarray)):
            raise DeckError(f"a deal is a PBN string or four hand masks, got {type(d).__name__} {d!r:.40}")
    return [parse_pbn(d) if isinstance(d, str) else validate_deal(tuple(d)) for d in queued]


def take_dealer(options: dict, rng) -> int:
    """Pop the reset option ``dealer`` (a seat 0..3); drawn from ``rng`` when absent."""
    dealer = take_option(options, "dealer", None)
    if dealer is None:
        return int(rng.integers(4))
    if isinstance(dealer, (bool, np.bool_)) or not isinstance(dealer, Integral) or dealer not in (0, 1, 2, 3):
        raise ValueError(f"reset option 'dealer' must be a seat 0..3, got {dealer!r}")
    return int(dealer)


def take_turned_card(options: dict) -> int | None:
    """Pop the reset option ``turned_card`` (card text such as ``"H2"`` or a card id), or None."""
    from ..cards import DeckError, parse_card
    card = take_option(options, "turned_card", None)
    if card is None:
        return None
    if isinstance(card, str):
        try:
            return parse_card(card)
        except DeckError as e:
            raise ValueError(f"reset option 'turned_card': {e}") from None
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool) and 0 <= card < 52:
        return int(card)
    raise ValueError(f"reset option 'turned_card' must be card text like 'H2' or an id 0..51, got {card!r}")


def random_turned_card(rng, hand: int) -> int:
    """The dealer's turned card: a uniformly random card of the dealer's hand (docs/rules/index.md).

    Drawn with ``rng.choice`` over the cards (the same draw as ``integers(len(cards))``), so that the
    draw names the card itself (the OpenSpiel games make it a chance node whose outcomes are the cards)."""
    from ..cards import hand_cards
    return int(rng.choice(hand_cards(hand)))


def random_deal_for(queued: list, rng):
    """The next deal of an episode: the first queued (replayed) one, else a random one."""
    from ..cards import random_deal
    return queued.pop(0) if queued else random_deal(rng)
