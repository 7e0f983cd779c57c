"""The knowledge decoders of the games (`vint_env.games.knowledge`, `Game.decode`) on hand-made positions.

Each position is dealt by suit (North the spades, East the clubs, South the diamonds, West the hearts), so every
player shows out at every trick another suit leads, and what each player knows is worked out by hand below.
Seats are relative to the observer: 0 the observer, 1 the left, 2 across, 3 the right.
"""

import numpy as np
import pytest

from vint_env import games
from vint_env.cards import SUIT_MASK, parse_card
from vint_env.games.knowledge import Knowledge
from vint_env.rules.vint import PASS, Contract, VintDeal, bid_action
from vint_env.rules.whist import WhistDeal
from vint_env.rules.solo_whist import SoloWhistDeal
from vint_env.rules.vint2p import Vint2pDeal

S, C, D, H = 0, 1, 2, 3
BY_SUIT = [SUIT_MASK[S], SUIT_MASK[C], SUIT_MASK[D], SUIT_MASK[H]]    # N spades, E clubs, S diamonds, W hearts


def cards(*names):
    mask = 0
    for n in names:
        mask |= 1 << parse_card(n)
    return mask


def knows(name, deal, seat):
    game = games.get(name)
    return game.decode(game.encode_observation(deal, seat))


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_every_record_names_its_decoder(game):
    k = game.decode(np.zeros(game.layout.size, dtype=np.float32))
    assert isinstance(k, Knowledge) and type(k) is game.decoder and type(k) is not Knowledge
    assert k.cards_played == 0 and k.trick == [] and k.played == 0


def vint_deal():
    """North deals; N 1S, E pass, S 2D, W pass, N pass, E pass: 2D by South. West leads.
    Trick 1: W HA, N S2, E C2, S D2 (South ruffs); trick 2 so far: S DA, W H2, N S3; East to play."""
    d = VintDeal(BY_SUIT, dealer=0)
    for a in (bid_action(1, S), PASS, bid_action(2, D), PASS, PASS, PASS):
        d.apply(a)
    for c in ("HA", "S2", "C2", "D2", "DA", "H2", "S3"):
        d.apply(parse_card(c))
    assert d.current_player == 1
    return d


def test_vint_knowledge_in_the_play_as_east_sees_it():
    k = knows("vint", vint_deal(), 1)          # East: N is 3 (right), S 1 (left), W 2 (partner)
    assert not k.in_auction and not k.passout_play
    assert k.hand == SUIT_MASK[C] & ~cards("C2")
    assert k.dealer == 3
    assert k.calls == [(3, bid_action(1, S)), (0, PASS), (1, bid_action(2, D)), (2, PASS), (3, PASS), (0, PASS)]
    assert k.contract == Contract(2, D) and k.declarer == 1
    assert k.named == [(), (D,), (), (S,)]
    assert k.trump == D
    assert k.leader == 1
    assert k.trick == [(1, parse_card("DA")), (2, parse_card("H2")), (3, parse_card("S3"))]
    assert k.last_trick == {2: parse_card("HA"), 3: parse_card("S2"), 0: parse_card("C2"), 1: parse_card("D2")}
    assert k.played_by == [cards("C2"), cards("D2", "DA"), cards("HA", "H2"), cards("S2", "S3")]
    assert k.played == cards("C2", "D2", "DA", "HA", "H2", "S2", "S3")
    assert k.cards_played == 7 and k.tricks_played == 1
    assert k.tricks_taken == (0, 1)            # South's ruff: the other side
    # Trick 1 (hearts led): North, East and South showed out; trick 2 (diamonds led): West and North.
    assert k.voids == [{H}, {H}, {D}, {H, D}]


def test_vint_knowledge_in_the_auction():
    d = VintDeal(BY_SUIT, dealer=2)            # South deals: S 1H, W pass; North to call
    d.apply(bid_action(1, H))
    d.apply(PASS)
    k = knows("vint", d, 0)
    assert k.in_auction
    assert k.hand == SUIT_MASK[S] and k.dealer == 2
    assert k.calls == [(2, bid_action(1, H)), (3, PASS)]
    assert k.contract == Contract(1, H) and k.declarer == 2
    assert k.named == [(), (), (H,), ()]
    assert k.cards_played == 0 and k.trick == [] and k.tricks_played == 0
    before = knows("vint", VintDeal(BY_SUIT, dealer=0), 0)      # nothing called yet
    assert before.calls == [] and before.contract is None and before.declarer is None


def test_vint_named_suits_in_the_order_first_named_and_no_trump_is_no_suit():
    d = VintDeal(BY_SUIT, dealer=0)            # N 1H, E 1NT, S pass, W pass, N 2S, E pass, S pass, W 3H
    for a in (bid_action(1, H), bid_action(1, 4), PASS, PASS, bid_action(2, S), PASS, PASS, bid_action(3, H)):
        d.apply(a)
    k = knows("vint", d, 0)
    assert k.named == [(H, S), (), (), (H,)]
    assert k.contract == Contract(3, H) and k.declarer == 3


def test_whist_knowledge_sees_the_turned_card_until_the_dealer_plays_it():
    d = WhistDeal(BY_SUIT, dealer=0, turned_card=parse_card("S5"))     # North turns the spade five: spades trump
    west = knows("whist", d, 3)
    assert west.turned == (1, parse_card("S5"))                       # North is West's left
    assert west.trump == S and west.hand == SUIT_MASK[H] and west.cards_played == 0
    assert knows("whist", d, 0).turned == (0, parse_card("S5"))        # the dealer's own
    d.apply(parse_card("C2"))                                          # East leads
    d.apply(parse_card("D2"))
    d.apply(parse_card("H2"))
    d.apply(parse_card("S5"))                                          # North ruffs with the turned card
    k = knows("whist", d, 3)
    assert k.turned is None
    assert k.tricks_taken == (0, 1) and k.tricks_played == 1 and k.trick == [] and k.leader == 1
    assert k.voids == [{C}, {C}, set(), {C}]                           # W, N, S showed out of clubs


def test_solo_whist_knowledge_of_the_contract_and_the_sides():
    d = SoloWhistDeal(BY_SUIT, dealer=0, turned_card=parse_card("S5"))
    auction = knows("solo_whist", d, 1)
    assert auction.phase == 0 and auction.turned_trump == S and auction.hand == SUIT_MASK[C]
    assert auction.declaring == [] and auction.declarer is None
    for call in (53, 54, 52, 52):             # E proposes, S accepts, W and N pass
        d.apply(call)
    south = knows("solo_whist", d, 2)          # East is South's right (3)
    assert south.phase == 2 and south.contract == 53
    assert south.declaring == [0, 3] and south.declarer == 0 and south.partners == frozenset({3})
    north = knows("solo_whist", d, 0)          # the defenders: North and West (3)
    assert north.declaring == [1, 2] and north.declarer == 1 and north.partners == frozenset({3})
    assert north.tricks_taken == (0, 0, 0, 0)


def test_vint2p_knowledge_of_the_roles_and_the_hands_seen():
    d = Vint2pDeal(BY_SUIT, way=1, dealer=0)   # player 0: seat 0 and his dummy seat 2; player 1: seats 1, 3
    k = knows("vint2p", d, 0)
    assert k.phase == "auction" and k.way == 1 and not k.single_auction and not k.two_hands
    assert k.roles == (0, 2, 1, 3)              # own hand, opponent, own dummy, opponent's dummy
    assert k.seat_of(1) == 2 and k.seat_of(4) == 0
    assert k.shown == (True, False, True, False)
    assert k.hands == [SUIT_MASK[S], 0, SUIT_MASK[D], 0] and k.hand == SUIT_MASK[S]
    assert k.acting_for == 0 and k.per_trick == 4
    assert k.declarer is None and k.contract is None and not k.my_bids
    assert k.from_seat(2) == [2, 3, 0, 1]
    d.apply(bid_action(1, S))
    opp = knows("vint2p", d, 1)
    assert opp.declarer == 1 and opp.contract == Contract(1, S) and not opp.my_bids


def test_vint2p_knowledge_of_two_hands_playing_tricks_of_two():
    d = Vint2pDeal(BY_SUIT, way=2, dealer=0)
    k = knows("vint2p", d, 0)
    assert k.phase == "exchange" and k.way == 2
    assert k.two_hands and k.per_trick == 2
    assert k.roles == (0, 5, 2, 5)              # own hand, a pile, the opponent, a pile
    assert k.hand == SUIT_MASK[S] and k.my_discards == 0
