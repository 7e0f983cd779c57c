"""Solo Whist action ids and call names (docs/envs/index.md: cards first, then the calls).

| id | action |
|---|---|
| 0..51 | play card id ``suit * 13 + rank`` |
| 52 | pass |
| 53 | proposal (with a partner, 8 tricks, turned trump) |
| 54 | acceptance of the standing proposal |
| 55 | solo (alone, 5 tricks, turned trump) |
| 56 | misère (alone, no trick, no trump) |
| 57 | abondance (alone, 9 tricks, trump named after the auction) |
| 58 | trump abondance (alone, 9 tricks, turned trump; only over an abondance) |
| 59 | open misère (misère with the hand shown after the first trick) |
| 60 | abondance déclarée (alone, 13 tricks, no trump, declarer leads) |
| 61..64 | abondance trump choice: spades, clubs, diamonds, hearts |

>>> action_text(PASS), action_text(OPEN_MISERE), action_text(trump_action(3)), action_text(13)
('pass', 'open misère', 'trump H', 'C2')
>>> parse_action("abondance") == ABONDANCE, parse_action("trump D") == trump_action(2)
(True, True)
"""

from __future__ import annotations

from ..cards import card_text, parse_card

PASS = 52
PROPOSAL = 53
ACCEPT = 54
SOLO = 55
MISERE = 56
ABONDANCE = 57
TRUMP_ABONDANCE = 58
OPEN_MISERE = 59
DECLAREE = 60
TRUMP_BASE = 61
NUM_ACTIONS = 65

BIDS = (PROPOSAL, SOLO, MISERE, ABONDANCE, TRUMP_ABONDANCE, OPEN_MISERE, DECLAREE)
CONTRACTS = BIDS          # the contract is named by the bid that won the auction
CALLS = (PASS, PROPOSAL, ACCEPT, *BIDS[1:])
CALL_NAMES = {
    PASS: "pass",
    PROPOSAL: "proposal",
    ACCEPT: "acceptance",
    SOLO: "solo",
    MISERE: "misère",
    ABONDANCE: "abondance",
    TRUMP_ABONDANCE: "trump abondance",
    OPEN_MISERE: "open misère",
    DECLAREE: "abondance déclarée",
}
_ALIASES = {"misere": MISERE, "open misere": OPEN_MISERE, "declaree": DECLAREE,
            "abondance declaree": DECLAREE, "accept": ACCEPT, "p": PASS}


def trump_action(suit: int) -> int:
    """Action naming ``suit`` (0..3: S, C, D, H) trump after an abondance."""
    if suit not in (0, 1, 2, 3):
        raise ValueError(f"trump suit must be 0..3 (S, C, D, H), got {suit!r}")
    return TRUMP_BASE + suit


_BID_RANK = {bid: i for i, bid in enumerate(BIDS)}


def bid_index(bid: int) -> int:
    """Rank of a bid, 0 (proposal) .. 6 (abondance déclarée)."""
    return _BID_RANK[bid]


def action_text(action: int) -> str:
    """``'SA'`` for a card, a call name, or ``'trump H'``."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is out of range 0..{NUM_ACTIONS - 1}")
    if action < 52:
        return card_text(action)
    if action < TRUMP_BASE:
        return CALL_NAMES[action]
    return "trump " + "SCDH"[action - TRUMP_BASE]


def parse_action(text: str) -> int:
    """Action id from a card (``'H2'``), a call name (``'solo'``) or ``'trump D'``."""
    t = " ".join(text.strip().lower().split())
    for action, name in CALL_NAMES.items():
        if t == name:
            return action
    if t in _ALIASES:
        return _ALIASES[t]
    if t.startswith("trump ") and len(t) == 7 and t[6] in "scdh":
        return trump_action("scdh".index(t[6]))
    return parse_card(text)
