"""What one deal came to at a table: :class:`DealOutcome`, the common part, and one subclass per game.

A deal's outcome is read from the rules' deal once, by its game's type (the
record's ``outcome``: ``VintOutcome``, ``WhistOutcome``, ``SoloWhistOutcome``,
``Vint2pOutcome``, each in its game's module), and every layer above reads that
object instead of the deal's attributes or a dict: the evaluation's tables and
reports, the double-dummy analysis, the replays, ``vint-play`` and
``vint-serve``.

The common part every game has: the dealer, the raw points per agent (None
while the deal is being played), the scoring items (``breakdown``), the
declarer (None without a contract), whether the contract was made (None
where the game has no contract), and the contract's name
(:attr:`DealOutcome.contract_name`).  Each game adds its own facts (Vint's
contract and tricks per side, Whist's trump and tricks per seat ...).

``details`` is the outcome as the JSON table facts the results files of
``vint-eval match`` hold (and the HTML viewer shows); ``from_details`` reads
them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules.vint import Contract


@dataclass(frozen=True, kw_only=True)
class DealOutcome:
    """What one deal came to (the common part of every game's outcome type; see the module docstring).

    ``points``: raw points per agent (zero-sum; partners alike in the partnership games, the
    payments in Solo Whist, in the game's ``points_unit``), None while the deal is being played;
    ``breakdown``: the scoring items per side (``"NS"``/``"EW"``: tricks, honours, coronets ... and
    their total), per player (two-player Vint) or per seat (Solo Whist's payments), ``{}`` while
    the deal is being played; ``declarer``: the seat that declared (two-player Vint: the player),
    None without a contract; ``made``: the contract was made (None without a contract, and in a
    game without contracts).
    """

    dealer: int
    points: tuple | None = None
    breakdown: dict = field(default_factory=dict)
    declarer: int | None = None
    made: bool | None = None

    @classmethod
    def of(cls, deal) -> "DealOutcome":
        """The outcome of ``deal`` (a rules deal of this type's game), finished or being played."""
        raise NotImplementedError

    @classmethod
    def from_details(cls, details: dict) -> "DealOutcome":
        """The outcome back from its :attr:`details` (a results file's table; no points or breakdown)."""
        raise NotImplementedError

    @property
    def details(self) -> dict:
        """The table facts of the results files (``vint-eval match --out``), JSON-ready."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """The deal is over (its points are known)."""
        return self.points is not None

    @property
    def contract_name(self) -> str | None:
        """The contract as the game writes it (``"3NT"``, ``"abondance"``), None without one."""
        contract = getattr(self, "contract", None)
        return None if contract is None else str(contract)

    @property
    def tricks(self) -> tuple | None:
        """The tricks taken as the game counts them (per side, per seat or per player), None before the play."""
        raise NotImplementedError

    @property
    def status(self) -> str | None:
        """What a table shows where there is no contract (``"passed out"``, ``"thrown in"``), or None."""
        return None

    def view(self) -> dict:
        """What the HTML viewer's boards table shows of the deal: the contract, its declarer, the status
        without one, the tricks."""
        tricks = self.tricks
        return {"contract": self.contract_name, "declarer": self.declarer, "status": self.status,
                "tricks": None if tricks is None else list(tricks)}


@dataclass(frozen=True, kw_only=True)
class BidContractOutcome(DealOutcome):
    """The part the two Vint games share: whether the deal was passed out, and the contract won in the
    auction (a :class:`~vint_env.rules.vint.Contract`, level and strain) with its declarer."""

    passed_out: bool = False
    contract: Contract | None = None

    @property
    def status(self) -> str | None:
        return "passed out" if self.passed_out else None

    def contract_details(self) -> dict:
        """The contract's entries of :attr:`details`: its text, level and strain, and the declarer."""
        c = self.contract
        return {} if c is None else {"contract": str(c), "level": c.level, "strain": c.strain,
                                     "declarer": self.declarer}

    @staticmethod
    def contract_from(details: dict) -> tuple[Contract | None, int | None]:
        """The contract and declarer back from :meth:`contract_details`' entries."""
        if "contract" not in details:
            return None, None
        return Contract(details["level"], details["strain"]), details["declarer"]


def partnership_points(deal) -> tuple[tuple, dict]:
    """A finished partnership deal's points per seat (N/S's total minus E/W's) and items per side."""
    diff = deal.scores[0].total - deal.scores[1].total
    return (diff, -diff, diff, -diff), {side: deal.scores[s].as_dict() for s, side in enumerate(("NS", "EW"))}


def contract_made(contract, tricks: tuple, declarer_side: int) -> bool | None:
    """A Vint contract (level L) is made with 6 + L tricks of the declaring side; None without one."""
    if contract is None or tricks is None:
        return None
    return bool(tricks[declarer_side] >= 6 + contract.level)


__all__ = ["BidContractOutcome", "DealOutcome", "contract_made", "partnership_points"]
