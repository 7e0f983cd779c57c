"""Solo Whist auction, play and payments worked out by hand from docs/rules/solo_whist.md (the Collection).

Payments are in quarter points: stakes proposal 4, solo 4, misère 8, abondance 12,
trump abondance 12, open misère 16, abondance déclarée 24; over/undertricks 1 a trick
for proposal and solo, 2 for the abondances.
"""

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH as ONE_SUIT, ONE_SUIT_EACH_TWOS_SWAPPED as SWAPPED
from vint_env.cards import FULL_DECK, NO_TRUMP, hand_cards, parse_card, parse_pbn, random_deal
from vint_env.rules.solo_whist import SoloWhistDeal, declaree_is_safe, misere_is_safe
from vint_env.rules.solo_whist_calls import (ABONDANCE, ACCEPT, DECLAREE, MISERE, OPEN_MISERE,
                                             PASS, PROPOSAL, SOLO, TRUMP_ABONDANCE, action_text,
                                             parse_action, trump_action)
from vint_env.rules.solo_whist_payments import amount, payments
from vint_env.rules.tricks import IllegalActionError, TrickPlay

S, C, D, H = 0, 1, 2, 3
CALLS_OF_ELDEST = [PASS, PROPOSAL, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE]


def new_deal(pbn=ONE_SUIT, dealer=3, turned="C2", variant="symmetric"):
    return SoloWhistDeal(parse_pbn(pbn), dealer, parse_card(turned), variant)


def run(deal, actions):
    for a in actions:
        deal.apply(a)
    return deal


def play_out(deal):
    """Play the lowest legal card until the deal is over."""
    while not deal.is_over:
        deal.apply(deal.legal_actions()[0])
    return deal


# ---------------------------------------------------------------- the auction

def test_eldest_calls_first_and_the_calls_on_offer():
    deal = new_deal(dealer=3)
    assert deal.current_player == 0 and deal.phase == "auction"
    assert deal.legal_actions() == CALLS_OF_ELDEST            # no acceptance, no trump abondance
    deal.apply(PROPOSAL)
    assert deal.current_player == 1
    assert deal.legal_actions() == [PASS, ACCEPT, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE]


def test_proposal_and_acceptance_form_a_partnership_wherever_seated():
    # W deals (turns a club): N proposes, E and S pass, W (on N's right) accepts.
    deal = run(new_deal(dealer=3), [PROPOSAL, PASS, PASS, ACCEPT])
    assert deal.phase == "play" and deal.contract == PROPOSAL
    assert (deal.declarer, deal.partner) == (0, 3) and deal.declaring_seats == (0, 3)
    assert deal.trump == C and deal.play.leader == 0            # turned trump; eldest leads
    # W holds every club (trump) and takes all 13 tricks: the pair makes 13, 5 over.
    play_out(deal)
    assert deal.tricks == 13 and deal.made and deal.payments == [9, -9, -9, 9]


def test_eldest_hand_may_accept_after_passing():
    # S deals: eldest W passes, N proposes, E and S pass; W, having passed, may still accept.
    deal = run(new_deal(dealer=2, turned="DA"), [PASS, PROPOSAL, PASS, PASS])
    assert deal.current_player == 3 and deal.legal_actions() == [PASS, ACCEPT]
    deal.apply(ACCEPT)
    assert deal.contract == PROPOSAL and (deal.declarer, deal.partner) == (0, 3)
    assert deal.trump == D and deal.play.leader == 3
    # S holds every diamond (trump): N and W take nothing, 8 short.
    play_out(deal)
    assert deal.tricks == 0 and not deal.made
    assert deal.payments == [-12, 12, 12, -12]                  # stake 4 + 8 undertricks, each partner pays one
    assert payments(PROPOSAL, 0, 3, 0, "literal") == [-8, 8, 8, -8]


def test_only_eldest_keeps_the_right_to_accept():
    # W deals: N (eldest) proposes at once; E passes; S passes; W passes: E may not come back.
    deal = run(new_deal(dealer=3), [PASS, PASS, PROPOSAL, PASS])
    # N passed first and is eldest: it may accept
    assert deal.current_player == 0 and deal.legal_actions() == [PASS, ACCEPT]
    deal.apply(PASS)                                           # eldest declines
    # nobody accepted: the proposer S must bid higher or pass
    assert deal.current_player == 2 and deal.proposer_asked
    assert deal.legal_actions() == [PASS, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE]


def test_an_unaccepted_proposal_makes_the_proposer_bid_higher_or_pass():
    deal = run(new_deal(dealer=3), [PROPOSAL, PASS, PASS, PASS])
    assert deal.current_player == 0 and deal.proposer_asked      # N is eldest and the proposer
    assert deal.legal_actions() == [PASS, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE]
    with pytest.raises(IllegalActionError, match="proposal"):
        deal.apply(PROPOSAL)
    thrown = run(deal.copy(), [PASS])
    assert thrown.is_over and thrown.thrown_in and thrown.payments == [0, 0, 0, 0]
    # or raises to solo, which stands (everybody else has passed)
    deal.apply(SOLO)
    assert deal.phase == "play" and deal.contract == SOLO and deal.declarer == 0 and deal.trump == C


def test_eldest_acceptance_comes_in_turn_and_once():
    # W deals, N is eldest.  N passes, E proposes, S and W pass: N's turn to accept or pass.
    deal = run(new_deal(dealer=3), [PASS, PROPOSAL, PASS, PASS])
    assert deal.current_player == 0 and deal.legal_actions() == [PASS, ACCEPT]
    deal.apply(PASS)                          # declined: the proposer E must raise or pass
    assert deal.proposer_asked and deal.current_player == 1
    # the last player proposes: eldest hand's turn comes next
    deal = run(new_deal(dealer=3), [PASS, PASS, PASS, PROPOSAL])
    assert deal.current_player == 0 and deal.legal_actions() == [PASS, ACCEPT]
    # S accepted first: eldest hand has nothing left to accept, the auction is over
    deal = run(new_deal(dealer=3), [PASS, PROPOSAL, ACCEPT, PASS])
    assert deal.phase == "play" and (deal.declarer, deal.partner) == (1, 2)
    # an overcalled proposal cannot be accepted any more
    deal = run(new_deal(dealer=3), [PASS, PROPOSAL, SOLO, PASS])
    assert deal.current_player == 1 and ACCEPT not in deal.legal_actions()
    # the proposer of an unaccepted proposal who passes throws the deal in
    deal = run(new_deal(dealer=3), [PROPOSAL, PASS, PASS, PASS, PASS])
    assert deal.thrown_in


def test_all_pass_throws_the_deal_in():
    deal = run(new_deal(), [PASS, PASS, PASS, PASS])
    assert deal.is_over and deal.thrown_in and deal.play is None and deal.payments == [0, 0, 0, 0]
    with pytest.raises(IllegalActionError, match="over"):
        deal.apply(PASS)


def test_overcalled_players_call_again_passed_players_do_not():
    deal = run(new_deal(dealer=3), [SOLO, PASS, MISERE])
    assert deal.current_player == 3
    deal.apply(PASS)
    assert deal.current_player == 0                               # N's solo was overcalled
    assert deal.legal_actions() == [PASS, ABONDANCE, OPEN_MISERE, DECLAREE]
    deal.apply(ABONDANCE)
    assert deal.current_player == 2                               # E and W passed: skipped
    deal.apply(PASS)
    assert deal.phase == "trump" and deal.current_player == 0 and deal.contract == ABONDANCE


def test_trump_abondance_only_over_an_abondance():
    deal = new_deal(dealer=3)
    assert TRUMP_ABONDANCE not in deal.legal_actions()
    with pytest.raises(IllegalActionError, match="trump abondance"):
        deal.apply(TRUMP_ABONDANCE)
    run(deal, [SOLO, MISERE])
    assert TRUMP_ABONDANCE not in deal.legal_actions()            # misère is not an abondance
    deal.apply(ABONDANCE)
    assert TRUMP_ABONDANCE in deal.legal_actions()
    run(deal, [TRUMP_ABONDANCE, PASS, PASS, PASS])
    # W bid trump abondance with the turned trump (clubs): no trump to name, eldest leads
    assert deal.phase == "play" and deal.contract == TRUMP_ABONDANCE and deal.declarer == 3
    assert deal.trump == C and deal.play.leader == 0


def test_abondance_declarer_names_trump_after_the_auction():
    deal = run(new_deal(dealer=3), [ABONDANCE, PASS, PASS, PASS])
    assert deal.phase == "trump" and deal.current_player == 0
    assert deal.legal_actions() == [trump_action(s) for s in range(4)]
    with pytest.raises(IllegalActionError):
        deal.apply(parse_card("SA"))
    deal.apply(trump_action(S))
    assert deal.phase == "play" and deal.trump == S and deal.play.leader == 0
    play_out(deal)                          # N holds every spade: 13 tricks, 4 over
    assert deal.tricks == 13 and deal.payments == [60, -20, -20, -20]


def test_seed_000_auction_solo_misere_abondance_open_misere():
    # Кирилл (N) deals; Алексей (E) solo, Влад (S) misère, Роман (W) abondance, Кирилл open misère.
    deal = new_deal(dealer=0, turned="S2")
    run(deal, [SOLO, MISERE, ABONDANCE, OPEN_MISERE])
    assert deal.current_player == 1 and deal.legal_actions() == [PASS, DECLAREE]
    run(deal, [PASS, PASS, PASS])
    assert deal.contract == OPEN_MISERE and deal.declarer == 0 and deal.trump == NO_TRUMP
    assert deal.play.leader == 1


def test_action_texts():
    assert [action_text(a) for a in range(52, 65)] == [
        "pass", "proposal", "acceptance", "solo", "misère", "abondance", "trump abondance",
        "open misère", "abondance déclarée", "trump S", "trump C", "trump D", "trump H"]
    assert parse_action("Open Misere") == OPEN_MISERE and parse_action("h2") == parse_card("H2")
    with pytest.raises(ValueError):
        action_text(65)


# ---------------------------------------------------------------- each contract made and lost

@pytest.mark.parametrize("pbn, dealer, turned, calls, expected, tricks, early", [
    # solo: W deals (clubs), N solo; W trumps every spade: N 0 tricks, 5 short: 4 + 5
    (ONE_SUIT, 3, "C2", [SOLO, PASS, PASS, PASS], [-27, 9, 9, 9], 0, False),
    # solo made: N deals (spades), E S W pass, N solo: 13 tricks, 8 over: 4 + 8
    (ONE_SUIT, 0, "S2", [PASS, PASS, PASS, SOLO], [36, -12, -12, -12], 13, False),
    # proposal made: N deals; E proposes, N accepts; N's trumps take all 13: 4 + 5
    (ONE_SUIT, 0, "S2", [PROPOSAL, PASS, PASS, ACCEPT], [9, 9, -9, -9], 13, False),
    # misère made: E alone holds hearts and never gets the lead: certain before the first card
    (ONE_SUIT, 3, "C2", [PASS, MISERE, PASS, PASS], [-8, 24, -8, -8], 0, True),
    # misère lost: N is eldest, leads a spade and wins the first trick
    (ONE_SUIT, 3, "C2", [MISERE, PASS, PASS, PASS], [-24, 8, 8, 8], 1, True),
    # open misère made and lost, the same two ways
    (ONE_SUIT, 3, "C2", [PASS, OPEN_MISERE, PASS, PASS], [-16, 48, -16, -16], 0, True),
    (ONE_SUIT, 3, "C2", [OPEN_MISERE, PASS, PASS, PASS], [-48, 16, 16, 16], 1, True),
    # abondance lost: E names spades, holds none: N takes all, E 9 short: 12 + 18
    (ONE_SUIT, 3, "C2", [PASS, ABONDANCE, PASS, PASS, trump_action(S)], [30, -90, 30, 30], 0, False),
    # trump abondance over an abondance: E with the turned clubs, W holds them all: 12 + 18
    (ONE_SUIT, 3, "C2", [ABONDANCE, TRUMP_ABONDANCE, PASS, PASS, PASS], [30, -90, 30, 30], 0, False),
    # trump abondance made: S deals and turns a diamond; W abondance, S trump abondance: 13, 4 over
    (ONE_SUIT, 2, "D2", [ABONDANCE, PASS, PASS, TRUMP_ABONDANCE, PASS], [-20, -20, 60, -20], 13, False),
    # déclarée made: N leads with the top of every suit it holds: certain at once
    (ONE_SUIT, 3, "C2", [DECLAREE, PASS, PASS, PASS], [72, -24, -24, -24], 13, True),
    # déclarée lost: E must give up its D2 (it leads it first): S wins the first trick
    (SWAPPED, 3, "C2", [PASS, DECLAREE, PASS, PASS], [24, -72, 24, 24], 0, True),
])
def test_contract_played_out_with_exact_payments(pbn, dealer, turned, calls, expected, tricks, early):
    deal = play_out(run(new_deal(pbn, dealer, turned), calls))
    assert deal.payments == expected and sum(deal.payments) == 0
    assert deal.tricks == tricks and deal.ended_early == early
    assert deal.made == (expected[deal.declarer] > 0)


def test_abondance_made_with_the_named_trump_and_literal_losses():
    # E names hearts (all its own): 13 tricks, 4 over: 12 + 8
    deal = play_out(run(new_deal(), [PASS, ABONDANCE, PASS, PASS, trump_action(H)]))
    assert deal.trump == H and deal.tricks == 13 and deal.payments == [-20, 60, -20, -20]
    # literal variant: a lost solo / abondance costs only the undertrick money
    solo = play_out(run(new_deal(variant="literal"), [SOLO, PASS, PASS, PASS]))
    assert solo.payments == [-15, 5, 5, 5]
    ab = play_out(run(new_deal(variant="literal"), [PASS, ABONDANCE, PASS, PASS, trump_action(S)]))
    assert ab.payments == [18, -54, 18, 18]
    # ... the misères and déclarée cost their stake in both variants
    mis = play_out(run(new_deal(variant="literal"), [MISERE, PASS, PASS, PASS]))
    assert mis.payments == [-24, 8, 8, 8]


@pytest.mark.parametrize("contract, tricks, symmetric, literal", [
    (PROPOSAL, 8, 4, 4), (PROPOSAL, 10, 6, 6), (PROPOSAL, 7, -5, -1), (PROPOSAL, 3, -9, -5),
    (SOLO, 5, 4, 4), (SOLO, 9, 8, 8), (SOLO, 4, -5, -1), (SOLO, 0, -9, -5),
    (MISERE, 0, 8, 8), (MISERE, 1, -8, -8),
    (ABONDANCE, 9, 12, 12), (ABONDANCE, 11, 16, 16), (ABONDANCE, 8, -14, -2), (ABONDANCE, 6, -18, -6),
    (TRUMP_ABONDANCE, 10, 14, 14), (TRUMP_ABONDANCE, 7, -16, -4),
    (OPEN_MISERE, 0, 16, 16), (OPEN_MISERE, 2, -16, -16),
    (DECLAREE, 13, 24, 24), (DECLAREE, 12, -24, -24),
])
def test_payment_per_opponent(contract, tricks, symmetric, literal):
    assert amount(contract, tricks) == symmetric
    assert amount(contract, tricks, "literal") == literal


def test_payment_errors():
    with pytest.raises(ValueError, match="payments"):
        amount(SOLO, 5, "generous")
    with pytest.raises(ValueError, match="partner"):
        payments(PROPOSAL, 0, None, 8)
    with pytest.raises(ValueError, match="partner"):
        payments(SOLO, 0, 2, 8)
    with pytest.raises(ValueError, match="dealer's hand"):
        new_deal(turned="H2")


# ---------------------------------------------------------------- early end is certain

def random_continuations(play, rng, n=40):
    """Winners of every remaining trick over ``n`` random continuations of ``play``."""
    for _ in range(n):
        p = play.copy()
        while not p.is_over:
            legal = p.legal_cards()
            p.play(legal[int(rng.integers(len(legal)))])
        yield p.trick_winners[play.tricks_played:]


BID_ORDER = [PROPOSAL, SOLO, MISERE, ABONDANCE, TRUMP_ABONDANCE, OPEN_MISERE, DECLAREE]


def check_auction(deal):
    """docs/rules/solo_whist.md read off the recorded calls, independently of the engine's bookkeeping."""
    eldest = (deal.dealer + 1) % 4
    calls = [(s, a) for s, a in deal.calls if a < 61]
    assert calls[0][0] == eldest
    passed, highest, maker, accepter = set(), None, None, None
    for i, (seat, action) in enumerate(calls):
        if action == PASS:
            passed.add(seat)
        elif action == ACCEPT:
            assert highest == PROPOSAL and accepter is None and seat != maker
            assert seat not in passed or seat == eldest       # only eldest accepts after passing
            accepter = seat
        else:
            assert seat not in passed                          # a passer never bids again
            assert highest is None or BID_ORDER.index(action) > BID_ORDER.index(highest)
            assert action != PROPOSAL or highest is None
            assert action != TRUMP_ABONDANCE or highest == ABONDANCE
            highest, maker, accepter = action, seat, None
        if i + 1 < len(calls):                                 # the next caller is clockwise
            nxt = calls[i + 1][0]
            between = [(seat + k) % 4 for k in range(1, (nxt - seat) % 4 or 4)]
            for skipped in between:                            # nobody who could call is skipped
                assert skipped in passed or skipped in (maker, accepter)
    if deal.thrown_in:
        assert highest is None or (highest == PROPOSAL and accepter is None)
        assert len(passed) == 4
    else:
        assert deal.contract == highest and deal.declarer == maker
        assert deal.partner == (accepter if accepter is not None else -1)
        assert (highest == PROPOSAL) == (accepter is not None)
        assert all(s in passed or s in (maker, accepter) for s in range(4))


def test_random_deals_invariants_and_certain_early_ends():
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(1500):
        hands = random_deal(rng)
        dealer = int(rng.integers(4))
        deal = SoloWhistDeal(hands, dealer, int(rng.choice(hand_cards(hands[dealer]))))
        while not deal.is_over:
            legal = deal.legal_actions()
            if deal.phase == "auction" and rng.random() < 0.55:
                action = PASS
            else:
                action = legal[int(rng.integers(len(legal)))]
            before = deal.copy()
            deal.apply(action)
            if deal.play is not None:
                p = deal.play
                held = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]
                assert held & sum(1 << c for _, c in p.plays) == 0
                assert held | sum(1 << c for _, c in p.plays) == FULL_DECK
        assert sum(deal.payments) == 0
        check_auction(deal)
        if deal.thrown_in:
            seen.add("thrown in")
            assert deal.payments == [0, 0, 0, 0] and all(deal.passed)
            continue
        seen.add((deal.contract, deal.made, deal.ended_early))
        p = deal.play
        if p.plays:                  # (a misère or déclarée may be certain before the first card)
            assert p.plays[0][0] == (deal.declarer if deal.contract == DECLAREE else (dealer + 1) % 4)
        taken = sum(p.tricks_won[s] for s in deal.declaring_seats)
        if deal.contract in (MISERE, OPEN_MISERE):
            assert deal.made == (taken == 0)
            if not deal.made:        # stopped at the first trick the declarer took
                assert taken == 1 and p.trick_winners[-1] == deal.declarer
            elif deal.ended_early:   # nobody could have given the declarer a trick
                for winners in random_continuations(p, rng):
                    assert deal.declarer not in winners
        elif deal.contract == DECLAREE:
            lost = p.tricks_played - taken
            assert deal.made == (lost == 0)
            if not deal.made:
                assert lost == 1 and p.trick_winners[-1] != deal.declarer
            elif deal.ended_early:
                for winners in random_continuations(p, rng):
                    assert set(winners) == {deal.declarer}
        else:
            assert p.is_over and not deal.ended_early and deal.tricks == taken
    # every contract came up, made and lost
    for contract in (PROPOSAL, SOLO, ABONDANCE):
        assert (contract, False, False) in seen
    for contract in (MISERE, OPEN_MISERE, DECLAREE):
        assert (contract, False, True) in seen
    assert "thrown in" in seen


def test_certainty_checks_on_small_positions():
    # Declarer N (seat 0) with the lowest cards of every suit it holds, not on lead: safe.
    hands = [0, 0, 0, 0]
    hands[0] = sum(1 << parse_card(c) for c in ("S2", "S3", "H2"))
    hands[1] = sum(1 << parse_card(c) for c in ("S4", "H3", "D2"))
    hands[2] = sum(1 << parse_card(c) for c in ("S5", "H4", "D3"))
    hands[3] = sum(1 << parse_card(c) for c in ("SA", "D4", "D5"))
    play = TrickPlay(hands, NO_TRUMP, leader=1)
    assert misere_is_safe(play, 0)
    # On lead too: every suit N can lead (S, H) is held above by the others (issue 23 item 21).
    assert misere_is_safe(TrickPlay(hands, NO_TRUMP, leader=0), 0)
    lone = [hands[0] & ~(1 << parse_card("H2")) | (1 << parse_card("C2"))] + hands[1:]   # clubs: only N
    assert not misere_is_safe(TrickPlay(lone, NO_TRUMP, leader=0), 0)      # N leads C2 and wins it
    assert misere_is_safe(TrickPlay(lone, NO_TRUMP, leader=1), 0)          # but never gets the lead
    hands[0], hands[1] = hands[1], hands[0]                               # S4 H3 D2 now N's
    assert not misere_is_safe(TrickPlay(hands, NO_TRUMP, leader=1), 0)
    # déclarée: W's S A and D 5 4 top their suits? D 5 4 over D 3 2, S A over everything: safe on lead
    assert declaree_is_safe(TrickPlay(hands, NO_TRUMP, leader=3), 3)
    assert not declaree_is_safe(TrickPlay(hands, NO_TRUMP, leader=2), 3)


def test_payments_are_zero_sum_and_signed_by_the_result_for_every_outcome():
    from vint_env.rules.solo_whist_payments import contract_made
    for contract in BID_ORDER:
        for tricks in range(14):
            for declarer in range(4):
                partners = [p for p in range(4) if p != declarer] if contract == PROPOSAL else [None]
                for partner in partners:
                    sym = payments(contract, declarer, partner, tricks)
                    lit = payments(contract, declarer, partner, tricks, "literal")
                    assert sum(sym) == 0 and sum(lit) == 0
                    mine = sym[declarer]
                    assert (mine > 0) == contract_made(contract, tricks) and mine != 0
                    if partner is not None:
                        assert sym[partner] == mine and sorted(sym) == [-abs(mine)] * 2 + [abs(mine)] * 2
                    if mine > 0:
                        assert lit == sym          # made contracts pay the same in both variants
                    else:
                        assert 0 > lit[declarer] >= mine
