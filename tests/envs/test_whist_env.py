"""whist_v0: PettingZoo conformance, invariants over random games, replay, errors, no leaks, layout."""

import warnings

import numpy as np
import pytest

from card_game_checks import DEAL_002, legal_cards_by_rules, random_episode, swap_hidden_cards, winner_by_rules
from vint_env import whist_v0
from vint_env.cards import FULL_DECK, NO_TRUMP, hand_cards, parse_card, parse_pbn, random_deal
from vint_env.games.whist import STATE_SIZE, WHIST_LAYOUT, encode_observation
from vint_env.rules import IllegalActionError
from vint_env.rules.whist import WhistDeal



# PettingZoo's api_test, seed_test, parallel_api_test, render_test: tests/envs/test_conformance.py (every game).


def test_mask_equals_legal_actions_and_rewards_are_zero_sum():
    env = whist_v0.env()
    rng = np.random.default_rng(1)

    def check(env, agent, obs):
        raw = env.unwrapped
        assert agent == f"player_{raw.deal.current_player}"
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (52,)
        assert set(np.flatnonzero(mask)) == legal_cards_by_rules(raw.deal.play)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()

    for episode in range(60):
        env.reset(seed=episode)
        infos = {}
        totals = random_episode(env, rng, check, infos)
        assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]
        info = infos["player_0"]
        assert info["deal"]["scores"]["NS"]["total"] - info["deal"]["scores"]["EW"]["total"] == info["points"]
        assert totals["player_0"] == pytest.approx(0.1 * info["points"])


@pytest.mark.parametrize("no_trump", [False, True])
def test_invariants_over_thousands_of_random_deals(no_trump):
    rng = np.random.default_rng(7 + no_trump)
    for _ in range(1000):
        hands = random_deal(rng)
        dealer = int(rng.integers(4))
        turned = None if no_trump else int(rng.choice(hand_cards(hands[dealer])))
        deal = WhistDeal(hands, dealer, turned, no_trump=no_trump)
        assert deal.trump == (NO_TRUMP if no_trump else turned // 13)
        while not deal.is_over:
            p = deal.play
            assert set(deal.legal_actions()) == legal_cards_by_rules(p)
            if turned is not None:
                # the turned card stays in the dealer's hand until the dealer plays it
                assert deal.turned_card_in_hand == (turned not in [c for _, c in p.plays])
            deal.apply(deal.legal_actions()[int(rng.integers(len(deal.legal_actions())))])
            held = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]
            gone = sum(1 << c for _, c in p.plays)
            assert held & gone == 0 and held | gone == FULL_DECK
        p = deal.play
        assert p.plays[0][0] == (dealer + 1) % 4        # left of the dealer leads
        assert len(p.plays) == 52 and sum(p.side_tricks()) == 13
        for t in range(13):
            seats = [s for s, _ in p.plays[4 * t:4 * t + 4]]
            cards = [c for _, c in p.plays[4 * t:4 * t + 4]]
            assert p.trick_winners[t] == winner_by_rules(cards, seats[0], p.trump)
        ns, ew = deal.scores
        tricks = p.side_tricks()
        assert (ns.tricks, ew.tricks) == tuple(2 * max(0, t - 6) for t in tricks)
        assert not (ns.honours and ew.honours) and ns.below + ew.below == 2 * (max(tricks) - 6)


def test_replay_exact_deal_dealer_and_turned_card():
    env = whist_v0.env()
    env.reset(seed=5, options={"deal": DEAL_002, "dealer": 2, "turned_card": "S2"})
    raw = env.unwrapped
    assert raw.deal.hands == parse_pbn(DEAL_002) and raw.deal.dealer == 2
    assert raw.deal.turned_card == parse_card("S2") and raw.deal.trump == 0
    assert env.agent_selection == "player_3"                 # left of the dealer leads
    # without turned_card: a card of the dealer's hand, reproducible by seed
    seen = set()
    for seed in range(30):
        env.reset(seed=seed, options={"deal": DEAL_002, "dealer": 1})
        seen.add(raw.deal.turned_card)
        assert raw.deal.hands[1] >> raw.deal.turned_card & 1
    assert len(seen) > 5
    env.reset(seed=3, options={"deal": DEAL_002, "dealer": 1})
    a = raw.deal.turned_card
    env.reset(seed=3, options={"deal": DEAL_002, "dealer": 1})
    assert raw.deal.turned_card == a


def test_bad_reset_options():
    env = whist_v0.env()
    with pytest.raises(ValueError, match=r"turned card H2 is not in the dealer's hand"):
        env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "H2"})
    with pytest.raises(ValueError, match="turned_card"):
        env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "X9"})
    with pytest.raises(ValueError, match="turned_card"):
        env.reset(options={"dealer": 0, "turned_card": "S2"})     # no deal to belong to
    with pytest.raises(ValueError, match="dealt twice"):
        env.reset(options={"deal": DEAL_002.replace("K52", "KJ2")})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"deal": DEAL_002, "dealer": 7})
    with pytest.raises(ValueError, match="no card is turned"):
        whist_v0.env(no_trump=True).reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "SK"})
    with pytest.warns(UserWarning, match="unknown reset option"):
        warnings.simplefilter("always")
        env.reset(options={"turned": "S2"})


@pytest.mark.parametrize("kwargs, message", [
    ({"episode": "match"}, "episode"), ({"ten_is_honour": 1}, "ten_is_honour"),
    ({"no_trump": "yes"}, "no_trump"), ({"reward_scale": -1}, "reward_scale"),
    ({"max_deals": 0}, "max_deals"), ({"viewer": 4}, "viewer"), ({"render_mode": "rgb"}, "render_mode"),
])
def test_bad_constructor_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        whist_v0.raw_env(**kwargs)


def test_illegal_action_error_names_agent_action_and_legal_ones():
    env = whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "S6"})   # N leads
    env.step(parse_card("S4"))
    # E holds only S A: must follow
    with pytest.raises(IllegalActionError, match=r"illegal action 50 \(HK\) by player_1; legal actions: 12 \(SA\)$"):
        env.step(parse_card("HK"))
    with pytest.raises(Exception, match="action"):
        env.step(52)


def test_rubber_rewards_add_up_to_the_settlement_and_truncation():
    env = whist_v0.env(episode="rubber", reward_scale=1.0)
    rng = np.random.default_rng(3)
    for seed in range(10):
        env.reset(seed=seed)
        totals = random_episode(env, rng)
        raw = env.unwrapped
        assert raw.rubber.is_over and raw.rubber.sheet.games_won[raw.rubber.sheet.winner] == 2
        assert totals["player_0"] == pytest.approx(raw.rubber.sheet.result)
        assert totals["player_3"] == pytest.approx(-raw.rubber.sheet.result)
        # the dealer passes clockwise: deal k was dealt by first dealer + k
        first = raw.rubber.dealer - raw.deals_played
        assert (raw.deal.dealer - first) % 4 == (raw.deals_played - 1) % 4
    env = whist_v0.env(episode="rubber", max_deals=1)
    env.reset(seed=0)
    random_episode(env, rng)
    assert env.unwrapped.deals_played == 1
    assert all(env.unwrapped.truncations.values()) or env.unwrapped.rubber.is_over


def test_state_is_full_information():
    env = whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "HA"})
    state = env.state()
    assert state.shape == (STATE_SIZE,) == env.unwrapped.state_space.shape and state.dtype == np.float32
    for seat in range(4):
        assert set(np.flatnonzero(state[52 * seat:52 * seat + 52])) == set(hand_cards(parse_pbn(DEAL_002)[seat]))
    assert state[208:212].tolist() == [0, 1, 0, 0]


# ---------------------------------------------------------------- no leaks

def swap_hidden_whist_cards(deal, me, rng):
    """Swap unplayed cards between two other seats; the face-up turned card stays put."""
    return swap_hidden_cards(deal, me, rng, visible=(1 << deal.turned_card) if deal.turned_card_in_hand else 0)


def test_no_leak_hidden_cards_never_change_an_observation():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(300):
        hands = random_deal(rng)
        dealer = int(rng.integers(4))
        deal = WhistDeal(hands, dealer, int(rng.choice(hand_cards(hands[dealer]))))
        for _ in range(int(rng.integers(0, 52))):
            legal = deal.legal_actions()
            deal.apply(legal[rng.integers(len(legal))])
        if deal.is_over:
            continue
        for me in range(4):
            other = swap_hidden_whist_cards(deal, me, rng)
            if other is None:
                continue
            assert other.play.hands != deal.play.hands
            np.testing.assert_array_equal(encode_observation(deal, me), encode_observation(other, me))
            checked += 1
    assert checked > 800


def test_the_turned_card_is_seen_by_all_until_played():
    env = whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 1, "turned_card": "HK"})    # E turns H K
    for agent in env.possible_agents:
        ob = WHIST_LAYOUT.decode(env.observe(agent)["observation"])
        seat = int(agent[-1])
        assert np.flatnonzero(ob["turned_card"]).tolist() == [parse_card("HK")]
        assert ob["turned_holder"].tolist() == [int((1 - seat) % 4 == r) for r in range(4)]
        assert ob["trump"].tolist() == [0, 0, 0, 1, 0]
    # S leads D3, W D4, N DA, E D2
    for card in ("D3", "D4", "DA", "D2"):
        env.step(parse_card(card))
    # N wins and leads C8: E C4, S C3, W C2; N wins again and leads H A: E plays the K
    for card in ("C8", "C4", "C3", "C2", "HA"):
        env.step(parse_card(card))
    ob = WHIST_LAYOUT.decode(env.observe("player_2")["observation"])
    assert ob["turned_holder"].tolist() == [0, 0, 0, 1]       # E is on S's right
    env.step(parse_card("HK"))
    ob = WHIST_LAYOUT.decode(env.observe("player_2")["observation"])
    assert np.flatnonzero(ob["turned_card"]).tolist() == [parse_card("HK")]
    assert not ob["turned_holder"].any()


# ---------------------------------------------------------------- golden layout

GOLDEN = [  # name, offset, shape
    ("phase", 0, (1,)), ("dealer", 1, (4,)), ("to_move", 5, (4,)), ("hand", 9, (52,)),
    ("trump", 61, (5,)), ("turned_card", 66, (52,)), ("turned_holder", 118, (4,)),
    ("trick_leader", 122, (4,)), ("trick", 126, (4, 52)), ("last_trick", 334, (4, 52)),
    ("played", 542, (4, 52)), ("trick_winner", 750, (4,)), ("winning_card", 754, (52,)),
    ("voids", 806, (4, 4)), ("cards_out", 822, (4, 14)), ("top_remaining", 878, (52,)),
    ("tricks_taken", 930, (2, 14)), ("rubber_mode", 958, (1,)),
    ("games_won", 959, (2, 2)), ("below_line", 963, (2,)),
]


def test_layout_is_pinned():
    assert [(b.name, b.start, b.shape) for b in WHIST_LAYOUT.blocks.values()] == GOLDEN
    assert WHIST_LAYOUT.size == 965 and STATE_SIZE == 1177
    env = whist_v0.env()
    assert env.observation_space("player_0")["observation"].shape == (965,)
    assert env.action_space("player_0").n == 52


def test_every_block_on_a_known_deal():
    env = whist_v0.env(episode="rubber")
    env.reset(options={"deals": [DEAL_002], "dealer": 3, "turned_card": "S6"})   # W deals, N leads
    ob = WHIST_LAYOUT.decode(env.observe("player_1")["observation"])   # E
    assert ob["phase"].tolist() == [1] and ob["dealer"].tolist() == [0, 0, 1, 0]
    assert ob["to_move"].tolist() == [0, 0, 0, 1]                     # N is on E's right
    assert set(np.flatnonzero(ob["hand"])) == set(hand_cards(parse_pbn(DEAL_002)[1]))
    assert ob["trump"].tolist() == [1, 0, 0, 0, 0]
    assert ob["turned_holder"].tolist() == [0, 0, 1, 0]               # W is E's partner
    assert ob["rubber_mode"].tolist() == [1] and ob["games_won"].tolist() == [[1, 0], [1, 0]]
    for card in ("S4", "SA", "S2"):                  # N S4, E SA, S S2
        env.step(parse_card(card))
    ob = WHIST_LAYOUT.decode(env.observe("player_3")["observation"])   # W, to move
    assert ob["to_move"].tolist() == [1, 0, 0, 0] and ob["trick_leader"].tolist() == [0, 1, 0, 0]
    assert np.argwhere(ob["trick"]).tolist() == [[1, parse_card("S4")], [2, parse_card("SA")],
                                                 [3, parse_card("S2")]]
    np.testing.assert_array_equal(ob["played"], ob["trick"])
    env.step(parse_card("S6"))                       # W plays the turned card: E wins
    ob = WHIST_LAYOUT.decode(env.observe("player_3")["observation"])
    assert not ob["trick"].any() and ob["last_trick"].sum() == 4 and not ob["turned_holder"].any()
    assert ob["tricks_taken"][0, 1] == 1 and ob["tricks_taken"][1, 0] == 1
    assert ob["trick_leader"].tolist() == [0, 0, 1, 0]
    assert ob["below_line"].tolist() == [0, 0]


def test_render_shows_the_table():
    env = whist_v0.env(render_mode="ansi", viewer=0)
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "S6"})
    text = env.render()
    assert "turned card S6, trump S" in text and "(hidden)" in text and "To move: N" in text

