"""The package's games as OpenSpiel games (``pyspiel.load_game("python_vint")``).

Importing this module registers, with ``pyspiel.register_game``, one Python
game per game of :mod:`vint_env.games`: ``python_vint``, ``python_whist``,
``python_solo_whist``, ``python_vint2p``.  The game logic is the game's env
(:mod:`vint_env.envs`) and its rules (:mod:`vint_env.rules`); nothing is
written twice here.

>>> import pyspiel, vint_env.wrappers.openspiel        # doctest: +SKIP
>>> game = pyspiel.load_game("python_whist")            # doctest: +SKIP
>>> game.num_players(), game.num_distinct_actions(), game.information_state_tensor_size()  # doctest: +SKIP
(4, 52, 965)

What OpenSpiel sees:

- **Players**: the env's agents (``player_i`` is OpenSpiel player ``i``): four,
  two for two-player Vint.  One episode is one deal (the env's default
  ``episode="deal"``; rubbers are not offered).
- **Chance**: every random draw the env makes when it starts a deal is a chance
  node, in the env's order and with the env's probabilities.  The env's
  generator is replaced by :class:`ChanceScript`, which turns each draw into
  nodes: ``integers(n)`` is one node with outcomes ``0..n-1`` (the dealer),
  ``choice(cards)`` one node whose outcomes are those cards (the turned card,
  a widow card), ``permutation(cards)`` one node per card but the last (the
  deal: 51 nodes, the k-th puts a card at place k of the shuffled deck, the
  legal outcomes are the cards left, each equally likely; places 0..12 are
  seat 0's hand, 13..25 seat 1's ...).  So a deal is 1 + 51 (+ 1 turned card)
  chance nodes with at most 52 outcomes each, and every deal has exactly the
  env's probability.
- **Actions**: the env's actions (``Discrete(A)``: the cards 0..51, then the
  game's calls).
- **Observation and information state**: the env's observation vector of
  that player (the game's observation layout, ``game.layout``; its blocks are
  the observer's ``dict``).  It holds exactly what the player knows and
  records the whole auction and every card played and by whom, but not the
  order of the tricks already played; both tensors are that vector.  The
  strings are a compact form of it (the information-state string is the key
  ISMCTS uses).
- **Returns**: real points per player at the end of the deal (the record's
  :class:`~vint_env.games.DealOutcome`, Solo Whist's quarter points turned
  into points), zero-sum.
- **Parameters**: the env's options (``pyspiel.load_game("python_whist(no_trump=True)")``,
  ``python_vint2p(way=1)``), read from the env's constructor: everything
  with a bool, int, float or str default except the options of the env's
  machinery (episode kind, reward scale, renderer).

:meth:`VintSpielState.resample_from_infostate` draws a state the player cannot
tell from this one (for ``ISMCTSBot``): the hidden cards are dealt again with
the package's exact deal sampler (:mod:`vint_env.agents.search.deal_sampler`),
respecting the player's own hand, the hands the player sees and the voids
shown in the play, and the actions replayed; a draw whose replay does not give
the player the same observation (a turned card that must stay in the dealer's
hand, say) is drawn again.
"""

from __future__ import annotations

import copy
import inspect

import numpy as np

try:
    import pyspiel
except ImportError as exc:               # pragma: no cover - depends on the extra
    raise ImportError("vint_env.wrappers.openspiel needs OpenSpiel: pip install 'vint-env[openspiel]' "
                      f"(the open_spiel package): {exc}") from exc

from .. import games
from ..cards import NUM_CARDS, hand_cards
from ..games import Game

#: Options of the envs that belong to the env's machinery, not to the game: not OpenSpiel parameters.
ENV_MECHANICS = ("episode", "max_deals", "reward_scale", "viewer", "render_mode")
#: Tries of :meth:`VintSpielState.resample_from_infostate` before it gives up.
RESAMPLE_TRIES = 500


def short_name(game: Game | str) -> str:
    """OpenSpiel's name of a game: ``"python_vint"``."""
    return f"python_{games.get(game).name}"


def game_parameters(game: Game | str) -> dict:
    """The game's parameters and their defaults: the env's options that OpenSpiel can carry."""
    record = games.get(game)
    signature = inspect.signature(record.env_module().raw_env.__init__)
    return {name: p.default for name, p in signature.parameters.items()
            if name not in ENV_MECHANICS and type(p.default) in (bool, int, float, str)}


# ---------------------------------------------------------------------------- chance

class NeedChance(Exception):
    """Raised by :class:`ChanceScript` when the env draws beyond the outcomes given so far."""

    def __init__(self, choices: list[int], permutation: list[int] | None = None, total: int = 0):
        super().__init__(f"a chance node with {len(choices)} outcomes")
        self.choices = choices
        self.permutation = permutation       # the items still to place when inside a permutation
        self.total = total                   # ... of how many (52: the shuffled deck)

    @property
    def place(self) -> int:
        """Inside a permutation: the place this node fills (0 for the first)."""
        return self.total - len(self.permutation)


class ChanceScript:
    """Stands in for the env's ``numpy.random.Generator``: its draws are the chance outcomes given.

    ``integers(n)``: one node, outcomes ``0..n-1``; ``choice(items)``: one node,
    outcomes the items (cards); ``permutation(items)``: a node per place but the
    last, outcomes the items not yet placed.  Past the outcomes given it raises
    :class:`NeedChance` with the next node's outcomes; an outcome that is not
    one of its node's raises ValueError.  ``log``: ``(kind, first outcome index,
    number of nodes)`` of each draw made.
    """

    def __init__(self, outcomes):
        self.outcomes = outcomes
        self.pos = 0
        self.log: list[tuple[str, int, int]] = []

    @property
    def bit_generator(self) -> "ChanceScript":
        """The env saves and restores ``bit_generator.state`` around a reset that fails: here, the position."""
        return self

    @property
    def state(self) -> int:
        return self.pos

    @state.setter
    def state(self, pos: int) -> None:
        self.pos = pos

    def _next(self, choices, permutation=None, total=0) -> int:
        if self.pos >= len(self.outcomes):
            raise NeedChance(list(choices), None if permutation is None else list(permutation), total)
        value = self.outcomes[self.pos]
        if value not in choices:
            raise ValueError(f"chance outcome {value} is not one of {sorted(choices)}")
        self.pos += 1
        return value

    def integers(self, low, high=None):
        low, high = (0, low) if high is None else (low, high)
        start = self.pos
        value = self._next(range(int(low), int(high)))
        self.log.append(("integers", start, 1))
        return np.int64(value)

    def choice(self, items):
        items = [int(x) for x in items]
        start = self.pos
        value = self._next(items)
        self.log.append(("choice", start, 1))
        return np.int64(value)

    def permutation(self, items):
        left = list(range(int(items))) if np.ndim(items) == 0 else [int(x) for x in items]
        if len(set(left)) != len(left) or not all(0 <= x < NUM_CARDS for x in left):
            raise ValueError("ChanceScript.permutation shuffles distinct cards only")
        start, order, total = self.pos, [], len(left)
        while len(left) > 1:
            value = self._next(left, left, total)
            left.remove(value)
            order.append(value)
        order += left
        self.log.append(("permutation", start, max(len(order) - 1, 0)))
        return np.array(order, dtype=np.int64)


def deck_order(hands) -> list[int]:
    """The shuffled deck that deals ``hands`` (seat s gets places 13s..13s+12, as ``cards.random_deal``)."""
    return [c for hand in hands for c in hand_cards(hand)]


# ---------------------------------------------------------------------------- the state's core

class _Core:
    """The env shell of one OpenSpiel state: a shallow copy of the game's env holding its own rules state.

    The env's hooks (``_current_seat``, ``_legal_actions``, ``_is_legal``,
    ``_apply``, ``_encode``) are the game logic.  Copied cheaply (the rules
    state's ``copy``), which is what ``state.clone()`` does.
    """

    def __init__(self, env, chance: list[int], pending: NeedChance | None, log):
        self.game = None                   # the OpenSpiel game (set by the state; for pickling)
        self.env = env
        self.chance = chance
        self.pending = pending
        self.log = log
        self.actions: list[int] = []
        self.resampling: dict = {}         # player -> what resample() draws from (not copied: per state)

    def __getstate__(self):
        """Pickled as its game's name and parameters and the outcomes and actions (replayed when loaded)."""
        return {"game": short_name(self.game.record), "params": self.game.options,
                "chance": self.chance, "actions": self.actions}

    def __setstate__(self, saved):
        game = pyspiel.load_game(saved["game"], saved["params"])
        state = _replay(game, saved["chance"], saved["actions"])
        if state is None:
            raise ValueError(f"{saved['game']}: the saved chance outcomes and actions do not replay")
        self.__dict__.update(state.core.__dict__)

    def __deepcopy__(self, memo):
        new = _Core.__new__(_Core)          # not copy.copy: that would pickle (replay) the state
        new.__dict__.update(self.__dict__)
        new.chance = self.chance[:]
        new.actions = self.actions[:]
        new.resampling = {}
        if self.pending is not None:
            p = self.pending
            new.pending = NeedChance(p.choices[:], None if p.permutation is None else p.permutation[:], p.total)
        if self.env.deal is not None:
            new.env = copy.copy(self.env)
            new.env.deal = self.env.deal.copy()
        return new


def _start(template, chance: list[int]) -> _Core:
    """Start the env's deal with the chance outcomes ``chance`` (a fresh shell of ``template``)."""
    env = copy.copy(template)
    env.deal = None
    script = ChanceScript(chance)
    env._rng = script                      # the env's generator: its draws become chance nodes
    try:
        env.reset()
    except NeedChance as need:
        env.deal = None
        return _Core(env, chance, need, script.log)
    env._rng = None
    return _Core(env, chance, None, script.log)


# ---------------------------------------------------------------------------- the OpenSpiel game

class VintSpielGame(pyspiel.Game):
    """One of the package's games as an OpenSpiel game (see the module docstring)."""

    record: Game

    def __init__(self, params=None):
        params = dict(params or {})
        defaults = game_parameters(self.record)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ValueError(f"{short_name(self.record)}: unknown parameter(s) {unknown}; "
                             f"known: {sorted(defaults)}")
        options = {**defaults, **params}
        super().__init__(_game_type(self.record), _game_info(self.record), params)
        kwargs = {**options, "episode": "deal"} if len(self.record.episodes) > 1 else dict(options)
        self.options = options
        self.template = self.record.raw_env(**kwargs)    # a bad option fails here, with the env's message

    def new_initial_state(self):
        return VintSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return LayoutObserver(self.record, iig_obs_type, params)


def _game_type(record: Game) -> pyspiel.GameType:
    players = len(record.env_module().raw_env.AGENT_NAMES)
    return pyspiel.GameType(
        short_name=short_name(record),
        long_name=f"Python {record.title} (vint-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players, min_num_players=players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=game_parameters(record))


#: An upper bound on the points of one deal in any of the games (in points): OpenSpiel asks for
#: utility bounds; the largest Vint deal (seven no-trump, no trick taken, coronets) stays far below it.
POINTS_BOUND = 1_000_000.0


def _game_info(record: Game) -> pyspiel.GameInfo:
    players = len(record.env_module().raw_env.AGENT_NAMES)
    calls = record.num_actions - NUM_CARDS
    return pyspiel.GameInfo(
        num_distinct_actions=record.num_actions,
        max_chance_outcomes=NUM_CARDS,
        num_players=players,
        min_utility=-POINTS_BOUND, max_utility=POINTS_BOUND, utility_sum=0.0,
        # 52 cards, and every call at most four times (a generous bound)
        max_game_length=NUM_CARDS + 4 * calls)


class VintSpielState(pyspiel.State):
    """A state of a :class:`VintSpielGame`: chance nodes until the env has drawn its deal, then the deal."""

    def __init__(self, game: VintSpielGame, core: _Core | None = None):
        super().__init__(game)
        self.core = core if core is not None else _start(game.template, [])
        self.core.game = game

    @property
    def _game(self) -> VintSpielGame:
        return self.core.game             # not an attribute of the state: clone() deep-copies those

    # -- OpenSpiel API
    def current_player(self):
        core = self.core
        if core.pending is not None:
            return pyspiel.PlayerId.CHANCE
        if core.env.deal.is_over:
            return pyspiel.PlayerId.TERMINAL
        return core.env._current_seat()

    def _legal_actions(self, player):
        return sorted(self.core.env._legal_actions())

    def chance_outcomes(self):
        choices = sorted(self.core.pending.choices)
        p = 1.0 / len(choices)
        return [(c, p) for c in choices]

    def _apply_action(self, action):
        core = self.core
        action = int(action)
        if core.pending is not None:
            need = core.pending
            if action not in need.choices:
                raise ValueError(f"chance outcome {action} is not one of {sorted(need.choices)}")
            core.chance.append(action)
            if need.permutation is not None and len(need.permutation) > 2:
                left = [c for c in need.permutation if c != action]
                core.pending = NeedChance(left, left, need.total)    # still inside the shuffle: no restart
            else:
                game = core.game
                self.core = _start(game.template, core.chance)
                self.core.game = game
            return
        env = core.env
        if not env._is_legal(action):
            legal = ", ".join(env.action_text(a) for a in sorted(env._legal_actions()))
            raise ValueError(f"{short_name(self._game.record)}: illegal action {action} "
                             f"({env.action_text(action)}) by player {env._current_seat()}; legal: {legal}")
        env._apply(action)
        core.actions.append(action)
        if core.resampling:
            core.resampling = {}           # counted for the position before this action

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return self._game.record.action_name(action)

    def is_terminal(self):
        return self.core.pending is None and self.core.env.deal.is_over

    def returns(self):
        record = self._game.record
        n = self._game.num_players()
        if not self.is_terminal():
            return [0.0] * n
        points = record.deal_result(self.core.env.deal).points
        return [float(p) * record.points_scale for p in points[:n]]

    def observation_of(self, player: int) -> np.ndarray:
        """The env's observation vector of ``player`` (float32)."""
        out = np.zeros(self._game.record.layout.size, dtype=np.float32)
        if self.core.pending is None:
            self.core.env._encode(player, out=out)
        return out

    def __str__(self):
        core = self.core
        if core.pending is not None:
            return f"dealing: {len(core.chance)} chance outcomes so far"
        return core.env._render_text()

    # -- for ISMCTS
    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state ``player_id`` cannot tell from this one: hidden cards dealt again, the actions replayed.

        ``probability_sampler``: OpenSpiel's sampler (called for a seed), or an int seed.
        """
        return resample(self, player_id, probability_sampler)


def _seed_from(sampler) -> int:
    if sampler is None:
        return int(np.random.default_rng().integers(2**63))
    if isinstance(sampler, (int, np.integer)):
        return int(sampler)
    return int(sampler() * 2**53)


def _knowledge(state: VintSpielState, player: int):
    """What ``player`` knows of the cards held now, for the exact deal sampler."""
    from ..agents.search.deal_sampler import HandConstraints
    deal = state.core.env.deal
    play = deal.play
    now = list(play.hands) if play is not None else list(deal.hands)
    seen = set(deal.visible_seats(player)) if hasattr(deal, "visible_seats") else {player}
    known = [now[s] if s in seen else 0 for s in range(4)]
    held = 0
    for h in now:
        held |= h
    k = HandConstraints(known=known, size=[h.bit_count() for h in now], gone=((1 << NUM_CARDS) - 1) & ~held)
    if play is not None:
        per_trick = len(play.seats)
        for start in range(0, len(play.plays), per_trick):
            trick = play.plays[start:start + per_trick]
            led = trick[0][1] // 13
            for seat, card in trick[1:]:
                if card // 13 != led:
                    k.void(seat, led)
    return k, now


def resample(state: VintSpielState, player: int, sampler=None) -> VintSpielState:
    """See :meth:`VintSpielState.resample_from_infostate`."""
    from ..agents.search.deal_sampler import DealSampler
    core = state.core
    game = state._game
    if core.pending is not None:
        raise ValueError("resample_from_infostate: the deal is still being dealt (a chance node)")
    deck = next(((start, n) for kind, start, n in core.log if kind == "permutation" and n == NUM_CARDS - 1), None)
    if deck is None:
        raise ValueError(f"{short_name(game.record)}: no shuffled deck among the chance outcomes")
    start, n = deck
    if player not in core.resampling:          # ISMCTS resamples one state many times: count the deals once
        knowledge, now = _knowledge(state, player)
        dealt_now = core.env.deal.dealt if hasattr(core.env.deal, "dealt") else core.env.deal.hands
        away = [dealt_now[s] & ~now[s] for s in range(4)]          # cards each seat has played (or put away)
        core.resampling[player] = (DealSampler(knowledge), away, state.observation_of(player))
    draws, away, target = core.resampling[player]
    rng = np.random.default_rng(_seed_from(sampler))
    for _ in range(RESAMPLE_TRIES):
        hands = draws.draw(rng)
        dealt = [hands[s] | away[s] for s in range(4)]
        if sum(h.bit_count() for h in dealt) != NUM_CARDS or any(h.bit_count() != 13 for h in dealt):
            continue
        chance = core.chance[:start] + deck_order(dealt)[:n] + core.chance[start + n:]
        candidate = _replay(game, chance, core.actions)
        if candidate is not None and np.array_equal(candidate.observation_of(player), target):
            return candidate
    raise RuntimeError(f"{short_name(game.record)}: no deal consistent with player {player}'s information "
                       f"found in {RESAMPLE_TRIES} draws")


def _replay(game: VintSpielGame, chance: list[int], actions: list[int]) -> VintSpielState | None:
    """The state after ``chance`` and ``actions``, or None if they do not replay legally."""
    state = game.new_initial_state()
    try:
        for c in chance:
            if not state.is_chance_node():
                return None
            state.apply_action(c)
        for a in actions:
            if state.is_chance_node() or state.is_terminal() or not state.core.env._is_legal(a):
                return None
            state.apply_action(a)
    except ValueError:
        return None
    return state


# ---------------------------------------------------------------------------- observations

class LayoutObserver:
    """OpenSpiel observer of a game: the env's observation vector of a player, blocks named by its layout.

    Information state (``perfect_recall=True``) and observation are the same
    vector (see the module docstring); other observation types (public
    information only, all players' private information) are not offered.
    """

    def __init__(self, record: Game, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                         != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{short_name(record)} offers the player's own view only (public and the "
                             f"player's private information), not {iig_obs_type}")
        self.layout = record.layout
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = self.layout.decode(self.tensor)

    def set_from(self, state: VintSpielState, player: int) -> None:
        self.tensor.fill(0)
        if state.core.pending is None:
            state.core.env._encode(player, out=self.tensor)

    def string_from(self, state: VintSpielState, player: int) -> str:
        core = state.core
        if core.pending is not None:
            return f"p{player} dealing"
        v = state.observation_of(player)
        return f"p{player} " + np.packbits(v != 0).tobytes().hex() + ("" if _binary(v) else " " + v.tobytes().hex())


def _binary(v: np.ndarray) -> bool:
    return bool(np.all((v == 0) | (v == 1)))


# ---------------------------------------------------------------------------- registration

def _register() -> dict[str, type]:
    classes = {}
    for record in games.all_games():
        name = f"Python{record.class_name}Game"      # PythonVintGame: a module attribute (pickle)
        cls = type(name, (VintSpielGame,), {"record": record, "__module__": __name__})
        globals()[name] = cls
        pyspiel.register_game(_game_type(record), cls)
        classes[short_name(record)] = cls
    return classes


#: OpenSpiel name -> game class, one per game of :mod:`vint_env.games`.
GAME_CLASSES = _register()
SHORT_NAMES = tuple(GAME_CLASSES)


def load_game(game: Game | str, **params) -> VintSpielGame:
    """``pyspiel.load_game(short_name(game), params)``: the OpenSpiel game of one of the package's games."""
    return pyspiel.load_game(short_name(game), params)


__all__ = ["ChanceScript", "GAME_CLASSES", "LayoutObserver", "NeedChance", "POINTS_BOUND", "SHORT_NAMES",
           "VintSpielGame", "VintSpielState", "deck_order", "game_parameters", "load_game", "resample",
           "short_name"]
