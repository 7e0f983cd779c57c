"""The arrays of a batch of deals (B games of Vint, Whist or Solo Whist) for the numba kernel.

A batch state is two compact tables, one row per game, plus the outputs of
the last step:

- ``small[B, NUM_SMALL]`` (int8): every per-game scalar (phase, seat to
  move, auction and trick state ...), one named column each;
- ``words[B, NUM_WORDS]`` (uint64): card and bid masks (hands as dealt,
  hands now, each seat's bids as a 35-bit mask) and the voids shown (bit
  ``4 * seat + suit``: the seat did not follow that suit when it was led);
  in Solo Whist a seat's bid mask holds its calls instead (bit ``action - 53``:
  proposal, acceptance, solo ... abondance déclarée, the observation's ``calls`` columns);
- ``observation[B, D]``, ``legal_action_mask[B, A]``, ``rewards[B, 4]``,
  ``points[B, 4]``, ``terminated[B]`` for the player to move;
- ``key[B]`` and ``deal_index[B]``: each game's random stream (see
  :mod:`vint_env.vector.deals`).

The columns are also readable by name as attributes, PGX-style
(``state.current_player``, ``state.phase`` ...): those are views into the
tables, so writing through them changes the state.  Seats are absolute
(0..3, N E S W); bids are bid indices 0..34 (action - 53) in Vint, bid actions
53..60 in Solo Whist; trump is 0..3 or 4 for no-trump; -1 means "none".

How a state is checked
----------------------
The compiled kernels index arrays by a state's values and trust its arrays'
shapes, so every engine method that takes a state checks it before any kernel
runs, in two parts, each in one place for every engine and kernel:

- **Its arrays** (:func:`admit`, with the engine's :class:`StateLayout`): the
  first time an engine sees a state, :func:`check_layout` checks every array
  (the engine's dtypes and shapes, one batch size, C order, writeable, no two
  sharing memory) and the state is recorded as admitted with its arrays.
  Later calls compare each array with the recorded one by identity, shape,
  dtype and flags: O(1), about a microsecond.  An array replaced, or changed
  in place (shape, dtype, strides, read-only), sends the state through the
  whole check again.
- **Its values** (``four_seat_kernels``'s row check: each column of ``small`` in
  its game's range, hands, bids, voids and phases consistent): they may be
  written in place at any time, so they are checked at every call, inside the
  kernels' own call.  A step kernel first checks every game's row and the
  legality of its action (from the state, not from the mask array), and
  writes nothing unless all pass; the engine then names the first game
  refused.  ``random_actions`` checks each game's row as it draws from the
  legal actions of the state (not of its mask array).  The other kernels
  (views, observe, reset) run the row check as a pass of their own first.
  The check has no branch on a valid row (each kernel loop is compiled for
  one kind of game, so Solo Whist's own checks cost the others nothing).
- **The seal** (:class:`RowSeal`, kept beside the admission, never in the
  state): a step kernel and ``random_actions`` take a row that is still,
  byte for byte, the private copy made when a kernel last wrote or checked
  it, without the row check; a step seals every row it writes.  Any other
  row (edited in place, dealt by ``reset``, in a copy or a state whose
  arrays were replaced, or sealed under other kernel options) gets the whole
  row check, so its error is the row check's.  With the copy, the seal keeps
  the row's legal actions as the kernel worked them out from it (for the
  mask): a sealed row's action is judged by them, a bit test.

A new kernel takes states through :func:`admit` and runs the row check
(``_row_ok`` in its own loop, or ``check_rows`` before it); a new game adds
its columns' ranges and its relations to the row check.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..games import solo_whist, vint, vint2p, whist
from ..rules.phase import Phase

D = vint.GAME.observation_size
NUM_ACTIONS = vint.GAME.num_actions

# Phases: the rules' enum, by its kernel number (TRUMP: Solo Whist's abondance declarer names trump).
AUCTION, PLAY, OVER, TRUMP = Phase.AUCTION.code, Phase.PLAY.code, Phase.OVER.code, Phase.TRUMP.code

# The games' numbers inside the kernel (from their records).
VINT, WHIST, SOLO_WHIST = vint.GAME.engine_code, whist.GAME.engine_code, solo_whist.GAME.engine_code
VINT2P = vint2p.GAME.engine_code
# Two-player Vint's phases beyond the auction and the play (ways 2, 3 and 5).
EXCHANGE, WIDOW, GIVE, FINAL = Phase.EXCHANGE.code, Phase.WIDOW.code, Phase.GIVE.code, Phase.FINAL.code


class KernelOptions(NamedTuple):
    """Which game the kernel plays, with its variants (plain values, for compiled code)."""

    game: int = VINT               # the game's ``engine_code``: VINT, WHIST or SOLO_WHIST
    passout_play: bool = False     # Vint, docs/rules/vint.md, Pass-out variant "play"
    no_trump: bool = False         # Whist, docs/rules/whist.md variant no_trump
    ten_is_honour: bool = False    # Whist, docs/rules/whist.md variant ten_is_honour
    honours_net: bool = False      # Vint, docs/rules/vint.md, Scoring item 4 variant honours="net" (default "majority")
    payments_literal: bool = False  # Solo Whist, docs/rules/solo_whist.md, Payments variant "literal"
    reward_scale: float = 0.001
    way: int = 4                   # two-player Vint: the way of the books, 1..5 (docs/rules/vint2p.md)
    single_auction: bool = False   # two-player Vint, way 1's variant auction="single"

# int8 columns of ``small``.
SMALL_COLUMNS = (
    "phase",            # AUCTION, PLAY or OVER
    "current_player",   # seat to act, -1 once the deal is over
    "actor",            # seat that took the last action, -1 at the start of a deal
    "dealer",
    "highest",          # highest bid so far, -1 none: Vint its index (0..34), Solo Whist its action (53..60)
    "highest_bidder",   # who made it
    "passes",           # passes in a row since the last bid
    "passed_out",       # 1 after four passes
    "trump",            # 0..3 suit, 4 no-trump; -1 until play starts
    "declarer",         # -1 without a contract (Solo Whist: until the auction ends with one)
    "leader",           # leader of the trick in progress
    "trick_len",        # cards in the trick in progress
    "last_leader",      # leader of the last completed trick, -1 none
    "tricks_played",
    "turned",           # Whist, Solo Whist: the dealer's turned card (face up until played), -1 none
    "won0", "won1", "won2", "won3",            # tricks taken by each seat
    "trick0", "trick1", "trick2", "trick3",    # card each seat played to the trick in progress, -1 none
    "last0", "last1", "last2", "last3",        # card each seat played to the last completed trick
    # Solo Whist's auction (docs/rules/solo_whist.md, Auction); -1 in the other games.
    "partner",          # who accepted the standing proposal, -1 none
    "passed",           # seats that have passed, bit s
    "may_accept",       # 1 while eldest hand may still accept a proposal after passing
    "must_raise",       # 1 when an unaccepted proposal sends the turn back to its proposer
)
COL = {name: i for i, name in enumerate(SMALL_COLUMNS)}
NUM_SMALL = len(SMALL_COLUMNS)
WON, TRICK, LAST = COL["won0"], COL["trick0"], COL["last0"]

# uint64 columns of ``words``.
DEALT, HAND, BIDS = 0, 4, 8     # + seat: hand as dealt, hand now, bids made (bit i = bid index i)
VOIDS = 12                      # suits shown out of: bit 4 * seat + suit
NUM_WORDS = 13

# Two-player Vint's state (vint2p_kernels): the columns above, then its own.  ``dealer`` is a *player* (0, 1);
# the seats (``current_player``, ``actor``, ``declarer`` ...) are seats 0..3 as in the rules; ``dealt`` holds the
# hands as play starts (after exchanges, the widow and the give-aways), ``ORIGINAL`` the hands as dealt.
VINT2P_COLUMNS = SMALL_COLUMNS + (
    "ctrl0", "ctrl1", "ctrl2", "ctrl3",        # the player (0, 1) who decides for each seat, -1 none
    "calls",            # calls made in the auction (way 1's single round ends after two)
    "winning_bid",      # way 5: the bid index that won the auction (``highest`` becomes the final contract)
    "widow_to",         # way 5: the seat that took the widow, -1 before
    "gives",            # way 5: give-aways made, 0..3
    "exchanged0", "exchanged1",    # ways 2, 3: cards each player exchanged (13: the whole hand)
    "exchange_done0", "exchange_done1",
    "exchanger",        # ways 2, 3: the player exchanging now
    *(f"pile1_{i}" for i in range(13)), *(f"pile3_{i}" for i in range(13)),   # ways 2, 3: the piles, top first
)
V2COL = {name: i for i, name in enumerate(VINT2P_COLUMNS)}
VINT2P_NUM_SMALL = len(VINT2P_COLUMNS)
WIDOW_WORD = 13                 # way 5: the widow's cards
DISCARDS = 14                   # + player: ways 2, 3, the cards each player discarded
ORIGINAL = 16                   # + seat: the hands as dealt (13 cards each, the widow's cards included)
VINT2P_NUM_WORDS = 20


class EngineStateError(ValueError):
    """A batch state the engine did not make (game, shapes, dtypes, batch size) or whose values are out of range.

    Raised before any kernel runs: the compiled kernels index arrays by the
    state's values, so the engine checks them first (docs/guarantees.md).
    """


@dataclass
class VintBatchState:
    """B deals (Vint, Whist or Solo Whist); see the module docstring for the columns."""

    small: np.ndarray
    words: np.ndarray
    key: np.ndarray
    deal_index: np.ndarray
    observation: np.ndarray
    legal_action_mask: np.ndarray
    rewards: np.ndarray
    points: np.ndarray
    terminated: np.ndarray
    #: Seat whose view ``observation`` is: the player to move, or for a deal
    #: that is over (auto-reset off) the seat that took the last action.
    observer: np.ndarray

    @classmethod
    def empty(cls, batch_size: int, obs_size: int = D, num_actions: int = NUM_ACTIONS,
              obs_dtype=np.float32, num_small: int = NUM_SMALL, num_words: int = NUM_WORDS,
              players: int = 4) -> "VintBatchState":
        b = batch_size
        return cls(
            small=np.full((b, num_small), -1, dtype=np.int8),
            words=np.zeros((b, num_words), dtype=np.uint64),
            key=np.zeros(b, dtype=np.uint64),
            deal_index=np.zeros(b, dtype=np.uint64),
            observation=np.zeros((b, obs_size), dtype=obs_dtype),
            legal_action_mask=np.zeros((b, num_actions), dtype=np.int8),
            rewards=np.zeros((b, players), dtype=np.float64),
            points=np.zeros((b, players), dtype=np.int64),
            terminated=np.zeros(b, dtype=bool),
            observer=np.zeros(b, dtype=np.int8),
        )

    @property
    def batch_size(self) -> int:
        return self.small.shape[0]

    def copy(self) -> "VintBatchState":
        return VintBatchState(**{k: v.copy() for k, v in self.__dict__.items()})

    # Named views, PGX-style -------------------------------------------------
    @property
    def dealt(self) -> np.ndarray:
        """Hands as dealt, [B, 4] uint64 card masks."""
        return self.words[:, DEALT:DEALT + 4]

    @property
    def hands(self) -> np.ndarray:
        """Hands now, [B, 4] uint64 card masks."""
        return self.words[:, HAND:HAND + 4]

    @property
    def bids(self) -> np.ndarray:
        """Bids made by each seat, [B, 4] uint64 masks of bid indices."""
        return self.words[:, BIDS:BIDS + 4]

    @property
    def voids(self) -> np.ndarray:
        """Suits each seat has shown out of, [B] uint64 masks: bit ``4 * seat + suit``."""
        return self.words[:, VOIDS]

    @property
    def tricks_won(self) -> np.ndarray:
        return self.small[:, WON:WON + 4]

    @property
    def trick_cards(self) -> np.ndarray:
        """Card each seat played to the trick in progress, [B, 4], -1 none."""
        return self.small[:, TRICK:TRICK + 4]

    @property
    def last_trick_cards(self) -> np.ndarray:
        return self.small[:, LAST:LAST + 4]


def _column_property(index: int, name: str):
    def get(self):
        return self.small[:, index]
    get.__doc__ = f"Column ``{name}`` of ``small`` ([B] int8 view)."
    return property(get)


for _name, _i in COL.items():
    if not _name[-1].isdigit():
        setattr(VintBatchState, _name, _column_property(_i, _name))


#: The arrays of a state: name -> (dtype, trailing shape; a name = the engine's size of that name, StateLayout).
ARRAYS = {
    "small": (np.int8, ("small",)),
    "words": (np.uint64, ("words",)),
    "key": (np.uint64, ()),
    "deal_index": (np.uint64, ()),
    "observation": (None, ("observation",)),
    "legal_action_mask": (np.int8, ("actions",)),
    "rewards": (np.float64, ("players",)),
    "points": (np.int64, ("players",)),
    "terminated": (np.bool_, ()),
    "observer": (np.int8, ()),
}


class StateLayout(NamedTuple):
    """The arrays one engine makes: who makes them (for messages), the observation and action sizes, the obs dtype,
    the columns of ``small`` and ``words`` and the players rewarded (seats, or two-player Vint's two players)."""

    engine: str
    obs_size: int
    num_actions: int
    obs_dtype: np.dtype
    small: int = NUM_SMALL
    words: int = NUM_WORDS
    players: int = 4

    def shape_and_dtype(self, name: str, batch_size: int) -> tuple[tuple, np.dtype]:
        dtype, tail = ARRAYS[name]
        sizes = {"observation": self.obs_size, "actions": self.num_actions, "small": self.small,
                 "words": self.words, "players": self.players}
        return (batch_size,) + tuple(sizes.get(t, t) for t in tail), np.dtype(self.obs_dtype if dtype is None else dtype)


class RowSeal:
    """The private seal of an admitted state's rows: a copy of each game's ``small`` and ``words`` row as a kernel
    last wrote it, and whether it is sealed.

    A step kernel seals every row it writes (the copy is made at the end of the game's step); a row whose
    values a kernel passed (the row check, or ``random_actions``'s) is sealed too.  A later kernel call takes a
    sealed row that is still byte for byte its copy as checked, without the row check; any other row (edited
    in place, dealt by ``reset``, never checked) gets the whole row check, so its error is the row check's.
    With the copy the kernel keeps the row's legal actions as it worked them out from the row (two words, in
    the kernel module's own form): a sealed row's action is judged legal or not by a bit test.
    The seal lives beside the admission (never in the state: a copy or a replaced array starts unsealed), and
    holds for the kernel options it was made under (two-player Vint's ways check rows differently): another
    engine's options unseal every row first.
    """

    __slots__ = ("small", "words", "sealed", "legal", "spec")

    def __init__(self, batch_size: int, num_small: int, num_words: int):
        self.small = np.zeros((batch_size, num_small), dtype=np.int8)
        self.words = np.zeros((batch_size, num_words), dtype=np.uint64)
        self.sealed = np.zeros(batch_size, dtype=np.uint8)      # 1: the row is its copy as checked
        self.legal = np.zeros((batch_size, 2), dtype=np.uint64)  # the sealed row's legal actions (kernel's form)
        self.spec = None

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the kernels take: the rows' copies, whether each is sealed, and its legal actions."""
        return self.small, self.words, self.sealed, self.legal

    def under(self, spec) -> "RowSeal":
        """This seal for kernels run with options ``spec``: every row unsealed if last sealed under others."""
        if self.spec is not spec:
            if self.spec != spec:
                self.sealed[:] = 0
            self.spec = spec
        return self


# id(state) -> (layout, ((name, array, shape, dtype, flags), ...), seal): the states whose arrays passed
# check_layout, with what they were then and their rows' seal.  An entry holds its arrays (so no other array
# can take their ids) and goes with its state (weakref.finalize).
_ADMITTED: dict[int, tuple] = {}


def admit(state, layout: StateLayout) -> RowSeal:
    """Refuse ``state`` unless its arrays are ones ``layout``'s engine makes; O(1) for a state admitted before.

    A state whose arrays are the very objects :func:`check_layout` passed,
    with the same shape, dtype and flags (C order, writeable), is admitted
    by that identity alone; any array replaced or changed in place (shape,
    dtype, strides, read-only flag) sends the state through the whole check
    again, and its rows start unsealed.  The values inside are not this
    function's concern: the kernels check every game's row before they run
    (``four_seat_kernels``), taking a row sealed by the kernel that last wrote
    it as checked; returns the state's :class:`RowSeal`.
    """
    entry = _ADMITTED.get(id(state))
    if entry is not None and (entry[0] is layout or entry[0] == layout):
        arrays = state.__dict__
        for name, arr, shape, dtype, flags in entry[1]:
            a = arrays.get(name)
            if a is not arr or a.shape != shape or a.dtype is not dtype or a.flags.num != flags:
                break
        else:
            return entry[2]
    check_layout(state, layout)
    if id(state) not in _ADMITTED:
        weakref.finalize(state, _ADMITTED.pop, id(state), None)
    seal = RowSeal(state.small.shape[0], state.small.shape[1], state.words.shape[1])
    _ADMITTED[id(state)] = (layout, tuple((name, a, a.shape, a.dtype, a.flags.num)
                                          for name, a in ((n, getattr(state, n)) for n in ARRAYS)), seal)
    return seal


def check_layout(state, layout: StateLayout) -> None:
    """Refuse a state whose arrays are not the ones ``layout.engine`` makes.

    Its type; each array a NumPy array of the engine's dtype and shape (one
    batch size), C-contiguous and writeable; no two arrays sharing memory
    (an array that is a view into another would change under the kernel
    after its values were checked).  The values inside are checked by the
    kernels' row check (``four_seat_kernels``); this is the part NumPy can see.
    """
    engine = layout.engine
    if not isinstance(state, VintBatchState):
        raise EngineStateError(f"{engine} steps a VintBatchState made by its init(), got {type(state).__name__}")
    small = state.small
    if not isinstance(small, np.ndarray) or small.ndim != 2:
        raise EngineStateError(f"state.small must be a [B, {layout.small}] int8 array, got {small!r:.80}")
    b = small.shape[0]
    spans = []
    for name in ARRAYS:
        arr = getattr(state, name)
        want_shape, want_dtype = layout.shape_and_dtype(name, b)
        if not isinstance(arr, np.ndarray):
            raise EngineStateError(f"state.{name} must be a NumPy array, got {type(arr).__name__}")
        if arr.shape != want_shape or arr.dtype != want_dtype:
            hint = ""
            if name in ("observation", "legal_action_mask") and arr.ndim == 2 and arr.shape[1] != want_shape[1]:
                hint = " (a state of another game's engine?)"
            raise EngineStateError(f"this state was not made by {engine}: state.{name} is {arr.dtype}{list(arr.shape)}, "
                                   f"{engine} makes {want_dtype}{list(want_shape)}{hint}")
        if not arr.flags.writeable:
            raise EngineStateError(f"state.{name} is read-only; the engine updates states in place")
        if not (arr.flags.c_contiguous and arr.flags.aligned):
            raise EngineStateError(f"state.{name} must be a C-contiguous array (its own memory, as {engine} makes it), "
                                   f"got strides {arr.strides}")
        start = arr.__array_interface__["data"][0]
        spans.append((start, start + arr.nbytes, name))
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        if start < end:
            raise EngineStateError(f"state.{first} and state.{second} share memory; each array of a state must be "
                                   f"its own (a view of another array would change under the kernel)")
