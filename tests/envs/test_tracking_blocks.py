"""The tracking blocks (trick_winner, winning_card, voids, cards_out, top_remaining) on hand-made positions.

One deal, worked out by hand (suits S, C, D, H = 0..3, card id ``suit * 13 + rank``, ranks 2..A = 0..12):

    N  S AKQJT98   H 5432     D 2       C 2
    E  S 765432    H AKQ      D 3       C 543
    S  -           H JT9876   D AKQJT   C 76
    W  -           H -        D 987654  C AKQJT98

Each game plays a few tricks of it up to a trick in progress where one player has trumped (or,
at no-trump, only discarded); the expected blocks of the player to move (South) are written out
below from the cards played, and the reference encoder, the AEC env (its card-by-card
``SeatViews``) and the batched kernel must all give exactly them.
"""

import numpy as np
import pytest

from card_game_checks import swap_hidden_cards
from vint_env import solo_whist_v0, vint_v0, whist_v0
from vint_env.cards import parse_card, parse_pbn
from vint_env.games import solo_whist, vint, whist
from vint_env.games.obs_blocks import TRACKING_BLOCKS, deal_voids
from vint_env.rules import PASS, bid_action
from vint_env.rules.solo_whist_calls import parse_action as solo_call
from vint_env.rules.vint_scoring import NT
from vint_env.vector import VintEngine, WhistEngine

DEAL = "N:AKQJT98.5432.2.2 765432.AKQ.3.543 .JT9876.AKQJT.76 ..987654.AKQJT98"
TRACKED = [name for name, _, _ in TRACKING_BLOCKS]
N, E, S, W = 0, 1, 2, 3


def cards(text):
    return [parse_card(c) for c in text.split()]


def expected(winner, winning_card, voids, cards_out, top):
    """The blocks as arrays from the hand-worked facts (``voids``: (relative seat, suit) pairs)."""
    v = np.zeros((4, 4))
    for r, s in voids:
        v[r, s] = 1
    out = np.zeros((4, 14))
    out[range(4), cards_out] = 1
    blocks = {"trick_winner": np.zeros(4), "winning_card": np.zeros(52), "voids": v, "cards_out": out,
              "top_remaining": np.zeros(52)}
    if winner is not None:
        blocks["trick_winner"][winner] = 1
        blocks["winning_card"][winning_card] = 1
    blocks["top_remaining"][top] = 1
    return blocks


def assert_blocks(layout, vector, want):
    got = layout.decode(vector)
    for name in TRACKED:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def play_env(env, actions):
    for a in actions:
        env.step(a)


# Vint: 1S (or 1NT) by North, East leads.
#   trick 1: E HA, S H6, W C8 (W shows out of hearts), N H2      -> E
#   trick 2: E C3, S C7, W CA, N C2                              -> W
#   trick 3: W CK, N S8 (N shows out of clubs: a trump), E C4    ... South to move
# Seen from South (relative seats: N 2, E 3, W 1):
# - voids: W (1) of hearts (3), N (2) of clubs (1);
# - played: S8; HA H6 H2; C8 C3 C7 CA C2 CK C4.  Left per suit: S 12, C 6, D 13, H 10; South holds
#   S 0, C 1 (C6), D 5, H 5, so cards_out = S 12, C 5, D 8, H 5;
# - top_remaining: SA (12), CQ (23), DA (38), HK (50);
# - spades trump: N's S8 (id 6) wins so far; at no-trump W's CK (id 24) does.
VINT_PLAY = cards("HA H6 C8 H2  C3 C7 CA C2  CK S8 C4")
VINT_TOP = [12, 23, 38, 50]
VINT_VOIDS = [(1, 3), (2, 1)]


def vint_actions(strain):
    return [bid_action(1, strain), PASS, PASS, PASS, *VINT_PLAY]


@pytest.mark.parametrize("strain, winner, card", [(0, 2, 6), (NT, 1, 24)], ids=["spades", "no-trump"])
def test_vint_trick_in_progress_seen_by_south(strain, winner, card):
    want = expected(winner, card, VINT_VOIDS, [12, 5, 8, 5], VINT_TOP)
    env = vint_v0.env()
    env.reset(options={"deal": DEAL, "dealer": N})
    play_env(env, vint_actions(strain))
    assert env.agent_selection == "player_2"
    assert_blocks(vint.VINT_LAYOUT, env.observe("player_2")["observation"], want)
    assert_blocks(vint.VINT_LAYOUT, vint.encode_observation(env.unwrapped.deal, S), want)
    engine = VintEngine(auto_reset=False)
    state = engine.init(seed=0, deals=[DEAL], dealers=[N])
    for a in vint_actions(strain):
        state = engine.step(state, np.array([a]))
    assert state.observer[0] == S
    assert_blocks(vint.VINT_LAYOUT, state.observation[0], want)
    assert state.voids[0] == (1 << 4 * W + 3) | (1 << 4 * N + 1)


def test_vint_blocks_before_and_during_the_first_trick():
    env = vint_v0.env()
    env.reset(options={"deal": DEAL, "dealer": N})
    # In the auction: nothing played, no trick; North (to call) has not seen 13 - 7 spades,
    # 12 clubs, 12 diamonds, 9 hearts; the aces are on top.
    want = expected(None, None, [], [6, 12, 12, 9], [12, 25, 38, 51])
    assert_blocks(vint.VINT_LAYOUT, env.observe("player_0")["observation"], want)
    play_env(env, [bid_action(1, 0), PASS, PASS, PASS, *cards("HA H6 C8")])
    # North to move in trick 1: East's HA wins it so far (W's C8 is no trump); W shows out of hearts.
    # North holds S 7, C 1, D 1, H 4; left: S 13, C 12, D 13, H 11 -> out 6, 11, 12, 7; HK now tops hearts.
    want = expected(1, 51, [(3, 3)], [6, 11, 12, 7], [12, 25, 38, 50])
    assert_blocks(vint.VINT_LAYOUT, env.observe("player_0")["observation"], want)
    # The same trick seen by West (relative: E 2, N 1): East is his partner, at relative seat 2.
    want = expected(2, 51, [(0, 3)], [13, 6, 7, 11], [12, 25, 38, 50])
    assert_blocks(vint.VINT_LAYOUT, env.observe("player_3")["observation"], want)


# Whist: West deals and turns D4 (trump diamonds), North leads.
#   trick 1: N C2, E C3, S C6, W CA                              -> W
#   trick 2: W CK, N D2 (N shows out of clubs: a trump), E C4    ... South to move
# Seen from South: N (2) void in clubs (1); played C2 C3 C6 CA CK C4 and D2.  Left: S 13, C 7,
# D 12, H 13; South holds S 0, C 1, D 5, H 6, and sees the turned D4 in West's hand, so
# cards_out = S 13, C 6, D 6, H 7 (no-trump Whist turns no card: D 7).  Tops: SA, CQ, DA, HA.
# N's D2 (id 26) wins so far; at no-trump W's CK (id 24).
WHIST_PLAY = cards("C2 C3 C6 CA  CK D2 C4")


@pytest.mark.parametrize("no_trump", [False, True], ids=["turned-diamonds", "no-trump"])
def test_whist_trick_in_progress_seen_by_south(no_trump):
    winner, card, out = (1, 24, [13, 6, 7, 7]) if no_trump else (2, 26, [13, 6, 6, 7])
    want = expected(winner, card, [(2, 1)], out, [12, 23, 38, 51])
    turned = {} if no_trump else {"turned_card": "D4"}
    env = whist_v0.env(no_trump=no_trump)
    env.reset(options={"deal": DEAL, "dealer": W, **turned})
    if not no_trump:        # North at the start: the turned D4 is seen, so 13 - 1 - 1 diamonds are out
        start = expected(None, None, [], [6, 12, 11, 9], [12, 25, 38, 51])
        assert_blocks(whist.WHIST_LAYOUT, env.observe("player_0")["observation"], start)
    play_env(env, WHIST_PLAY)
    assert env.agent_selection == "player_2"
    assert_blocks(whist.WHIST_LAYOUT, env.observe("player_2")["observation"], want)
    engine = WhistEngine(auto_reset=False, no_trump=no_trump)
    state = engine.init(seed=0, deals=[DEAL], dealers=[W], **({} if no_trump else {"turned": ["D4"]}))
    for a in WHIST_PLAY:
        state = engine.step(state, np.array([a]))
    assert state.observer[0] == S
    assert_blocks(whist.WHIST_LAYOUT, state.observation[0], want)


def test_solo_whist_solo_trick_in_progress_seen_by_south():
    """Solo by North (eldest: West deals, turns D4, diamonds trump); the play of the Whist test."""
    env = solo_whist_v0.env()
    env.reset(options={"deal": DEAL, "dealer": W, "turned_card": "D4"})
    start = expected(None, None, [], [6, 12, 11, 9], [12, 25, 38, 51])
    assert_blocks(solo_whist.SOLO_WHIST_LAYOUT, env.observe("player_0")["observation"], start)
    play_env(env, [solo_call("solo"), PASS, PASS, PASS, *WHIST_PLAY])
    assert env.agent_selection == "player_2"
    want = expected(2, 26, [(2, 1)], [13, 6, 6, 7], [12, 23, 38, 51])
    assert_blocks(solo_whist.SOLO_WHIST_LAYOUT, env.observe("player_2")["observation"], want)


def test_voids_of_a_played_sequence():
    """``deal_voids``: a seat shows out only when it does not follow the suit led, trick by trick."""
    env = vint_v0.env()
    env.reset(options={"deal": DEAL, "dealer": N})
    play_env(env, vint_actions(0))
    play = env.unwrapped.deal.play
    assert deal_voids(play) == [1 << 1, 0, 0, 1 << 3]         # N out of clubs, W out of hearts
    env.step(parse_card("C6"))                                 # South follows: trick 3 done, N wins (S8)
    assert play.trick_winners[-1] == N
    play_env(env, cards("S9 S2 HJ D9"))       # N leads S9: E follows, S and W show out of spades
    assert deal_voids(play) == [1 << 1, 0, 1 << 0, (1 << 3) | (1 << 0)]
    ob = vint.VINT_LAYOUT.decode(env.observe("player_1")["observation"])      # East: N 3, S 1, W 2
    assert np.argwhere(ob["voids"]).tolist() == [[1, 0], [2, 0], [2, 3], [3, 1]]


def tracked(layout, vector):
    d = layout.decode(vector)
    return np.concatenate([d[name].ravel() for name in TRACKED])


@pytest.mark.parametrize("game", ["vint", "whist", "solo_whist"])
def test_hidden_cards_never_change_the_tracking_blocks(game):
    """Two deals that differ only in cards the observer cannot see give him the same blocks."""
    rng = np.random.default_rng(5)
    module = {"vint": vint, "whist": whist, "solo_whist": solo_whist}[game]
    layout = module.GAME.layout
    checked = 0
    for _ in range(150):
        env = module.GAME.env()
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 60))):
            raw = env.unwrapped
            if raw.current_seat < 0:
                break
            env.step(int(rng.choice(raw.legal_actions())))
        deal = env.unwrapped.deal
        if deal.is_over:
            continue
        for me in range(4):
            visible = 0
            seats = None
            if game != "vint" and deal.turned_card is not None and deal.turned_card_in_hand:
                visible = 1 << deal.turned_card
            if game == "solo_whist" and deal.hand_shown:
                seats = [s for s in range(4) if s != me and s != deal.declarer]
            other = swap_hidden_cards(deal, me, rng, visible=visible, seats=seats)
            if other is None:
                continue
            a = module.encode_observation(deal, me)
            b = module.encode_observation(other, me)
            np.testing.assert_array_equal(tracked(layout, a), tracked(layout, b))
            checked += 1
    assert checked > 100


def test_no_leak_of_where_an_unseen_card_is_on_the_hand_made_deal():
    """South's blocks are the same whether West holds the unplayed CQ and East the HK or the other way round."""
    env = vint_v0.env()
    env.reset(options={"deal": DEAL, "dealer": N})
    play_env(env, vint_actions(0))
    deal = env.unwrapped.deal
    other = deal.copy()
    swap = (1 << parse_card("CQ")) | (1 << parse_card("HK"))
    hands, current = list(other.hands), list(other.play.hands)
    for h in (hands, current):
        h[E] ^= swap
        h[W] ^= swap
    other.hands, other.play.hands = tuple(hands), current
    assert other.play.hands != deal.play.hands
    a, b = (tracked(vint.VINT_LAYOUT, vint.encode_observation(d, S)) for d in (deal, other))
    np.testing.assert_array_equal(a, b)
    # ... while West, who holds one of the two, counts one club fewer and one heart more as out.
    assert not np.array_equal(tracked(vint.VINT_LAYOUT, vint.encode_observation(deal, W)),
                              tracked(vint.VINT_LAYOUT, vint.encode_observation(other, W)))
    assert parse_pbn(DEAL)[S] == deal.hands[S]
