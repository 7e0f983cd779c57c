"""Double-dummy analysis of Vint tables: par, bidding and declarer play.

For every board: the double-dummy table (tricks of each declarer in each
strain) and the par (:class:`~vint_env.agents.search.double_dummy.VintParGame`).
For every table that reached a contract (read from the table's
:class:`~vint_env.games.vint.VintOutcome`):

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
        d, outcome = t.details, t.outcome        # the table's VintOutcome; the analysis goes to its details
        d["par_value"] = par_value
        d["par_contract"] = None if par_bid is None else str(Contract.from_index(par_bid))
        contract, declarer = outcome.contract, outcome.declarer
        if contract is None:
            d["value_vs_par"] = 0 - par_value
            continue
        dd = game.table[contract.strain][declarer]
        taken = outcome.side_tricks[declarer & 1]
        d["dd_tricks"] = dd
        d["tricks_vs_dd"] = taken - dd
        d["level_vs_dd"] = contract.level - (dd - 6)
        d["value_vs_par"] = game.score[contract.index][declarer] - par_value
