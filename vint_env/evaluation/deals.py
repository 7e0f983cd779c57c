"""Seeded, saved sets of deals ("boards") in PBN.

A board is a deal, its dealer and, for Whist and Solo Whist, the dealer's
turned card (docs/rules/index.md: a uniformly random card of the dealer's
hand).  Board ``i`` of seed ``s`` depends only on ``(s, i)``, so a set of
1,000 boards starts with the set of 100.  Files are written in PBN's tag
format, one board per block::

    [Board "1"]
    [Dealer "E"]
    [Deal "N:AKQ2.J98.7654.32 ..."]
    [TurnedCard "H7"]

>>> boards = generate_boards(3, seed=0)
>>> [b.number for b in boards]
[1, 2, 3]
>>> parse_boards(boards_to_pbn(boards)) == boards
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..inputs import InputFileError, excerpt, read_regular
from ..seeds import check_seed

from ..cards import (SEAT_LETTERS, DeckError, card_text, deal_to_pbn, hand_cards, parse_card, parse_pbn,
                     random_deal)


@dataclass(frozen=True)
class Board:
    number: int
    dealer: int
    deal: str                 # PBN, first hand North
    turned: int | None = None  # card id of the dealer's turned card

    @property
    def hands(self) -> tuple[int, int, int, int]:
        return parse_pbn(self.deal)


def board_rng(seed: int, number: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(number)])


def generate_board(seed: int, number: int) -> Board:
    rng = board_rng(seed, number)
    hands = random_deal(rng)
    dealer = int(rng.integers(4))
    dealer_cards = hand_cards(hands[dealer])
    turned = dealer_cards[int(rng.integers(len(dealer_cards)))]
    return Board(number, dealer, deal_to_pbn(hands), turned)


def generate_boards(n: int, seed: int = 0) -> list[Board]:
    """Boards 1..n of a seed."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"number of boards must be a positive integer, got {n!r}")
    check_seed(seed, allow_none=False)
    return [generate_board(seed, i) for i in range(1, n + 1)]


def boards_to_pbn(boards) -> str:
    blocks = []
    for b in boards:
        lines = [f'[Board "{b.number}"]', f'[Dealer "{SEAT_LETTERS[b.dealer]}"]', f'[Deal "{b.deal}"]']
        if b.turned is not None:
            lines.append(f'[TurnedCard "{card_text(b.turned)}"]')
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


_TAG = re.compile(r'^\[(\w+)\s+"([^"]*)"\]\s*$')


_BOARD_NUMBER = re.compile(r"[0-9]{1,9}")     # ASCII digits only: int() would also take "٣" or "-7"


def parse_boards(text: str, source: str = "<text>") -> list[Board]:
    """Boards from PBN text (tags Board, Dealer, Deal and optional TurnedCard).

    Every error is a :class:`~vint_env.cards.DeckError` naming ``source`` and the line of the tag at fault.
    """
    boards: list[Board] = []
    tags: dict[str, str] = {}
    lines: dict[str, int] = {}          # the line each tag of the board in progress is on
    line_no = 0
    text = text.removeprefix("\ufeff")     # a UTF-8 byte-order mark, as some editors write

    def flush():
        if not tags:
            return
        where = f"{source}, board ending at line {line_no}"
        for name in ("Deal", "Dealer"):
            if name not in tags:
                raise DeckError(f"{where}: missing tag [{name} ...]")

        def at(name: str) -> str:
            return f"{source}:{lines[name]}"

        deal = tags["Deal"]
        try:
            hands = parse_pbn(deal)
        except DeckError as e:
            raise DeckError(f"{at('Deal')}: [Deal {excerpt(deal)}]: {e}") from None
        if tags["Dealer"] not in tuple(SEAT_LETTERS):
            raise DeckError(f"{at('Dealer')}: Dealer must be N, E, S or W, got {excerpt(tags['Dealer'])}")
        dealer = SEAT_LETTERS.index(tags["Dealer"])
        turned = None
        if "TurnedCard" in tags:
            try:
                turned = parse_card(tags["TurnedCard"])
            except (DeckError, ValueError) as e:
                raise DeckError(f"{at('TurnedCard')}: TurnedCard {excerpt(tags['TurnedCard'])} is not a card: {e}") from None
            if not hands[dealer] >> turned & 1:
                raise DeckError(f"{at('TurnedCard')}: turned card {tags['TurnedCard']} is not in the dealer's hand")
        if "Board" in tags:
            if not _BOARD_NUMBER.fullmatch(tags["Board"]) or int(tags["Board"]) < 1:
                raise DeckError(f"{at('Board')}: Board must be a board number 1, 2, 3 ... (ASCII digits), "
                                f"got {excerpt(tags['Board'])}")
            number = int(tags["Board"])
        else:
            number = len(boards) + 1
        boards.append(Board(number, dealer, deal_to_pbn(hands), turned))
        tags.clear()
        lines.clear()

    for line_no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            flush()
            continue
        if s.startswith("%") or s.startswith(";"):
            continue
        m = _TAG.match(s)
        if not m:
            raise DeckError(f"{source}:{line_no}: expected a PBN tag like [Deal \"N:...\"], got {excerpt(s)}")
        if m.group(1) in tags:
            if m.group(1) == "Board":
                flush()
            else:
                board = tags.get("Board", str(len(boards) + 1))
                raise DeckError(f"{source}:{line_no}: board {str(board)[:20]} has a second [{m.group(1)} ...] tag "
                                f"(separate boards with a blank line or a [Board ...] tag)")
        tags[m.group(1)] = m.group(2)
        lines[m.group(1)] = line_no
    flush()
    if not boards:
        raise DeckError(f"{source}: no boards found")
    numbers = [b.number for b in boards]
    if len(set(numbers)) != len(numbers):
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        raise DeckError(f"{source}: board numbers repeat: {repeated[:5]}")
    return boards


def save_boards(boards, path) -> Path:
    """Write boards to a PBN file atomically (:func:`vint_env.atomic.atomic_write`)."""
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", shared=True) as f:
        f.write(boards_to_pbn(boards))
    return path


#: The largest deal file read (a board is under 100 bytes: this is over half a million boards).
MAX_DEALS_BYTES = 64 * 1024 * 1024


def load_boards(path) -> list[Board]:
    """The boards of a PBN file: a regular file (a folder, a device such as ``/dev/zero`` or a FIFO is
    refused by name, before anything is read) of at most :data:`MAX_DEALS_BYTES`, UTF-8 text."""
    path = Path(path)
    try:
        raw = read_regular(path, "deal file", MAX_DEALS_BYTES)
    except InputFileError as e:
        raise DeckError(f"{e}; give a PBN file (see `vint-eval deals`)") from None
    if b"\x00" in raw:
        raise DeckError(f"deal file {path} is not PBN text (it holds NUL bytes: a binary or UTF-16 file; "
                        f"save it as UTF-8)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise DeckError(f"{path}:{line}: deal file is not UTF-8 text (byte {raw[e.start]:#04x} at offset "
                        f"{e.start}); save it as UTF-8") from None
    return parse_boards(text, source=str(path))


STANDARD_SET = Path(__file__).with_name("deals") / "standard_seed0_1000.pbn"


def standard_boards(n: int = 1000) -> list[Board]:
    """The first ``n`` boards of the saved standard set (seed 0)."""
    boards = load_boards(STANDARD_SET)
    if n > len(boards):
        raise ValueError(f"the standard set has {len(boards)} boards, asked for {n}")
    return boards[:n]
