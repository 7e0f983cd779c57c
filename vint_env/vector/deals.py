"""Random deals for the batched engine, from counter-based random streams.

Game ``b`` of a batch owns a 64-bit ``key[b]``; its n-th deal (dealer, and
Whist's turned card) is a pure function of ``(key[b], n)`` (SplitMix64
hashing, then the 52 cards sorted by random keys: a uniform permutation; the
turned card of Whist and Solo Whist is a uniformly chosen card of the dealer's hand, docs/rules/index.md).  So a game replays the
same deals whatever the batch size, the backend or the other games, and
same seeds give the same games.
"""

from __future__ import annotations

import numpy as np

from ..cards import DeckError, parse_pbn, validate_deal
from ..seeds import SeedError, check_seed
from .state import (AUCTION, BIDS, COL, DEALT, HAND, NUM_SMALL, PLAY, SOLO_WHIST, VOIDS, WHIST, WON, KernelOptions,
                    VintBatchState)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_DEALER_SALT = np.uint64(0xD1B54A32D192ED03)
_TURN_SALT = np.uint64(0x8CB92BA72F3D8DD7)
_CARD_STEP = (np.arange(1, 53, dtype=np.uint64) * _GOLDEN)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of ``x + golden``, elementwise on uint64 (wraps mod 2**64)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


#: The largest batch an engine makes: about 4.6 GB of float32 observations at Vint's width, far above any
#: batch that fits a cache; larger ones are refused with a named error rather than a failed allocation.
MAX_BATCH_SIZE = 1 << 20


def seed_keys(seed, batch_size: int | None = None) -> np.ndarray:
    """Per-game keys from one integer seed (and a batch size) or from one seed per game."""
    if np.ndim(seed) == 0:
        if batch_size is None:
            raise ValueError("give batch_size with a single integer seed, or one seed per game")
        if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)) \
                or not 1 <= batch_size <= MAX_BATCH_SIZE:
            raise ValueError(f"batch_size must be an integer in 1..{MAX_BATCH_SIZE:,}, got {batch_size!r:.80}")
        s = check_seed(seed, allow_none=False)
        base = splitmix64(np.array([s & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))[0]
        return splitmix64(base + np.arange(batch_size, dtype=np.uint64) * _M1)
    seeds = np.asarray(seed)
    if seeds.ndim != 1 or seeds.size == 0 or seeds.dtype.kind not in "iu" or (seeds < 0).any():
        raise SeedError(f"seed must be a non-negative integer or a 1-D array of them (one per game), got {seed!r}")
    if batch_size is not None and batch_size != seeds.size:
        raise ValueError(f"batch_size {batch_size} does not match {seeds.size} seeds")
    return splitmix64(splitmix64(seeds.astype(np.int64).view(np.uint64)))


def _deal_base(keys, deal_index):
    return splitmix64(keys ^ splitmix64(deal_index))


def random_deals(keys: np.ndarray, deal_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deals ``deal_index`` of the games with ``keys``: hands [n, 4] uint64 and dealers [n]."""
    base = _deal_base(keys, deal_index)
    card_keys = splitmix64(base[:, None] + _CARD_STEP[None, :])
    order = np.argsort(card_keys, axis=1, kind="stable")          # a uniform permutation of 52
    bits = np.left_shift(np.uint64(1), order.astype(np.uint64)).reshape(-1, 4, 13)
    hands = np.bitwise_or.reduce(bits, axis=2)
    dealers = (splitmix64(base ^ _DEALER_SALT) >> np.uint64(62)).astype(np.int8)
    return hands, dealers


def turned_cards(keys: np.ndarray, deal_index: np.ndarray, dealer_hands: np.ndarray) -> np.ndarray:
    """Whist's (Solo Whist's) turned card of each deal: the k-th lowest card of the dealer's hand, k uniform in 0..12."""
    k = ((splitmix64(_deal_base(keys, deal_index) ^ _TURN_SALT) >> np.uint64(32)) % np.uint64(13)).astype(np.int64)
    bits = np.unpackbits(np.ascontiguousarray(dealer_hands, dtype="<u8").view(np.uint8).reshape(-1, 8),
                         axis=1, bitorder="little")[:, :52]
    return (np.cumsum(bits, axis=1) > k[:, None]).argmax(axis=1)


def check_deal_list(deals) -> None:
    """Refuse ``deals=`` that is not a sequence of deals, one per game (a lone PBN string, a number ...)."""
    if isinstance(deals, str):
        raise DeckError(f"deals must be one deal per game (a list), got a single PBN string {deals[:30]!r}...: "
                        f"write deals=[{deals[:12]!r}...]")
    if isinstance(deals, np.ndarray) and deals.ndim == 2 and deals.shape[1] == 4 and deals.dtype.kind in "iu":
        return
    if not hasattr(deals, "__len__") or not hasattr(deals, "__iter__") or isinstance(deals, (bytes, dict)) \
            or (isinstance(deals, np.ndarray) and deals.ndim != 1):
        raise DeckError(f"deals must be a list of deals (PBN strings or 4-tuples of hand masks), one per game, "
                        f"or an [n, 4] integer array; got {type(deals).__name__} {deals!r:.60}")


def as_hand_array(deals, count: int) -> np.ndarray:
    """Check and convert injected deals (PBN strings, 4-tuples of hand masks, or [n, 4] ints) to [n, 4] uint64."""
    check_deal_list(deals)
    if isinstance(deals, np.ndarray) and deals.ndim == 2 and deals.shape[1] == 4 and deals.dtype.kind in "iu":
        rows = [tuple(int(h) for h in row) for row in deals]
    else:
        rows = list(deals)
    if len(rows) != count:
        raise ValueError(f"expected {count} deals, got {len(rows)}")
    out = np.zeros((count, 4), dtype=np.uint64)
    for i, d in enumerate(rows):
        if not isinstance(d, (str, tuple, list, np.ndarray)):
            raise DeckError(f"deal {i}: expected a PBN string or a 4-tuple of hand masks, got "
                            f"{type(d).__name__} {d!r:.60}")
        try:
            hands = parse_pbn(d) if isinstance(d, str) else validate_deal(tuple(d))
        except DeckError as e:
            raise DeckError(f"deal {i}: {e}") from None
        out[i] = hands
    return out


def as_dealers(dealers, count: int) -> np.ndarray:
    arr = np.asarray(dealers)
    if arr.ndim == 0 and arr.dtype.kind in "iu":
        arr = np.full(count, int(arr))
    if arr.shape != (count,) or arr.dtype.kind not in "iu" or ((arr < 0) | (arr > 3)).any():
        raise ValueError(f"dealers must be {count} seats 0..3, got {dealers!r}")
    return arr.astype(np.int8)


def as_turned(turned, hands: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """Check injected turned cards: one card id per deal, held by that deal's dealer."""
    from ..cards import parse_card
    n = len(dealers)
    cards = [parse_card(t) if isinstance(t, str) else t for t in (list(turned) if np.ndim(turned) else [turned] * n)]
    if len(cards) != n:
        raise ValueError(f"expected {n} turned cards, got {len(cards)}")
    out = np.zeros(n, dtype=np.int64)
    for i, c in enumerate(cards):
        if not isinstance(c, (int, np.integer)) or not 0 <= c < 52:
            raise ValueError(f"turned card {i}: expected a card id 0..51 or card text, got {c!r}")
        if not int(hands[i, dealers[i]]) >> int(c) & 1:
            raise ValueError(f"turned card {i} (id {c}) is not in the dealer's hand (seat {dealers[i]})")
        out[i] = c
    return out


def start_deals(state: VintBatchState, games: np.ndarray, spec: KernelOptions, hands: np.ndarray | None = None,
                dealers: np.ndarray | None = None, turned: np.ndarray | None = None) -> None:
    """Start a new deal in ``games`` (indices): given hands/dealers/turned cards, or the next random ones."""
    if games.size == 0:
        return
    if hands is None or dealers is None:
        rh, rd = random_deals(state.key[games], state.deal_index[games])
        hands = rh if hands is None else hands
        dealers = rd if dealers is None else dealers
    small = state.small
    row = np.full(NUM_SMALL, -1, dtype=np.int8)
    row[COL["phase"]] = AUCTION
    row[COL["passes"]] = 0
    row[COL["passed_out"]] = 0
    row[COL["trick_len"]] = 0
    row[COL["tricks_played"]] = 0
    row[WON:WON + 4] = 0
    small[games] = row
    small[games, COL["dealer"]] = dealers
    if spec.game == SOLO_WHIST or (spec.game == WHIST and not spec.no_trump):
        if turned is None:
            turned = turned_cards(state.key[games], state.deal_index[games], hands[np.arange(games.size), dealers])
        small[games, COL["turned"]] = turned
    if spec.game == SOLO_WHIST:
        # docs/rules/solo_whist.md, Auction: eldest hand (left of the dealer) calls first.
        small[games, COL["current_player"]] = (dealers + 1) & 3
        small[games, COL["passed"]] = 0
        small[games, COL["may_accept"]] = 1
        small[games, COL["must_raise"]] = 0
    elif spec.game == WHIST:
        # docs/rules/whist.md: no auction; the turned card's suit is trump; left of the dealer leads.
        small[games, COL["trump"]] = 4 if spec.no_trump else np.asarray(turned) // 13
        small[games, COL["phase"]] = PLAY
        small[games, COL["leader"]] = (dealers + 1) & 3
        small[games, COL["current_player"]] = (dealers + 1) & 3
    else:
        small[games, COL["current_player"]] = dealers     # docs/rules/vint.md, Auction: the dealer calls first
    words = state.words
    words[games, DEALT:DEALT + 4] = hands
    words[games, HAND:HAND + 4] = hands
    words[games, BIDS:BIDS + 4] = 0
    words[games, VOIDS] = 0
    state.deal_index[games] += np.uint64(1)
