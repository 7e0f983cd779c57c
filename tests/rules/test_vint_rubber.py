"""Games, rubber and pass-out marks (docs/rules/vint.md, "Game and rubber" and "Pass-out"), worked out by hand."""

import numpy as np
import card_game_checks
import pytest

from vint_env.cards import parse_pbn
from vint_env.rules import PASS, VintRubber, bid_action, score_contract
from vint_env.rules.rubber import Rubber
from vint_env.rules.vint_scoring import NT

SPADES = 0
SUIT_EACH = parse_pbn(card_game_checks.ONE_SUIT_EACH_CLUBS_EAST)
# 7 S made by N/S on SUIT_EACH (N/S take all 13): 910 below; slam 2,000 + 10,000; honours: N/S hold
# all five, aces 2-2 and N/S took the tricks: 5 + 2 = 7 x 10 x 70 = 4,900; coronets 11,000 + 5,500.
SEVEN_SPADES_NS = 910 + 12000 + 4900 + 16500    # 34,310; E/W: coronet 11,000
DEAL_002 = parse_pbn(card_game_checks.DEAL_002)


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
    assert (a.game_winner, a.scores[0].total, a.scores[1].total) == (0, SEVEN_SPADES_NS + 100, 11000)
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
    assert r.sheet.totals[0].total == SEVEN_SPADES_NS + 100 + 22000 + SEVEN_SPADES_NS + 100 + 2000 + 500
    assert r.sheet.totals[1].total == 11000 + 64620 + 11000
    assert r.sheet.result == 2 * SEVEN_SPADES_NS + 22000 + 2700 - 86620
    with pytest.raises(ValueError, match="rubber is over"):
        r.new_deal(SUIT_EACH)


@pytest.mark.parametrize("game_bonus", [100, 1000])
def test_rubber_two_nil(game_bonus):
    r = VintRubber(first_dealer=3, game_bonus=game_bonus)
    first = play_deal(r, 0, bid_action(7, SPADES))
    second = play_deal(r, 0, bid_action(7, SPADES))
    assert (first.rubber_winner, second.rubber_winner) == (None, 0)
    assert r.is_over and r.sheet.games_won == [2, 0]
    assert r.sheet.result == 2 * SEVEN_SPADES_NS + 2 * game_bonus + 2000 - 2 * 11000


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
    with pytest.raises(ValueError, match=r"honours must be one of \('majority', 'net'\), got 'all'"):
        VintRubber(honours="all")
    with pytest.raises(ValueError, match=r"game_race must be one of \('first', 'deal_end'\), got 'end'"):
        VintRubber(game_race="end")


# ---------------------------------------------------------------- the game race (RULES 2.3 item 6)
# Three deals built so that the play is forced: N/S are void in clubs and hold every spade, heart
# and diamond above E/W's; E holds the top k clubs and W the other clubs.  N bids k-dependent
# no-trump, E leads, and with every seat playing its lowest legal card E runs his k clubs (N/S
# discard spades), then leads a low diamond and N/S take every remaining trick: E/W win tricks
# 1..k, N/S tricks k+1..13.  Aces: N S A, D A, S H A, E C A (3-1 for N/S); the only coronet is
# E's club run from the ace, doubled at no-trump: 1,000 x (k - 2).
N_HAND, S_HAND = "AQT86.KJ97.AQT8.", "KJ97.AQT86.KJ97."
RACE_DEALS = [
    # 3 NT by N, k = 4: N/S 9 tricks x 30 = 270, E/W 4 x 30 = 120.
    (3, 4, f"N:{N_HAND} .5432.65432.AKQJ {S_HAND} 5432...T98765432"),
    # 4 NT by N, k = 8: N/S 5 x 40 = 200 (below 470), E/W 8 x 40 = 320 (below 440); no game yet.
    (4, 8, f"N:{N_HAND} ..65432.AKQJT987 {S_HAND} 5432.5432..65432"),
    # 1 NT by N, k = 7: E/W take tricks 1-7 and pass 500 on trick 6 (440 + 60); N/S take tricks
    # 8-13 and pass 500 on trick 10 (470 + 30).  After the deal: N/S 530, E/W 510.
    (1, 7, f"N:{N_HAND} .2.65432.AKQJT98 {S_HAND} 5432.543..765432"),
]
# Each deal's entries by hand (T = 10 x level), honours "majority" (aces 3 x 25 x T to N/S):
#   3 NT made:   N/S 270 + honours 2,250 = 2,520;  E/W 120 + coronet 2,000 = 2,120.
#   4 NT down 5: N/S 200 + honours 3,000 = 3,200;  E/W 320 + undertricks 5 x 100 x 40 = 20,000
#                + coronet 6,000 = 26,320.
#   1 NT down 1: N/S 60 + honours 750 = 810;       E/W 70 + undertricks 1,000 + coronet 5,000 = 6,070.
# Honours "net" (aces 3 - 1 = 2 x 25 x T): N/S honours 1,500, 2,000, 500 instead.
RACE_TOTALS = {"majority": ((2520, 2120), (3200, 26320), (810, 6070)),
               "net": ((1770, 2120), (2200, 26320), (560, 6070))}


def play_race_deal(deal, level):
    """N bids ``level`` NT, everybody else passes; then each seat plays its lowest legal card."""
    while deal.current_player != 0:
        deal.apply(PASS)
    deal.apply(bid_action(level, NT))
    for _ in range(3):
        deal.apply(PASS)
    while not deal.is_over:
        deal.apply(deal.legal_actions()[0])


@pytest.mark.parametrize("honours", ["majority", "net"])
@pytest.mark.parametrize("game_race, game_winner", [("first", 1), ("deal_end", 0)])
def test_both_sides_reach_500_on_one_deal(game_race, game_winner, honours):
    r = VintRubber(first_dealer=0, game_race=game_race, honours=honours)
    records = []
    for level, k, pbn in RACE_DEALS:
        deal = r.new_deal(parse_pbn(pbn))
        play_race_deal(deal, level)
        assert [w & 1 for w in deal.play.trick_winners] == [1] * k + [0] * (13 - k)
        assert deal.below_order() == [(1, 10 * level)] * k + [(0, 10 * level)] * (13 - k)
        records.append(r.finish_deal())
    assert [rec.game_winner for rec in records[:2]] == [None, None]
    assert r.sheet.below == [0, 0]      # the next game starts from zero after the race deal
    # "first": E/W passed 500 first (trick 6) although N/S end the deal higher (530 against 510);
    # "deal_end": both passed 500, the higher total (N/S 530) wins.
    assert records[2].game_winner == game_winner
    assert r.sheet.games_won == [1 - game_winner, game_winner]
    for rec, (ns, ew) in zip(records, RACE_TOTALS[honours]):
        game = [0, 0]
        if rec is records[2]:
            game[game_winner] = 100
        assert (rec.scores[0].total, rec.scores[1].total) == (ns + game[0], ew + game[1])
    # Everything written counts: E/W's points after they won the game (tricks 7 ... and the whole
    # deal's premiums) and N/S's tricks 8-13 are all in the totals.
    ns_total = sum(ns for ns, _ in RACE_TOTALS[honours]) + (100 if game_winner == 0 else 0)
    ew_total = sum(ew for _, ew in RACE_TOTALS[honours]) + (100 if game_winner == 1 else 0)
    assert (r.sheet.totals[0].total, r.sheet.totals[1].total) == (ns_total, ew_total)
    assert r.sheet.totals[0].tricks == 270 + 200 + 60 and r.sheet.totals[1].tricks == 120 + 320 + 70


def test_first_to_reach_500_on_the_sheet_itself():
    # The score sheet alone: below N/S 490, E/W 450; then a deal at T = 30 whose tricks are written
    # E/W, N/S, N/S, E/W ...: N/S reach 520 on the second entry, before E/W's 510 on the fourth.
    sheet = Rubber(game_target=500, game_bonus=100, rubber_bonus=2000, game_race="first")
    sheet.below = [490, 450]
    order = [(1, 30), (0, 30), (0, 30), (1, 30)] + [(1, 30)] * 9
    deal = score_contract(DEAL_002, 3, NT, 0, (2, 11))
    record = sheet.record_deal(deal, below_order=order)
    assert record.game_winner == 0 and sheet.below == [0, 0] and sheet.games_won == [1, 0]
    # with "deal_end" the same deal gives the game to E/W (450 + 330 = 780 against 550)
    end = Rubber(game_target=500, game_bonus=100, rubber_bonus=2000, game_race="deal_end")
    end.below = [490, 450]
    assert end.record_deal(deal, tie_winner=0).game_winner == 1


def test_game_race_needs_the_order_of_the_points():
    sheet = Rubber(game_target=500, game_bonus=100, rubber_bonus=2000, game_race="first")
    deal = score_contract(DEAL_002, 1, NT, 0, (7, 6))
    with pytest.raises(ValueError, match=r"below_order adds up to \[0, 0\]"):
        sheet.record_deal(deal)
    with pytest.raises(ValueError, match=r"below_order adds up to \[70, 70\]"):
        sheet.record_deal(deal, below_order=[(0, 10)] * 7 + [(1, 10)] * 7)
    with pytest.raises(ValueError, match="game_race must be one of"):
        Rubber(game_target=500, game_bonus=100, rubber_bonus=2000, game_race="last")


@pytest.mark.parametrize("game_race, game_winner", [("first", 1), ("deal_end", 0)])
def test_env_rubber_with_both_sides_reaching_500_on_one_deal(game_race, game_winner):
    from vint_env.envs import vint_v0
    env = vint_v0.env(episode="rubber", game_race=game_race, reward_scale=1.0)
    env.reset(options={"deals": [pbn for _, _, pbn in RACE_DEALS], "dealer": 0})
    raw = env.unwrapped
    rewards = 0.0
    for level, k, _ in RACE_DEALS:
        deal = raw.deal
        while deal.current_player != 0:
            env.step(PASS)
        env.step(bid_action(level, NT))
        for _ in range(3):
            env.step(PASS)
        while raw.deal is deal and not any(env.terminations.values()):
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
            rewards += env.rewards["player_0"]
    info = env.infos["player_0"]["rubber"]
    assert info["games_won"] == (1 - game_winner, game_winner) and info["below_line"] == (0, 0)
    ns, ew = (sum(RACE_TOTALS["majority"][i][s] for i in range(3)) for s in (0, 1))
    game = (100, 0) if game_winner == 0 else (0, 100)
    assert (info["totals"]["NS"]["total"], info["totals"]["EW"]["total"]) == (ns + game[0], ew + game[1])
    assert rewards == info["result"] == ns + game[0] - ew - game[1]
