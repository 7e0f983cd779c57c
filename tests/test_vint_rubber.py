"""Games, rubber and pass-out marks (RULES.md 2.3 items 6-8, 2.4), worked out by hand."""

import pytest

from vint_env.cards import parse_pbn
from vint_env.rules import PASS, VintRubber, bid_action, score_contract
from vint_env.rules.rubber import Rubber
from vint_env.rules.vint_scoring import NT

SPADES = 0
SUIT_EACH = parse_pbn("N:AKQJT98765432... ...AKQJT98765432 ..AKQJT98765432. .AKQJT98765432..")
DEAL_002 = parse_pbn("N:KJ74.AQ6.AKJ5.J8 A.KT932.82.AQT94 Q532.875.T93.763 T986.J4.Q764.K52")


def play_deal(rubber, bidder=None, bid=None):
    """One deal of SUIT_EACH: `bidder` bids `bid` (or all pass), then a fixed card choice.

    With spades trump N ruffs the club lead and takes all 13 tricks (highest legal card);
    at no-trump E leads clubs and takes all 13.
    """
    deal = rubber.new_deal(SUIT_EACH)
    if bid is None:
        for _ in range(4):
            deal.apply(PASS)
    else:
        while deal.current_player != bidder:
            deal.apply(PASS)
        deal.apply(bid)
        for _ in range(3):
            deal.apply(PASS)
    while not deal.is_over:
        deal.apply(deal.legal_actions()[-1])
    return rubber.finish_deal()


def test_rubber_two_one_with_a_mark():
    r = VintRubber(first_dealer=0)
    a = play_deal(r, 0, bid_action(7, SPADES))   # N/S 13 tricks at 7 S: 910 below -> game
    assert (a.game_winner, a.scores[0].total, a.scores[1].total) == (0, 32910 + 100, 11000)
    assert r.dealer == 1 and r.sheet.below == [0, 0] and r.sheet.games_won == [1, 0]
    b = play_deal(r, 0, bid_action(4, NT))       # E/W 13 tricks at 4 NT: 520 below -> game
    assert b.game_winner == 1
    assert b.scores[1].as_dict() == dict(b.scores[1].as_dict(), tricks=520, undertricks=40000,
                                         slam_taken=2000, coronets=22000, game=100, total=64620)
    c = play_deal(r)                             # passed out: a mark
    assert c.passed_out and c.difference == 0 and r.sheet.marks == 1
    d = play_deal(r, 0, bid_action(7, SPADES))   # third game, rubber, and the mark (500) to N/S
    assert (d.game_winner, d.rubber_winner) == (0, 0)
    assert (d.scores[0].game, d.scores[0].rubber, d.scores[0].marks) == (100, 2000, 500)
    assert r.is_over and r.sheet.games_won == [2, 1]
    assert r.sheet.totals[0].total == 32910 + 100 + 22000 + 32910 + 100 + 2000 + 500
    assert r.sheet.totals[1].total == 11000 + 64620 + 11000
    assert r.sheet.result == 90520 - 86620
    with pytest.raises(ValueError, match="rubber is over"):
        r.new_deal(SUIT_EACH)


@pytest.mark.parametrize("game_bonus", [100, 1000])
def test_rubber_two_nil(game_bonus):
    r = VintRubber(first_dealer=3, game_bonus=game_bonus)
    first = play_deal(r, 0, bid_action(7, SPADES))
    second = play_deal(r, 0, bid_action(7, SPADES))
    assert (first.rubber_winner, second.rubber_winner) == (None, 0)
    assert r.is_over and r.sheet.games_won == [2, 0]
    assert r.sheet.result == 2 * 32910 + 2 * game_bonus + 2000 - 2 * 11000


def test_pass_out_marks_paid_in_order_to_the_rubber_winner():
    r = VintRubber(first_dealer=0, passout="mark")
    for _ in range(3):
        play_deal(r)
    assert r.sheet.marks == 3 and r.dealer == 3
    play_deal(r, 0, bid_action(7, SPADES))
    last = play_deal(r, 0, bid_action(7, SPADES))
    assert last.scores[0].marks == 500 + 1000 + 500
    assert last.scores[1].marks == 0


def test_pass_out_play_variant_writes_no_marks():
    r = VintRubber(first_dealer=0, passout="play")
    rec = play_deal(r)        # played at no-trump: E (left of dealer N) takes 13: 7 x 500
    assert rec.passed_out and r.sheet.marks == 0
    assert rec.scores[1].passout_tricks == 3500 and r.sheet.below == [0, 0]


def tricks(declarer, taken):
    return (taken, 13 - taken) if declarer % 2 == 0 else (13 - taken, taken)


@pytest.mark.parametrize("ns_tricks, winner", [(5, 0), (3, 1), (2, 1)])
def test_game_reached_by_both_sides_on_the_same_deal(ns_tricks, winner):
    sheet = Rubber(game_target=500, game_bonus=100, rubber_bonus=2000, mark_values=(500, 1000))
    # Deal 1: 7 NT by N, N/S take 7: below N/S 490, E/W 420.
    first = sheet.record_deal(score_contract(DEAL_002, 7, NT, 0, (7, 6)), tie_winner=0)
    assert first.game_winner is None and sheet.below == [490, 420]
    # Deal 2: 1 S by E. N/S take x: N/S 490 + 10x, E/W 420 + 10(13 - x): both pass 500.
    # x = 5: 540 against 500, N/S win; x = 3: 520 each, the declaring side (E/W) wins;
    # x = 2: 510 against 530, E/W win.
    second = sheet.record_deal(score_contract(DEAL_002, 1, SPADES, 1, tricks(1, 13 - ns_tricks)), tie_winner=1)
    assert second.game_winner == winner
    assert second.scores[winner].game == 100 and second.scores[1 - winner].game == 0
    assert sheet.below == [0, 0] and sheet.games_won[winner] == 1


def test_variant_values_are_checked():
    with pytest.raises(ValueError, match="game_bonus"):
        VintRubber(game_bonus=500)
    with pytest.raises(ValueError, match="passout"):
        VintRubber(passout="replay")
