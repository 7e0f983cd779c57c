"""Double-dummy analysis of Vint tables: par, bidding and declarer play.

For every board: the double-dummy table (tricks of each declarer in each
strain) and the par (:class:`~vint_env.agents.search.double_dummy.VintParGame`).
For every table that reached a contract:

- ``dd_tricks``: the tricks the declaring side would take double-dummy;
  ``tricks_vs_dd`` = tricks taken minus ``dd_tricks`` (declarer play, with
  the defence, against perfect play);
- ``level_vs_dd``: contract level minus the highest level the declarer
  could make double-dummy in that strain (> 0 overbid, < 0 underbid);
- ``value_vs_par``: N/S points of the contract reached, scored with
  double-dummy tricks, minus the par value (auction quality, N/S view).
"""

from __future__ import annotations

from ..agents.search.double_dummy import VintParGame
from ..rules.vint import Contract
from .deals import Board


def add_dd_analysis(board: Board, tables) -> None:
    game = VintParGame(board.hands)
    par_value, par_bid, par_decl = game.par(board.dealer)
    for t in tables:
        d = t.details
        d["par_value"] = par_value
        d["par_contract"] = None if par_bid is None else str(Contract.from_index(par_bid))
        if "contract" not in d:
            d["value_vs_par"] = 0 - par_value
            continue
        strain, level, declarer = d["strain"], d["level"], d["declarer"]
        dd = game.table[strain][declarer]
        taken = d["side_tricks"][declarer & 1]
        d["dd_tricks"] = dd
        d["tricks_vs_dd"] = taken - dd
        d["level_vs_dd"] = level - (dd - 6)
        d["value_vs_par"] = game.score[Contract(level, strain).index][declarer] - par_value
