import numpy as np
import pytest

from card_game_checks import DEAL_002 as PBN
from vint_env.cards import (Card, DeckError, Rank, Suit, deal_to_pbn, hand_cards, hand_from_cards,
                            hand_to_pbn, parse_card, parse_pbn, random_deal)


def test_card_ids_follow_design():
    assert parse_card("S2") == 0
    assert parse_card("SA") == 12
    assert parse_card("C2") == 13
    assert parse_card("D2") == 26
    assert parse_card("HA") == 51
    assert parse_card("h10") == parse_card("HT") == 3 * 13 + 8
    c = Card.parse("dq")
    assert (c.suit, c.rank, str(c)) == (Suit.DIAMONDS, Rank.QUEEN, "DQ")


@pytest.mark.parametrize("bad", ["", "S", "X2", "S1", "S11", "SAA", "10S", "H0"])
def test_malformed_card_text_is_refused(bad):
    with pytest.raises(DeckError, match="malformed card"):
        parse_card(bad)


def test_card_id_out_of_range():
    with pytest.raises(DeckError, match="out of range"):
        Card(52)


def test_pbn_round_trip_and_seat_order():
    hands = parse_pbn(PBN)
    assert hand_to_pbn(hands[0]) == "KJ74.AQ6.AKJ5.J8"
    assert hand_to_pbn(hands[3]) == "T986.J4.Q764.K52"
    assert deal_to_pbn(hands) == PBN
    # PBN starting at another seat names that seat's hand first.
    east_first = "E:" + " ".join(PBN[2:].split()[1:] + PBN[2:].split()[:1])
    assert parse_pbn(east_first) == hands
    assert deal_to_pbn(hands, first=1) == east_first
    # PBN suit order is S.H.D.C; internally hearts are suit 3 and clubs suit 1.
    assert parse_card("HA") in hand_cards(hands[0])
    assert parse_card("C8") in hand_cards(hands[0])


@pytest.mark.parametrize("bad, message", [
    (PBN[2:], "must start with a seat"),
    (PBN.rsplit(" ", 1)[0], "must have 4 hands"),
    (PBN.replace(".J8 ", " ", 1), "4 suits"),
    (PBN[:-1] + "X", "bad rank letter 'X'"),
    (PBN[:-1], "has 12 cards"),
    (PBN.replace("K52", "KJ2"), "dealt twice"),
    (PBN.replace("K52", "K552"), "appears twice"),
])
def test_malformed_or_impossible_deal_is_refused(bad, message):
    with pytest.raises(DeckError, match=message):
        parse_pbn(bad)


def test_hand_from_cards_refuses_duplicates():
    with pytest.raises(DeckError, match="appears twice"):
        hand_from_cards([1, 2, 1])


def test_random_deal_is_a_partition_and_seeded():
    for seed in range(50):
        hands = random_deal(np.random.default_rng(seed))
        assert [h.bit_count() for h in hands] == [13] * 4
        assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1
    assert random_deal(np.random.default_rng(7)) == random_deal(np.random.default_rng(7))
