"""Vint deal scoring (docs/rules/vint.md, "Scoring a deal" and "Pass-out") on hand-made deals worked out by hand."""

import pytest

from card_game_checks import ONE_SUIT_EACH_CLUBS_EAST as SUIT_EACH, DEAL_002
from vint_env.cards import parse_pbn
from vint_env.rules import PASS, Contract, VintDeal, bid_action, score_contract
from vint_env.rules.vint_scoring import NT, honour_holdings, honour_points, majority_side

SPADES, CLUBS, DIAMONDS, HEARTS = range(4)


def side_tricks(declarer, taken):
    return (taken, 13 - taken) if declarer % 2 == 0 else (13 - taken, taken)


HONOURS_RULES = [("majority", "expected"), ("net", "expected_honours_net")]


@pytest.mark.parametrize("rule, key", HONOURS_RULES)
def test_worked_scoring_cases(vint_scoring_cases, rule, key):
    """The thirteen worked cases (the rule books' examples among them), both honours rules."""
    assert len(vint_scoring_cases) == 13
    for case in vint_scoring_cases:
        contract = Contract.parse(case["contract"])
        declarer = "NESW".index(case["declarer"])
        scores = score_contract(parse_pbn(case["deal"]), contract.level, contract.strain, declarer,
                                side_tricks(declarer, case["declarer_side_tricks"]), honours=rule)
        for side, name in enumerate(("NS", "EW")):
            assert scores[side].as_dict() == dict(scores[side].as_dict(), **case[key][name]), (case["name"], name)


def test_the_two_honours_rules_differ_on_the_worked_cases(vint_scoring_cases):
    # Guards the test above: the two expectations are not the same numbers.
    differ = [c["name"] for c in vint_scoring_cases if c["expected"] != c["expected_honours_net"]]
    assert len(differ) >= 4


def test_book_five_no_trump_down_three():
    # 5 NT, 8 tricks: defenders +15,000 and 250 below; declarers 400 below.
    hands = parse_pbn(DEAL_002)
    ns, ew = score_contract(hands, 5, NT, 0, (8, 5))
    assert (ns.tricks, ns.total) == (400, 400)
    assert (ew.tricks, ew.undertricks, ew.total) == (250, 15000, 15250)


def test_book_honour_examples_by_count():
    # Spades trump at level 3: 10 x T = 300 per honour.  Counts as (side 0, side 1).
    # 3 honours + 1 ace against 1 honour + 3 aces: the sets are compared, 3 = 3, nothing.
    assert honour_points((3, 1), (1, 3), (7, 6), 3, SPADES) == (0, 0)
    assert honour_points((3, 1), (1, 3), (7, 6), 3, SPADES, "net") == (0, 0)        # 4 against 4
    # 3 honours + 1 ace against 3 aces + 2 honours: "honours go for aces", nothing; net: 4 against 5.
    assert honour_points((3, 2), (1, 3), (6, 7), 3, SPADES) == (0, 0)
    assert honour_points((3, 2), (1, 3), (6, 7), 3, SPADES, "net") == (0, 300)
    # 3 honours and aces 2-2: the side with seven tricks or more counts its two aces.
    assert honour_points((3, 2), (2, 2), (7, 6), 3, SPADES) == (5 * 300, 0)         # same side: 3 + 2
    assert honour_points((3, 2), (2, 2), (6, 7), 3, SPADES) == (1 * 300, 0)         # 3 against 2
    assert honour_points((3, 2), (2, 2), (6, 7), 3, SPADES, "net") == (1 * 300, 0)  # 5 against 4
    # Both majorities with one side: 4 honours + 3 aces = 7 (the trump ace counts in both).
    assert honour_points((4, 1), (3, 1), (4, 9), 1, HEARTS) == (7 * 100, 0)
    assert honour_points((4, 1), (3, 1), (4, 9), 1, HEARTS, "net") == (5 * 100, 0)  # 7 against 2
    # No-trump: only the aces, 25 x T each; the count (majority) or the difference (net); 2-2 nothing.
    assert honour_points((0, 0), (3, 1), (7, 6), 2, NT) == (3 * 25 * 20, 0)
    assert honour_points((0, 0), (1, 3), (7, 6), 2, NT, "net") == (0, 2 * 25 * 20)
    assert honour_points((0, 0), (0, 4), (7, 6), 2, NT) == (0, 4 * 25 * 20)
    assert honour_points((0, 0), (2, 2), (13, 0), 7, NT) == (0, 0)


def test_majority_means_more_than_the_other_and_at_least_two():
    # Four hands: three or more of five honours, three or more aces.  The same words decide a
    # game with cards out of play (two-player ways): 2 against 1 or 0 is a majority, 1 against 0 not.
    assert [majority_side(c) for c in ((3, 2), (2, 3), (5, 0), (2, 2), (2, 1), (1, 0), (0, 1), (0, 0))] == \
        [0, 1, 0, -1, 0, -1, -1, -1]
    assert honour_points((1, 0), (1, 0), (7, 6), 1, SPADES) == (0, 0)
    assert honour_points((2, 1), (0, 0), (6, 7), 1, SPADES) == (2 * 100, 0)


def test_bad_honours_rule_is_refused():
    with pytest.raises(ValueError, match=r"honours must be one of \('majority', 'net'\), got 'sum'"):
        honour_points((3, 2), (2, 2), (7, 6), 1, SPADES, "sum")
    with pytest.raises(ValueError, match="honours must be one of"):
        score_contract(parse_pbn(SUIT_EACH), 1, SPADES, 0, (7, 6), honours="Majority")
    with pytest.raises(ValueError, match="honours must be one of"):
        VintDeal(parse_pbn(SUIT_EACH), dealer=0, honours=None)


def test_honours_majority_of_honours_against_majority_of_aces():
    # N/S hold trump K Q J 10 (4 honours, no ace); E/W hold the trump ace and all four aces.
    hands = parse_pbn("N:KQJT.5432.5432.2 A.AKQ.AKQ.AKQJT9 98765432.JT.JT.8 .9876.9876.76543")
    assert honour_holdings(hands, SPADES) == ((4, 1), (0, 4))
    ns, ew = score_contract(hands, 1, SPADES, 0, (7, 6))
    assert (ns.honours, ew.honours) == (0, 0)          # majority: 4 honours against 4 aces
    ns, ew = score_contract(hands, 1, SPADES, 0, (7, 6), honours="net")
    assert (ns.honours, ew.honours) == (0, 100)        # net: 4 against 1 + 4 = 5, one honour x 10 x 10


def test_three_aces_coronet_trump_and_no_trump():
    # N holds three aces (S, H, D) and no sequence of three: aces coronet 500, doubled at no-trump.
    hands = parse_pbn("N:A32.A32.A32.5432 KQJT.KQJT.KQJ.AK 987654.987.T98.Q .654.7654.JT9876")
    ns, ew = score_contract(hands, 1, HEARTS, 0, (7, 6))
    assert ns.coronets == 500
    assert ew.coronets == 0          # E's K-Q-J runs and A-K do not make three from the ace
    ns_nt, _ = score_contract(hands, 1, NT, 0, (7, 6))
    assert ns_nt.coronets == 1000
    # aces 3-1 at no-trump: majority 3 x 25 x 10; net 2 x 25 x 10
    assert ns_nt.honours == 750
    assert score_contract(hands, 1, NT, 0, (7, 6), honours="net")[0].honours == 500


def play_out(deal, choose):
    while not deal.is_over:
        deal.apply(choose(deal))


def test_seven_no_trump_down_thirteen_every_item():
    """Forced play: E leads clubs and takes all 13 tricks against 7 NT by N."""
    deal = VintDeal(parse_pbn(SUIT_EACH), dealer=0)
    for a in (bid_action(7, NT), PASS, PASS, PASS):
        deal.apply(a)
    assert deal.current_player == 1                 # left of the declarer leads
    play_out(deal, lambda d: d.legal_actions()[0])
    assert deal.play.side_tricks() == (0, 13)
    ns, ew = deal.scores
    # E/W: 13 x 70 below; 13 undertricks x 100 x 70; failed grand slam 10,000; 13 tricks 2,000;
    # aces 2-2: no honours; every hand holds a 13-card run: 500 x 11, doubled at no-trump.
    assert ew.as_dict() == dict(ew.as_dict(), tricks=910, undertricks=91000, slam_declared=10000,
                                slam_taken=2000, honours=0, coronets=22000, total=125910)
    assert ns.as_dict() == dict(ns.as_dict(), tricks=0, undertricks=0, slam_declared=0,
                                slam_taken=0, honours=0, coronets=22000, total=22000)


@pytest.mark.parametrize("rule, honours", [("majority", 7 * 700), ("net", 5 * 700)])
def test_seven_spades_made_grand_slam_every_item(rule, honours):
    """N ruffs the club lead and runs his spades: 7 S made with all 13 tricks."""
    deal = VintDeal(parse_pbn(SUIT_EACH), dealer=0, honours=rule)
    for a in (bid_action(7, SPADES), PASS, PASS, PASS):
        deal.apply(a)
    play_out(deal, lambda d: d.legal_actions()[-1])    # highest legal card id: N ruffs with the ace
    assert deal.play.side_tricks() == (13, 0)
    ns, ew = deal.scores
    # N holds S A K Q J 10: all 5 honours; aces 2-2 (N the S A, S the D A; E and W the C A, H A).
    # Majority: N/S took 13 tricks, so their two aces count: 5 + 2 = 7 x 10 x 70.
    # Net: N/S 5 + 2 = 7 against E/W 0 + 2 = 2: 5 x 700.
    assert honour_holdings(deal.hands, SPADES) == ((5, 0), (2, 2))
    assert ns.as_dict() == dict(ns.as_dict(), tricks=910, slam_taken=2000, slam_declared=10000,
                                honours=honours, coronets=11000 + 5500, total=910 + 12000 + honours + 16500)
    assert ew.as_dict() == dict(ew.as_dict(), tricks=0, honours=0, coronets=11000, total=11000)


def test_passout_mark_scores_nothing():
    deal = VintDeal(parse_pbn(SUIT_EACH), dealer=2, passout="mark")
    for _ in range(4):
        deal.apply(PASS)
    assert deal.is_over and deal.passed_out and deal.play is None
    assert deal.scores[0].total == deal.scores[1].total == 0


def test_passout_play_at_no_trump():
    # Dealer N; left of the dealer (E) leads and takes all 13 club tricks: 7 over six x 500.
    deal = VintDeal(parse_pbn(SUIT_EACH), dealer=0, passout="play")
    for _ in range(4):
        deal.apply(PASS)
    assert deal.phase == "play" and deal.current_player == 1 and deal.play.trump == NT
    play_out(deal, lambda d: d.legal_actions()[0])
    ns, ew = deal.scores
    assert ew.as_dict() == dict(ew.as_dict(), passout_tricks=3500, total=3500)
    assert ns.total == 0   # no tricks below the line, no honours, coronets or slams


def test_bad_contract_arguments():
    hands = parse_pbn(SUIT_EACH)
    with pytest.raises(ValueError, match="no Vint contract"):
        score_contract(hands, 8, NT, 0, (7, 6))
    with pytest.raises(ValueError, match="add up to 13"):
        score_contract(hands, 1, NT, 0, (7, 7))
