"""The four seats' observation vectors of an AEC env, kept up to date card by card.

Re-encoding a seat's whole observation at every step is most of an AEC
step's cost.  :class:`SeatViews` holds the four seats' vectors (rows of one
``[4, size]`` array) and, when a card is played inside the deal, writes only
the entries that card changes, in all four rows at once, through index tables
built once per layout:

- the card leaves the player's `hand` row and enters every row's `trick` and
  `played` blocks (at the player's seat relative to the observer); `to_move`
  passes to the next seat;
- when the card completes a trick: `trick` is cleared, `last_trick` is
  rewritten, `trick_leader` and `to_move` pass to the winner, and the game
  rewrites its trick counts (a callback using the reference block writers);
- the tracking blocks (`obs_blocks.TRACKING_BLOCKS`): `trick_winner` and
  `winning_card` move to the card that now wins the trick (cleared at a trick's
  end); a card that does
  not follow the suit led sets the player's `voids` entry; every other
  observer's `cards_out` count of the card's suit drops by one; when the card
  was its suit's `top_remaining`, that mark moves down to the next card left.

Every other event (a call, a new deal, the end of a deal, and whatever the
game says a card changes beyond these blocks) marks all rows stale; a stale
row is re-encoded in full by the game's reference encoder when it is next
observed.  The rows therefore always equal the reference encoder's output;
``tests/envs/test_seat_views.py`` checks it step by step, seat by seat.

The rows follow the env's own steps: state changed behind the env's back is
noticed only as far as a different deal object or a different number of cards
played (the rows are then re-encoded).
"""

from __future__ import annotations

import numpy as np

from ..rules.tricks import beats, winning_index

# Blocks a card play writes; every layout with the shared trick-play and tracking blocks has them.
_CARD_BLOCKS = ("to_move", "hand", "trick_leader", "trick", "last_trick", "played",
                "trick_winner", "winning_card", "voids", "cards_out", "top_remaining")


class _Tables:
    """Flat indices into the ``[4, size]`` array for each (seat, card), one per observer row."""

    def __init__(self, layout):
        o, size = layout.offset, layout.size
        missing = [b for b in _CARD_BLOCKS if b not in o]
        if missing:
            raise ValueError(f"{layout.name} has no block(s) {missing}: SeatViews cannot follow its card play")
        # trick_leader, trick and last_trick are consecutive (obs_blocks.PLAY_BLOCKS): cleared in one slice.
        if not (o["trick"] == o["trick_leader"] + 4 and o["last_trick"] == o["trick"] + 208):
            raise ValueError(f"{layout.name}: trick_leader, trick, last_trick must be consecutive blocks")
        rows = np.arange(4) * size                                    # observer k's row start
        rel = np.array([[(s - k) & 3 for k in range(4)] for s in range(4)])   # [seat, observer]
        cards = np.arange(52)[None, :, None]

        def per_seat(block, width=1):                             # [seat, observer]
            return rows[None, :] + o[block] + rel * width

        def per_card(block):                                      # [seat, card, observer]
            return per_seat(block, 52)[:, None, :] + cards

        to_move = per_seat("to_move")
        leader = per_seat("trick_leader")
        hand = (np.arange(4) * size + o["hand"])[:, None, None] + cards          # [seat, card, 1]
        # A card inside a trick: the hand entry and to_move go to 0; trick, played and
        # the next seat's to_move go to 1.  One write: indices and their values.
        nxt = [(s + 1) & 3 for s in range(4)]
        idx = np.concatenate([hand, np.broadcast_to(to_move[:, None, :], (4, 52, 4)),
                              per_card("trick"), per_card("played"),
                              np.broadcast_to(to_move[nxt][:, None, :], (4, 52, 4))], axis=2)
        self.card = [[np.ascontiguousarray(idx[s, c]) for c in range(52)] for s in range(4)]
        self.card_values = np.array([0] * 5 + [1] * 12, dtype=np.float32)
        # A trick's end, its last card by seat s, won by seat w: to_move passes from s + 1 to w,
        # trick_leader (cleared with the trick) goes to w.
        self.trick_end = [[None] * 4 for _ in range(4)]
        for s in range(4):
            for w in range(4):
                off = [] if w == nxt[s] else [to_move[nxt[s]]]
                on = [leader[w]] + ([] if w == nxt[s] else [to_move[w]])
                self.trick_end[s][w] = (np.concatenate(off + on),
                                        np.array([0] * 4 * len(off) + [1] * 4 * len(on), dtype=np.float32))
        self.last = per_card("last_trick")
        self.clear_trick = slice(o["trick_leader"], o["last_trick"] + 208)
        self.seats_from = [[(s + i) & 3 for i in range(4)] for s in range(4)]
        # Tracking blocks.
        # (Python ints: they index the memoryview of the rows faster than NumPy's.)
        self.winner = [x.tolist() for x in per_seat("trick_winner")]     # [seat] -> 4 rows' indices
        self.card_in = [(rows + o[name] + c).tolist() for name in ("winning_card", "top_remaining")
                        for c in range(52)]                               # [c] winning_card, [52 + c] top
        self.void = [[(rows + o["voids"] + rel[s] * 4 + suit).tolist() for suit in range(4)] for s in range(4)]
        self.cards_out = [[int(rows[k]) + o["cards_out"] + 14 * suit for suit in range(4)] for k in range(4)]
        self.cards_out_block = slice(o["cards_out"], o["cards_out"] + 56)


_TABLES: dict[int, _Tables] = {}


class SeatViews:
    """Observation rows of the four seats.

    ``encode(seat, out)``: the game's reference encoder, writing ``seat``'s
    vector into the zeroed ``out``; ``write_trick_counts(rows, play)``: clear
    and rewrite the trick-count block(s) of the ``[4, size]`` ``rows`` after a
    trick, with the reference block writers.
    """

    def __init__(self, layout, encode, write_trick_counts):
        key = id(layout)
        if key not in _TABLES:
            _TABLES[key] = _Tables(layout)
        self._t = _TABLES[key]
        self._layout = layout
        self.rows = np.zeros((4, layout.size), dtype=np.float32)
        self._flat = self.rows.reshape(-1)
        self._mv = memoryview(self._flat)       # single writes through it cost less than numpy's
        self._encode = encode
        self._write_trick_counts = write_trick_counts
        self._stale = [True] * 4
        self._deal = None
        self._plays = -1
        # Each row's cards_out counts per suit (read back after a full encode, then kept up to date).
        self._out = [[0] * 4 for _ in range(4)]

    def invalidate(self) -> None:
        """Every row is re-encoded in full when next observed."""
        self._stale = [True] * 4
        self._deal = None

    def observation(self, seat: int, deal) -> np.ndarray:
        """A fresh copy of ``seat``'s observation of ``deal``."""
        play = deal.play
        plays = len(play.plays) if play is not None else -1
        if deal is not self._deal or plays != self._plays:
            self._stale = [True] * 4
            self._deal, self._plays = deal, plays
        row = self.rows[seat]
        if self._stale[seat]:
            row.fill(0)
            self._encode(seat, row)
            self._stale[seat] = False
            self._out[seat] = row[self._t.cards_out_block].reshape(4, 14).argmax(axis=1).tolist()
        return row.copy()

    def write(self, indices, values) -> None:
        """Set entries of the ``[4, size]`` rows, by flat index (a game's own incremental writes)."""
        self._flat[indices] = values

    def card_played(self, seat: int, card: int, deal, next_seat: int) -> None:
        """Write ``seat``'s play of ``card`` (already applied to ``deal``; the deal goes on)."""
        t, flat = self._t, self._flat
        flat[t.card[seat][card]] = t.card_values
        play = deal.play
        trick = play.trick
        if not trick:                            # the card completed a trick
            self.rows[:, t.clear_trick] = 0
            flat[t.last[t.seats_from[play.last_leader], play.last_trick]] = 1
            idx, values = t.trick_end[seat][next_seat]
            flat[idx] = values
            self._write_trick_counts(self.rows, play)
        if deal is self._deal:                   # (else every row is re-encoded when next observed)
            self._track(seat, card, play, trick)
            self._plays += 1

    def _track(self, seat: int, card: int, play, trick) -> None:
        """The tracking blocks' changes by ``seat``'s play of ``card`` (see the module docstring).

        A few dozen single entries: written one by one through a memoryview, which is cheaper than
        building index arrays.  Rows not up to date get writes too; they are re-encoded in full
        before they are read.
        """
        t, mv = self._t, self._mv
        suit = card // 13
        before = trick[:-1] if trick else play.last_trick[:-1]     # the trick before this card
        if before:
            trump = play.trump
            i = winning_index(before, trump)     # the card winning it so far
            best = before[i]
            led = before[0] // 13
            if suit != led:                      # shown out of the suit led
                for at in t.void[seat][led]:
                    mv[at] = 1.0
            if beats(card, best, trump) or not trick:               # the winner so far changes, or the trick is over
                for at in t.winner[((play.leader if trick else play.last_leader) + i) & 3]:
                    mv[at] = 0.0
                for at in t.card_in[best]:
                    mv[at] = 0.0
                if trick:
                    for at in t.winner[seat]:
                        mv[at] = 1.0
                    for at in t.card_in[card]:
                        mv[at] = 1.0
        else:                                    # a lead: it wins so far
            for at in t.winner[seat]:
                mv[at] = 1.0
            for at in t.card_in[card]:
                mv[at] = 1.0
        h = play.hands
        left = (h[0] | h[1] | h[2] | h[3]) >> 13 * suit & 8191
        rank = card % 13
        if not left >> rank:                     # it was its suit's highest card left
            for at in t.card_in[52 + card]:
                mv[at] = 0.0
            if left:
                for at in t.card_in[52 + card - rank + left.bit_length() - 1]:
                    mv[at] = 1.0
        # Every other observer saw one card of the suit fewer: its count's one-hot moves down by one.
        out, stale = self._out, self._stale
        for k in range(4):
            if k != seat and not stale[k]:      # a stale row's counts are read again after its encode
                n = out[k][suit]
                at = t.cards_out[k][suit] + n
                mv[at] = 0.0
                mv[at - 1] = 1.0
                out[k][suit] = n - 1
