"""Random Solo Whist play that reaches every call kind and every way a deal ends, for the tests that
compare the batched engine with the reference rules and with ``solo_whist_v0``.

Uniform random calls almost always end in abondance déclarée (the highest bid is always legal), so
each game draws a style for its deal: a seat that bids one chosen contract when it may, how often the
others pass and accept.  A share of the deals are dealt lopsided (one seat gets the top or the bottom
cards, a little shuffled) so that déclarées and misères are also made, early and before the first card.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from vint_env.rules.solo_whist_calls import (ABONDANCE, ACCEPT, BIDS, CALL_NAMES, DECLAREE, MISERE, OPEN_MISERE,
                                             PASS, PROPOSAL, TRUMP_ABONDANCE, TRUMP_BASE)


class Styles:
    """Per game of a batch: the seat that bids ``target`` when it may, and the others' pass / accept odds.

    When the target is a trump abondance, the other seats open with an abondance when they may (a trump
    abondance may only overcall one); a proposer whose proposal comes back unaccepted passes (40%), bids
    a solo, the lowest bid left (30%), or calls at random.
    """

    def __init__(self, batch: int, rng: np.random.Generator):
        self.rng = rng
        self.target = np.zeros(batch, dtype=np.int64)
        self.bidder = np.zeros(batch, dtype=np.int64)
        self.pass_prob = np.zeros(batch)
        self.accept_prob = np.zeros(batch)
        for b in range(batch):
            self.redraw(b)

    def redraw(self, b: int, target: int | None = None, bidder: int | None = None) -> None:
        rng = self.rng
        self.target[b] = rng.choice(BIDS) if target is None else target
        self.bidder[b] = rng.integers(4) if bidder is None else bidder
        self.pass_prob[b] = rng.choice([0.3, 0.7, 0.9, 1.0])
        self.accept_prob[b] = rng.choice([0.0, 0.5, 0.9])

    def actions(self, mask: np.ndarray, seats: np.ndarray, must_raise: np.ndarray) -> np.ndarray:
        """One legal action per row of ``mask`` (rows with no legal action get -1); ``must_raise[b]``: the
        observation's flag (an unaccepted proposal is back with its proposer)."""
        rng = self.rng
        out = np.full(mask.shape[0], -1, dtype=np.int64)
        u = rng.random((mask.shape[0], 3))
        for b in range(mask.shape[0]):
            legal = np.flatnonzero(mask[b])
            if legal.size == 0:
                continue
            row = mask[b]
            if legal[-1] < PASS or legal[0] >= TRUMP_BASE:      # cards, or an abondance's trump: uniform
                out[b] = legal[rng.integers(legal.size)]
            elif must_raise[b]:
                out[b] = PASS if u[b, 2] < 0.4 else legal[1] if u[b, 2] < 0.7 else legal[rng.integers(legal.size)]
            elif seats[b] == self.bidder[b] and row[self.target[b]]:
                out[b] = self.target[b]
            elif self.target[b] == TRUMP_ABONDANCE and row[ABONDANCE] and u[b, 2] < 0.8:
                out[b] = ABONDANCE
            elif row[ACCEPT] and u[b, 0] < self.accept_prob[b]:
                out[b] = ACCEPT
            elif u[b, 1] < self.pass_prob[b]:
                out[b] = PASS
            else:
                out[b] = legal[rng.integers(legal.size)]
        return out


def lopsided_deal(rng: np.random.Generator):
    """``(hands, dealer, turned, target, seat)``: ``seat`` holds the top (or bottom) cards, a little shuffled,
    and will bid ``target`` (a déclarée or abondance with top cards, a misère with bottom ones)."""
    top = rng.random() < 0.5
    noise = rng.choice([0.0, 0.0, 1.5, 3.0])
    rank = np.tile(np.arange(13), 4) + noise * rng.random(52)
    order = np.argsort(-rank if top else rank, kind="stable")
    seat = int(rng.integers(4))
    rest = rng.permutation(order[13:])
    hands = [0, 0, 0, 0]
    for c in order[:13]:
        hands[seat] |= 1 << int(c)
    others = [s for s in range(4) if s != seat]
    for i, c in enumerate(rest):
        hands[others[i // 13]] |= 1 << int(c)
    dealer = int(rng.integers(4))
    dealer_cards = [c for c in range(52) if hands[dealer] >> c & 1]
    turned = int(rng.choice(dealer_cards))
    target = int(rng.choice([DECLAREE, DECLAREE, ABONDANCE, TRUMP_ABONDANCE]) if top
                 else rng.choice([MISERE, OPEN_MISERE]))
    return tuple(hands), dealer, turned, target, seat


def outcome_events(deal) -> list[str]:
    """What a finished reference deal covered: its contract and result, how it ended, the auction's turns."""
    events = []
    eldest = deal.eldest
    calls = deal.calls
    for i, (s, a) in enumerate(calls):
        if a == ACCEPT and s == eldest and any(t == eldest and c == PASS for t, c in calls[:i]):
            events.append("eldest accepts after passing")
    if deal.thrown_in:
        events.append("thrown in")
        if any(a == PROPOSAL for _, a in calls):
            events.append("thrown in after a proposal")
        return events
    name = CALL_NAMES[deal.contract]
    events.append(f"{name} {'made' if deal.made else 'lost'}")
    if deal.contract == ABONDANCE:
        events.append(f"abondance trump {'SCDH'[deal.trump]}")
    if deal.ended_early:
        played = deal.play.tricks_played
        events.append(f"{name} {'made' if deal.made else 'lost'} early")
        if played == 0:
            events.append(f"{name} certain before the first card")
    return events


def raise_event(deal, action: int) -> str | None:
    """The proposer's answer when an unaccepted proposal comes back (call before applying ``action``)."""
    if deal.proposer_asked:
        return "must raise: passes" if action == PASS else f"must raise: {CALL_NAMES[action]}"
    return None


#: The events every long enough run must cover: each contract made and lost, the early ends, the
#: abondance trump choices, the auction's special turns.
REQUIRED = (
    [f"{CALL_NAMES[c]} {r}" for c in BIDS for r in ("made", "lost")]
    + [f"{CALL_NAMES[c]} {r} early" for c in (MISERE, OPEN_MISERE, DECLAREE) for r in ("made", "lost")]
    + [f"{CALL_NAMES[DECLAREE]} certain before the first card", f"{CALL_NAMES[MISERE]} certain before the first card"]
    + [f"abondance trump {s}" for s in "SCDH"]
    + ["thrown in", "thrown in after a proposal", "eldest accepts after passing", "must raise: passes",
       "must raise: solo"]
)


def missing(counts: Counter) -> list[str]:
    return [e for e in REQUIRED if not counts[e]]


__all__ = ["Styles", "lopsided_deal", "outcome_events", "raise_event", "REQUIRED", "missing"]
