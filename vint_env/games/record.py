"""The record of one game: everything the layers above need to know about it, in one place.

A :class:`Game` names the game (``"vint"``; its PettingZoo env is
``vint_v0``), says how actions are numbered, written and parsed, how a player's
observation and the full state are laid out and encoded, what the points are
and how they are scaled into rewards, whether seats play in fixed partnerships
or each for themselves, and how to build its rules state, its envs, its rule
bot and its batched engine.  The envs, agents, batched engine, evaluation and
training read the record instead of naming games themselves.

The factories of the layers above (env, rule bot, batched engine) are
``"module:attribute"`` paths imported on first use: ``games`` sits below those
layers and must not import them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from .layout import Layout
from .outcome import DealOutcome
from .params import Parameter, check_options, parse_options

PARTNERSHIP = "partnership"   # fixed sides (0, 2) and (1, 3); duplicate swaps them
SOLO = "solo"                 # every player for themselves; rotated through the seats
TWO_PLAYER = "two_player"     # two agents, player_0 and player_1; duplicate swaps them


def _load(path: str):
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


@dataclass(frozen=True)
class Game:
    """One game of the package (see the module docstring)."""

    name: str                                   #: ``"vint"``, ``"whist"``, ``"solo_whist"``
    title: str                                  #: for people: ``"Vint"``, ``"Two-player Vint"``
    format: str                                 #: :data:`PARTNERSHIP` or :data:`SOLO`
    episodes: tuple[str, ...]                   #: episode kinds of the env (``"deal"``, ``"rubber"``)
    num_actions: int                            #: ``Discrete(num_actions)``: cards 0..51, then the calls
    action_text: Callable[[int], str]           #: ``'SA'``, ``'pass'``, ``'3NT'`` (ValueError if out of range)
    parse_action: Callable[[str], int]          #: the inverse of ``action_text`` (cards and calls)
    layout: Layout                              #: observation layout (name -> slice)
    state_layout: Layout                        #: ``state()`` layout
    encode_observation: Callable[..., Any]      #: ``(deal, seat, ...) -> vector`` (see the game module)
    encode_state: Callable[..., Any]            #: ``(deal, ...) -> vector``
    points_unit: str                            #: what the raw points count (``"points"``, ``"quarter points"``)
    reward_scale: float                         #: the env's default: reward = raw points x scale
    points_scale: float                         #: raw points x this = points (Solo Whist: quarter points / 4)
    new_deal: Callable[..., Any]                #: the rules' deal class
    new_rubber: Callable[..., Any] | None       #: the rules' rubber class, None without rubbers
    outcome: type[DealOutcome]                  #: what a deal came to (:mod:`vint_env.games.outcome`): ``VintOutcome`` ...
    turns_card: bool                            #: the dealer turns a card (reset option ``turned_card``)
    rule_bot: str                               #: ``"module:Class"`` of the rule bot (built with no arguments)
    decoder: Callable[[dict], Any] | None = None   #: what a player knows, from the decoded blocks (:mod:`.knowledge`)
    engine: str | None = None                   #: ``"module:Class"`` of the batched engine, None without one
    engine_code: int = -1                       #: the game's number inside the batched kernel
    engine_rule_bot: str | None = None          #: ``"module:Class"`` of the rule bot compiled for the engine, ``Class(engine)``
    analysis: str | None = None                 #: ``"module:function"``: the evaluation's per-board analysis
    summary: str | None = None                  #: ``"module:function"``: extra match-summary sections, ``f(match) -> dict``
    dd_agent: str | None = None                 #: ``"module:factory"`` of the double-dummy agent, ``factory(game)`` (the record)
    pimc_agent: str | None = None               #: ``"module:factory"`` of the PIMC agent, ``factory(game, spec, seed)``
    pimc: str | None = None                     #: ``"module:PLAN"``: PIMC's position builder and bidder for this game
    search: str | None = None                   #: ``"module:PLAN"``: the search agent's blueprint, model and replay
    version: int = 0                            #: the env's version suffix (``_v0``)
    parameters: tuple[Parameter, ...] = ()      #: the env's options, declared (:mod:`vint_env.games.params`)
    check_combination: Callable[[dict], None] | None = None   #: OptionError for options invalid together
    calls_help: str = "the call's name, as listed in your legal actions"   #: what a person types to call (vint-play)

    # ------------------------------------------------------------------ names
    @property
    def env_name(self) -> str:
        """The PettingZoo env's name, ``"vint_v0"``."""
        return f"{self.name}_v{self.version}"

    @property
    def class_name(self) -> str:
        """The name for identifiers, in CamelCase: ``"SoloWhist"``, ``"Vint2p"``."""
        return "".join(part.capitalize() for part in self.name.split("_"))

    @property
    def gym_id(self) -> str:
        """The Gymnasium id of its single-agent env, ``"vint_env/SoloWhist-v0"``."""
        return f"vint_env/{self.class_name}-v{self.version}"

    @property
    def env_module_name(self) -> str:
        return f"vint_env.envs.{self.env_name}"

    @property
    def partnership(self) -> bool:
        return self.format == PARTNERSHIP

    @property
    def observation_size(self) -> int:
        return self.layout.size

    @property
    def state_size(self) -> int:
        return self.state_layout.size

    # ------------------------------------------------------------------ factories (layers above, lazily)
    def decode(self, vector):
        """What the observer of an observation vector knows: the game's :class:`~vint_env.games.knowledge.Knowledge`
        (its hand, the trick, the cards played, the voids shown, the auction ...), read from the layout's blocks."""
        return self.decoder(self.layout.decode(vector))

    def env_module(self):
        """The env module (``vint_env.envs.vint_v0``: ``env``, ``raw_env``, ``parallel_env``)."""
        return importlib.import_module(self.env_module_name)

    def env(self, **kwargs):
        """``vint_v0.env(**kwargs)``: the wrapped PettingZoo AEC env."""
        return self.env_module().env(**kwargs)

    def raw_env(self, **kwargs):
        return self.env_module().raw_env(**kwargs)

    def parallel_env(self, **kwargs):
        return self.env_module().parallel_env(**kwargs)

    def rule_agent(self):
        """A new rule bot for this game."""
        return _load(self.rule_bot)()

    def engine_rule_bot_for(self, engine):
        """The rule bot compiled for the batched engine, for ``engine``'s games; None where the game has none."""
        return None if self.engine_rule_bot is None else _load(self.engine_rule_bot)(engine)

    @property
    def has_engine(self) -> bool:
        return self.engine is not None

    def engine_class(self):
        """The batched engine's class; ValueError for a game without one."""
        if self.engine is None:
            raise ValueError(f"the batched engine does not play {self.name!r}; "
                             f"it plays {', '.join(_engine_games())}")
        return _load(self.engine)

    def deal_outcome(self, deal) -> DealOutcome:
        """What ``deal`` (a rules deal of this game) came to, or has come to so far: the game's
        :attr:`outcome` type (its ``points`` None while the deal is being played)."""
        return self.outcome.of(deal)

    def deal_result(self, deal) -> DealOutcome:
        """The outcome of a finished deal of this game (:meth:`deal_outcome`; ValueError while it is being played)."""
        if not deal.is_over:
            raise ValueError(f"{self.name}: the deal is not over yet")
        return self.outcome.of(deal)

    def deal_details(self, deal) -> dict:
        """A finished (or running) deal's table facts, the results files' dict (``deal_outcome(deal).details``)."""
        return self.outcome.of(deal).details

    def dd_agent_factory(self):
        """The factory of this game's double-dummy agent (ValueError naming the games that have one)."""
        if self.dd_agent is None:
            raise ValueError(f"the double-dummy agent does not play {self.name!r}; it plays "
                             f"{', '.join(g.name for g in _games_with('dd_agent'))}")
        return _load(self.dd_agent)

    def pimc_agent_factory(self):
        """The factory of this game's PIMC agent (ValueError naming the games that have one)."""
        if self.pimc_agent is None:
            raise ValueError(f"the PIMC agent does not play {self.name!r}; it plays "
                             f"{', '.join(g.name for g in _games_with('pimc_agent'))}")
        return _load(self.pimc_agent)

    def pimc_plan(self):
        """The game's PIMC plan (``vint_env.agents.search.pimc_games.PimcPlan``: its position builder and
        the agent of its other decisions); ValueError naming the games that have one."""
        if self.pimc is None:
            raise ValueError(f"the PIMC agent does not play {self.name!r}; it plays "
                             f"{', '.join(g.name for g in _games_with('pimc'))}")
        return _load(self.pimc)

    def search_plan(self):
        """The game's plan for the search agent (``vint_env.agents.search.search_games.SearchPlan``); ValueError
        naming the games that have one."""
        if self.search is None:
            raise ValueError(f"the search agent does not play {self.name!r}; it plays "
                             f"{', '.join(g.name for g in _games_with('search'))}")
        return _load(self.search)

    def summary_sections(self, match) -> dict:
        """The game's own sections of a match summary (contracts declared and made ...), or {}."""
        return _load(self.summary)(match) if self.summary else {}

    def analysis_function(self):
        """The evaluation's per-board analysis function, or None (ImportError if its extra is missing)."""
        return _load(self.analysis) if self.analysis else None

    def action_name(self, action: int) -> str:
        """``action_text``, or ``'out of range'`` instead of an error (for messages)."""
        try:
            return self.action_text(action)
        except (ValueError, TypeError):
            return "out of range"

    # ------------------------------------------------------------------ options
    @property
    def defaults(self) -> dict:
        """Every option's default: ``{"episode": "deal", "game_bonus": 100, ...}``."""
        return {p.name: p.default for p in self.parameters}

    def parameter(self, name: str) -> Parameter:
        """The declared option ``name`` (OptionError naming the nearest one if it has none)."""
        for p in self.parameters:
            if p.name == name:
                return p
        check_options(self.env_name, self.parameters, {name: None})
        raise AssertionError("unreachable")

    def check_options(self, options: dict | None = None, defaults: bool = True, **kwargs) -> dict:
        """The options checked by their declarations (OptionError naming the option), with every
        default filled in (``defaults=False``: only those given)."""
        given = {} if options is None else options
        if not isinstance(given, dict):
            check_options(self.env_name, self.parameters, given)
        checked = check_options(self.env_name, self.parameters, {**given, **kwargs}, defaults)
        if defaults and self.check_combination is not None:
            self.check_combination(checked)
        return checked

    def parse_options(self, items) -> dict:
        """``KEY=VALUE`` texts (``vint-eval --env-option``) parsed and checked by their declarations."""
        return parse_options(self.env_name, self.parameters, items)

    def __repr__(self) -> str:
        return f"<Game {self.name}: {self.num_actions} actions, observation {self.layout.size}>"


def _engine_games() -> list[str]:
    return [g.name for g in _games_with("engine")]


def _games_with(field: str) -> list["Game"]:
    from . import all_games
    return [g for g in all_games() if getattr(g, field) is not None]
