"""What the person's seat may see of a table, as JSON: the state `GET /api/tables/ID` returns.

While a deal is played the view holds the cards of the seats the rules let
the person see (``deal.visible_seats``: the own hand, a dummy, an exposed
hand) and only a card count for the others; the calls, the trick in progress
and the last trick, the tricks taken, the turned card, the contract; and,
when it is the person's turn, the legal actions with their text and the rule
bot's advice (``hint``: what it would do in the person's place).  Cards that
leave a hand without being played to a trick (two-player Vint's discards and
give-aways) are not shown.  Once a deal is over, its record is public: the
hands as dealt, every action, the trick winners, the points per player and
the env's scoring breakdown.
"""

from __future__ import annotations

from ..cards import NUM_CARDS, SEAT_LETTERS, card_text, hand_cards
from ..evaluation.replay import replay_json
from ..games import TWO_PLAYER

SEATS = 4                         # every game is dealt to four seats (two-player Vint: two hands and dummies)


def home_seats(record, deal) -> list[int]:
    """The seat of each env agent's own hand (two-player Vint: the player's seat; else agent i at seat i)."""
    return list(deal.player_seats) if record.format == TWO_PLAYER else list(range(SEATS))


def seat_controllers(record, deal) -> list[int]:
    """The env agent deciding for each seat (-1: nobody, e.g. a dummy not yet taken)."""
    return list(deal.controllers) if record.format == TWO_PLAYER else list(range(SEATS))


def dealer_seat(record, deal) -> int:
    return home_seats(record, deal)[deal.dealer] if record.format == TWO_PLAYER else deal.dealer


def sorted_cards(mask: int) -> list[str]:
    """Card texts of a hand, suits in the package's order, high cards first."""
    return [card_text(c) for c in sorted(hand_cards(mask), key=lambda c: (c // 13, -(c % 13)))]


def _tricks(deal) -> dict:
    """The trick in progress, the last trick and the tricks taken per seat (public)."""
    play = deal.play
    if play is None:
        return {"trick": [], "last_trick": None, "tricks_won": None}
    n = len(play.seats)
    done = len(play.trick_winners)
    plays = play.plays
    trick = [{"seat": s, "card": card_text(c)} for s, c in plays[done * n:]]
    last = None
    if done:
        last = {"cards": [{"seat": s, "card": card_text(c)} for s, c in plays[(done - 1) * n:done * n]],
                "winner": play.trick_winners[-1], "number": done}
    return {"trick": trick, "last_trick": last, "tricks_won": list(play.tricks_won)}


def deal_view(driver) -> dict:
    """The deal in progress as the person's seat sees it."""
    record, deal = driver.record, driver.raw.deal
    me = driver.seating.human
    visible = set(deal.visible_seats(me))
    holdings = deal.play.hands if deal.play is not None else deal.hands
    controllers = seat_controllers(record, deal)
    homes = home_seats(record, deal)
    to_move = deal.current_player if not deal.is_over else -1
    seats = []
    for s in range(SEATS):
        ctrl = controllers[s]
        if ctrl < 0:
            who = "nobody's yet"
        else:
            who = driver.seating.labels.get(ctrl, "?")
            if homes[ctrl] != s:
                who = ("your" if ctrl == me else who + "'s") + " dummy"
        seats.append({"seat": s, "name": SEAT_LETTERS[s], "label": who, "controller": ctrl,
                      "cards": sorted_cards(holdings[s]) if s in visible else None,
                      "count": int(holdings[s]).bit_count(), "to_move": s == to_move})
    calls = [{"seat": homes[p], "text": record.action_text(a)}
             for p, a in driver.actions_this_deal() if a >= NUM_CARDS]
    outcome = record.deal_outcome(deal)          # what the deal has come to so far
    contract, declarer = outcome.contract_name, outcome.declarer
    if declarer is not None and record.format == TWO_PLAYER:
        declarer = homes[declarer]
    turned = getattr(deal, "turned_card", None)
    legal = [{"action": a, "text": record.action_text(a), "card": a < NUM_CARDS} for a in driver.legal()]
    return {
        "phase": deal.phase, "dealer": dealer_seat(record, deal), "you": homes[me],
        "seats": seats, "calls": calls, **_tricks(deal),
        "turned": None if turned is None else card_text(turned),
        "contract": contract, "declarer": declarer,
        "to_move": to_move if to_move >= 0 else None, "your_turn": bool(legal), "legal": legal,
        "hint": record.action_text(driver.suggestion) if legal and driver.suggestion is not None else None,
    }


def deal_result(driver, index: int) -> dict:
    """Finished deal ``index`` of the table (0-based): its full record and the person's points."""
    record = driver.finished[index]
    [out] = replay_json([record], driver.record.action_text)
    me = driver.seating.human
    out.update(number=index + 1, yours=record.points[me], details=record.outcome.details)
    return out
