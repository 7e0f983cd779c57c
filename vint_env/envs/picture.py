"""Pictures of the table: an RGB frame (``render_mode="rgb_array"``) of any game, drawn with Pillow.

One module for every game.  An env describes what is on its table as a
:class:`TableView` (hands face up or face down as its ``viewer`` may see them,
the trick, piles such as a widow, and lines of text: the auction, the contract,
the score); :func:`draw` turns that into a ``(H, W, 3)`` ``uint8`` array.  The
drawing knows no game: every fact it shows comes from the view, and a face-down
hand carries only its card count, so a seat-view frame cannot show a hidden card.

Pillow (``pip install pillow``) is the one dependency; the cards' suits are
drawn as shapes, so no font with suit symbols is needed.  The text uses DejaVu
Sans Mono when the system has it, else Pillow's own default font.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..atomic import atomic_write
from ..cards import NO_TRUMP, SEAT_LETTERS

WIDTH, HEIGHT = 1120, 640        # both multiples of 16, as video encoders like
TABLE_W = 720                    # the felt on the left; the text panel on the right
PANEL_X = TABLE_W + 16

FELT = (28, 94, 58)
FELT_LINE = (44, 120, 78)
PANEL = (246, 244, 238)
INK = (30, 30, 30)
RED = (196, 30, 40)
BACK = (52, 82, 160)
BACK_LINE = (210, 220, 245)
HIGHLIGHT = (250, 210, 80)
MUTED = (200, 225, 205)

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_ORDER = (0, 3, 1, 2)        # rows of a hand: spades, hearts, clubs, diamonds (colours alternate)


@dataclass(frozen=True)
class HandView:
    """One seat's hand on the table. ``cards``: the card ids face up, or None when face down."""

    seat: int                                   #: 0..3, N E S W: where it sits on the picture
    label: str                                  #: ``"player_0"``, ``"player_1's dummy"``, ``"pile"``
    cards: tuple[int, ...] | None               #: face up, or None: face down (only ``count`` is drawn)
    count: int                                  #: cards held
    to_move: bool = False


@dataclass(frozen=True)
class PileView:
    """Cards on the table off the hands (a widow): face up or face down."""

    label: str
    cards: tuple[int, ...] | None
    count: int


@dataclass(frozen=True)
class TableView:
    """Everything a frame shows, game-neutral (built by each env from its deal)."""

    title: str
    hands: tuple[HandView, ...]
    trick: tuple[tuple[int, int], ...] = ()     #: ``(seat, card)`` of the trick in view, in play order
    trick_note: str = ""                        #: ``"trick 5"``, ``"trick 4, won by E"``
    trump: int | None = None                    #: the trump suit 0..3 (NO_TRUMP: none), None before play
    notes: tuple[str, ...] = ()                 #: the text panel: auction, contract, score ...
    piles: tuple[PileView, ...] = ()


def hand_view(seat: int, label: str, mask: int, shown, to_move: bool = False) -> HandView:
    """A :class:`HandView` of the 52-bit hand ``mask``: face up if ``seat in shown``, else only counted."""
    cards = tuple(i for i in range(52) if mask >> i & 1)
    return HandView(seat, label, cards if seat in shown else None, len(cards), to_move)


def trick_in_view(play) -> tuple[tuple[tuple[int, int], ...], str]:
    """The trick in progress, or the last one won while the next has no card yet (with its winner)."""
    if play is None or not play.plays:
        return (), ""
    n = len(play.seats)
    done = len(play.trick_winners)
    if play.trick:
        return tuple(play.plays[-len(play.trick):]), f"trick {done + 1}"
    return tuple(play.plays[-n:]), f"trick {done}, won by {SEAT_LETTERS[play.trick_winners[-1]]}"


# ---------------------------------------------------------------------------- fonts and shapes

@lru_cache(maxsize=None)
def font(size: int):
    from PIL import ImageFont
    for name in ("DejaVuSansMono.ttf", "DejaVuSansMono", "LiberationMono-Regular.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)
    except TypeError:                          # Pillow < 10.1: one bitmap size only
        return ImageFont.load_default()


SUIT_COLOURS = (INK, (20, 120, 50), (30, 80, 200), RED)   # a four-colour deck: S black, C green, D blue, H red


def suit_colour(suit: int):
    return SUIT_COLOURS[suit]


def draw_suit(d, suit: int, cx: float, cy: float, r: float, fill=None) -> None:
    """A suit sign of radius ``r`` centred at ``(cx, cy)``: spade 0, club 1, diamond 2, heart 3."""
    fill = fill or suit_colour(suit)
    if suit == 2:                              # diamond
        d.polygon([(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)], fill=fill)
        return
    if suit == 1:                              # club: three leaves and a stem
        q = 0.42 * r
        for x, y in ((cx, cy - 0.52 * r), (cx - 0.5 * r, cy + 0.12 * r), (cx + 0.5 * r, cy + 0.12 * r)):
            d.ellipse([x - q, y - q, x + q, y + q], fill=fill)
        d.polygon([(cx, cy - 0.1 * r), (cx - 0.3 * r, cy + r), (cx + 0.3 * r, cy + r)], fill=fill)
        return
    q = 0.5 * r                                # heart (3), or spade (0) upside down with a stem
    sign = 1 if suit == 3 else -1
    lobes_y = cy - sign * 0.3 * r
    for x in (cx - q, cx + q):
        d.ellipse([x - q, lobes_y - q, x + q, lobes_y + q], fill=fill)
    d.polygon([(cx - 2 * q, lobes_y + sign * 0.1 * r), (cx + 2 * q, lobes_y + sign * 0.1 * r),
               (cx, cy + sign * r)], fill=fill)
    if suit == 0:
        d.polygon([(cx, cy), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)], fill=fill)


def draw_card(d, card: int, x: int, y: int, w: int, h: int, glow: bool = False) -> None:
    """A face-up card: the rank and the suit down the left edge, a larger suit in the middle when it fits."""
    suit, rank = divmod(card, 13)
    d.rounded_rectangle([x, y, x + w, y + h], radius=4, fill=(255, 255, 255),
                        outline=HIGHLIGHT if glow else (120, 120, 120), width=3 if glow else 1)
    colour = suit_colour(suit)
    size = 13 if w < 40 else 16
    d.text((x + 3, y + 1), RANKS[rank], font=font(size), fill=colour)
    draw_suit(d, suit, x + 3 + 0.45 * size, y + 2 + 1.55 * size, 0.45 * size)
    if h >= 60:
        draw_suit(d, suit, x + w * 0.6, y + h * 0.66, min(w, h) * 0.24)


def draw_back(d, x: int, y: int, w: int, h: int) -> None:
    d.rounded_rectangle([x, y, x + w, y + h], radius=4, fill=BACK, outline=BACK_LINE, width=1)
    d.rectangle([x + 4, y + 4, x + w - 4, y + h - 4], outline=BACK_LINE, width=1)


# ---------------------------------------------------------------------------- the table

CARD_W, CARD_H, STEP = 32, 44, 19            # a hand's cards and how far apart they lie
ROW_H = 34                                    # a hand shows one suit a row, rows overlapping
BOX_W = CARD_W + 12 * STEP + 8
BOX_H = 20 + 3 * ROW_H + CARD_H + 6
TRICK_W, TRICK_H = 46, 64

# Where each seat's hand box and trick card go on the felt (N top, E right, S bottom, W left).
BOX_XY = {0: ((TABLE_W - BOX_W) // 2, 10), 1: (TABLE_W - BOX_W - 10, (HEIGHT - BOX_H) // 2),
          2: ((TABLE_W - BOX_W) // 2, HEIGHT - BOX_H - 10), 3: (10, (HEIGHT - BOX_H) // 2)}
CX, CY = TABLE_W // 2, HEIGHT // 2
TRICK_XY = {0: (CX - TRICK_W // 2, CY - TRICK_H - 14), 1: (CX + 28, CY - TRICK_H // 2),
            2: (CX - TRICK_W // 2, CY + 14), 3: (CX - 28 - TRICK_W, CY - TRICK_H // 2)}


def draw_hand(d, hand: HandView) -> None:
    x, y = BOX_XY[hand.seat]
    label = f"{SEAT_LETTERS[hand.seat]}  {hand.label}"
    if hand.cards is None:
        label += f"  ({hand.count} card{'' if hand.count == 1 else 's'})"
    if hand.to_move:
        d.rounded_rectangle([x - 4, y - 2, x + BOX_W + 2, y + 18], radius=4, fill=HIGHLIGHT)
    d.text((x, y), label, font=font(13), fill=INK if hand.to_move else MUTED)
    top = y + 20
    if hand.cards is None:                     # face down: backs only, how many and nothing else
        for i in range(hand.count):
            draw_back(d, x + i * STEP, top + ROW_H, CARD_W, CARD_H)
        return
    if not hand.cards:
        d.text((x, top + ROW_H), "(no cards)", font=font(12), fill=MUTED)
        return
    by_suit = [[c for c in hand.cards if c // 13 == s] for s in SUIT_ORDER]
    row = 0
    for cards in by_suit:
        if not cards:
            continue
        for i, c in enumerate(sorted(cards, reverse=True)):
            draw_card(d, c, x + i * STEP, top + row * ROW_H, CARD_W, CARD_H)
        row += 1


def draw_pile(d, pile: PileView, x: int, y: int) -> None:
    d.text((x, y), f"{pile.label} ({pile.count})", font=font(12), fill=MUTED)
    for i in range(pile.count):
        if pile.cards is None:
            draw_back(d, x + i * STEP, y + 16, CARD_W, CARD_H)
        else:
            draw_card(d, pile.cards[i], x + i * STEP, y + 16, CARD_W, CARD_H)


def draw_table(d, view: TableView) -> None:
    d.rectangle([0, 0, TABLE_W, HEIGHT], fill=FELT)
    d.ellipse([CX - 150, CY - 120, CX + 150, CY + 120], outline=FELT_LINE, width=2)
    for hand in view.hands:
        draw_hand(d, hand)
    for seat, card in view.trick:
        x, y = TRICK_XY[seat]
        draw_card(d, card, x, y, TRICK_W, TRICK_H, glow=(seat, card) == view.trick[-1])
    if view.trick_note:
        d.text((CX - 110, CY + 90), view.trick_note, font=font(12), fill=MUTED)
    if view.trump is not None:
        d.text((CX + 40, CY + 90), "trump", font=font(12), fill=MUTED)
        if view.trump == NO_TRUMP:
            d.text((CX + 88, CY + 90), "NT", font=font(12), fill=(255, 255, 255))
        else:
            draw_suit(d, view.trump, CX + 96, CY + 97, 7, fill=(255, 255, 255))
    for i, pile in enumerate(view.piles):     # the corners of the felt
        draw_pile(d, pile, 14 + i * (TABLE_W - BOX_W - 14), 14)


def wrap_line(line: str, width: int) -> list[str]:
    """``line`` cut at spaces into pieces of at most ``width`` characters (continuations indented)."""
    out = []
    while len(line) > width:
        cut = line.rfind(" ", 0, width)
        cut = cut if cut > width // 3 else width
        out.append(line[:cut])
        line = "    " + line[cut:].lstrip()
    out.append(line)
    return out


def draw_panel(d, view: TableView) -> None:
    d.rectangle([TABLE_W, 0, WIDTH, HEIGHT], fill=PANEL)
    y = 12
    for size, lines, gap in ((13, (view.title,), 18), (12, view.notes, 16)):
        f = font(size)
        chars = max(20, int((WIDTH - PANEL_X - 8) / max(1.0, f.getlength("M"))))
        for note in lines:
            for text in wrap_line(note, chars):
                if y > HEIGHT - 18:
                    d.text((PANEL_X, y), "...", font=f, fill=INK)
                    return
                d.text((PANEL_X, y), text, font=f, fill=INK)
                y += gap
        y += 8


def draw(view: TableView) -> np.ndarray:
    """The frame of ``view``: a ``(HEIGHT, WIDTH, 3)`` ``uint8`` array."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImportError("render_mode='rgb_array' draws with Pillow: pip install pillow "
                          "(or pip install 'vint-env[render]')") from None
    image = Image.new("RGB", (WIDTH, HEIGHT), PANEL)
    d = ImageDraw.Draw(image)
    draw_table(d, view)
    draw_panel(d, view)
    return np.asarray(image, dtype=np.uint8).copy()


def save_gif(frames, path, fps: float = 2.0, hold_last: float = 3.0) -> None:
    """Write ``frames`` (``rgb_array`` renders) as an animated GIF with Pillow (no ffmpeg needed).

    ``fps``: frames a second; ``hold_last``: seconds the last frame (the score) stays.
    """
    from PIL import Image
    frames = list(frames)
    if not frames:
        raise ValueError("save_gif: no frames to write")
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0.01 <= fps <= 100:
        raise ValueError(f"save_gif: fps must be a number from 0.01 to 100, got {fps!r}")
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in frames]
    step = int(round(1000 / fps))
    durations = [step] * (len(images) - 1) + [max(step, int(hold_last * 1000))]
    with atomic_write(path, shared=True) as f:      # never half a GIF, never through a link at a fixed name
        images[0].save(f, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0,
                       optimize=True)
