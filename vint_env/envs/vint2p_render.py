"""Text rendering of `vint2p_v0`: the four seats as they sit at the table, the
auction, the tricks and the score sheet."""

from __future__ import annotations

from ..cards import SEAT_LETTERS, card_text, hand_to_text
from ..rules.vint2p import Vint2pDeal, action_text
from .picture import PileView, TableView, hand_view, trick_in_view
from .render import render_sheet

WAY_TITLES = {
    1: "way 1, two dummies, bidding on closed cards",
    2: "way 2, no dummies, exchange of the whole hand",
    3: "way 3, no dummies, exchange card by card",
    4: "way 4, the open dummy is bid for",
    5: "way 5, open dummy and widow, game at 600",
}


def seat_label(deal: Vint2pDeal, seat: int) -> str:
    ctrl = deal.controllers[seat]
    if ctrl < 0:
        if deal.way in (4, 5):
            return "open dummy" if seat == deal.open_dummy else "closed dummy"
        return "pile"
    if seat == deal.player_seats[ctrl]:
        return f"player_{ctrl}"
    return f"player_{ctrl}'s dummy"


def _hands(deal: Vint2pDeal):
    """The holdings the table shows: now, or as play started once the deal is over."""
    hands = deal.play.hands if deal.play is not None and not deal.is_over else deal.hands
    if deal.is_over and deal.start_hands is not None:
        hands = deal.start_hands
    return hands


def _hand_line(deal: Vint2pDeal, seat: int, shown: set[int]) -> str:
    hands = _hands(deal)
    text = hand_to_text(hands[seat]) if seat in shown else "(hidden)"
    return f"{SEAT_LETTERS[seat]} {seat_label(deal, seat)}: {text}"


def _facts(env):
    """What a `vint2p_v0` table shows besides the hands and the tricks: the title, the seats shown,
    the lines before the tricks (widow, exchanges, auction, contract) and after them (tricks taken,
    score sheets, to move)."""
    deal: Vint2pDeal = env.deal
    title = f"Two-player Vint, {WAY_TITLES[deal.way]}; dealer player_{deal.dealer}; phase {deal.phase}"
    if env.rubber is not None:
        sheet = env.rubber.sheet
        title += (f"; rubber: deal {env.deals_played + (0 if deal.is_over else 1)}, games "
                  f"{sheet.games_won[0]}-{sheet.games_won[1]}, below {sheet.below[0]}-{sheet.below[1]}, "
                  f"marks {sheet.marks}")
    if env.viewer is None or deal.is_over:
        shown = set(range(4))
    else:
        shown = set(deal.visible_seats(env.viewer))
    out = []
    if deal.way == 5:
        if deal.widow_to < 0:
            widow = hand_to_text(deal.widow) if env.viewer is None else "(face down)"
            out.append(f"Widow: {widow}")
        else:
            out.append(f"Widow ({hand_to_text(deal.widow) if env.viewer is None else 'four cards'}) "
                       f"went to {SEAT_LETTERS[deal.widow_to]}")
        for src, to, card in deal.gives:
            hidden = env.viewer is not None and env.viewer != deal.declaring_player \
                and to not in shown and not deal.is_over
            out.append(f"  gave {'a card' if hidden else card_text(card)}: "
                       f"{SEAT_LETTERS[src]} -> {SEAT_LETTERS[to]}")
    if deal.way in (2, 3):
        out.append(f"Exchanged: player_0 {deal.exchanged[0]}, player_1 {deal.exchanged[1]}")
    out.append("Auction: " + (" ".join(f"player_{deal.controllers[s]} {action_text(a)}"
                                       for s, a in deal.auction.calls) or "-"))
    if deal.contract is not None:
        final = f" (won at {deal.winning_bid})" if deal.winning_bid and deal.winning_bid != deal.contract else ""
        out.append(f"Contract: {deal.contract}{final} by player_{deal.declaring_player} "
                   f"({SEAT_LETTERS[deal.declarer]})")
    elif deal.passed_out:
        out.append("Passed out" + (": played at no-trump" if deal.play is not None else ": a mark is written"))
    tail = []
    if deal.play is not None and deal.play.plays:
        a, b = deal.player_tricks()
        tail.append(f"Tricks taken: player_0 {a}  player_1 {b}")
    names = ("player_0", "player_1")
    if deal.is_over and deal.scores is not None:
        tail += render_sheet(deal.scores, names=names, title="This deal")
    if env.rubber is not None and env.rubber.sheet.records:
        tail += render_sheet(env.rubber.sheet.totals, names=names, title="Rubber so far")
    if not deal.is_over:
        seat = deal.current_player
        tail.append(f"To move: player_{deal.controllers[seat]} for {SEAT_LETTERS[seat]} ({seat_label(deal, seat)})")
    return title, shown, out, tail


def render_vint2p(env) -> str:
    deal: Vint2pDeal = env.deal
    if deal is None:
        return "vint2p_v0: not reset"
    title, shown, middle, tail = _facts(env)
    out = [title]
    out.append("Hands as play started:" if deal.is_over and deal.start_hands else "Hands:")
    north, east, south, west = (_hand_line(deal, s, shown) for s in range(4))
    width = max(len(west), 30)
    out.append(" " * (width // 2) + north)
    out.append(west.ljust(width + 4) + east)
    out.append(" " * (width // 2) + south)
    out += middle
    play = deal.play
    if play is not None and play.plays:
        out.append("Tricks:")
        n = len(play.seats)
        for t in range(0, len(play.plays), n):
            chunk = play.plays[t:t + n]
            cards = "  ".join(f"{SEAT_LETTERS[s]} {card_text(c):>3}" for s, c in chunk)
            won = f" -> {SEAT_LETTERS[play.trick_winners[t // n]]}" if t // n < len(play.trick_winners) else ""
            out.append(f"  {t // n + 1:2d}. {cards}{won}")
    out += tail
    return "\n".join(out)


def vint2p_view(env) -> TableView:
    """The :class:`~.picture.TableView` of a `vint2p_v0` table: four seats (players, dummies or piles),
    the widow of way 5 while it lies on the table, the same facts as the text."""
    deal: Vint2pDeal = env.deal
    title, shown, middle, tail = _facts(env)
    hands = _hands(deal)
    to_move = -1 if deal.is_over else deal.current_player
    piles = ()
    if deal.way == 5 and deal.widow_to < 0:
        widow = tuple(i for i in range(52) if deal.widow >> i & 1)
        piles = (PileView("widow", widow if env.viewer is None else None, len(widow)),)
    trick, note = trick_in_view(deal.play)
    head, _, rest = title.partition("; phase ")
    return TableView(title=head, hands=tuple(hand_view(s, seat_label(deal, s), hands[s], shown, s == to_move)
                                             for s in range(4)),
                     trick=trick, trick_note=note, trump=deal.play.trump if deal.play is not None else None,
                     notes=tuple(["phase " + rest] + middle + tail), piles=piles)
