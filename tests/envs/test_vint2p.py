"""vint2p_v0, two-player Vint in its five ways: PettingZoo conformance, invariants over random
deals, no leaks in any way or phase, and hand-made deals for each way's own rule."""

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from card_game_checks import legal_cards_by_rules, random_episode, ONE_SUIT_EACH_CLUBS_EAST as SUITS_DEAL
from vint_env import vint2p_v0
from vint_env.cards import FULL_DECK, NO_TRUMP, hand_cards, parse_card, parse_pbn, random_deal
from vint_env.games.vint2p import VINT2P_LAYOUT, encode_observation
from vint_env.rules import IllegalActionError, SideScore
from vint_env.rules.vint import bid_action
from vint_env.rules.vint2p import (EXCHANGE_HAND, KEEP, NT, PASS, WIDOW_TO_DUMMY, WIDOW_TO_HAND,
                                   Vint2pDeal, Vint2pRubber)

WAYS = (1, 2, 3, 4, 5)
S, C, D, H = 0, 1, 2, 3


def card(text):
    return parse_card(text)


# ------------------------------------------------------------------ PettingZoo conformance

@pytest.mark.parametrize("way", WAYS)
@pytest.mark.filterwarnings("ignore:render_mode=.human.. no window:UserWarning")   # render_test, headless
def test_pettingzoo_api_seed_parallel_render(way):
    api_test(vint2p_v0.env(way=way), num_cycles=300)
    seed_test(lambda: vint2p_v0.env(way=way), num_cycles=300)
    parallel_api_test(vint2p_v0.parallel_env(way=way), num_cycles=300)
    render_test(lambda render_mode=None: vint2p_v0.env(way=way, render_mode=render_mode))


@pytest.mark.parametrize("kwargs", [{"way": 4, "episode": "rubber"}, {"way": 5, "episode": "rubber"},
                                    {"way": 1, "auction": "single"}, {"way": 2, "passout": "play"}])
def test_pettingzoo_api_variants(kwargs):
    api_test(vint2p_v0.env(**kwargs), num_cycles=300)


# ------------------------------------------------------------------ invariants

def expected_legal(deal):
    """Legal actions from the rules text, independently of the engine."""
    phase = deal.phase
    if phase == "auction":
        low = deal.auction.highest + 1 if deal.auction.highest >= 0 else 53
        return {PASS, *range(low, 88)}
    if phase == "exchange":
        if deal.way == 2:
            return {KEEP, EXCHANGE_HAND}
        return {*hand_cards(deal.hands[deal.current_player]), KEEP}
    if phase == "widow":
        return {WIDOW_TO_HAND, WIDOW_TO_DUMMY}
    if phase == "give":
        return set(hand_cards(deal.hands[deal.widow_to]))
    if phase == "final":
        return set(range(deal.winning_bid.action, 88))
    return legal_cards_by_rules(deal.play)


def cards_conserved(deal):
    """Hands now + widow not taken + discards + cards played = the deck, each card once."""
    hands = deal.play.hands if deal.play is not None else deal.hands
    parts = list(hands) + [deal.widow if deal.widow_to < 0 else 0, *deal.discards]
    if deal.play is not None:
        parts += [deal.start_hands[s] & ~deal.play.hands[s] for s in range(4)]
    seen = 0
    for p in parts:
        assert not seen & p, "a card is in two places"
        seen |= p
    assert seen == FULL_DECK


def random_env_deals(way, episodes):
    env = vint2p_v0.env(way=way, reward_scale=1.0, passout="play" if way in (1, 2) else "mark")
    rng = np.random.default_rng(way)
    contracts = 0
    for episode in range(episodes):
        env.reset(seed=int(rng.integers(1 << 30)))

        def check(env, agent, obs):
            deal = env.unwrapped.deal
            assert agent == f"player_{deal.current_controller}"
            assert set(np.flatnonzero(obs["action_mask"])) == expected_legal(deal)
            other = "player_1" if agent == "player_0" else "player_0"
            assert not env.observe(other)["action_mask"].any()
            cards_conserved(deal)

        infos = {}
        # lean towards passing so that contracts are low enough to be interesting
        totals = random_episode(env, rng, check, infos,
                                choose=lambda legal, r: PASS if PASS in legal and r.random() < 0.6
                                else r.choice(legal))
        deal = env.unwrapped.deal
        assert totals["player_0"] == -totals["player_1"]
        assert totals["player_0"] == deal.scores[0].total - deal.scores[1].total
        if deal.play is not None:
            cards_conserved(deal)
            assert sum(deal.player_tricks()) == 13 and len(deal.play.trick_winners) == 13
            assert all(h == 0 for s, h in enumerate(deal.play.hands) if s in deal.play.seats)
            sizes = [bin(deal.start_hands[s]).count("1") for s in deal.play.seats]
            assert sizes == [13] * len(deal.play.seats)
            contracts += deal.contract is not None
    return contracts


@pytest.mark.parametrize("way", WAYS)
def test_random_deals_keep_the_invariants(way):
    assert random_env_deals(way, 30) > 5


@pytest.mark.slow
@pytest.mark.parametrize("way", WAYS)
def test_thousands_of_random_deals_keep_the_invariants(way):
    assert random_env_deals(way, 2000) > 400


def random_rule_deals(way, deals):
    rng = random.Random(100 + way)
    for i in range(deals):
        hands = random_deal(rng)
        extra = {}
        if way == 5:
            extra["widow"] = [rng.choice(hand_cards(h)) for h in hands]
        deal = Vint2pDeal(hands, way=way, dealer=i % 2, **extra)
        while not deal.is_over:
            legal = deal.legal_actions()
            deal.apply(PASS if PASS in legal and rng.random() < 0.6 else rng.choice(legal))
        cards_conserved(deal)
        if deal.play is not None:
            assert sum(deal.player_tricks()) == 13
            assert deal.scores[0].tricks + deal.scores[1].tricks == 10 * deal.contract.level * 13


@pytest.mark.parametrize("way", WAYS)
def test_many_random_deals_in_the_rules(way):
    """Random deals straight on the rules: conservation, 13 tricks, all tricks scored."""
    random_rule_deals(way, 300)


@pytest.mark.slow
@pytest.mark.parametrize("way", WAYS)
def test_thousands_of_random_deals_in_the_rules(way):
    random_rule_deals(way, 5000)


# ------------------------------------------------------------------ no leaks

def hidden_cards(deal, player):
    """Cards ``player`` may not see now: other seats' present cards, the widow not yet taken,
    the opponent's discards."""
    hands = deal.play.hands if deal.play is not None else deal.hands
    seen = set(deal.visible_seats(player))
    mask = 0
    for s in range(4):
        if s not in seen:
            mask |= hands[s]
    if deal.widow_to < 0:
        mask |= deal.widow
    return mask | deal.discards[1 - player]


def relabel(deal, x, y):
    """A copy of ``deal`` with cards ``x`` and ``y`` swapped everywhere."""
    def sw(mask):
        bx, by = mask >> x & 1, mask >> y & 1
        return mask & ~(1 << x) & ~(1 << y) | (bx << y) | (by << x)

    def sc(c):
        return y if c == x else x if c == y else c
    new = deal.copy()
    new.dealt = tuple(sw(h) for h in new.dealt)
    new.hands = [sw(h) for h in new.hands]
    new.widow = sw(new.widow)
    new.discards = [sw(h) for h in new.discards]
    new.piles = {s: [sc(c) for c in order] for s, order in new.piles.items()}
    if new.start_hands is not None:
        new.start_hands = tuple(sw(h) for h in new.start_hands)
    if new.play is not None:
        new.play.hands = [sw(h) for h in new.play.hands]
    return new


def check_no_leaks(way, deals):
    rng = np.random.default_rng(7 + way)
    phases = set()
    for i in range(deals):
        hands = random_deal(rng)
        extra = {"widow": [int(rng.choice(hand_cards(h))) for h in hands]} if way == 5 else {}
        deal = Vint2pDeal(hands, way=way, dealer=i % 2, **extra)
        while not deal.is_over:
            for player in (0, 1):
                hidden = hand_cards(hidden_cards(deal, player))
                if len(hidden) >= 2:
                    x, y = (int(c) for c in rng.choice(hidden, 2, replace=False))
                    other = relabel(deal, x, y)
                    assert np.array_equal(encode_observation(deal, player), encode_observation(other, player)), \
                        (deal.phase, player)
                    if deal.current_controller == player:
                        assert deal.legal_actions() == other.legal_actions()
                    phases.add(deal.phase)
            legal = deal.legal_actions()
            deal.apply(PASS if PASS in legal and rng.random() < 0.6 else int(rng.choice(legal)))
    return phases


@pytest.mark.parametrize("way", WAYS)
def test_no_leak_in_any_phase(way):
    """Swapping two cards a player cannot see leaves his observation and mask unchanged."""
    phases = check_no_leaks(way, 15)
    expected = {"auction", "play"} | ({"exchange"} if way in (2, 3) else set()) \
        | ({"widow", "give", "final"} if way == 5 else set())
    assert expected <= phases


@pytest.mark.slow
@pytest.mark.parametrize("way", WAYS)
def test_no_leak_over_many_deals(way):
    check_no_leaks(way, 300)


def test_what_each_way_shows():
    hands = parse_pbn(SUITS_DEAL)
    d1 = Vint2pDeal(hands, way=1, dealer=0)
    assert d1.visible_seats(0) == (0, 2) and d1.visible_seats(1) == (1, 3)
    d4 = Vint2pDeal(hands, way=4, dealer=1)
    assert d4.open_dummy == 3 and d4.visible_seats(0) == (0, 3) and d4.visible_seats(1) == (1, 3)
    d2 = Vint2pDeal(hands, way=2, dealer=0)
    assert d2.visible_seats(0) == (0,) and d2.visible_seats(1) == (2,)
    o = VINT2P_LAYOUT.decode(encode_observation(d4, 0))
    assert o["shown"].tolist() == [1, 0, 0, 1]           # own hand and the open dummy on his right
    assert o["roles"][3].tolist() == [0, 0, 0, 0, 1, 0]  # not yet taken by anyone
    assert o["hands"][1].sum() == 0 and o["hands"][2].sum() == 0


# ------------------------------------------------------------------ auction

def test_two_player_auction_ends_on_one_pass_after_a_bid():
    hands = parse_pbn(SUITS_DEAL)
    deal = Vint2pDeal(hands, way=4, dealer=0)
    deal.apply(PASS)
    assert deal.phase == "auction" and deal.current_player == 1
    deal.apply(bid_action(1, S))
    deal.apply(bid_action(2, S))
    deal.apply(PASS)
    assert deal.phase == "play" and deal.contract == (2, S) and deal.declarer == 0
    passed = Vint2pDeal(hands, way=4, dealer=1)
    passed.apply(PASS)
    passed.apply(PASS)
    assert passed.is_over and passed.passed_out and passed.scores[0].total == passed.scores[1].total == 0


def test_way_1_single_auction():
    hands = parse_pbn(SUITS_DEAL)
    deal = Vint2pDeal(hands, way=1, dealer=1, auction="single")
    deal.apply(bid_action(2, H))               # the dealer names his game once
    deal.apply(bid_action(3, C))               # the other outbids once: that ends it
    assert deal.phase == "play" and deal.contract == (3, C) and deal.declarer == 0
    assert deal.play.leader == 1               # left of the declarer, as in ordinary Vint
    deal = Vint2pDeal(hands, way=1, dealer=0, auction="single")
    deal.apply(bid_action(1, NT))
    deal.apply(PASS)
    assert deal.contract == (1, NT) and deal.declarer == 0 and deal.play.leader == 1
    deal = Vint2pDeal(hands, way=1, dealer=0, auction="single")
    deal.apply(PASS)
    deal.apply(PASS)
    assert deal.passed_out and deal.is_over
    deal = Vint2pDeal(hands, way=1, dealer=0, auction="single")
    deal.apply(PASS)
    deal.apply(bid_action(1, S))               # a bid of the second caller ends it too
    assert deal.contract == (1, S) and deal.declarer == 1 and deal.play.leader == 2
    assert deal.controller_of(2) == 0          # the leader is player_0's dummy
    with pytest.raises(ValueError, match="way 1 only"):
        Vint2pDeal(hands, way=4, auction="single")


def play_out(deal, choose=min):
    while not deal.is_over:
        deal.apply(choose(deal.legal_actions()))


# ------------------------------------------------------------------ way 4

def test_way_4_non_dealer_declares_with_the_adjacent_open_dummy():
    """Dealer player_0 (N), open dummy S; player_1 (E) declares 1D and takes S beside him:
    sides E & S against N & W; N, who did not name the game, leads from his own hand."""
    deal = Vint2pDeal(parse_pbn(SUITS_DEAL), way=4, dealer=0)
    assert deal.open_dummy == 2 and deal.closed_dummy == 3
    deal.apply(PASS)
    deal.apply(bid_action(1, D))
    deal.apply(PASS)
    assert deal.declarer == 1 and deal.controllers == [0, 1, 1, 0]
    assert deal.play.leader == 0 and deal.current_controller == 0
    assert deal.visible_seats(0) == (0, 2, 3)              # the closed dummy is now face up
    play_out(deal)
    # N leads a heart, S ruffs with a diamond and runs the diamonds: all 13 tricks to S.
    assert deal.play.tricks_won == [0, 0, 13, 0] and deal.player_tricks() == (0, 13)
    p0, p1 = deal.scores
    assert p1.tricks == 130 and p1.slam_taken == 2000 and p1.undertricks == 0
    # coronets: a 13-card run is A-K-Q + 10 cards = 5,500, doubled in trumps (S's diamonds)
    assert p1.coronets == 5500 + 11000 and p0.coronets == 5500 + 5500
    # honours: the five diamond honours with player_1; aces 2-2, player_1 took 7+ tricks
    assert p1.honours == (5 + 2) * 10 * 10 and p0.honours == 0
    assert p0.tricks == p0.undertricks == p0.slam_taken == p0.slam_declared == 0


def test_way_4_dealer_declares_with_the_opposite_dummy():
    deal = Vint2pDeal(parse_pbn(SUITS_DEAL), way=4, dealer=1)
    deal.apply(bid_action(1, NT))
    deal.apply(PASS)
    assert deal.declarer == 1 and deal.controllers == [0, 1, 0, 1]  # sides as four-player Vint
    assert deal.play.leader == 0


def test_way_4_passout_play():
    deal = Vint2pDeal(parse_pbn(SUITS_DEAL), way=4, dealer=1, passout="play")
    deal.apply(PASS)
    deal.apply(PASS)
    assert deal.phase == "play" and deal.play.trump == NO_TRUMP
    assert deal.controllers == [0, 1, 0, 1] and deal.play.leader == 0    # the dealer keeps the open dummy
    play_out(deal)
    assert deal.player_tricks() == (13, 0) and deal.scores[0].passout_tricks == 500 * 7


# ------------------------------------------------------------------ way 5

WAY5_DEAL = "N:AKQJT9876543.2.. 2.AKQJT987654.3. .3.AKQJT9876542. ...AKQJT98765432"


def test_way_5_widow_to_dummy_give_aways_and_raised_contract():
    hands = parse_pbn(WAY5_DEAL)
    widow = [card("S3"), card("H4"), card("D5"), card("C3")]
    deal = Vint2pDeal(hands, way=5, dealer=0, widow=widow)
    assert [bin(h).count("1") for h in deal.hands] == [12, 12, 12, 12]
    assert deal.open_dummy == 2
    deal.apply(bid_action(1, S))
    deal.apply(PASS)
    assert deal.phase == "widow" and deal.declarer == 0 and deal.current_player == 0
    assert deal.visible_seats(1) == (1, 2, 3)            # the closed dummy is face up, the widow not
    deal.apply(WIDOW_TO_DUMMY)
    assert deal.widow_to == 2 and bin(deal.hands[2]).count("1") == 16
    assert deal.phase == "give" and deal.current_player == 2 and deal.current_controller == 0
    with pytest.raises(IllegalActionError):
        deal.apply(card("SA"))                           # not in the dummy's hand
    deal.apply(card("D2"))                               # to the declarer's own hand
    deal.apply(card("D4"))                               # to the opponent
    deal.apply(card("D6"))                               # to the opponent's dummy
    assert [to for _, to, _ in deal.gives] == [0, 1, 3]
    assert deal.hands[0] >> card("D2") & 1 and deal.hands[1] >> card("D4") & 1 and deal.hands[3] >> card("D6") & 1
    assert [bin(h).count("1") for h in deal.hands] == [13, 13, 13, 13]
    assert deal.phase == "final"
    assert deal.legal_actions() == list(range(bid_action(1, S), 88))
    deal.apply(bid_action(3, S))                         # the final contract raised over the winning bid
    assert deal.contract == (3, S) and deal.winning_bid == (1, S)
    assert deal.play.leader == 1                         # the other player leads from his own hand
    assert deal.play.trump == S
    play_out(deal)
    assert sum(deal.player_tricks()) == 13
    assert deal.scores[0].tricks + deal.scores[1].tricks == 30 * 13   # trick value of level 3


def test_way_5_widow_to_own_hand_gives_first_to_the_dummy():
    hands = parse_pbn(WAY5_DEAL)
    widow = [card("S3"), card("H4"), card("D5"), card("C3")]
    deal = Vint2pDeal(hands, way=5, dealer=1, widow=widow)
    assert deal.open_dummy == 3
    deal.apply(PASS)
    deal.apply(bid_action(2, H))                         # player_0, non-dealer: takes the open dummy W
    deal.apply(PASS)
    assert deal.controllers == [0, 1, 1, 0]
    deal.apply(WIDOW_TO_HAND)
    assert deal.widow_to == 0 and deal.current_player == 0
    for c in ("S6", "S4", "S5"):
        deal.apply(card(c))
    assert [to for _, to, _ in deal.gives] == [3, 1, 2]
    deal.apply(bid_action(2, H))
    assert deal.contract == (2, H) and deal.play.leader == 1


def test_way_5_game_needs_600():
    five, four = Vint2pRubber(way=5, game_race="deal_end"), Vint2pRubber(way=4, game_race="deal_end")
    assert five.sheet.game_target == 600 and four.sheet.game_target == 500
    for rubber in (five, four):
        rubber.sheet.record_deal((SideScore(tricks=520), SideScore(tricks=390)), tie_winner=0)
    assert five.sheet.games_won == [0, 0] and four.sheet.games_won == [1, 0]
    five.sheet.record_deal((SideScore(tricks=80), SideScore()), tie_winner=0)
    assert five.sheet.games_won == [1, 0]


def test_way_5_needs_its_widow():
    with pytest.raises(ValueError, match="widow"):
        Vint2pDeal(parse_pbn(WAY5_DEAL), way=5)
    with pytest.raises(ValueError, match="12"):
        Vint2pDeal(parse_pbn(WAY5_DEAL), way=5, widow=[card("SA"), card("SK"), card("SQ"), card("SJ")])
    with pytest.raises(ValueError, match="passout"):
        Vint2pDeal(parse_pbn(WAY5_DEAL), way=5, widow=[0, 1, 2, 3], passout="play")


# ------------------------------------------------------------------ ways 2 and 3

def test_way_3_stop_after_k_exchanges_and_the_declarer_leads():
    hands = parse_pbn(SUITS_DEAL)        # N (player_0) spades, S (player_1) diamonds; piles E clubs, W hearts
    piles = {1: [card(c) for c in ("CA", "CK", "CQ", "CJ", "CT", "C9", "C8", "C7", "C6", "C5", "C4", "C3", "C2")],
             3: [card(c) for c in ("H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "HT", "HJ", "HQ", "HK", "HA")]}
    deal = Vint2pDeal(hands, way=3, dealer=1, piles=piles)
    assert deal.phase == "exchange" and deal.current_player == 2      # the dealer exchanges first
    deal.apply(card("D2"))
    deal.apply(card("D3"))
    assert deal.exchanged == [0, 2] and deal.current_player == 2
    deal.apply(KEEP)                                                  # stop after two
    assert deal.hands[2] >> card("CA") & 1 and deal.hands[2] >> card("CK") & 1
    assert deal.discards[1] == (1 << card("D2")) | (1 << card("D3"))
    assert deal.piles[1][0] == card("CQ") and deal.current_player == 0
    for _ in range(13):                                               # player_0 exchanges all thirteen
        deal.apply(min(c for c in deal.legal_actions() if c < 52 and c // 13 == S))
    assert deal.exchanged == [13, 2] and deal.phase == "auction" and deal.current_player == 2
    assert deal.hands[0] == sum(1 << c for c in piles[3])      # all hearts now
    o = VINT2P_LAYOUT.decode(encode_observation(deal, 0))
    assert o["exchanged"][1].argmax() == 2 and o["exchanged"][0].argmax() == 13
    assert o["my_discards"].sum() == 13 and o["shown"].tolist() == [1, 0, 0, 0]
    deal.apply(PASS)
    deal.apply(bid_action(1, H))
    deal.apply(PASS)
    assert deal.declarer == 0 and deal.play.seats == (0, 2) and deal.play.leader == 0
    play_out(deal)
    assert len(deal.play.trick_winners) == 13 and deal.player_tricks() == (13, 0)


def test_way_2_exchange_of_the_whole_hand():
    hands = parse_pbn(SUITS_DEAL)
    deal = Vint2pDeal(hands, way=2, dealer=0)
    assert deal.legal_actions() == [KEEP, EXCHANGE_HAND]
    deal.apply(EXCHANGE_HAND)                    # N takes the pile on his right, W's hearts
    deal.apply(KEEP)
    assert deal.hands[0] == hands[3] and deal.discards[0] == hands[0] and deal.exchanged == [13, 0]
    deal.apply(bid_action(1, C))
    deal.apply(PASS)
    assert deal.play.leader == 2                 # the opponent of the declarer leads


def way2_deal(p0, p1, strain, level=1, declarer=0):
    """A way-2 deal whose played hands hold the given cards, filled up with cards that are
    neither aces nor trump honours (those go to the piles); both keep, then it is played out."""
    special = {c for c in range(52) if c % 13 == 12 or (c // 13 == strain and c % 13 >= 8)}
    filler = [c for c in range(52) if c not in special and c not in p0 and c not in p1]
    p0 = p0 + filler[:13 - len(p0)]
    filler = [c for c in filler if c not in p0]
    p1 = p1 + filler[:13 - len(p1)]
    piles = [c for c in range(52) if c not in p0 and c not in p1]
    hands = [sum(1 << c for c in p0), sum(1 << c for c in piles[:13]), sum(1 << c for c in p1),
             sum(1 << c for c in piles[13:])]
    deal = Vint2pDeal(hands, way=2, dealer=declarer)
    deal.apply(KEEP)
    deal.apply(KEEP)
    deal.apply(bid_action(level, strain))
    deal.apply(PASS)
    play_out(deal)
    return deal


def test_way_2_honours_two_against_one_score():
    deal = way2_deal([card("HK"), card("HQ")], [card("HJ")], H, level=1)
    p0, p1 = deal.scores
    assert p0.honours == 2 * 10 * 10 and p1.honours == 0


def test_way_2_honours_one_each_score_nothing():
    deal = way2_deal([card("HK")], [card("HQ")], H, level=2)
    assert deal.scores[0].honours == deal.scores[1].honours == 0


def test_way_2_net_honours_variant():
    deal = way2_deal([card("HK"), card("HQ")], [card("HJ")], H, level=1)
    assert deal.honours == "majority"
    rules = Vint2pDeal(deal.dealt, way=2, dealer=0, honours="net")
    for a in (KEEP, KEEP, bid_action(1, H), PASS):
        rules.apply(a)
    play_out(rules)
    assert rules.scores[0].honours == (2 - 1) * 10 * 10      # net: the difference of the counts


def test_way_4_rubber_game_goes_to_the_first_to_reach_500():
    """7NT taking all 13 tricks writes 13 x 70 = 910 below the line: a game at once."""
    rubber = Vint2pRubber(way=4, first_dealer=0)
    deal = rubber.new_deal(parse_pbn(SUITS_DEAL))
    deal.apply(bid_action(7, NT))
    deal.apply(PASS)
    play_out(deal)
    record = rubber.finish_deal()
    winner = deal.player_tricks().index(13)
    assert record.game_winner == winner and rubber.sheet.games_won[winner] == 1
    assert rubber.sheet.below == [0, 0] and rubber.dealer == 1


# ------------------------------------------------------------------ env

def test_env_replays_a_deal_with_widow_and_errors_are_clear():
    env = vint2p_v0.env(way=5, reward_scale=1.0)
    env.reset(options={"deal": WAY5_DEAL, "dealer": 0, "widow": ["S3", "H4", "D5", "C3"]})
    raw = env.unwrapped
    assert raw.deal.widow == sum(1 << card(c) for c in ("S3", "H4", "D5", "C3"))
    assert env.agent_selection == "player_0"
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(WIDOW_TO_HAND)
    with pytest.raises(ValueError, match="way must be"):
        vint2p_v0.env(way=6)
    with pytest.raises(ValueError, match="player 0 or 1"):
        vint2p_v0.env().reset(options={"dealer": 2})
    with pytest.raises(ValueError, match="way 5"):
        vint2p_v0.env(way=4).reset(options={"widow": ["S2", "S3", "S4", "S5"]})


def test_observation_says_who_acts_for_a_dummy():
    env = vint2p_v0.env(way=4)
    env.reset(options={"deal": SUITS_DEAL, "dealer": 0})
    env.step(PASS)
    env.step(bid_action(1, D))
    env.step(PASS)                               # player_1 declares with S; N leads
    env.step(card("S2"))                         # N leads a spade; E (player_1) discards
    env.step(card("C2"))
    assert env.agent_selection == "player_1"     # ... and plays for his dummy S next
    o = VINT2P_LAYOUT.decode(env.observe("player_1")["observation"])
    assert o["acting_for"].tolist() == [0, 1, 0, 0] and o["roles"][1].tolist()[1] == 1


def test_rubber_alternates_the_dealer_and_is_zero_sum():
    env = vint2p_v0.env(way=4, episode="rubber", reward_scale=1.0, max_deals=30)
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    dealers = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        raw = env.unwrapped
        if raw.deal.phase == "auction" and not raw.deal.auction.calls:
            dealers.append(raw.deal.dealer)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(PASS if PASS in legal and rng.random() < 0.7 else rng.choice(legal)))
    assert all(a != b for a, b in zip(dealers, dealers[1:]))
    assert totals["player_0"] == -totals["player_1"] == env.unwrapped.rubber.sheet.result
