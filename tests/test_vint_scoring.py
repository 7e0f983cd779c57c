"""Vint deal scoring (RULES.md 2.3, 2.4) on hand-made deals worked out by hand."""

import pytest

from vint_env.cards import parse_pbn
from vint_env.rules import PASS, Contract, VintDeal, bid_action, score_contract
from vint_env.rules.vint_scoring import NT, honour_counts, honour_points

SPADES, CLUBS, DIAMONDS, HEARTS = range(4)
# Each seat holds one whole suit: N spades, E clubs, S diamonds, W hearts.
SUIT_EACH = "N:AKQJT98765432... ...AKQJT98765432 ..AKQJT98765432. .AKQJT98765432.."


def side_tricks(declarer, taken):
    return (taken, 13 - taken) if declarer % 2 == 0 else (13 - taken, taken)


def test_shared_scoring_cases(vint_scoring_cases):
    """The nine worked cases of shared/examples (including 002's 5 NT down 3)."""
    assert len(vint_scoring_cases) == 9
    for case in vint_scoring_cases:
        contract = Contract.parse(case["contract"])
        declarer = "NESW".index(case["declarer"])
        scores = score_contract(parse_pbn(case["deal"]), contract.level, contract.strain, declarer,
                                side_tricks(declarer, case["declarer_side_tricks"]))
        for side, name in enumerate(("NS", "EW")):
            got = scores[side].as_dict()
            for item, value in case["expected"][name].items():
                assert got[item] == value, (case["name"], name, item)


def test_seed_002_five_no_trump_down_three():
    # 002: 5 NT, 8 tricks: defenders +15,000 and 250 below; declarers 400 below.
    hands = parse_pbn("N:KJ74.AQ6.AKJ5.J8 A.KT932.82.AQT94 Q532.875.T93.763 T986.J4.Q764.K52")
    ns, ew = score_contract(hands, 5, NT, 0, (8, 5))
    assert (ns.tricks, ns.total) == (400, 400)
    assert (ew.tricks, ew.undertricks, ew.total) == (250, 15000, 15250)


def test_seed_002_honour_examples_by_count():
    # In a trump contract the counts of a full deal add up to 9 (5 honours + 4 aces), so 002's
    # abstract examples (3 vs 4, and 4 vs 4) are checked on the counts themselves.
    assert honour_points((2 + 1, 1 + 3), 3, SPADES) == (0, 300)    # B scores one honour at 10 x 30
    assert honour_points((3 + 1, 1 + 3), 3, SPADES) == (0, 0)      # they cancel out
    assert honour_points((3, 1), 2, NT) == (2 * 25 * 20, 0)        # no-trump: aces at 25 x T


def test_honours_majority_of_honours_against_majority_of_aces():
    # 002 example 1 in a full deal: N/S hold trump K Q J 10 (4 honours, no ace); E/W hold the
    # trump ace and all four aces (1 honour + 4 aces = 5): E/W score the difference, one honour.
    hands = parse_pbn("N:KQJT.5432.5432.2 A.AKQ.AKQ.AKQJT9 98765432.JT.JT.8 .9876.9876.76543")
    assert honour_counts(hands, SPADES) == (4, 5)
    ns, ew = score_contract(hands, 1, SPADES, 0, (7, 6))
    assert (ns.honours, ew.honours) == (0, 100)


def test_three_aces_coronet_trump_and_no_trump():
    # N holds three aces (S, H, D) and no sequence of three: aces coronet 500, doubled at no-trump.
    hands = parse_pbn("N:A32.A32.A32.5432 KQJT.KQJT.KQJ.AK 987654.987.T98.Q .654.7654.JT9876")
    ns, ew = score_contract(hands, 1, HEARTS, 0, (7, 6))
    assert ns.coronets == 500
    assert ew.coronets == 0          # E's K-Q-J runs and A-K do not make three from the ace
    ns_nt, _ = score_contract(hands, 1, NT, 0, (7, 6))
    assert ns_nt.coronets == 1000
    # aces 3-1 at no-trump: 2 x 25 x 10
    assert ns_nt.honours == 500


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


def test_seven_spades_made_grand_slam_every_item():
    """N ruffs the club lead and runs his spades: 7 S made with all 13 tricks."""
    deal = VintDeal(parse_pbn(SUIT_EACH), dealer=0)
    for a in (bid_action(7, SPADES), PASS, PASS, PASS):
        deal.apply(a)
    play_out(deal, lambda d: d.legal_actions()[-1])    # highest legal card id: N ruffs with the ace
    assert deal.play.side_tricks() == (13, 0)
    ns, ew = deal.scores
    # honours: N holds S A K Q J 10 (5) + S A again as an ace = 6; S has D A: N/S 7, E/W 2.
    assert honour_counts(deal.hands, SPADES) == (7, 2)
    assert ns.as_dict() == dict(ns.as_dict(), tricks=910, slam_taken=2000, slam_declared=10000,
                                honours=5 * 700, coronets=11000 + 5500, total=32910)
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
