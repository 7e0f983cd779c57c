"""The rule bots' book rules on hand-made positions, and the Vint bot's bidding."""

import numpy as np
import pytest

from card_game_checks import TOP_CARDS_NORTH
from vint_env.agents.rule import card_play as cp
from vint_env.agents.rule.play_view import PlayView, TrickMemory
from vint_env.agents.rule.vint import BIDDING_RULES, VintRuleAgent
from vint_env.cards import NO_TRUMP, hand_from_cards, parse_card, parse_hand_pbn
from vint_env.games.vint import encode_observation
from vint_env.games.vint import GAME as VINT
from vint_env.rules.vint import BID_BASE, PASS, VintDeal, bid_action
from vint_env.cards import parse_pbn

S, C, D, H, NT = 0, 1, 2, 3, 4


def cards(*texts):
    return [parse_card(t) for t in texts]


def hand(*texts):
    return hand_from_cards(cards(*texts))


def view(my_cards, trick=(), trump=NO_TRUMP, played=(), game="vint", **kw):
    """A PlayView: ``trick`` as (relative seat, card text) pairs."""
    t = [(s, parse_card(c)) for s, c in trick]
    played_mask = hand_from_cards(cards(*played)) | hand_from_cards([c for _, c in t])
    kw.setdefault("partners", frozenset({2}))
    return PlayView(hand=hand(*my_cards), trump=trump, trick=t, played=played_mask, game=game, **kw)


def choose(v):
    legal = [c for c in range(52) if v.hand >> c & 1]
    if v.trick and v.length(v.led_suit):
        legal = v.cards(v.led_suit)
    return cp.choose_card(v, legal)


# ------------------------------------------------------------ leads

@pytest.mark.parametrize("game, holding, expected", [
    ("vint", ("SA", "SK", "SQ", "S4"), "SK"),      # club rules: A-K-Q -> K
    ("whist", ("SA", "SK", "SQ", "S4"), "SQ"),     # Whist book: coronet -> Q
    ("vint", ("SA", "SK", "S7", "S4"), "SA"),      # club rules: A-K -> A
    ("whist", ("SA", "SK", "S7", "S4"), "SK"),     # Whist book: A-K -> K
    ("vint", ("SK", "SQ", "SJ", "S3"), "SK"),      # K-Q-J -> K
    ("vint", ("SQ", "SJ", "S10", "S3"), "SQ"),     # Q-J-10 -> Q
    ("vint", ("SA", "S8", "S6", "S3"), "S3"),      # A with small cards -> small
    ("vint", ("SA", "SQ", "SJ", "S3"), "S3"),      # A-Q-J-x -> small
    ("vint", ("SA", "S3"), "SA"),                  # A doubleton -> A
    ("whist", ("SK", "S8", "S6", "S3"), "S3"),     # Whist book: K with small cards -> small
])
def test_lead_tables(game, holding, expected):
    v = view(holding, game=game)
    assert cp.table_card(v, S) == parse_card(expected)


def test_lead_table_uses_promotion_by_played_cards():
    # K-Q-x with the ace gone reads as A-K-x: lead the top (Vint: A-K -> the top card).
    v = view(["SK", "SQ", "S4", "S2"], played=["SA", "S3", "S5", "S6"])
    assert cp.table_card(v, S) == parse_card("SK")


def test_choose_lead_avoids_kx_and_right_hand_opponents_suit():
    named = [set(), set(), set(), {D}]
    v = view(["SK", "S3", "DA", "DK", "D2", "C7", "C6", "C5", "C4", "H9", "H8", "H7", "H6"], named=named)
    card = cp.lead_by_the_books_table(v)
    assert card // 13 not in (S, D)          # not K-x, not the suit named on the right


def test_declarer_draws_trumps_from_the_top():
    v = view(["HA", "HK", "H9", "H7", "H2", "S3"], trump=H, declarer=0, level=2)
    assert choose(v) == parse_card("HA")


def test_partners_suit_is_led_with_its_highest_card():
    named = [set(), set(), {C}, set()]
    v = view(["C9", "C4", "SA", "S4", "S3"], named=named, declarer=1, level=1, trump=H)
    assert choose(v) == parse_card("C9")


# ------------------------------------------------------------ following

def test_second_hand_low():
    v = view(["S9", "S5", "SK"], trick=[(3, "S4")])
    assert choose(v) == parse_card("S5")


def test_second_hand_covers_an_honour_with_an_honour():
    v = view(["SK", "S5", "S2"], trick=[(3, "SQ")])
    assert choose(v) == parse_card("SK")


def test_third_hand_plays_high_but_the_lowest_of_touching_cards():
    v = view(["SK", "SQ", "S3"], trick=[(2, "S4"), (3, "S9")])
    assert choose(v) == parse_card("SQ")


def test_third_hand_leaves_partners_sure_winner():
    # Whist book: partner led the king and the ace is ours: let partner's king win.
    v = view(["SA", "S3"], trick=[(2, "SK"), (3, "S5")])
    assert choose(v) == parse_card("S3")


def test_fourth_hand_wins_cheaply_or_plays_low():
    v = view(["S10", "SJ", "SA"], trick=[(1, "S2"), (2, "S5"), (3, "S9")])
    assert choose(v) == parse_card("S10")
    v = view(["S10", "SJ", "SA"], trick=[(1, "S2"), (2, "SK"), (3, "S9")])   # partner wins
    assert choose(v) == parse_card("S10")


# ------------------------------------------------------------ void in the suit led

def test_ruff_when_partner_cannot_win_and_overruff():
    v = view(["H3", "H9", "C2", "D5"], trick=[(1, "S4"), (2, "S7"), (3, "SK")], trump=H)
    assert choose(v) == parse_card("H3")
    v = view(["H3", "H9", "C2", "D5"], trick=[(1, "S4"), (2, "S7"), (3, "H5")], trump=H)
    assert choose(v) == parse_card("H9")


def test_no_ruff_of_partners_winner():
    v = view(["H3", "H9", "C2", "C8", "DA", "DK"], trick=[(1, "S4"), (2, "SA"), (3, "S3")], trump=H)
    card = choose(v)
    assert card // 13 != H
    assert card == parse_card("C2")          # the weakest suit, not the A-K


def test_discard_from_the_weakest_suit():
    v = view(["CA", "CK", "C2", "D9", "D4", "HQ", "HJ"], trick=[(1, "S4")])
    assert choose(v) == parse_card("D4")


# ------------------------------------------------------------ memory

def test_memory_records_first_discards_and_partners_leads():
    m = TrickMemory()
    m.update([], {}, 0, 0, trump=H)                                      # I lead trick 1
    # trick 1: me S4, left S2, partner SA, right D3 (right is void in spades)
    last = {0: parse_card("S4"), 1: parse_card("S2"), 2: parse_card("SA"), 3: parse_card("D3")}
    m.update([(2, parse_card("C5"))], last, 2, 1, trump=H)               # partner won, leads C5
    assert m.first_discard[3] == D                                       # right showed out: a diamond
    assert m.first_discard[1] is None and m.first_discard[2] is None
    assert m.partner_won_leads({2}) == set()                             # I led that one
    last = {2: parse_card("C5"), 3: parse_card("C2"), 0: parse_card("C3"), 1: parse_card("H2")}
    m.update([], last, 2, 2, trump=H)                                    # trick 2 won by ... partner?
    assert m.first_discard[1] is None                                    # a ruff is not a discard
    assert m.leads == [(0, S, 2), (2, C, 2)]


# ------------------------------------------------------------ bidding

def auction(my_hand_pbn, calls=(), dealer=0):
    """An AuctionView for seat 0 after ``calls`` (absolute seats from ``dealer``)."""
    hands = parse_pbn("N:" + my_hand_pbn + " " + _others(my_hand_pbn))
    deal = VintDeal(hands, dealer=dealer)
    for a in calls:
        deal.apply(a)
    assert deal.current_player == 0
    obs = encode_observation(deal, 0)
    return VintRuleAgent.auction_view(VINT.decode(obs)), obs


def _others(pbn):
    mine = parse_hand_pbn(pbn)
    rest = [c for c in range(52) if not mine >> c & 1]
    from vint_env.cards import hand_to_pbn
    return " ".join(hand_to_pbn(hand_from_cards(rest[13 * i:13 * i + 13])) for i in range(3))


def bid(a):
    for rule in BIDDING_RULES:
        call = rule(a)
        if call is not None:
            return call


def test_reconstruct_calls_from_the_observation():
    a, _ = auction("AK43.KQ2.A2.A432", calls=[PASS, bid_action(1, S), PASS], dealer=1)
    assert a.calls == [(1, PASS), (2, bid_action(1, S)), (3, PASS)]
    assert a.highest == bid_action(1, S) and a.highest_by == 2


def test_three_aces_bid_no_trump_at_once():
    a, _ = auction("AK43.KQ2.A72.A43")
    assert bid(a) == bid_action(1, NT)


def test_long_suit_with_honours_and_five_sure_tricks_opens_at_one():
    a, _ = auction("AKQJ5.K43.72.J43")     # spades with four honours
    assert bid(a) == bid_action(1, S)


def test_weak_hand_passes():
    a, _ = auction("J9843.T43.72.543")
    assert bid(a) == PASS


def test_never_takes_partners_game_away():
    # partner (seat 2) opened 1 spade; with a good heart suit and no spade support: pass.
    a, _ = auction("2.AKQJ65.K72.543", calls=[PASS, bid_action(1, S), PASS], dealer=1)
    assert bid(a) == PASS
    # with four spades and side tricks: raise spades, never another suit
    a, _ = auction("KQ32.AK65.A72.43", calls=[PASS, bid_action(1, S), PASS], dealer=1)
    call = bid(a)
    assert call != PASS and (call - BID_BASE) % 5 == S


def test_does_not_compete_at_the_seven_level():
    a, _ = auction("AKQJ5.K43.72.J43", calls=[bid_action(6, NT)], dealer=3)
    assert bid(a) == PASS


def test_agent_acts_from_observation_alone():
    _, obs = auction("AK43.KQ2.A72.A43")
    mask = np.zeros(88, dtype=np.int8)
    mask[[PASS, *range(BID_BASE, 88)]] = 1
    assert VintRuleAgent().act({"observation": obs, "action_mask": mask}) == bid_action(1, NT)


# ------------------------------------------------------------ Whist (the Whist book)

def test_whist_lets_partners_queen_run_in_the_middle_of_the_deal():
    from vint_env.agents.rule.whist import let_partners_queen_pass_in_the_middle
    v = view(["SA", "S4", "S3"], trick=[(2, "SQ"), (3, "S5")], game="whist", tricks_played=3)
    assert let_partners_queen_pass_in_the_middle(v) == parse_card("S3")
    late = view(["SA", "S4", "S3"], trick=[(2, "SQ"), (3, "S5")], game="whist", tricks_played=10)
    assert let_partners_queen_pass_in_the_middle(late) is None


def test_whist_leads_trumps_with_five():
    v = view(["HK", "HQ", "H9", "H7", "H2", "S3", "S5"], trump=H, game="whist")
    assert choose(v) == parse_card("HK")            # top of touching honours
    v = view(["HK", "H9", "H2", "S3", "S5", "SA"], trump=H, game="whist")
    assert choose(v) // 13 != H                     # three trumps: do not lead them


def test_whist_rule_agent_decodes_its_observation():
    from vint_env.agents.rule.whist import WhistRuleAgent
    from vint_env.envs import whist_v0
    env = whist_v0.raw_env()
    env.reset(options={"deal": TOP_CARDS_NORTH,
                       "dealer": 3, "turned_card": "D2"})
    obs = env.observe("player_0")                    # North (left of the dealer West) leads
    # three trumps only (diamonds): no trump lead (Whist book); cash the four sure spade tricks from the top
    assert WhistRuleAgent().act(obs, None, "player_0") == parse_card("SA")


# ------------------------------------------------------------ Solo Whist (the Collection)

def solo_call(hand_pbn, turned_suit, legal):
    from vint_env.agents.rule.solo_whist import SOLO_BIDDING_RULES, SoloAuctionView
    a = SoloAuctionView(parse_hand_pbn(hand_pbn), turned_suit, legal)
    for rule in SOLO_BIDDING_RULES:
        call = rule(a)
        if call is not None:
            return call


def test_solo_whist_bids_from_hand_strength():
    from vint_env.rules.solo_whist_calls import (ABONDANCE, ACCEPT, DECLAREE, MISERE, OPEN_MISERE, PASS,
                                                 PROPOSAL, SOLO, TRUMP_ABONDANCE)
    everything = [PASS, PROPOSAL, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE]
    assert solo_call("AKQJ.AKQ.AKQ.AKQ", H, everything) == DECLAREE          # 13 sure tricks at no trump
    assert solo_call("AKQJT98.AK.A2.32", S, everything) == ABONDANCE         # nine sure tricks
    assert solo_call("AKQJT98.AK.A2.32", S, [PASS, TRUMP_ABONDANCE]) == TRUMP_ABONDANCE
    assert solo_call("AKQ965.A2.K43.32", S, everything) == SOLO              # six trumps (the Collection's example)
    assert solo_call("AK65.A92.K43.432", S, everything) == PROPOSAL          # four sure tricks
    assert solo_call("AK65.A92.K43.432", S, [PASS, ACCEPT]) == ACCEPT
    assert solo_call("432.432.5432.432", S, everything) in (MISERE, OPEN_MISERE)   # nothing above a 5
    assert solo_call("J5432.QT3.95.J84", S, everything) == PASS


def test_solo_whist_misere_play():
    # declarer ducks under the best card, else plays its lowest
    v = view(["S9", "S5", "S2"], trick=[(1, "S8"), (2, "S6")], game="solo_whist", goal="misere",
             declarer=0, partners=frozenset())
    assert cp.choose_card(v, v.cards(S)) == parse_card("S5")
    # a defender plays under the declarer's card so that the declarer wins it
    v = view(["S9", "S7", "S2"], trick=[(3, "S8")], game="solo_whist", goal="misere_defence",
             declarer=3, partners=frozenset({1, 2}))
    assert cp.choose_card(v, v.cards(S)) == parse_card("S7")


def test_whist_plays_the_queen_from_ace_queen_over_the_leader():
    from vint_env.agents.rule.whist import queen_from_ace_queen_over_the_leader
    v = view(["SA", "SQ", "S4"], trick=[(3, "S5")], game="whist")
    assert queen_from_ace_queen_over_the_leader(v) == parse_card("SQ")
    gone = view(["SA", "SQ", "S4"], trick=[(3, "S5")], game="whist", played=["SK", "S2", "S3", "S6"])
    assert queen_from_ace_queen_over_the_leader(gone) is None          # the king is gone: no finesse
