"""Text rendering of the card-game envs: hands, calls, tricks and the score sheet."""

from __future__ import annotations

from ..cards import NO_TRUMP, SEAT_LETTERS, card_text, hand_to_text
from ..points import format_points
from ..rules.rubber import SideScore
from .picture import TableView, hand_view, trick_in_view

ITEMS = ("undertricks", "slam_taken", "slam_declared", "honours", "coronets", "passout_tricks",
         "game", "rubber", "marks")


def render_hands(hands, shown) -> list[str]:
    lines = []
    for s in range(4):
        text = hand_to_text(hands[s]) if s in shown else "(hidden)"
        lines.append(f"  {SEAT_LETTERS[s]} (player_{s}): {text}")
    return lines


def render_tricks(play) -> list[str]:
    lines = []
    plays = play.plays
    for t in range(0, len(plays), 4):
        chunk = plays[t:t + 4]
        cards = "  ".join(f"{SEAT_LETTERS[s]} {card_text(c):>3}" for s, c in chunk)
        won = ""
        if t // 4 < len(play.trick_winners):
            won = f" -> {SEAT_LETTERS[play.trick_winners[t // 4]]}"
        lines.append(f"  {t // 4 + 1:2d}. {cards}{won}")
    return lines


def render_sheet(totals: tuple[SideScore, SideScore], names=("NS", "EW"), title="Score sheet") -> list[str]:
    a, b = totals
    lines = [f"  {title:<18}{names[0]:>9}{names[1]:>9}"]
    for item in ITEMS:
        x, y = getattr(a, item), getattr(b, item)
        if x or y:
            lines.append(f"  {item:<18}{x:>9}{y:>9}")
    lines.append("  " + "-" * 36 + "  (the line)")
    lines.append(f"  {'tricks (below)':<18}{a.tricks:>9}{b.tricks:>9}")
    lines.append(f"  {'total':<18}{a.total:>9}{b.total:>9}")
    return lines


def render_partnership(env, title: str, rubber_extra: str, game_lines) -> str:
    """Text of a `vint_v0` / `whist_v0` table: header, hands, the game's own lines
    (``game_lines(deal)``), tricks, the deal's and the rubber's score sheets."""
    deal = env.deal
    out = [f"{title}, phase {deal.phase}" + _rubber_header(env, rubber_extra)]
    shown, hands = _partnership_hands(env)
    out.append("Hands" + (" as dealt:" if hands is deal.hands else ":"))
    out += render_hands(hands, shown)
    out += game_lines(deal)
    if deal.play is not None and deal.play.plays:
        out.append("Tricks:")
        out += render_tricks(deal.play)
    out += _partnership_tail(env)
    return "\n".join(out)


def _rubber_header(env, rubber_extra: str) -> str:
    if env.rubber is None:
        return ""
    deal, sheet = env.deal, env.rubber.sheet
    return (f"; rubber: deal {env.deals_played + (0 if deal.is_over else 1)}, games NS "
            f"{sheet.games_won[0]} EW {sheet.games_won[1]}, below NS {sheet.below[0]} "
            f"EW {sheet.below[1]}{rubber_extra}")


def _partnership_hands(env):
    """The seats whose hands the table shows (the viewer's, all once the deal is over) and the hands."""
    deal = env.deal
    shown = range(4) if env.viewer is None or deal.is_over else (env.viewer,)
    hands = deal.hands if deal.play is None or deal.is_over else deal.play.hands
    return shown, hands


def _partnership_tail(env) -> list[str]:
    """Tricks taken, the deal's and the rubber's score sheets, who is to move."""
    deal, out = env.deal, []
    if deal.play is not None and deal.play.plays:
        ns, ew = deal.play.side_tricks()
        out.append(f"Tricks taken: NS {ns}  EW {ew}")
    if deal.is_over and deal.scores is not None:
        out += render_sheet(deal.scores, title="This deal")
    if env.rubber is not None and env.rubber.sheet.records:
        out += render_sheet(env.rubber.sheet.totals, title="Rubber so far")
    if not deal.is_over:
        out.append(f"To move: {SEAT_LETTERS[deal.current_player]} (player_{deal.current_player})")
    return out


def partnership_view(env, title: str, rubber_extra: str, game_lines) -> TableView:
    """The :class:`~.picture.TableView` of a `vint_v0` / `whist_v0` table (the same facts as the text)."""
    deal = env.deal
    shown, hands = _partnership_hands(env)
    notes = [f"phase {deal.phase}" + _rubber_header(env, rubber_extra)] + game_lines(deal) + _partnership_tail(env)
    return four_seat_view(deal, title, shown, hands, notes)


def four_seat_view(deal, title: str, shown, hands, notes) -> TableView:
    """The view of a table of four players ``player_0`` .. ``player_3``: hands face up in ``shown``."""
    to_move = -1 if deal.is_over else deal.current_player
    trick, note = trick_in_view(deal.play)
    return TableView(title=title, hands=tuple(hand_view(s, f"player_{s}", hands[s], shown, s == to_move)
                                              for s in range(4)),
                     trick=trick, trick_note=note, trump=deal.play.trump if deal.play is not None else None,
                     notes=tuple(notes))


def _vint_parts(env):
    deal = env.deal

    def auction_lines(deal):
        lines = ["Auction: " + (deal.auction_text() or "-")]
        if deal.contract is not None:
            lines.append(f"Contract: {deal.contract} by {SEAT_LETTERS[deal.declarer]}")
        elif deal.passed_out:
            lines.append("Passed out" + (": played at no-trump" if deal.play is not None
                                         else ": a mark is written"))
        return lines

    marks = f", marks {env.rubber.sheet.marks}" if env.rubber is not None else ""
    return f"Vint, dealer {SEAT_LETTERS[deal.dealer]}", marks, auction_lines


def render_vint(env) -> str:
    if env.deal is None:
        return "vint_v0: not reset"
    return render_partnership(env, *_vint_parts(env))


def vint_view(env) -> TableView:
    return partnership_view(env, *_vint_parts(env))


def _whist_parts(env):
    deal = env.deal
    trump = "no-trump" if deal.trump == NO_TRUMP else "SCDH"[deal.trump]
    turned = card_text(deal.turned_card) if deal.turned_card is not None else "none"

    def turned_lines(deal):
        if deal.turned_card_in_hand and not deal.is_over and env.viewer is not None:
            return [f"  face up in {SEAT_LETTERS[deal.dealer]}'s hand: {turned}"]
        return []

    title = f"Whist, dealer {SEAT_LETTERS[deal.dealer]}, turned card {turned}, trump {trump}"
    return title, "", turned_lines


def render_whist(env) -> str:
    """Text of a `whist_v0` table: turned card, hands, tricks, score sheet."""
    if env.deal is None:
        return "whist_v0: not reset"
    return render_partnership(env, *_whist_parts(env))


def whist_view(env) -> TableView:
    return partnership_view(env, *_whist_parts(env))


def _solo_whist_facts(env):
    """What a `solo_whist_v0` table shows besides the tricks: the title, the seats shown, the hands,
    the auction and contract lines, and the closing lines (tricks taken, result, payments, to move)."""
    from ..rules.solo_whist_calls import action_text as solo_action_text
    deal = env.deal
    title = f"Solo Whist, dealer {SEAT_LETTERS[deal.dealer]}, turned card {card_text(deal.turned_card)}"
    shown = set(range(4)) if env.viewer is None or deal.is_over else {env.viewer}
    if deal.hand_shown:
        shown.add(deal.declarer)          # open misère: the declarer's hand is on the table
    hands = deal.hands if deal.play is None or deal.is_over else deal.play.hands
    calls = ["Auction: " + (deal.auction_text() or "-")]
    if deal.contract >= 0:
        who = SEAT_LETTERS[deal.declarer]
        if deal.partner >= 0:
            who += " with " + SEAT_LETTERS[deal.partner]
        trump = ("no trump" if deal.trump == NO_TRUMP else "trump " + "SCDH"[deal.trump]) if deal.play else "trump to name"
        calls.append(f"Contract: {solo_action_text(deal.contract)} by {who}, {trump}")
    tail = []
    if deal.play is not None and deal.play.plays:
        tail.append("Tricks taken: " + "  ".join(f"{SEAT_LETTERS[s]} {deal.play.tricks_won[s]}" for s in range(4)))
    if deal.is_over:
        if deal.thrown_in:
            tail.append("Everybody passed: the deal is thrown in.")
        else:
            early = " (play stopped: the result was certain)" if deal.ended_early else ""
            tail.append(f"Result: {'made' if deal.made else 'lost'} with {deal.tricks} trick(s){early}")
        tail.append("Payments (points): " + "  ".join(
            f"{SEAT_LETTERS[s]} {format_points(deal.payments[s] / 4)}" for s in range(4)))
    else:
        tail.append(f"To move: {SEAT_LETTERS[deal.current_player]} (player_{deal.current_player})")
    return title, shown, hands, calls, tail


def render_solo_whist(env) -> str:
    """Text of a `solo_whist_v0` table: turned card, hands, auction, contract, tricks, payments."""
    deal = env.deal
    if deal is None:
        return "solo_whist_v0: not reset"
    title, shown, hands, calls, tail = _solo_whist_facts(env)
    out = [f"{title}, phase {deal.phase}"]
    out.append("Hands" + (" as dealt:" if hands is deal.hands else ":"))
    out += render_hands(hands, shown)
    out += calls
    if deal.play is not None and deal.play.plays:
        out.append("Tricks:")
        out += render_tricks(deal.play)
    out += tail
    return "\n".join(out)


def solo_whist_view(env) -> TableView:
    title, shown, hands, calls, tail = _solo_whist_facts(env)
    return four_seat_view(env.deal, title, shown, hands, [f"phase {env.deal.phase}"] + calls + tail)
