"""What happened at a table, action by action, for replays (the HTML match viewer).

A :class:`TableRecorder` watches one episode through the env: for every deal
it keeps the hands as dealt, the dealer and turned card, every action with its
seat, the trick winners (read from the rules' trick play, not recomputed), the
points per seat the deal earned (the rewards: in a rubber with the rubber's
premiums), the env's deal info (contract, score items) and, given the game, the
deal's outcome (the game's outcome type).  A rubber episode gives one record per deal.

The records are plain data; :func:`replay_json` writes them with action texts
(``'SA'``, ``'pass'``, ``'3NT'``) so a viewer needs no game rules.  Where cards
change hands other than by being played (two-player Vint's exchanges, widow and
give-aways) the record keeps the holdings after that action, and for a game whose
players act for several seats (two-player Vint) the seat each action was made for,
who controls each seat, and the widow on the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..cards import NUM_CARDS, card_text, hand_cards   # actions 0..51 are the cards in every game
from .. import games
from ..games import AGENTS, DealOutcome, Game


@dataclass
class DealReplay:
    """One deal at one table, action by action (what the viewer and ``vint-play`` replay)."""

    dealer: int
    hands: tuple[int, ...]                  # 52-bit card masks as dealt
    turned: int | None = None               # card id of the turned card (Whist, Solo Whist)
    actions: list[tuple[int, int]] = field(default_factory=list)   # (seat, action id)
    trick_winners: list[int] = field(default_factory=list)
    points: list[float] | None = None       # per seat, this deal's points (None if unfinished)
    info: dict = field(default_factory=dict)
    seats_for: list[int] = field(default_factory=list)        # per action, the table seat it was made for
    off_play: dict[int, str] = field(default_factory=dict)    # card actions not played to a trick: index -> phase
    holdings: list[tuple[int, tuple[int, ...], int]] = field(default_factory=list)  # (after k actions, hands, widow)
    table: dict | None = None               # two-player Vint: controllers, player seats, piles, widow, trick size
    outcome: DealOutcome | None = None      # what the deal came to (the game's outcome type), once it is over


def holdings_of(deal) -> tuple[tuple[int, ...], int]:
    """The four seats' cards now and the cards lying on the table off the hands (a widow not yet taken)."""
    play = getattr(deal, "play", None)
    hands = tuple(int(h) for h in (play.hands if play is not None else deal.hands))
    widow = int(getattr(deal, "widow", 0) or 0) if getattr(deal, "widow_to", 0) < 0 else 0
    return hands, widow


def table_facts(deal) -> dict | None:
    """For a deal whose players also act for dummies or piles (it has ``controllers``): who controls
    each seat (at the end), the players' own seats, whether seats are piles, the open dummy, the trick size."""
    if not hasattr(deal, "controllers"):
        return None
    play = getattr(deal, "play", None)
    return {"controllers": [int(c) for c in deal.controllers], "player_seats": [int(s) for s in deal.player_seats],
            "piles": bool(getattr(deal, "piles", None)), "open_dummy": int(getattr(deal, "open_dummy", -1)),
            "trick_size": len(play.seats) if play is not None else 4}


class TableRecorder:
    """Call :meth:`before` before each live step and :meth:`after` after it.

    ``game``: the game's record (or name); with it each finished deal's record keeps its
    :attr:`DealReplay.outcome`.
    """

    def __init__(self, game: Game | str | None = None) -> None:
        self.game = None if game is None else games.get(game)
        self.deals: list[DealReplay] = []
        self._deal = None
        self._seat_for, self._phase, self._held = -1, "", ((), 0)

    def before(self, raw) -> None:
        deal = raw.deal
        if deal is not self._deal:
            self._deal = deal
            turned = getattr(deal, "turned_card", None)
            self.deals.append(DealReplay(int(deal.dealer), tuple(int(h) for h in deal.hands),
                                         None if turned is None else int(turned)))
            if hasattr(deal, "controllers"):
                self.deals[-1].table = {"widow": holdings_of(deal)[1]}
        self._seat_for = int(deal.current_player)
        self._phase = str(getattr(deal, "phase", ""))
        self._held = holdings_of(deal)

    def after(self, raw, seat: int, action: int) -> None:
        record = self.deals[-1]
        record.actions.append((seat, int(action)))
        record.seats_for.append(self._seat_for)
        deal = self._deal
        in_play = self._phase == "play"
        if action < NUM_CARDS and not in_play:
            record.off_play[len(record.actions) - 1] = self._phase
        hands, widow = self._held
        if action < NUM_CARDS and in_play:
            hands = tuple(h & ~(1 << action) if s == self._seat_for else h for s, h in enumerate(hands))
        now = holdings_of(deal)
        if now != (hands, widow):               # cards moved other than by the play of this one
            record.holdings.append((len(record.actions), *now))
        if deal.is_over:
            play = getattr(deal, "play", None)
            record.trick_winners = [int(w) for w in getattr(play, "trick_winners", ())] if play else []
            # the harness makes its envs with the reward scale that gives points
            record.points = [float(raw.rewards[a]) for a in raw.possible_agents]
            info = raw.infos[AGENTS[seat]]
            record.info = {k: info[k] for k in ("deal", "rubber") if k in info}
            if self.game is not None:
                record.outcome = self.game.deal_result(deal)
            if record.table is not None:
                record.table.update(table_facts(deal))


def replay_json(deals: list[DealReplay], action_text: Callable[[int], str]) -> list[dict]:
    """JSON-ready replay of a table: per deal the hands (card texts by seat), the actions as
    ``[seat, text, is_card]`` (``is_card``: a card played to a trick; a card given or discarded
    reads ``'give SA'``, ``'exchange SA'``), the trick winners, the points per seat and the env's deal
    info; where they apply, ``seats_for`` (the table seat of each action), ``holdings`` (the hands
    after an action that moved cards otherwise) and ``table`` (two-player Vint's seats and widow)."""
    def texts(mask):
        return [card_text(c) for c in hand_cards(mask)]

    out = []
    for d in deals:
        actions = []
        for k, (s, a) in enumerate(d.actions):
            if k in d.off_play:
                actions.append([s, f"{d.off_play[k]} {card_text(a)}", 0])
            else:
                actions.append([s, action_text(a), int(a < NUM_CARDS)])
        item = {
            "dealer": d.dealer,
            "hands": [texts(h) for h in d.hands],
            "turned": None if d.turned is None else card_text(d.turned),
            "actions": actions,
            "trick_winners": d.trick_winners,
            "points": d.points,
            "info": d.info,
        }
        if d.table is not None or any(f != s for f, (s, _) in zip(d.seats_for, d.actions)):
            item["seats_for"] = d.seats_for
        if d.holdings:
            item["holdings"] = [{"at": k, "hands": [texts(h) for h in hands], "widow": texts(widow)}
                                for k, hands, widow in d.holdings]
        if d.table is not None:
            item["table"] = {**d.table, "widow": texts(d.table["widow"])}
        out.append(item)
    return out
