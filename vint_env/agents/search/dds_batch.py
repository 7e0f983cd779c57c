"""Double-dummy solving of many positions in one DDS call, without PBN text.

PIMC solves every sampled deal of a decision; this module hands DDS the
positions as its binary ``deal`` structs (card masks shifted into DDS's rank
bits) and reads back, for every position, the tricks the side to move takes
with each legal card.  All cards of one position are solved by one search
(``solutions = 3``); all positions of one decision go to DDS in one
``SolveAllBoardsBin`` call (chunks of DDS's limit of 200 boards).

A position is ``(hands, trump, leader, trick)``: the four hands *without*
the cards already on the table, the trump suit (0..3 spades, clubs,
diamonds, hearts; 4 = ``NO_TRUMP``), the seat that led the trick in progress and
its cards in play order.
"""

from __future__ import annotations

from ...cards import SUIT_MASK
from .dds_shim import load_binding

_dds = load_binding()            # endplay's DDS binding, checked against the installed endplay

# our suits S, C, D, H (0..3) -> DDS suits (spades 0, hearts 1, diamonds 2, clubs 3)
DDS_SUIT = (0, 3, 2, 1)
OUR_SUIT = (0, 3, 2, 1)          # the inverse permutation (it is its own inverse)
DDS_NT = 4
MAX_BOARDS = _dds.MAXNOOFBOARDS  # 200
#: Threads DDS may use for a batch.  One: the evaluation harness already
#: runs one process per core, and on a shared machine more threads were
#: slower (measured: 48 positions 4.6 s wall with DDS's default, 3.0 s with one).
THREADS = 1
_threads_set = False


def _fill(d, hands, trump: int, leader: int, trick) -> None:
    for seat in range(4):
        h = hands[seat]
        row = d.remainCards[seat]
        for suit in range(4):
            row[DDS_SUIT[suit]] = ((h >> (13 * suit)) & 0x1FFF) << 2
    d.trump = DDS_SUIT[trump] if 0 <= trump < 4 else DDS_NT
    d.first = leader
    for i in range(3):
        if i < len(trick):
            c = trick[i]
            d.currentTrickSuit[i] = DDS_SUIT[c // 13]
            d.currentTrickRank[i] = c % 13 + 2
        else:
            d.currentTrickSuit[i] = 0
            d.currentTrickRank[i] = 0


def _read(fut) -> dict[int, int]:
    """card id -> tricks, equal cards expanded."""
    out: dict[int, int] = {}
    for i in range(fut.cards):
        score = fut.score[i]
        if score < 0:
            continue
        suit = OUR_SUIT[fut.suit[i]]
        holding = (1 << fut.rank[i]) | fut.equals[i]
        for r in range(2, 15):
            if holding >> r & 1:
                out[suit * 13 + r - 2] = score
    return out


def solve_positions(positions) -> list[dict[int, int]]:
    """For each position, card id -> tricks the side to move takes from now
    on (the trick in progress included) if it plays that card and all four
    players then play double-dummy."""
    global _threads_set
    if not _threads_set:
        set_threads(THREADS)
        _threads_set = True
    positions = list(positions)
    results: list[dict[int, int]] = []
    for start in range(0, len(positions), MAX_BOARDS):
        chunk = positions[start:start + MAX_BOARDS]
        bop = _dds.boards()
        bop.noOfBoards = len(chunk)
        for i, (hands, trump, leader, trick) in enumerate(chunk):
            _fill(bop.deals[i], hands, trump, leader, trick)
            bop.target[i] = 0
            bop.solutions[i] = 3
            bop.mode[i] = 1
        solved = _dds.solvedBoards()
        _dds.SolveAllBoardsBin(bop, solved)
        results.extend(_read(solved.solvedBoard[i]) for i in range(len(chunk)))
    return results


def solve_one(hands, trump: int, leader: int, trick) -> dict[int, int]:
    """:func:`solve_positions` for one position, through ``SolveBoard`` (thread 0)."""
    d = _dds.deal()
    _fill(d, hands, trump, leader, trick)
    fut = _dds.futureTricks()
    _dds.SolveBoard(d, 0, 3, 1, fut, 0)
    return _read(fut)


def set_threads(n: int) -> None:
    """Cap the threads DDS uses for batch calls (0: DDS's own choice)."""
    _dds.SetMaxThreads(int(n))


__all__ = ["solve_positions", "solve_one", "set_threads", "SUIT_MASK"]
