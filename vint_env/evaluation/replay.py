"""What happened at a table, action by action, for replays (the HTML match viewer).

A :class:`TableRecorder` watches one episode through the env: for every deal
it keeps the hands as dealt, the dealer and turned card, every action with its
seat, the trick winners (read from the rules' trick play, not recomputed), the
points per seat the deal earned and the env's deal info (contract, score
items).  A rubber episode gives one record per deal.

The records are plain data; :func:`replay_json` writes them with action texts
(``'SA'``, ``'pass'``, ``'3NT'``) so a viewer needs no game rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .._moved import renamed_attributes
from ..cards import NUM_CARDS, card_text, hand_cards   # actions 0..51 are the cards in every game
from ..games import AGENTS

#: ``DealRecord`` was this module's name for :class:`DealReplay` (``vint_env.rules.rubber.DealRecord`` is a
#: score-sheet line, another thing): the old name is kept for one release.
__getattr__ = renamed_attributes(__name__, {"DealRecord": "vint_env.evaluation.replay.DealReplay"})


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


class TableRecorder:
    """Call :meth:`before` before each live step and :meth:`after` after it."""

    def __init__(self) -> None:
        self.deals: list[DealReplay] = []
        self._deal = None

    def before(self, raw) -> None:
        deal = raw.deal
        if deal is not self._deal:
            self._deal = deal
            turned = getattr(deal, "turned_card", None)
            self.deals.append(DealReplay(int(deal.dealer), tuple(int(h) for h in deal.hands),
                                         None if turned is None else int(turned)))

    def after(self, raw, seat: int, action: int) -> None:
        record = self.deals[-1]
        record.actions.append((seat, int(action)))
        deal = self._deal
        if deal.is_over:
            play = getattr(deal, "play", None)
            record.trick_winners = [int(w) for w in getattr(play, "trick_winners", ())] if play else []
            # the harness makes its envs with the reward scale that gives points
            record.points = [float(raw.rewards[a]) for a in raw.possible_agents]
            info = raw.infos[AGENTS[seat]]
            record.info = {k: info[k] for k in ("deal", "rubber") if k in info}


def replay_json(deals: list[DealReplay], action_text: Callable[[int], str]) -> list[dict]:
    """JSON-ready replay of a table: per deal the hands (card texts by seat), the actions as
    ``[seat, text, is_card]``, the trick winners, the points per seat and the env's deal info."""
    out = []
    for d in deals:
        out.append({
            "dealer": d.dealer,
            "hands": [[card_text(c) for c in hand_cards(h)] for h in d.hands],
            "turned": None if d.turned is None else card_text(d.turned),
            "actions": [[s, action_text(a), int(a < NUM_CARDS)] for s, a in d.actions],
            "trick_winners": d.trick_winners,
            "points": d.points,
            "info": d.info,
        })
    return out
