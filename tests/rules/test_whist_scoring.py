"""Whist scoring worked out by hand from docs/rules/whist.md (the Whist book).

Hands are written in PBN (N first, suits S.H.D.C); trump suits 0 S, 1 C, 2 D, 3 H.
"""

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH as ONE_SUIT_DEAL, ONE_SUIT_EACH_TWOS_SWAPPED as SMALL_SLAM_DEAL
from vint_env import whist_v0
from vint_env.cards import NO_TRUMP, parse_card, parse_pbn
from vint_env.rules.rubber import SideScore
from vint_env.rules.whist import WhistDeal, WhistRubber
from vint_env.rules.whist_scoring import coronet_value, honour_counts, score_honours, score_whist

S, C, D, H = 0, 1, 2, 3

# N: S AKQ, H AKQJ, D 32, C 5432     E: S JT98, H T98, D AKQ, C AKQ
# S: S 765, H 765, D JT98, C JT9     W: S 432, H 432, D 7654, C 876
HONOURS_DEAL = parse_pbn("N:AKQ.AKQJ.32.5432 JT98.T98.AKQ.AKQ 765.765.JT98.JT9 432.432.7654.876")


def items(score: SideScore):
    return (score.tricks, score.slam_taken, score.honours, score.coronets)


# ---------------------------------------------------------------- honours

@pytest.mark.parametrize("trump, ten, expected", [
    (H, False, (4, 0)),   # N holds H A K Q J: all four
    (H, True, (4, 0)),    # with the 10 (E's): four of five
    (S, False, (3, 0)),   # N S A K Q, E S J: three
    (S, True, (3, 0)),    # E also has S 10: three of five still more than half
    (D, False, (0, 3)),   # E D A K Q, S D J
    (D, True, (0, 3)),    # S also D 10: E/W three of five
    (C, False, (0, 3)),
    (NO_TRUMP, False, (0, 0)),   # no-trump: aces N 2 (S, H), E 2 (D, C): split, nothing
])
def test_honours_four_and_three(trump, ten, expected):
    assert score_honours(HONOURS_DEAL, trump, ten) == expected


def test_honour_counts_and_the_ten_variant_with_five():
    # Give N the H 10 as well (exchange with S's H 7): N holds all five heart honours.
    hands = parse_pbn("N:AKQ.AKQJT.32.432 JT98.987.AKQ.AKQ 765.65.JT98.JT95 432.432.7654.876")
    assert honour_counts(hands, H, ten_is_honour=True) == (5, 0)
    assert score_honours(hands, H, ten_is_honour=True) == (5, 0)
    assert score_honours(hands, H) == (4, 0)
    # E's J T 9 8 of spades against N's A K Q: three of five with the 10, three of four without.
    assert honour_counts(hands, S, ten_is_honour=True) == (3, 2)
    assert score_honours(hands, S, ten_is_honour=True) == (3, 0)


def test_two_two_honours_score_nothing():
    # N holds A K, E holds Q J of every suit.
    hands = parse_pbn("N:AK2.AK2.AK32.AK2 QJ73.QJ3.QJ4.QJ3 T98.T987.T98.T98 654.654.765.7654")
    for trump in (S, C, D, H):
        assert honour_counts(hands, trump) == (2, 2)
        assert score_honours(hands, trump) == (0, 0)
        # with the 10 (S's): three of five for N/S
        assert score_honours(hands, trump, ten_is_honour=True) == (3, 0)


# ---------------------------------------------------------------- coronets

def test_coronet_figures_of_004():
    plain = [coronet_value(n, False) for n in range(14)]
    trump = [coronet_value(n, True) for n in range(14)]
    assert plain[:7] == [0, 0, 0, 5, 10, 20, 25] and plain[7:] == [30, 35, 40, 45, 50, 55, 60]
    assert trump[:7] == [0, 0, 0, 10, 20, 40, 50] and trump[7:] == [60, 70, 80, 90, 100, 110, 120]


def test_coronet_plain_and_trump_in_a_deal():
    # Hearts trump: N's H A K Q J is a trump coronet (20), S A K Q a plain one (5);
    # E's D A K Q and C A K Q plain (5 + 5).
    a, b = score_whist(HONOURS_DEAL, H, (7, 6))
    assert items(a) == (2, 0, 4, 25) and a.total == 31
    assert items(b) == (0, 0, 0, 10) and b.total == 10
    # Spades trump: N's S A K Q doubled (10), H A K Q J plain (10).
    a, b = score_whist(HONOURS_DEAL, S, (6, 7))
    assert items(a) == (0, 0, 3, 20) and items(b) == (2, 0, 0, 10)
    # No-trump variant: every coronet at the trump rate, honours are the aces (2-2).
    a, b = score_whist(HONOURS_DEAL, NO_TRUMP, (8, 5))
    assert items(a) == (4, 0, 0, 30) and items(b) == (0, 0, 0, 20)


# ---------------------------------------------------------------- slams, through the engine

def play_first_legal(deal):
    while not deal.is_over:
        deal.apply(deal.legal_actions()[0])
    return deal


def test_grand_slam_played():
    # E deals and turns a heart: E holds every trump and takes all 13 tricks.
    deal = play_first_legal(WhistDeal(parse_pbn(ONE_SUIT_DEAL), dealer=1, turned_card=parse_card("HA")))
    assert deal.trump == H and deal.play.side_tricks() == (0, 13)
    ns, ew = deal.scores
    # E/W: 7 over six = 14 below, grand slam 20, honours 4 (E's A K Q J),
    # coronets E's hearts A to 2 in trumps 120, W's clubs A to 2 plain 60.
    assert items(ew) == (14, 20, 4, 180) and ew.total == 218
    # N/S: two plain coronets A to 2, 60 each.
    assert items(ns) == (0, 0, 0, 120) and ns.total == 120


def test_small_slam_played():
    # S leads D3, E must follow with D2: S wins the first trick; then E trumps
    # every diamond and draws S's H2: E/W take 12.
    deal = play_first_legal(WhistDeal(parse_pbn(SMALL_SLAM_DEAL), dealer=1, turned_card=parse_card("H3")))
    assert deal.play.trick_winners[0] == 2 and deal.play.side_tricks() == (1, 12)
    ns, ew = deal.scores
    # E/W: 12 below, small slam 10, honours 4; coronets E's hearts A to 3 (12 cards)
    # in trumps 110, W's clubs 60.  N/S: spades A to 2 60, S's diamonds A to 3 55.
    assert items(ew) == (12, 10, 4, 170) and ew.total == 196
    assert items(ns) == (0, 0, 0, 115)


def test_slam_premiums_are_by_tricks_taken():
    assert score_whist(HONOURS_DEAL, H, (12, 1))[0].slam_taken == 10
    assert score_whist(HONOURS_DEAL, H, (1, 12))[1].slam_taken == 10
    assert score_whist(HONOURS_DEAL, H, (13, 0))[0].tricks == 14
    assert score_whist(HONOURS_DEAL, H, (11, 2))[0].slam_taken == 0
    with pytest.raises(ValueError, match="13"):
        score_whist(HONOURS_DEAL, H, (7, 7))


# ---------------------------------------------------------------- game and rubber

def test_game_and_rubber_on_the_sheet():
    rubber = WhistRubber(first_dealer=0)
    sheet = rubber.sheet
    # N/S 9 tricks: 6 below, no game yet.  Hearts trump: N/S honours 4, coronets 25 / 10.
    r = sheet.record_deal(score_whist(HONOURS_DEAL, H, (9, 4)))
    assert r.game_winner is None and sheet.below == [6, 0]
    # N/S 8 tricks: 4 more, 10 below: the game, 5 above.
    r = sheet.record_deal(score_whist(HONOURS_DEAL, D, (8, 5)))
    assert r.game_winner == 0 and r.scores[0].game == 5 and sheet.below == [0, 0]
    # E/W 13 tricks: 14 below, the game; 1-1.
    r = sheet.record_deal(score_whist(HONOURS_DEAL, C, (0, 13)))
    assert r.game_winner == 1 and sheet.games_won == [1, 1]
    # N/S 11 tricks: 10 below, the second game and the rubber (5 + 10).
    r = sheet.record_deal(score_whist(HONOURS_DEAL, S, (11, 2)))
    assert r.game_winner == 0 and r.rubber_winner == 0 and r.scores[0].game == 5
    assert r.scores[0].rubber == 10 and rubber.is_over
    ns, ew = sheet.totals
    # N/S: tricks 6 + 4 + 10, honours 4 (hearts) + 3 (spades), coronets 25 (hearts trump:
    #      H A K Q J 20 + S A K Q 5) + 15 + 15 (H 10, S 5) + 20 (S A K Q 10, H 10); games 10, rubber 10.
    assert (ns.tricks, ns.honours, ns.coronets, ns.game, ns.rubber) == (20, 7, 75, 10, 10)
    assert ns.total == 122
    # E/W: tricks 14, slam 20, honours 3 (diamonds) + 3 (clubs), coronets 10 + 15 (D A K Q
    #      trump 10 + C 5) + 15 + 10, game 5.
    assert (ew.tricks, ew.slam_taken, ew.honours, ew.coronets, ew.game) == (14, 20, 6, 50, 5)
    assert ew.total == 95
    assert sheet.result == 27


def test_rubber_can_be_won_with_fewer_points():
    # The Whist book: the side that wins two games wins the rubber even with the smaller total.
    big = parse_pbn(ONE_SUIT_DEAL)   # E/W: coronets 180, honours 4 with hearts trump
    rubber = WhistRubber()
    for _ in range(2):
        rubber.sheet.record_deal(score_whist(big, H, (11, 2)))   # N/S 10 below: a game each time
    assert rubber.sheet.winner == 0
    ns, ew = rubber.sheet.totals
    assert ns.total == 2 * (10 + 120) + 2 * 5 + 10 == 280
    assert ew.total == 2 * (180 + 4) == 368
    assert rubber.sheet.result == -88


def test_a_rubber_of_three_grand_slams_through_the_env():
    """E, S and W deal in turn, each turning a card of their one-suit hand: every deal
    is a grand slam for the dealer's side; E/W win the rubber 2-1."""
    rot = parse_pbn(ONE_SUIT_DEAL)
    from vint_env.cards import deal_to_pbn
    env = whist_v0.env(episode="rubber", reward_scale=1.0)
    env.reset(seed=0, options={"deals": [deal_to_pbn(rot)] * 3, "dealer": 1})
    rewards, infos = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if agent == "player_0" and reward:
            rewards.append(reward)
            infos.append(info)
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    # deal 1 (hearts): E/W 14 + 20 + 4 + 180 + game 5 = 223, N/S 120
    # deal 2 (diamonds): N/S 14 + 20 + 4 + 180 + 5 = 223, E/W 120
    # deal 3 (clubs): E/W 223 + rubber 10 = 233, N/S 120
    assert rewards == [-103, 103, -113]
    last = infos[-1]
    assert last["rubber"]["winner"] == "EW" and last["rubber"]["games_won"] == (1, 2)
    assert last["rubber"]["totals"]["EW"]["total"] == 576
    assert last["rubber"]["totals"]["NS"]["total"] == 463
    assert last["rubber"]["result"] == sum(rewards) == -113


# ---------------------------------------------------------------- the Whist book's illustrated deal

# The Whist book (рис. 27): players 1 & 3 against 2 & 4; player 4 deals and turns the H 9 (hearts trump);
# player 1 leads. The text names each trick's winner and card; the hands are not given, so
# these are built to fit every one of them (players 1..4 = seats N, E, S, W).
DEAL_004 = "N:KQ983.84.J962.32 52.AK5.743.AJT98 T64.QJ62.A85.K54 AJ7.T973.KQT.Q76"
TRICKS_004 = [  # cards from the leader on; (winner, winning card) as the Whist book names them
    (["S3", "S5", "S4", "SA"], (3, "SA")),
    (["DK", "D2", "D3", "DA"], (2, "DA")),
    (["S6", "S7", "S8", "S2"], (0, "S8")),
    (["S9", "H5", "S10", "SJ"], (1, "H5")),
    (["HK", "H2", "H3", "H4"], (1, "HK")),
    (["HA", "H6", "H7", "H8"], (1, "HA")),
    (["D7", "D8", "DQ", "D9"], (3, "DQ")),
    (["D10", "DJ", "D4", "D5"], (0, "DJ")),
    (["D6", "C8", "CK", "H9"], (3, "H9")),
    (["H10", "SQ", "C9", "HJ"], (2, "HJ")),
    (["HQ", "C6", "SK", "C10"], (2, "HQ")),
    (["C4", "C7", "C2", "CA"], (1, "CA")),
    (["CJ", "C5", "CQ", "C3"], (3, "CQ")),
]


@pytest.mark.parametrize("ten_is_honour, honours", [(False, 0), (True, 3)])
def test_seed_004_illustrated_deal(ten_is_honour, honours):
    env = whist_v0.env(ten_is_honour=ten_is_honour, reward_scale=1.0)
    env.reset(options={"deal": DEAL_004, "dealer": 3, "turned_card": "H9"})
    deal = env.unwrapped.deal
    assert deal.trump == H and env.agent_selection == "player_0"     # player 1 leads
    for number, (cards, (winner, card)) in enumerate(TRICKS_004):
        leader = deal.play.leader
        for card_played in cards:
            env.step(parse_card(card_played))
        assert deal.play.trick_winners[number] == winner
        assert deal.play.last_trick[(winner - leader) % 4] == parse_card(card)
    # "the pair of players 2 and 4 took 8 tricks": 2 over six, 4 points; trump honours A K (E) against
    # Q J (S): two each, nothing; with the 10 (W's) E/W hold three of five.
    assert deal.play.side_tricks() == (5, 8)
    ns, ew = deal.scores
    assert (ew.tricks, ew.honours, ew.coronets, ew.slam_taken) == (4, honours, 0, 0)
    assert ns.total == 0 and ew.total == 4 + honours
    assert env.rewards["player_1"] == 4 + honours and env.rewards["player_0"] == -(4 + honours)
