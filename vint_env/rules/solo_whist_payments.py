"""Solo Whist payments, docs/rules/solo_whist.md, Payments (the Collection), in quarter points.

Stakes: proposal 1 point, solo 1, misère 2, abondance and trump abondance
3, open misère 4, abondance déclarée 6.  Over- and undertricks: 1/4 point a
trick for proposal and solo, 1/2 for the abondances; none for the misères
and déclarée.  Everything is in quarter points (integers), zero-sum over
the four players.

Variants (``payments``):

- ``"symmetric"`` (default): a lost contract costs the stake plus the
  undertrick money, the mirror of a made one.
- ``"literal"``: the Collection's words: a lost proposal, solo or abondance costs only
  the undertrick money; the misères and déclarée cost the stake.

Who pays whom: in a solo contract the declarer receives from (pays to) each
of the three others; in a proposal each partner receives from (pays to) one
defender, so each of the four gains or loses the same amount (Collection: "и
предлагающий, и принимающий получают от соперников одно очко").

>>> payments(SOLO, declarer=1, partner=None, tricks=7)      # solo made with 2 over
[-6, 18, -6, -6]
>>> payments(PROPOSAL, declarer=0, partner=3, tricks=6)     # proposal 2 short
[-6, 6, 6, -6]
>>> payments(PROPOSAL, declarer=0, partner=3, tricks=6, variant="literal")
[-2, 2, 2, -2]
"""

from __future__ import annotations

from .solo_whist_calls import (ABONDANCE, DECLAREE, MISERE, OPEN_MISERE, PROPOSAL, SOLO,
                               TRUMP_ABONDANCE)

PAYMENT_VARIANTS = ("symmetric", "literal")

# contract -> (stake, tricks needed, over/undertrick money), in quarter points
TERMS = {
    PROPOSAL: (4, 8, 1),
    SOLO: (4, 5, 1),
    MISERE: (8, 0, 0),
    ABONDANCE: (12, 9, 2),
    TRUMP_ABONDANCE: (12, 9, 2),
    OPEN_MISERE: (16, 0, 0),
    DECLAREE: (24, 13, 0),
}
MISERES = (MISERE, OPEN_MISERE)


def contract_made(contract: int, tricks: int) -> bool:
    """Whether the declaring side's ``tricks`` fulfil the contract."""
    if contract in MISERES:
        return tricks == 0
    return tricks >= TERMS[contract][1]


def amount(contract: int, tricks: int, variant: str = "symmetric") -> int:
    """What each payer pays: positive when the declaring side receives."""
    if variant not in PAYMENT_VARIANTS:
        raise ValueError(f"payments must be one of {PAYMENT_VARIANTS}, got {variant!r}")
    if contract not in TERMS:
        raise ValueError(f"not a Solo Whist contract: {contract!r}")
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks must be 0..13, got {tricks!r}")
    stake, need, per_trick = TERMS[contract]
    if contract_made(contract, tricks):
        return stake + (per_trick * (tricks - need) if per_trick else 0)
    if not per_trick:          # misères and déclarée: no over- or undertricks
        return -stake
    short = need - tricks
    if variant == "literal":
        return -per_trick * short
    return -(stake + per_trick * short)


def payments(contract: int, declarer: int, partner: int | None, tricks: int,
             variant: str = "symmetric") -> list[int]:
    """Each seat's gain in quarter points (sums to zero).

    ``tricks``: taken by the declaring side (declarer and partner together).
    Misères and déclarée ended early are scored on the tricks at the end:
    any trick taken loses a misère, any trick lost a déclarée.
    """
    x = amount(contract, tricks, variant)
    out = [0, 0, 0, 0]
    if contract == PROPOSAL:
        if partner is None or partner == declarer:
            raise ValueError("a proposal is played by the proposer and a partner")
        for seat in range(4):
            out[seat] = x if seat in (declarer, partner) else -x
        return out
    if partner is not None:
        raise ValueError(f"only a proposal has a partner, not contract {contract!r}")
    for seat in range(4):
        out[seat] = 3 * x if seat == declarer else -x
    return out
