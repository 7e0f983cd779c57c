"""PIMC for two-player Vint (`vint2p_v0`): what the player knows in the play, and where it decides.

:func:`vint2p_position` turns what a player knows at a card decision (two-player
Vint's decoder, :class:`~vint_env.games.vint2p.Vint2pKnowledge`) into the PIMC :class:`~vint_env.agents.search.pimc.Position`, so the
sampler and the decision are the ones of four-player Vint.  What the player
knows, by way:

- **ways 1, 4, 5** (four hands, two of them dummies): the hand he acts for,
  his other hand, the opponent's dummy (both dummies are face up once the
  auction is over; in way 5 the widow and the give-aways have gone into
  those hands), the cards played by each seat, the voids shown.  Seats are
  relative to the seat he acts for (0 that seat, 2 the hand opposite).
  Only the opponent's own hand is unseen, and it is exactly the cards
  nobody else holds or played: the sampler finds one deal, the real one.
- **ways 2 and 3** (two hands playing tricks of two cards; the piles and
  discards out of play): his own hand (seat 0), his own discards, the
  cards played, the opponent's voids.  The unseen cards are dealt between
  the opponent's hand (seat 2, 13 cards less those he played) and the
  cards out of play (seat 1: the rest of the piles and both players'
  discards, 26 cards, his own discards known among them); seat 3 holds
  nothing.  Every such deal is equally likely: what the opponent's
  keeping or exchanging says about his strength depends on his judgement,
  not on the rules, and is not used.

PIMC decides (the position is *solvable*) where a double-dummy solver
models the play: where the four hands sit as two partnerships opposite each
other, as DDS assumes (the hand opposite the one the player acts for is his
own other hand: the play of way 1, of ways 4 and 5 when the dealer
declares, and of a passed-out deal played in way 4, where the dealer keeps
the open dummy), and the tricks of two cards of ways 2 and 3
(:mod:`~vint_env.agents.search.two_hand_dd`, ``Position.two_hands``).  In ways 4
and 5 when the non-dealer declares the sides sit side by side (seats 1, 2
against 0, 3), which neither solver models: the agent plays the rule bot's
card there, as the ``dd`` agent of two-player Vint does.

Way 5 after the auction, where the dealer declares, the declarer's
decisions are scored by the best final contract he may then name (the
double-dummy tricks of the deal, the Vint scoring): the widow's destination
over sampled widows (:func:`dd_widow`), each give-away with every card seen
(:func:`dd_give_away`), the final contract (:func:`dd_final_contract`).
"""

from __future__ import annotations

import time

from ...cards import FULL_DECK
from ...games.vint2p import OPP_DUMMY, OPPONENT, OWN_DUMMY, OWN_HAND, PLAY, Vint2pKnowledge
from ...rules.vint import Contract
from ...rules.vint2p import FINAL, GIVE, WIDOW
from .pimc_games import PimcPlan, RuleCaller
from .position import Position
#: Ways 2 and 3: cards out of play (the piles and both players' discards).
OUT_OF_PLAY = 26


def deal_points(k: Vint2pKnowledge):
    """The player's points minus the opponent's for his side's total tricks
    (honours left out, as in four-player PIMC: they do not depend on the play)."""
    from ...rules.vint_scoring import score_contract, score_passout_play
    if k.passout_play:
        def points(ours: int) -> int:
            a, b = score_passout_play((ours, 13 - ours))
            return a.total - b.total
        return points
    level, strain = k.contract
    declarer = k.declarer                         # side 0 is the player

    def points(ours: int) -> int:
        a, b = score_contract((0, 0, 0, 0), level, strain, declarer, (ours, 13 - ours))
        return a.total - b.total
    return points


def vint2p_position(k: Vint2pKnowledge) -> Position:
    """The PIMC position of a card decision from what the player knows (see the module docstring)."""
    points = deal_points(k)
    if k.two_hands:
        hand, discards = k.hand, k.my_discards
        return Position(hand=hand, played=k.played_by, trick=k.trick, trump=k.trump, side_tricks=k.tricks_taken,
                        points=points, known={1: discards} if discards else {},
                        voids=[set(v) for v in k.voids],
                        size=[hand.bit_count(), OUT_OF_PLAY, 13 - k.played_by[2].bit_count(), 0], two_hands=True)
    a = k.acting_for                             # the seat he acts for, relative to his own
    turn = k.from_seat(a)                         # acting-relative seat -> observer-relative seat
    known = {r: k.hands[turn[r]] for r in (1, 2, 3) if k.shown[turn[r]]}
    return Position(hand=k.hands[a], played=[k.played_by[t] for t in turn],
                    trick=k.trick_from(a), trump=k.trump, side_tricks=k.tricks_taken,
                    points=points, known=known, voids=[set(k.voids[t]) for t in turn],
                    solvable=k.roles[turn[2]] in (OWN_HAND, OWN_DUMMY))


# ----------------------------------------------------------------- way 5 after the auction

def _way5_seats(k: Vint2pKnowledge) -> dict[int, int] | None:
    """Role -> relative seat (own hand, own dummy, opponent, opponent's dummy), or
    ``None`` where double-dummy does not model the play (the non-dealer declared:
    the sides sit side by side)."""
    seat = {role: k.seat_of(role) for role in (OWN_HAND, OWN_DUMMY, OPPONENT, OPP_DUMMY)}
    if sorted((seat[OWN_HAND], seat[OWN_DUMMY])) != [0, 2]:
        return None
    return seat


def _contract_values(hands, leader: int, actions) -> dict[int, int]:
    """Bid action -> the score of our side (seats 0 and 2, declaring) minus theirs
    if it is the contract and both sides take their double-dummy tricks, seat
    ``leader`` leading; the Vint scoring with the honours of ``hands``."""
    from ...rules.vint import BID_BASE
    from ...rules.vint_scoring import score_contract
    from .double_dummy import dd_table
    table = dd_table(tuple(hands))
    seat = (leader + 3) % 4                       # the seat of our side whose left-hand opponent leads
    out = {}
    for action in actions:
        level, strain = Contract.from_action(action)
        tricks = table[strain][seat]
        a, b = score_contract(hands, level, strain, 0, (tricks, 13 - tricks))
        out[action] = a.total - b.total
    return out


def _best_contract(hands, leader: int, lowest_bid: int) -> int:
    """The best of :func:`_contract_values` over every bid from ``lowest_bid`` up."""
    from ...rules.vint import NUM_ACTIONS
    return max(_contract_values(hands, leader, range(lowest_bid, NUM_ACTIONS)).values())


def _seen_hands(k: Vint2pKnowledge) -> list[int]:
    """The four present hands, relative seats, the one unseen hand by elimination
    (after the auction of ways 4 and 5 only the opponent's own hand is unseen)."""
    hands = [k.hands[r] if k.shown[r] else 0 for r in range(4)]
    hidden = [r for r in range(4) if not k.shown[r]]
    if len(hidden) != 1:
        raise RuntimeError(f"way 5: expected one unseen hand, relative seats {hidden} are unseen")
    hands[hidden[0]] = FULL_DECK & ~(hands[0] | hands[1] | hands[2] | hands[3])
    return hands


def _give_rest(hands: list[int], giver: int, recipients: list[int]) -> list[int]:
    """The remaining give-aways made as the rule bot makes them (the lowest card)."""
    from ..rule.card_play import lowest
    from ...cards import hand_cards
    hands = list(hands)
    for to in recipients:
        card = lowest(hand_cards(hands[giver]))
        hands[giver] &= ~(1 << card)
        hands[to] |= 1 << card
    return hands


def dd_widow(k: Vint2pKnowledge, rng, samples: int, budget: float | None = None) -> int | None:
    """Way 5's widow destination where the dealer declares: the widow (unseen)
    and the opponent's hand are sampled (:class:`DealSampler`, every split of
    the 16 unseen cards equally likely); for each destination the three
    give-aways are made as the rule bot makes them and the best final contract
    is scored double-dummy; the better mean wins, the rule bot's own-hand
    choice on ties.  ``None`` where the sides sit side by side.  ``budget``: seconds the choice may
    take (at least one sample)."""
    from ...rules.vint2p import WIDOW_TO_DUMMY, WIDOW_TO_HAND
    from .deal_sampler import DealSampler, HandConstraints
    seats = _way5_seats(k)
    if seats is None:
        return None
    own, dummy, opp, opp_dummy = (seats[role] for role in (OWN_HAND, OWN_DUMMY, OPPONENT, OPP_DUMMY))
    known = [0, 0, 0, 0, 0]                       # the four relative seats, then the widow
    for r in (own, dummy, opp_dummy):
        known[r] = k.hands[r]
    size = [12, 12, 12, 12, 4]
    sampler = DealSampler(HandConstraints(known=known, size=size, low=[[0] * 4 for _ in range(5)],
                                    high=[[13] * 4 for _ in range(5)]))
    lowest_bid = k.winning_bid
    totals = {WIDOW_TO_HAND: 0.0, WIDOW_TO_DUMMY: 0.0}
    start = time.perf_counter()
    for i in range(samples):
        if budget is not None and i and time.perf_counter() - start >= budget:
            break
        deal = sampler.draw(rng)
        for action, to in ((WIDOW_TO_HAND, own), (WIDOW_TO_DUMMY, dummy)):
            hands = deal[:4]
            hands[to] |= deal[4]
            other = dummy if to == own else own
            hands = _give_rest(hands, to, [other, opp, opp_dummy])
            totals[action] += _best_contract(hands, opp, lowest_bid)
    return WIDOW_TO_DUMMY if totals[WIDOW_TO_DUMMY] > totals[WIDOW_TO_HAND] else WIDOW_TO_HAND


def dd_give_away(k: Vint2pKnowledge, legal: list[int]) -> int | None:
    """A way-5 give-away where the dealer declares (every card is seen): of the
    lowest card of each suit, the one after which (the rest given as the rule
    bot gives) the best final contract scores best double-dummy; the rule bot's
    card (the lowest) on ties.  ``None`` where the sides sit side by side."""
    from ..rule.card_play import lowest
    seats = _way5_seats(k)
    if seats is None:
        return None
    own, dummy, opp, opp_dummy = (seats[role] for role in (OWN_HAND, OWN_DUMMY, OPPONENT, OPP_DUMMY))
    giver = k.acting_for
    recipients = [dummy if giver == own else own, opp, opp_dummy][k.gives:]
    hands = _seen_hands(k)
    lowest_bid = k.winning_bid
    candidates = sorted({lowest([c for c in legal if c // 13 == s]) for s in range(4)
                         if any(c // 13 == s for c in legal)})
    rule_card = lowest(legal)
    best, best_value = rule_card, None
    for card in [rule_card] + [c for c in candidates if c != rule_card]:
        h = list(hands)
        h[giver] &= ~(1 << card)
        h[recipients[0]] |= 1 << card
        value = _best_contract(_give_rest(h, giver, recipients[1:]), opp, lowest_bid)
        if best_value is None or value > best_value:
            best, best_value = card, value
    return best


def dd_final_contract(k: Vint2pKnowledge, legal: list[int]) -> int | None:
    """Way 5's final contract from a decoded observation: the legal bid whose
    score for the declarer's side (the Vint scoring with the honours of the
    hands, majority rule) is best given the double-dummy tricks of the deal,
    the opponent's own hand leading; the lowest bid on ties.  ``None`` where
    double-dummy does not model the play (the non-dealer declared: the sides
    sit side by side)."""
    seats = _way5_seats(k)
    if seats is None:
        return None
    values = _contract_values(_seen_hands(k), seats[OPPONENT], legal)
    return max(legal, key=lambda a: (values[a], -a))


class Vint2pCaller(RuleCaller):
    """Two-player Vint's decisions before the play in PIMC: way 5's widow, give-aways and final contract
    by double-dummy where the dealer declares (counted in ``stats["way5_choices"]``), else the rule bot."""

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        k = self.pimc.record.decode(observation["observation"])
        if k.phase in (WIDOW, GIVE, FINAL):           # way 5's widow, give-aways, final contract
            legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
            if k.phase == WIDOW:
                call = dd_widow(k, self.pimc.rng, self.pimc.samples, self.pimc.budget)
            elif k.phase == GIVE:
                call = dd_give_away(k, legal)
            else:
                call = dd_final_contract(k, legal)
            if call is not None:
                self.pimc.stats["way5_choices"] += 1
                if call not in legal:
                    raise RuntimeError(f"pimc chose {call} in way 5, not legal ({legal})")
                return call
        return self.rule.act(observation, agent=agent)


#: Two-player Vint's PIMC plan (named by its game record).  Card decisions PIMC cannot model
#: (``Position.solvable`` False) go to the rule bot, counted in ``stats["rule_cards"]``.
VINT2P = PimcPlan(in_play=lambda k: k.phase == PLAY, position=vint2p_position, bidder=Vint2pCaller,
                  refused={"auction": "pimc option auction=1 is for Vint only: in two-player Vint PIMC decides "
                                      "only where every card is seen, so the auction has nothing to add"},
                  stats=("rule_cards", "way5_choices"))


__all__ = ["vint2p_position", "dd_widow", "dd_give_away", "dd_final_contract", "deal_points", "OUT_OF_PLAY", "VINT2P", "Vint2pCaller"]
