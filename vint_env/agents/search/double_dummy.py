"""Double-dummy analysis (through `endplay`'s DDS solver) and the cheating
double-dummy reference agent.

Double-dummy results assume that every player sees all hands and plays
perfectly; they count tricks with fixed partnerships and no duty to trump,
exactly the play rules of Vint and Whist (docs/rules/index.md).

- :func:`solve_position`: for a :class:`~vint_env.rules.tricks.TrickPlay`,
  the tricks the side to move takes from here with each legal card.
- :func:`dd_table`: tricks of each possible declarer in each strain.
- :func:`vint_par`: the Vint auction played double-dummy by both sides.
- :class:`DoubleDummyAgent` (``needs_env = True``): bids toward the par
  contract (Vint) and plays a card that keeps the most tricks for its side.

``endplay`` is an optional dependency (the ``eval`` extra); importing this
module without it raises an ImportError that says so.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

try:
    from endplay.dds import calc_dd_table, solve_board
    from endplay.types import Card as EPCard, Deal as EPDeal, Denom, Player
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError("the double-dummy agent needs endplay: pip install 'vint-env[eval]'") from exc

from ...cards import NO_TRUMP, hand_to_pbn
from ... import games
from ...games import AGENT_SEAT
from ...rules.tricks import TrickPlay
from ...rules.vint import AUCTION, BID_BASE, PASS, Contract
from ...rules.vint_scoring import score_contract
from ..base import Agent, legal_actions

# our suits S, C, D, H (0..3) <-> endplay's Denom (spades 0, hearts 1, diamonds 2, clubs 3)
_DENOM_OF_SUIT = (Denom.spades, Denom.clubs, Denom.diamonds, Denom.hearts)
_SUIT_OF_DENOM = {Denom.spades: 0, Denom.hearts: 3, Denom.diamonds: 2, Denom.clubs: 1}
_RANK_LETTERS = "23456789TJQKA"


def _ep_denom(trump: int):
    return Denom.nt if trump == NO_TRUMP else _DENOM_OF_SUIT[trump]


def _ep_card(card: int) -> EPCard:
    return EPCard("SCDH"[card // 13] + _RANK_LETTERS[card % 13])


def _our_card(c: EPCard) -> int:
    return _SUIT_OF_DENOM[c.suit] * 13 + (int(c.rank).bit_length() - 3)


def _pbn(hands) -> str:
    return "N:" + " ".join(hand_to_pbn(h) for h in hands)


class PositionCache:
    """A bounded LRU map from a play position to its solved card values."""

    def __init__(self, maxsize: int = 200_000):
        self.maxsize = maxsize
        self.data: OrderedDict = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        value = self.data.get(key)
        if value is not None:
            self.data.move_to_end(key)
            self.hits += 1
        return value

    def put(self, key, value) -> None:
        self.misses += 1
        self.data[key] = value
        if len(self.data) > self.maxsize:
            self.data.popitem(last=False)


POSITIONS = PositionCache()


def solve_position(play: TrickPlay) -> dict[int, int]:
    """Card id -> tricks the side to move takes from now on (the trick in
    progress included) if it plays that card and everybody then plays
    double-dummy.  Cached per position."""
    trick = tuple(play.trick)
    hands = list(play.hands)
    for i, c in enumerate(trick):
        hands[(play.leader + i) % 4] |= 1 << c
    key = (tuple(hands), trick, play.leader, play.trump)
    found = POSITIONS.get(key)
    if found is not None:
        return found
    deal = EPDeal(_pbn(hands))
    deal.trump = _ep_denom(play.trump)
    deal.first = Player(play.leader)
    for c in trick:
        deal.play(_ep_card(c))
    result = {_our_card(card): int(tricks) for card, tricks in solve_board(deal)}
    POSITIONS.put(key, result)
    return result


def best_dd_card(play: TrickPlay) -> int:
    """A card that keeps the most tricks for the side to move; among equals
    the lowest rank (then the lowest suit), so the choice is deterministic."""
    values = solve_position(play)
    best = max(values.values())
    return min((c for c, v in values.items() if v == best), key=lambda c: (c % 13, c // 13))


@lru_cache(maxsize=4096)
def dd_table(hands: tuple[int, int, int, int]) -> tuple[tuple[int, ...], ...]:
    """``table[strain][seat]``: tricks declarer ``seat`` takes in ``strain``
    (0..3 spades, clubs, diamonds, hearts; 4 no-trump), the player on the
    declarer's left leading."""
    ep = calc_dd_table(EPDeal(_pbn(hands))).to_list()   # [denom S,H,D,C,NT][player]
    return tuple(tuple(ep[int(_ep_denom(s))]) for s in range(5))


# ----------------------------------------------------------------- Vint par

def vint_contract_value(hands, table, level: int, strain: int, declarer: int) -> int:
    """Points of N/S minus E/W if ``declarer`` plays ``level strain`` and takes
    the double-dummy number of tricks (scored by the rules engine)."""
    tricks = table[strain][declarer]
    side = declarer & 1
    side_tricks = (tricks, 13 - tricks) if side == 0 else (13 - tricks, tricks)
    a, b = score_contract(hands, level, strain, declarer, side_tricks)
    return a.total - b.total


class VintParGame:
    """The Vint auction as a game of two sides that both see all hands.

    Simplified to alternating sides: after a bid the other side either
    passes (the bid becomes the contract, scored with double-dummy tricks)
    or bids higher with either of its players as declarer; with no bid, two
    side passes in a row pass the deal out (0 points, deal mode).  Values
    are N/S minus E/W points; N/S maximise, E/W minimise.
    """

    def __init__(self, hands):
        self.hands = tuple(hands)
        self.table = dd_table(self.hands)
        self.score = [[vint_contract_value(self.hands, self.table, *Contract.from_index(b), d) for d in range(4)]
                      for b in range(35)]
        # value[b][d]: bid b by seat d stands, the other side to decide
        self.value = [[0] * 4 for _ in range(35)]
        # best_from[b][side]: the best value `side` reaches by bidding b or higher
        self.best_from = [[0, 0] for _ in range(36)]
        self.best_from[35] = [None, None]
        for b in range(34, -1, -1):
            for d in range(4):
                other = 1 - (d & 1)
                options = [self.score[b][d]]
                if self.best_from[b + 1][other] is not None:
                    options.append(self.best_from[b + 1][other])
                self.value[b][d] = max(options) if other == 0 else min(options)
            for side in (0, 1):
                here = [self.value[b][d] for d in (side, side + 2)]
                nxt = self.best_from[b + 1][side]
                cands = here + ([nxt] if nxt is not None else [])
                self.best_from[b][side] = max(cands) if side == 0 else min(cands)

    def opt(self, side: int, values):
        return max(values) if side == 0 else min(values)

    def open_value(self, side: int, other_passed: bool) -> int:
        """Value when nobody has bid and ``side`` is to move."""
        pass_value = 0 if other_passed else self.open_value(1 - side, True)
        return self.opt(side, [pass_value, self.best_from[0][side]])

    def par(self, dealer: int) -> tuple[int, int | None, int | None]:
        """(value, bid index, declarer) of the par line, the dealer's side first.

        Follows the optimal choices: a side bids (the lowest bid that reaches
        its best value) unless passing is as good; the contract is the last
        bid the other side lets stand.
        """
        first = dealer & 1
        pass_value = self.open_value(1 - first, True)
        if self._strictly_better(first, self.best_from[0][first], pass_value):
            side, value = first, self.best_from[0][first]
        elif self._strictly_better(1 - first, self.best_from[0][1 - first], 0):
            side, value = 1 - first, self.best_from[0][1 - first]
        else:
            return 0, None, None              # passed out
        b, d = self._lowest_bid_reaching(0, side, value)
        while True:
            other = 1 - (d & 1)
            nxt = self.best_from[b + 1][other] if b + 1 < 35 else None
            if nxt is None or self.opt(other, [self.score[b][d], nxt]) == self.score[b][d]:
                return value, b, d
            b, d = self._lowest_bid_reaching(b + 1, other, nxt)

    @staticmethod
    def _strictly_better(side: int, a: int, b: int) -> bool:
        return a > b if side == 0 else a < b

    def _lowest_bid_reaching(self, start: int, side: int, target: int) -> tuple[int, int]:
        for b in range(start, 35):
            for d in (side, side + 2):
                if self.value[b][d] == target:
                    return b, d
        raise AssertionError("no bid reaches the side's best value")


def vint_par(hands, dealer: int) -> dict:
    """Par of a Vint deal: the double-dummy auction's contract and value
    (N/S minus E/W points, deal mode with pass-out marks)."""
    game = VintParGame(hands)
    value, b, d = game.par(dealer)
    contract = None if b is None else str(Contract.from_index(b))
    return {"value": value, "contract": contract, "declarer": d, "table": game.table}


# ----------------------------------------------------------------- the agent

def _check_game(game, agent_class: str) -> str:
    """The name of ``game`` if its record names ``agent_class`` (of this package's search bots) as its
    double-dummy agent; ValueError naming the games that do."""
    record = games.get(game)
    having = [g.name for g in games.all_games() if (g.dd_agent or "").endswith(":" + agent_class)]
    if record.name not in having:
        raise ValueError(f"{agent_class} plays {' or '.join(map(repr, having))}, not {game!r}")
    return record.name


class DoubleDummyAgent(Agent):
    """Cheating reference: sees every hand through the env (``needs_env``).

    Play: a card that keeps the most tricks for its side by double-dummy
    analysis (ties: the lowest card).  Vint auction: the best call for its
    side in :class:`VintParGame` from the auction so far (bidding itself,
    or passing when partner is the better declarer and still has a turn).
    """

    name = "dd"
    needs_env = True

    def __init__(self, game: str = "vint", seed: int | None = None):
        self.game = _check_game(game, "DoubleDummyAgent")    # the four-hand games whose records name it
        self._par_cache: dict = {}

    def reset(self, seed: int | None = None) -> None:
        if len(self._par_cache) > 64:
            self._par_cache.clear()

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        if env is None:
            raise ValueError("DoubleDummyAgent needs the env (needs_env = True): call act(obs, env, agent)")
        legal = legal_actions(observation)
        raw = env.unwrapped
        deal = raw.deal
        if deal.phase == AUCTION:             # Vint's auction (Whist has none)
            seat = AGENT_SEAT[agent] if agent is not None else raw.current_seat
            action = self.vint_call(deal, seat)
        else:
            action = best_dd_card(_trick_play(raw))
        if action not in legal:
            raise RuntimeError(f"double-dummy agent chose {action}, not legal ({list(legal)})")
        return int(action)

    def vint_call(self, deal, seat: int) -> int:
        key = deal.hands
        game = self._par_cache.get(key)
        if game is None:
            game = self._par_cache[key] = VintParGame(deal.hands)
        side = seat & 1
        sign = 1 if side == 0 else -1           # values are N/S minus E/W
        passes = deal.passes
        if deal.highest < 0:
            partner_has_turn = passes <= 1
            pass_alone = 0 if passes == 3 else game.open_value(1 - side, True)
            pass_value = pass_alone if not partner_has_turn else game.open_value(1 - side, False)
        else:
            h, d = deal.highest - BID_BASE, deal.highest_bidder
            if (d & 1) == side:
                pass_alone = pass_value = game.value[h][d]
            else:
                pass_alone = pass_value = game.score[h][d]
                if passes == 0 and h + 1 < 35:        # partner still has a turn after this pass
                    pass_value = game.opt(side, [pass_alone, *(game.value[b][seat ^ 2]
                                                               for b in range(h + 1, 35))])
        start = deal.highest - BID_BASE + 1 if deal.highest >= 0 else 0
        bids = [(sign * game.value[b][seat], -b) for b in range(start, 35)]
        if not bids:
            return PASS
        best_value, neg_b = max(bids)
        # Bid when it is better than passing, or as good but not relying on partner to bid it.
        if best_value > sign * pass_value or (best_value == sign * pass_value and best_value > sign * pass_alone):
            return BID_BASE - neg_b
        return PASS


def _trick_play(raw) -> TrickPlay:
    """The trick play in progress of a Vint or Whist env."""
    deal = raw.deal
    play = getattr(deal, "play", None)
    if play is None:
        raise RuntimeError(f"{raw.metadata['name']}: no card play in progress")
    return play


__all__ = ["solve_position", "best_dd_card", "dd_table", "vint_par", "VintParGame",
           "DoubleDummyAgent", "POSITIONS"]
