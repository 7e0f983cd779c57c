"""vint_v0: PettingZoo conformance, invariants over random games, replay, errors, no leaks."""

import warnings

import numpy as np
import pytest

from card_game_checks import DEAL_002, legal_cards_by_rules, random_episode, swap_hidden_cards, winner_by_rules
from vint_env import vint_v0
from vint_env.cards import FULL_DECK, hand_cards, parse_card, parse_pbn
from vint_env.games.vint import VINT_LAYOUT, encode_observation
from vint_env.rules import PASS, IllegalActionError, MalformedActionError, VintDeal, bid_action
from vint_env.rules.vint_scoring import NT



# PettingZoo's api_test, seed_test, parallel_api_test, render_test: tests/envs/test_conformance.py (every game).


def expected_legal(deal):
    """Legal actions computed from the rules (docs/rules, "Common to all games") directly, independently of the engine."""
    if deal.phase == "auction":
        low = deal.highest + 1 if deal.highest >= 0 else 53
        return {PASS, *range(low, 88)}
    return legal_cards_by_rules(deal.play)


def test_mask_equals_legal_actions_and_rewards_are_zero_sum():
    env = vint_v0.env()
    rng = np.random.default_rng(1)

    def check(env, agent, obs):
        raw = env.unwrapped
        assert agent == f"player_{raw.deal.current_player}"
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
        assert set(np.flatnonzero(mask)) == expected_legal(raw.deal)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()

    for episode in range(150):
        env.reset(seed=episode)
        totals = random_episode(env, rng, check)
        assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]


def test_invariants_over_thousands_of_random_deals():
    rng = np.random.default_rng(2024)
    played = 0
    for _ in range(2000):
        from vint_env.cards import random_deal
        deal = VintDeal(random_deal(rng), dealer=int(rng.integers(4)), passout="play")
        while not deal.is_over:
            legal = deal.legal_actions()
            assert set(legal) == expected_legal(deal)
            deal.apply(legal[rng.integers(len(legal))])
            if deal.play is not None:
                p = deal.play
                held = p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]
                gone = sum(1 << c for _, c in p.plays)
                assert held & gone == 0 and held | gone == FULL_DECK      # 52 cards conserved
        p = deal.play
        assert len(p.trick_winners) == 13 and sum(p.tricks_won) == 13 and len(p.plays) == 52
        for t in range(13):
            seats = [s for s, _ in p.plays[4 * t:4 * t + 4]]
            cards = [c for _, c in p.plays[4 * t:4 * t + 4]]
            assert seats == [(seats[0] + i) % 4 for i in range(4)]
            assert p.trick_winners[t] == winner_by_rules(cards, seats[0], p.trump)
            if t + 1 < 13:
                assert p.plays[4 * t + 4][0] == p.trick_winners[t]   # the winner leads next
        if not deal.passed_out:
            assert p.plays[0][0] == (deal.declarer + 1) % 4
            played += 1
    assert played > 1900


def test_replay_exact_deal_and_dealer():
    env = vint_v0.env()
    env.reset(seed=5, options={"deal": DEAL_002, "dealer": 2})
    raw = env.unwrapped
    assert raw.deal.hands == parse_pbn(DEAL_002) and raw.deal.dealer == 2
    assert env.agent_selection == "player_2"                 # the dealer calls first
    obs = env.observe("player_2")["observation"]
    hand = VINT_LAYOUT.decode(obs)["hand"]
    assert set(np.flatnonzero(hand)) == set(hand_cards(parse_pbn(DEAL_002)[2]))


def test_deal_reward_and_infos_for_a_played_deal():
    # 5 NT by N down 3 (the Short rules' worked deal, tests/data/examples): drive the auction, then a fixed card order.
    env = vint_v0.env(reward_scale=0.01)
    env.reset(options={"deal": DEAL_002, "dealer": 0})
    env.step(bid_action(5, NT))
    for _ in range(3):
        env.step(PASS)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            final[agent] = (reward, info)
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    info = final["player_0"][1]
    ns, ew = info["deal"]["scores"]["NS"], info["deal"]["scores"]["EW"]
    assert info["deal"]["contract"] == "5NT" and info["deal"]["declarer"] == 0
    assert info["points"] == ns["total"] - ew["total"]
    assert final["player_0"][0] == pytest.approx(0.01 * info["points"])
    assert final["player_1"][0] == pytest.approx(-0.01 * info["points"])
    assert final["player_2"][0] == final["player_0"][0]


def test_rubber_rewards_add_up_to_the_settlement():
    env = vint_v0.env(episode="rubber", reward_scale=1.0)
    rng = np.random.default_rng(3)
    for seed in range(5):
        env.reset(seed=seed)
        totals = random_episode(env, rng)
        raw = env.unwrapped
        assert raw.rubber.is_over
        assert totals["player_0"] == pytest.approx(raw.rubber.sheet.result)
        assert totals["player_1"] == pytest.approx(-raw.rubber.sheet.result)


def test_rubber_truncates_after_max_deals():
    env = vint_v0.env(episode="rubber", max_deals=2)
    env.reset(seed=0)
    while not any(env.truncations.values()):
        env.step(PASS)           # everybody passes: marks only, no game is ever won
    assert env.unwrapped.deals_played == 2 and env.unwrapped.rubber.sheet.marks == 2
    assert not any(env.terminations.values())


def test_illegal_action_error_names_agent_action_and_legal_ones():
    env = vint_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 0})
    env.step(bid_action(3, NT))
    with pytest.raises(IllegalActionError, match=r"illegal action 53 \(1S\) by player_1; legal actions: 52 \(pass\), 68 \(4S\), 69 \(4C\)"):
        env.step(bid_action(1, 0))
    with pytest.raises(IllegalActionError, match="illegal action 12 \\(SA\\) by player_1"):
        env.unwrapped.step(parse_card("SA"))
    with pytest.raises(MalformedActionError, match=r"player_1 sent action 88 is out of range: action ids are 0..87"):
        env.step(88)
    with pytest.raises(MalformedActionError, match="not an integer"):
        env.step("pass")


@pytest.mark.parametrize("kwargs, message", [
    ({"episode": "match"}, "episode"), ({"game_bonus": 500}, "game_bonus"),
    ({"passout": "skip"}, "passout"), ({"reward_scale": 0}, "reward_scale"),
    ({"viewer": 4}, "viewer"), ({"render_mode": "rgb"}, "render_mode"),
    ({"honours": "sum"}, r"honours must be one of \('majority', 'net'\), got 'sum'"),
    ({"game_race": "last"}, r"game_race must be one of \('first', 'deal_end'\), got 'last'"),
])
def test_bad_constructor_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        vint_v0.raw_env(**kwargs)


def test_bad_reset_options():
    env = vint_v0.env()
    with pytest.raises(ValueError, match="dealt twice"):
        env.reset(options={"deal": DEAL_002.replace("K52", "KJ2")})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"deal": DEAL_002, "dealer": 7})
    with pytest.warns(UserWarning, match="unknown reset option"):
        warnings.simplefilter("always")
        env.reset(options={"deel": DEAL_002})


def test_state_is_full_information():
    env = vint_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 0})
    state = env.state()
    assert state.shape == env.unwrapped.state_space.shape and state.dtype == np.float32
    hands = parse_pbn(DEAL_002)
    for seat in range(4):
        assert set(np.flatnonzero(state[52 * seat:52 * seat + 52])) == set(hand_cards(hands[seat]))


# ---------------------------------------------------------------- no leaks

def test_no_leak_hidden_cards_never_change_an_observation():
    rng = np.random.default_rng(11)
    from vint_env.cards import random_deal
    checked = 0
    for _ in range(300):
        deal = VintDeal(random_deal(rng), dealer=int(rng.integers(4)))
        stop = int(rng.integers(1, 60))
        for _ in range(stop):
            if deal.is_over:
                break
            legal = deal.legal_actions()
            deal.apply(legal[rng.integers(len(legal))])
        for me in range(4):
            other = swap_hidden_cards(deal, me, rng)
            if other is None:
                continue
            assert other.hands != deal.hands
            np.testing.assert_array_equal(encode_observation(deal, me), encode_observation(other, me))
            checked += 1
    assert checked > 1000


def test_no_leak_through_the_env_in_the_auction():
    """Two deals that agree on player_0's hand give player_0 the same observations."""
    hands = list(parse_pbn(DEAL_002))
    other = [hands[0], hands[2], hands[3], hands[1]]         # others' cards moved around
    from vint_env.cards import deal_to_pbn
    seen = []
    for deal in (hands, other):
        env = vint_v0.env()
        env.reset(options={"deal": deal_to_pbn(deal), "dealer": 1})
        obs = []
        for action in (PASS, bid_action(1, 2), PASS, bid_action(2, NT), PASS):
            env.step(action)
            obs.append(env.observe("player_0")["observation"].copy())
        seen.append(np.stack(obs))
    np.testing.assert_array_equal(seen[0], seen[1])
