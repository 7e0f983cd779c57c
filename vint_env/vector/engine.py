"""`VintEngine`, `WhistEngine` and `SoloWhistEngine`: B deals at once, PGX-style ``init`` / ``step``.

>>> import numpy as np
>>> engine = VintEngine()
>>> state = engine.init(seed=0, batch_size=3)
>>> state.observation.shape, state.legal_action_mask.shape, state.rewards.shape
((3, 1102), (3, 88), (3, 4))
>>> bool((state.current_player == state.dealer).all())   # the dealer calls first
True
>>> state = engine.step(state, np.full(3, 52))          # everybody passes once
>>> state.passes.tolist()
[1, 1, 1]

What a state holds (arrays, first axis = game):

- ``current_player[B]``: seat to act (0..3), -1 once a deal is over;
- ``observation[B, D]``: ``vint_v0``'s (``whist_v0``'s, ``solo_whist_v0``'s) observation
  (``encode_observation``, deal episodes, bit for bit) of the player to move;
  for a finished deal not yet reset, of the seat that acted last
  (``observer[B]`` says whose view);
- ``legal_action_mask[B, A]`` (int8 0/1): the player to move's legal actions
  (A = 88 in Vint, 52 in Whist, 65 in Solo Whist);
- ``rewards[B, 4]``: what each seat earned by the last step: zero except
  when it ended a deal, then the deal's points difference (side 0 minus
  side 1, partners equal; in Solo Whist each seat's own payment in quarter
  points, zero for a deal thrown in) times ``reward_scale``, exactly as the
  env's reward; ``points[B, 4]`` the same unscaled (int64);
- ``terminated[B]``: the last step ended the game's deal.

``step`` updates the state **in place** and returns it (copy what you
keep: ``state.copy()``, or write the arrays into your own buffers).  With
``auto_reset=True`` (default) a game whose deal ended is dealt again at
once: after the step its ``terminated`` and ``rewards`` report the deal that
ended, while ``observation``, ``legal_action_mask`` and ``current_player``
already belong to the new deal (as PGX's ``auto_reset``).  With
``auto_reset=False`` a finished game stays over (its action is ignored)
until :meth:`VintEngine.reset` restarts it: use that with ``deals=`` to
replay exact deals for evaluation.

Checks: every method refuses a state this engine did not make, or whose
values no engine makes, before any kernel runs, and a refused ``step`` writes
nothing (:mod:`vint_env.vector.state`, "How a state is checked", says how
this costs a step almost nothing).

Randomness: game ``b``'s deals depend only on its key (from ``seed``) and on
how many deals it has played, so same seeds give the same games, and a game
is the same whatever the batch size.
"""

from __future__ import annotations

import numpy as np

from .. import games
from ..rules.tricks import IllegalActionError, MalformedActionError
from ..rules.solo_whist_payments import PAYMENT_VARIANTS
from . import four_seat_kernels
from .deals import as_dealers, as_hand_array, as_turned, check_deal_list, seed_keys, start_deals
from . import vint2p_kernels
from .tables import SOLO_OPEN_MISERE
from .state import (COL, NUM_SMALL, NUM_WORDS, ORIGINAL, VINT2P_NUM_SMALL, VINT2P_NUM_WORDS, WIDOW_WORD, KernelOptions,
                    StateLayout, VintBatchState, admit)

#: The engine's one implementation: the numba kernel (the NumPy backend was removed, see docs/architecture.md).
BACKENDS = ("numba",)


class BatchEngine:
    """What the batched engines share: init / reset / step / observe.

    ``reward_scale``: reward = points x scale; ``backend``: ``"numba"``, the
    one backend (kept as an argument for old callers); ``obs_dtype``:
    ``float32`` (default, the env's) or ``uint8`` (same 0/1 values, a
    quarter of the memory traffic); ``auto_reset``: deal again as soon as a
    deal ends (default True); ``parallel`` (numba): run the kernels on all
    numba threads (``True``; set their number with
    ``numba.set_num_threads``) or on one (``False``, default: a trainer's
    network wants the other cores, and on a loaded machine threads that wait
    for each other cost more than they save).
    """

    game: games.Game     # the game's record: action count, observation size, action text, kernel number
    _backend = four_seat_kernels     # the kernels (the backend interface of four_seat_kernels)
    _columns = (NUM_SMALL, NUM_WORDS)   # the columns of a state's ``small`` and ``words``
    _players = 4                 # who is rewarded and observed: the four seats (two-player Vint: two players)

    def __init__(self, spec: KernelOptions, backend: str = "numba", obs_dtype=np.float32, auto_reset: bool = True,
                 parallel: bool = False):
        scale = self.game.parameter("reward_scale").check(spec.reward_scale)
        if backend not in BACKENDS:
            raise ValueError(f"backend must be 'numba' (the NumPy backend was removed), got {backend!r}")
        try:
            ok = not isinstance(obs_dtype, bool) and np.dtype(obs_dtype) in (np.dtype(np.float32), np.dtype(np.uint8))
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"obs_dtype must be float32 or uint8, got {obs_dtype!r}")
        for name, value in (("auto_reset", auto_reset), ("parallel", parallel)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {value!r}")
        self._impl = self._backend
        self.spec = spec._replace(reward_scale=float(scale))
        self.backend = backend
        self.reward_scale = float(scale)
        self.obs_dtype = np.dtype(obs_dtype)
        self.auto_reset = bool(auto_reset)
        self.parallel = parallel
        self.layout = StateLayout(type(self).__name__, self.game.observation_size, self.game.num_actions,
                                  self.obs_dtype, *self._columns, self._players)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(reward_scale={self.reward_scale}, backend={self.backend!r}, "
                f"obs_dtype={self.obs_dtype.name}, auto_reset={self.auto_reset})")

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    @property
    def observation_size(self) -> int:
        return self.game.observation_size

    # ------------------------------------------------------------ API
    def init(self, seed=0, batch_size: int | None = None, deals=None, dealers=None, **deal_options) -> VintBatchState:
        """A new batch: ``seed`` is one integer (with ``batch_size``) or one integer per game.

        ``deals`` (optional, one per game: PBN strings, 4-tuples of hand masks
        or an [B, 4] integer array) and ``dealers`` (a seat or one per game)
        fix the first deal of each game; otherwise they come from the seeds.
        """
        self._check_deal_options("init", deal_options)
        if batch_size is None and deals is not None and np.ndim(seed) == 0:
            check_deal_list(deals)
            batch_size = len(deals)
        keys = seed_keys(seed, batch_size)
        state = VintBatchState.empty(keys.size, self.observation_size, self.num_actions, self.obs_dtype,
                                     self.layout.small, self.layout.words, self.layout.players)
        state.key[:] = keys
        self._start(state, np.arange(keys.size), deals, dealers, **deal_options)
        self._write_views(state)
        admit(state, self.layout)
        return state

    def reset(self, state: VintBatchState, games=None, deals=None, dealers=None, **deal_options) -> VintBatchState:
        """Deal again in ``games`` (indices or a boolean mask; default all), with ``deals``/``dealers`` if given."""
        self._check_deal_options("reset", deal_options)
        self.check_state(state)
        if games is None:
            idx = np.arange(state.batch_size)
        else:
            g = np.asarray(games)
            if g.dtype != bool and g.dtype.kind not in "iu" and g.size:
                raise ValueError(f"games must be game indices (integers) or a boolean mask, got {games!r}")
            idx = np.flatnonzero(g) if g.dtype == bool else g.astype(np.int64).ravel()
            if g.dtype == bool and g.shape != (state.batch_size,):
                raise ValueError(f"a boolean games mask must have shape ({state.batch_size},), got {g.shape}")
            if idx.size and (idx.min() < 0 or idx.max() >= state.batch_size):
                raise ValueError(f"game indices must be in 0..{state.batch_size - 1}")
        state.terminated[idx] = False
        state.rewards[idx] = 0
        state.points[idx] = 0
        self._start(state, idx, deals, dealers, **deal_options)
        self._write_views(state, idx if idx.size < state.batch_size else None)
        return state

    def step(self, state: VintBatchState, actions) -> VintBatchState:
        """Apply one action per game (ignored for a finished game when ``auto_reset=False``).

        Nothing is written unless every game's state passes the row check and
        its action is legal: else :class:`~vint_env.vector.state.EngineStateError`
        or :class:`~vint_env.rules.tricks.IllegalActionError` names the game.
        """
        seal = admit(state, self.layout).under(self.spec)
        acts, given = self._action_ids(state, actions)
        refused = self._impl.step(state, acts, self.spec, self.auto_reset, self.parallel, seal)
        if refused >= 0:
            self._refuse(state, acts, given)
        return state

    def observe(self, state: VintBatchState, seats) -> np.ndarray:
        """A new ``[B, D]`` array: the observation of ``seats[b]`` (any seat, to move or not; two-player Vint:
        a player 0 or 1) in each game."""
        self.check_state(state)
        seats = np.broadcast_to(np.asarray(seats), (state.batch_size,))
        last = self._players - 1
        if seats.dtype.kind not in "iu" or ((seats < 0) | (seats > last)).any():
            raise ValueError(f"seats must be {'seats' if last == 3 else 'players'} 0..{last}, got {seats!r}")
        out = np.empty((state.batch_size, self.observation_size), dtype=self.obs_dtype)
        return self._impl.write_observation(state, seats.astype(np.int8), out, self.spec, self.parallel)

    def global_state(self, state: VintBatchState) -> np.ndarray:
        """A new ``[B, S]`` float32 array: the env's ``state()`` for centralised critics, per game.

        Laid out as the game's ``state_layout`` (the env's ``encode_state``):
        the four current hands by absolute seat, the seat to move one-hot (all
        0 when the deal is over), then seat 0's observation.
        """
        self.check_state(state)
        b = state.batch_size
        layout = self.game.state_layout
        out = np.zeros((b, layout.size), dtype=np.float32)
        out[:, layout.slice("hands")] = four_seat_kernels.unpack_bits(state.hands, 52).reshape(b, 208)
        cur = state.current_player.astype(np.int64)
        moving = np.flatnonzero(cur >= 0)
        out[moving, layout.offset["to_move"] + cur[moving]] = 1
        out[:, layout.slice("seat0_view")] = self.observe(state, np.zeros(b, dtype=np.int8))
        return out

    def random_actions(self, state: VintBatchState, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every game, judged from the state (as ``step`` judges it, whatever
        its mask array holds); -1 where a deal is over.  Game ``b`` takes the ``floor(u * n)``-th of its ``n``
        legal actions, ``u`` its number of ``rng.random(batch_size)``."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r:.80}")
        seal = admit(state, self.layout).under(self.spec)
        return self._impl.random_legal(state, rng.random(state.batch_size), self.spec, seal)

    def face_up(self, state: VintBatchState) -> np.ndarray:
        """``[B, 4]`` card masks (uint64): the cards each seat holds that every seat sees, by the game's rules (here
        the turned card while its holder holds it: Whist, Solo Whist; none in Vint)."""
        self.check_state(state)
        turned = state.small[:, COL["turned"]].astype(np.int64)
        card = np.where(turned >= 0, np.left_shift(np.uint64(1), np.maximum(turned, 0).astype(np.uint64)), np.uint64(0))
        return state.hands & card[:, None]

    def deciding_players(self, state: VintBatchState) -> np.ndarray:
        """The agent (its seat number, ``player_i``) who decides now in each game, -1 once a deal is over: the seat
        to move (two-player Vint: the player who decides for it)."""
        self.check_state(state)
        return state.current_player.copy()

    def check_state(self, state) -> None:
        """Raise :class:`~vint_env.vector.state.EngineStateError` unless ``state`` is one this engine makes.

        Its type and arrays (this game's dtypes and shapes, one batch size,
        C-contiguous, writeable, none sharing memory with another), then every
        game's values (seats, phases, cards, counts in range and consistent):
        what the compiled kernels index by.  Every method that takes a state
        checks it before any kernel runs (the module docstring of
        :mod:`vint_env.vector.state` says how it stays cheap).
        """
        admit(state, self.layout)
        self._impl.check_rows(state, self.spec)

    # ------------------------------------------------------------ internals
    #: The options of ``init`` and ``reset`` beyond ``deals`` and ``dealers`` (``_start``'s keyword arguments).
    _deal_options = ("turned",)

    def _check_deal_options(self, method: str, options: dict) -> None:
        """Refuse an option ``init`` / ``reset`` does not take, naming the method and the options it takes."""
        unknown = sorted(set(options) - set(self._deal_options))
        if unknown:
            takes = ("deals", "dealers") + self._deal_options
            raise ValueError(f"{type(self).__name__}.{method}() takes no option {unknown[0]!r}; "
                             f"its deal options are {', '.join(takes)}")

    def _start(self, state, idx, deals, dealers, turned=None):
        hands = as_hand_array(deals, idx.size) if deals is not None else None
        dl = as_dealers(dealers, idx.size) if dealers is not None else None
        if turned is not None:
            if not self.game.turns_card:
                raise ValueError(f"no card is turned in {self.game.title}: do not give turned cards")
            if self.spec.no_trump:
                raise ValueError("no card is turned in no-trump Whist: do not give turned cards")
            if hands is None or dl is None:
                raise ValueError("turned cards need the injected deals and dealers they belong to")
            turned = as_turned(turned, hands, dl)
        start_deals(state, idx, self.spec, hands, dl, turned)

    def _write_views(self, state, games=None):
        self._impl.write_views(state, self.spec, self.parallel, games)

    def _action_ids(self, state, actions) -> tuple[np.ndarray, np.ndarray]:
        """``actions`` as int64 action ids, one per game (and as given, for messages); their legality is the kernel's."""
        acts = np.asarray(actions)
        b = state.batch_size
        if acts.shape != (b,):
            if acts.ndim == 0 and b == 1:
                acts = acts.reshape(1)
            else:
                raise ValueError(f"actions must have shape ({b},), got {acts.shape}")
        if acts.dtype.kind not in "iu":      # bool, float, object ...: not action ids
            raise MalformedActionError(f"actions must be an integer array of action ids "
                                       f"0..{self.num_actions - 1}, got dtype {acts.dtype}")
        given = acts               # uint64 2**63 must be reported as itself, not as the int64 it casts to
        if acts.dtype.kind == "u":
            acts = np.minimum(acts, np.iinfo(np.int64).max)
        return acts.astype(np.int64, copy=False), given

    def _refuse(self, state, acts: np.ndarray, given: np.ndarray) -> None:
        """Raise the error that names why the step kernel refused: a state's values, else the illegal actions."""
        self._impl.check_rows(state, self.spec)
        bad = self._impl.illegal_games(state, acts, self.spec)
        outside = [int(g) for g in bad if not 0 <= acts[g] < self.num_actions]
        if outside:
            raise MalformedActionError(
                f"actions out of range (action ids are 0..{self.num_actions - 1}): "
                + ", ".join(f"game {g}: {int(given[g])}" for g in outside[:5])
                + (f" (and {len(outside) - 5} more games)" if len(outside) > 5 else ""))
        lines = []
        for g in bad[:5]:
            a = int(acts[g])
            legal = self._impl.legal_actions(state, int(g), self.spec, self.num_actions)
            lines.append(f"game {g}: seat {int(state.small[g, COL['current_player']])} may not take action "
                         f"{a} ({self.game.action_name(a)}); legal: "
                         + " ".join(f"{x} ({self.game.action_text(int(x))})" for x in legal))
        more = f" (and {bad.size - 5} more games)" if bad.size > 5 else ""
        raise IllegalActionError(f"illegal actions in {self.game.title}" + more + ":\n" + "\n".join(lines))


class VintEngine(BatchEngine):
    """Batched Vint deals (docs/rules/vint.md): ``vint_v0``'s observations (1102), actions (88), rewards.

    ``passout``: ``"mark"`` (default) or ``"play"`` (docs/rules/vint.md, Pass-out);
    ``honours``: ``"majority"`` (default) or ``"net"``, as ``vint_v0``
    (docs/rules/vint.md, Scoring item 4); ``game_race``: ``"first"`` (default) or
    ``"deal_end"``, accepted and checked as ``vint_v0``'s but without effect:
    the engine plays deal episodes, which have no game (the race decides games
    within a rubber); ``reward_scale``: default 0.001, as ``vint_v0``; the
    other options are :class:`BatchEngine`'s.
    """

    game = games.get("vint")

    def __init__(self, passout: str = game.defaults["passout"], reward_scale: float = game.reward_scale,
                 backend: str = "numba", obs_dtype=np.float32, auto_reset: bool = True, parallel: bool = False,
                 honours: str = game.defaults["honours"], game_race: str = game.defaults["game_race"]):
        self.game.check_options(passout=passout, honours=honours, game_race=game_race, defaults=False)
        super().__init__(KernelOptions(game=self.game.engine_code, passout_play=passout == "play",
                                       honours_net=honours == "net", reward_scale=reward_scale),
                         backend, obs_dtype, auto_reset, parallel)
        self.passout = passout
        self.honours = honours
        self.game_race = game_race


class WhistEngine(BatchEngine):
    """Batched Whist deals (docs/rules/whist.md): ``whist_v0``'s observations (965), actions (52), rewards.

    ``no_trump`` and ``ten_is_honour``: the variants of ``whist_v0``;
    ``reward_scale``: default 0.1, as ``whist_v0``; the other options are
    :class:`BatchEngine`'s.  The dealer's turned card is a uniformly random
    card of their hand (``turned=`` in ``init``/``reset`` fixes it with
    injected deals); its suit is trump and the player left of the dealer
    leads, so the first player to move in a deal is never the dealer.
    """

    game = games.get("whist")

    def __init__(self, no_trump: bool = game.defaults["no_trump"], ten_is_honour: bool = game.defaults["ten_is_honour"],
                 reward_scale: float = game.reward_scale, backend: str = "numba", obs_dtype=np.float32,
                 auto_reset: bool = True, parallel: bool = False):
        o = self.game.check_options(no_trump=no_trump, ten_is_honour=ten_is_honour, defaults=False)
        no_trump, ten_is_honour = o["no_trump"], o["ten_is_honour"]
        super().__init__(KernelOptions(game=self.game.engine_code, no_trump=no_trump, ten_is_honour=ten_is_honour,
                                  reward_scale=reward_scale), backend, obs_dtype, auto_reset, parallel)
        self.no_trump = no_trump
        self.ten_is_honour = ten_is_honour


class SoloWhistEngine(BatchEngine):
    """Batched Solo Whist deals (docs/rules/solo_whist.md): ``solo_whist_v0``'s observations (1096), actions (65),
    rewards.

    ``payments``: ``"symmetric"`` (default) or ``"literal"``, as ``solo_whist_v0``;
    ``reward_scale``: default 0.25 (rewards in points), as ``solo_whist_v0``; the
    other options are :class:`BatchEngine`'s.  Rewards and points are each
    seat's own payment (quarter points; zero for a deal thrown in).  The
    dealer's turned card is a uniformly random card of their hand
    (``turned=`` in ``init``/``reset`` fixes it with injected deals); eldest
    hand, left of the dealer, calls first.  A deal ends when its result is
    certain, as the reference rules end it: a misère or déclarée may end
    before the 13th trick, or at the last call before any card is played.
    """

    game = games.get("solo_whist")

    def __init__(self, payments: str = "symmetric", reward_scale: float = game.reward_scale, backend: str = "numba",
                 obs_dtype=np.float32, auto_reset: bool = True, parallel: bool = False):
        if payments not in PAYMENT_VARIANTS:
            raise ValueError(f"payments must be one of {PAYMENT_VARIANTS}, got {payments!r}")
        super().__init__(KernelOptions(game=self.game.engine_code, payments_literal=payments == "literal",
                                       reward_scale=reward_scale), backend, obs_dtype, auto_reset, parallel)
        self.payments = payments

    def face_up(self, state: VintBatchState) -> np.ndarray:
        """The turned card while held, and an open misère hand from the end of the first trick on
        (docs/rules/solo_whist.md): ``[B, 4]`` card masks."""
        shown = super().face_up(state)
        exposed = ((state.small[:, COL["highest"]] == SOLO_OPEN_MISERE) & (state.small[:, COL["tricks_played"]] >= 1)
                   & (state.small[:, COL["declarer"]] >= 0))
        rows = np.flatnonzero(exposed)
        declarer = state.small[rows, COL["declarer"]].astype(np.int64)
        shown[rows, declarer] = state.hands[rows, declarer]
        return shown


class Vint2pEngine(BatchEngine):
    """Batched two-player Vint deals (docs/rules/vint2p.md), the five ways: ``vint2p_v0``'s observations, actions
    (92), rewards, deal episodes.

    ``way``: 1..5 (default 4); ``auction``: way 1's ``"alternating"`` (default) or ``"single"``; ``passout``,
    ``honours``, ``game_bonus``, ``game_race`` and ``reward_scale`` as ``vint2p_v0`` (``game_bonus`` and
    ``game_race`` are checked but without effect: deal episodes have no game); the other options are
    :class:`BatchEngine`'s.  Two players decide: ``rewards`` and ``points`` are ``[B, 2]`` (player 0, player 1),
    ``observe`` takes players 0 and 1, ``observer`` is the player whose view ``observation`` is, and
    :meth:`deciding_players` says who decides now; ``current_player`` is the *seat* to act (a player's hand or
    his dummy).  ``dealers`` are players.  Way 5's widow is a uniform card of each hand as dealt, ways 2 and 3's
    piles in a uniform order (``widows=`` and ``piles=`` in ``init``/``reset`` fix them with injected deals);
    :meth:`deal_options` gives the env's ``reset`` options that replay a game's deal.
    """

    game = games.get("vint2p")
    _backend = vint2p_kernels
    _columns = (VINT2P_NUM_SMALL, VINT2P_NUM_WORDS)
    _players = 2

    def __init__(self, way: int = game.defaults["way"], auction: str = game.defaults["auction"],
                 passout: str = game.defaults["passout"], honours: str = game.defaults["honours"],
                 game_bonus: int = game.defaults["game_bonus"], game_race: str = game.defaults["game_race"],
                 reward_scale: float = game.reward_scale, backend: str = "numba", obs_dtype=np.float32,
                 auto_reset: bool = True, parallel: bool = False):
        o = self.game.check_options(way=way, auction=auction, passout=passout, honours=honours,
                                    game_bonus=game_bonus, game_race=game_race)
        super().__init__(KernelOptions(game=self.game.engine_code, way=o["way"], single_auction=o["auction"] == "single",
                                       passout_play=o["passout"] == "play", honours_net=o["honours"] == "net",
                                       reward_scale=reward_scale), backend, obs_dtype, auto_reset, parallel)
        self.way, self.auction, self.passout, self.honours = o["way"], o["auction"], o["passout"], o["honours"]
        self.game_bonus, self.game_race = o["game_bonus"], o["game_race"]

    def face_up(self, state: VintBatchState) -> np.ndarray:
        raise ValueError("face_up reads four-seat games (Vint, Whist, Solo Whist), not Vint2pEngine's (what a player of"
                         " two-player Vint sees of the hands follows each way's own rules)")

    def deciding_players(self, state: VintBatchState) -> np.ndarray:
        """The player (0, 1) who decides now in each game (for his own hand or his dummy), -1 once over."""
        self.check_state(state)
        return vint2p_kernels.deciding_players(state)

    def deal_options(self, state: VintBatchState, game: int) -> dict:
        """The ``vint2p_v0`` reset options that deal game ``game``'s current deal: the hands as dealt, the
        dealer, way 5's widow and ways 2 and 3's piles."""
        self.check_state(state)
        options = {"deal": tuple(int(h) for h in state.words[game, ORIGINAL:ORIGINAL + 4]),
                   "dealer": int(state.dealer[game])}
        if self.way == 5:
            widow = int(state.words[game, WIDOW_WORD])
            options["widow"] = [c for c in range(52) if widow >> c & 1]
        if self.way in (2, 3):
            options["piles"] = {seat: [int(c) for c in state.small[game, vint2p_kernels._PILE1 + 13 * i:
                                                                   vint2p_kernels._PILE1 + 13 * i + 13]]
                                for i, seat in enumerate((1, 3))}
        return options

    def global_state(self, state: VintBatchState) -> np.ndarray:
        """A new ``[B, S]`` float32 array: ``vint2p_v0``'s ``state()`` per game (``games.vint2p.STATE_LAYOUT``)."""
        self.check_state(state)
        b = state.batch_size
        layout = self.game.state_layout
        out = np.zeros((b, layout.size), dtype=np.float32)
        words = state.words
        out[:, layout.slice("hands")] = four_seat_kernels.unpack_bits(state.hands, 52).reshape(b, 208)
        untaken = np.where(state.small[:, vint2p_kernels._WIDOW_TO] < 0, words[:, WIDOW_WORD], np.uint64(0))
        out[:, layout.slice("widow")] = four_seat_kernels.unpack_bits(untaken, 52)
        out[:, layout.slice("discards")] = four_seat_kernels.unpack_bits(
            words[:, vint2p_kernels.DISCARDS:vint2p_kernels.DISCARDS + 2], 52).reshape(b, 104)
        cur = state.current_player.astype(np.int64)
        moving = np.flatnonzero(cur >= 0)
        out[moving, layout.offset["to_move"] + cur[moving]] = 1
        out[:, layout.slice("seat0_view")] = self.observe(state, np.zeros(b, dtype=np.int8))
        return out

    _deal_options = ("widows", "piles")

    def _start(self, state, idx, deals, dealers, widows=None, piles=None):
        if deals is None:
            if dealers is not None or widows is not None or piles is not None:
                raise ValueError("dealers, widows and piles go with the injected deals they belong to (deals=)")
            vint2p_kernels.start_deals(state, idx, self.spec)
            return
        hands = as_hand_array(deals, idx.size)
        if dealers is None:
            raise ValueError("injected deals need their dealers (players 0 or 1)")
        dl = np.asarray(dealers)
        dl = np.full(idx.size, int(dl)) if dl.ndim == 0 else dl
        if dl.shape != (idx.size,) or dl.dtype.kind not in "iu" or ((dl < 0) | (dl > 1)).any():
            raise ValueError(f"dealers must be {idx.size} players 0 or 1, got {dealers!r}")
        widow_masks = np.zeros(idx.size, dtype=np.uint64)
        pile_orders = np.full((idx.size, 2, 13), -1, dtype=np.int8)
        for i in range(idx.size):
            env_deal = self.game.new_deal(tuple(int(h) for h in hands[i]), way=self.way, dealer=int(dl[i]),
                                          widow=None if widows is None else widows[i],
                                          piles=None if piles is None else piles[i])
            widow_masks[i] = env_deal.widow
            if self.way in (2, 3):
                pile_orders[i] = [env_deal.piles[1], env_deal.piles[3]]
        vint2p_kernels.start_deals(state, idx, self.spec, hands, dl, widow_masks, pile_orders)


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask[B, A]`` (every row must have one)."""
    counts = mask.sum(axis=1, dtype=np.int64)
    if (counts == 0).any():
        raise ValueError(f"rows {np.flatnonzero(counts == 0)[:5].tolist()} of the mask have no legal action")
    return four_seat_kernels.sample_legal(mask, rng.random(mask.shape[0]))
