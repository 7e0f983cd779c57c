"""solo_whist_v0: PettingZoo conformance, random-game invariants, replay, errors, no leaks, layout."""


import numpy as np
import pytest

from card_game_checks import DEAL_002, random_episode, swap_hidden_cards
from vint_env import solo_whist_v0
from vint_env.cards import hand_cards, parse_card, parse_pbn, random_deal
from vint_env.games.solo_whist import SOLO_WHIST_LAYOUT, STATE_SIZE, encode_observation
from vint_env.rules import IllegalActionError, MalformedActionError
from vint_env.rules.solo_whist import SoloWhistDeal
from vint_env.rules.solo_whist_calls import (ABONDANCE, ACCEPT, MISERE, OPEN_MISERE, PASS,
                                             PROPOSAL, SOLO, trump_action)



# PettingZoo's api_test, seed_test, parallel_api_test, render_test: tests/envs/test_conformance.py (every game).

def often_pass(legal, rng, pass_rate=0.5):
    """Random legal action, passing often in the auction (so that all contracts occur)."""
    if PASS in legal and rng.random() < pass_rate:
        return PASS
    return rng.choice(legal)


def test_masks_rewards_and_infos_over_random_deals():
    env = solo_whist_v0.env()
    rng = np.random.default_rng(1)
    contracts = set()

    def check(env, agent, obs):
        raw = env.unwrapped
        deal = raw.deal
        assert agent == f"player_{deal.current_player}"
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (65,)
        legal = set(np.flatnonzero(mask))
        assert legal == set(deal.legal_actions())
        if deal.phase == "play":
            hand = set(hand_cards(deal.play.hands[deal.current_player]))
            follow = {c for c in hand if deal.play.trick and c // 13 == deal.play.trick[0] // 13}
            assert legal == (follow or hand)
        elif deal.phase == "trump":
            assert legal == {61, 62, 63, 64}
        else:
            assert legal and legal <= set(range(52, 61)) and PASS in legal
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()

    for episode in range(300):
        env.reset(seed=episode)
        infos = {}
        totals = random_episode(env, rng, check, infos, choose=often_pass)
        pay = infos["player_0"]["payments"]
        assert sum(pay) == 0
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(0.25 * pay[i])
        deal = infos["player_0"]["deal"]
        contracts.add(deal["contract"])
        if deal["thrown_in"]:
            assert pay == [0, 0, 0, 0] and deal["contract"] is None
    assert len(contracts) >= 7


def test_replay_exact_deal_dealer_and_turned_card():
    env = solo_whist_v0.env()
    env.reset(seed=1, options={"deal": DEAL_002, "dealer": 2, "turned_card": "S2"})
    raw = env.unwrapped
    assert raw.deal.hands == parse_pbn(DEAL_002) and raw.deal.dealer == 2
    assert raw.deal.turned_card == parse_card("S2")
    assert env.agent_selection == "player_3"                 # eldest hand calls first
    seen = set()
    for seed in range(30):
        env.reset(seed=seed, options={"deal": DEAL_002, "dealer": 0})
        assert raw.deal.hands[0] >> raw.deal.turned_card & 1
        seen.add(raw.deal.turned_card)
    assert len(seen) > 5


def test_bad_options():
    env = solo_whist_v0.env()
    with pytest.raises(ValueError, match=r"turned card H2 is not in the dealer's hand"):
        env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "H2"})
    with pytest.raises(ValueError, match="turned_card"):
        env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": 52})
    with pytest.raises(ValueError, match="dealer"):
        env.reset(options={"deal": DEAL_002, "dealer": -1})
    with pytest.raises(ValueError, match="rubber"):
        env.reset(options={"deals": [DEAL_002, DEAL_002]})
    for kwargs, message in (({"payments": "fair"}, "payments"), ({"reward_scale": 0}, "reward_scale"),
                            ({"viewer": 5}, "viewer"), ({"render_mode": "rgb"}, "render_mode")):
        with pytest.raises(ValueError, match=message):
            solo_whist_v0.raw_env(**kwargs)


def test_illegal_actions_are_refused_with_the_legal_ones():
    env = solo_whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "C5"})
    with pytest.raises(IllegalActionError, match=r"illegal action 54 \(acceptance\) by player_0; legal actions: "
                                                 r"52 \(pass\), 53 \(proposal\), 55 \(solo\)"):
        env.step(ACCEPT)
    with pytest.raises(IllegalActionError, match=r"58 \(trump abondance\)"):
        env.step(58)
    with pytest.raises(MalformedActionError, match="out of range"):
        env.step(65)


def test_rewards_of_a_replayed_solo():
    # E deals (turns C 4): S solo, everyone passes; then the lowest legal card each time.
    env = solo_whist_v0.env(reward_scale=1.0)
    env.reset(options={"deal": DEAL_002, "dealer": 1, "turned_card": "C4"})
    for a in (SOLO, PASS, PASS, PASS):
        env.step(a)
    raw = env.unwrapped
    assert raw.deal.contract == SOLO and raw.deal.declarer == 2 and raw.deal.trump == 1
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            final[agent] = reward
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    tricks = raw.deal.play.tricks_won[2]
    per = 4 + (tricks - 5) if tricks >= 5 else -(4 + 5 - tricks)
    assert final == {"player_0": -per, "player_1": -per, "player_2": 3 * per, "player_3": -per}


def test_state_is_full_information():
    env = solo_whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 0, "turned_card": "SK"})
    state = env.state()
    assert state.shape == (STATE_SIZE,) == env.unwrapped.state_space.shape and state.dtype == np.float32
    for seat in range(4):
        assert set(np.flatnonzero(state[52 * seat:52 * seat + 52])) == set(hand_cards(parse_pbn(DEAL_002)[seat]))
    assert state[208:212].tolist() == [0, 1, 0, 0]


# ---------------------------------------------------------------- no leaks

def swap_hidden_solo_cards(deal, me, rng):
    """Swap two cards the observer ``me`` cannot see (not the face-up turned card, not an
    open-misère hand) between two other seats."""
    seats = [s for s in range(4) if s != me and not (deal.hand_shown and s == deal.declarer)]
    return swap_hidden_cards(deal, me, rng, visible=1 << deal.turned_card if deal.turned_card_in_hand else 0,
                             seats=seats)


def test_no_leak_hidden_cards_never_change_an_observation():
    rng = np.random.default_rng(11)
    checked = shown = 0
    for _ in range(400):
        hands = random_deal(rng)
        dealer = int(rng.integers(4))
        deal = SoloWhistDeal(hands, dealer, int(rng.choice(hand_cards(hands[dealer]))))
        if rng.random() < 0.4:     # steer a good share of deals into open misère
            for a in (PASS, PASS, PASS, OPEN_MISERE):
                deal.apply(a)
        for _ in range(int(rng.integers(0, 40))):
            if deal.is_over:
                break
            legal = deal.legal_actions()
            deal.apply(PASS if PASS in legal and rng.random() < 0.5 else legal[rng.integers(len(legal))])
        if deal.is_over:
            continue
        shown += deal.hand_shown
        for me in range(4):
            other = swap_hidden_solo_cards(deal, me, rng)
            if other is None:
                continue
            np.testing.assert_array_equal(encode_observation(deal, me), encode_observation(other, me))
            checked += 1
    assert checked > 600 and shown > 20


def test_open_misere_hand_is_shown_to_all_after_the_first_trick():
    env = solo_whist_v0.env(render_mode="ansi", viewer=0)
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "C5"})      # N is eldest
    for a in (PASS, OPEN_MISERE, PASS, PASS):             # E open misère
        env.step(a)
    deal = env.unwrapped.deal
    assert deal.contract == OPEN_MISERE and deal.declarer == 1 and deal.phase == "play"
    lay = SOLO_WHIST_LAYOUT
    for card in ("C8", "C4", "C3"):                      # N leads C8, E ducks with C4, S C3
        for agent in env.possible_agents:
            ob = lay.decode(env.observe(agent)["observation"])
            assert not ob["exposed"].any() and not ob["exposed_seat"].any()
        env.step(parse_card(card))
    env.step(parse_card("CK"))                           # W wins the first trick
    assert deal.hand_shown and not deal.is_over
    east = set(hand_cards(deal.play.hands[1]))
    assert len(east) == 12
    for seat, agent in enumerate(env.possible_agents):
        ob = lay.decode(env.observe(agent)["observation"])
        assert set(np.flatnonzero(ob["exposed"])) == east
        assert ob["exposed_seat"].tolist() == [int(r == (1 - seat) % 4) for r in range(4)]
        # the observer's own hand is the only other hand in the observation
        assert set(np.flatnonzero(ob["hand"])) == set(hand_cards(deal.play.hands[seat]))
    rendered = env.render()                              # N's view: N's hand and E's shown hand
    assert "E (player_1): (hidden)" not in rendered and "S (player_2): (hidden)" in rendered
    # the shown hand shrinks as E plays
    for card in ("H4", "H6", "H2"):                      # W leads H4, N H6, E ducks with H2
        env.step(parse_card(card))
    ob = lay.decode(env.observe("player_3")["observation"])
    assert parse_card("H2") not in np.flatnonzero(ob["exposed"]) and ob["exposed"].sum() == 11


# ---------------------------------------------------------------- golden layout

GOLDEN = [  # name, offset, shape
    ("phase", 0, (3,)), ("dealer", 3, (4,)), ("to_move", 7, (4,)), ("hand", 11, (52,)),
    ("turned_card", 63, (52,)), ("turned_holder", 115, (4,)), ("calls", 119, (4, 8)),
    ("passed", 151, (4,)), ("must_raise", 155, (1,)), ("highest", 156, (7,)),
    ("declaring", 163, (4,)), ("with_me", 167, (4,)), ("trump", 171, (5,)),
    ("exposed_seat", 176, (4,)), ("exposed", 180, (52,)), ("trick_leader", 232, (4,)),
    ("trick", 236, (4, 52)), ("last_trick", 444, (4, 52)), ("played", 652, (4, 52)),
    ("trick_winner", 860, (4,)), ("winning_card", 864, (52,)), ("voids", 916, (4, 4)),
    ("cards_out", 932, (4, 14)), ("top_remaining", 988, (52,)), ("tricks_taken", 1040, (4, 14)),
]


def test_layout_is_pinned():
    assert [(b.name, b.start, b.shape) for b in SOLO_WHIST_LAYOUT.blocks.values()] == GOLDEN
    assert SOLO_WHIST_LAYOUT.size == 1096 and STATE_SIZE == 1308
    env = solo_whist_v0.env()
    assert env.observation_space("player_0")["observation"].shape == (1096,)
    assert env.action_space("player_0").n == 65


def test_bidding_and_partnership_blocks():
    env = solo_whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "C5"})     # N eldest
    lay = SOLO_WHIST_LAYOUT
    env.step(PASS)              # N
    env.step(PROPOSAL)          # E
    ob = lay.decode(env.observe("player_2")["observation"])      # S, to call
    assert ob["phase"].tolist() == [1, 0, 0] and ob["to_move"].tolist() == [1, 0, 0, 0]
    assert ob["dealer"].tolist() == [0, 1, 0, 0]                  # W is S's left
    assert np.argwhere(ob["calls"]).tolist() == [[3, 0]]          # E (S's right) proposed
    assert ob["passed"].tolist() == [0, 0, 1, 0]                  # N opposite S passed
    assert ob["highest"].tolist() == [1, 0, 0, 0, 0, 0, 0] and ob["declaring"].tolist() == [0, 0, 0, 1]
    assert not ob["with_me"].any() and ob["turned_card"][parse_card("C5")] == 1
    assert ob["turned_holder"].tolist() == [0, 1, 0, 0]
    env.step(PASS)              # S
    env.step(PASS)              # W
    ob = lay.decode(env.observe("player_0")["observation"])      # N, eldest, may accept
    assert env.agent_selection == "player_0"
    assert set(np.flatnonzero(env.observe("player_0")["action_mask"])) == {PASS, ACCEPT}
    env.step(ACCEPT)            # N accepts after passing: N with E, against S and W
    for seat, mates in ((0, [1, 1, 0, 0]), (1, [1, 0, 0, 1]), (2, [1, 1, 0, 0]), (3, [1, 0, 0, 1])):
        ob = lay.decode(env.observe(f"player_{seat}")["observation"])
        assert ob["with_me"].tolist() == mates
        assert ob["phase"].tolist() == [0, 0, 1] and ob["trump"].tolist() == [0, 1, 0, 0, 0]
        # E's proposal (column 0) and N's acceptance (column 1), seat-relative
        assert sorted(np.argwhere(ob["calls"]).tolist()) == sorted([[(1 - seat) % 4, 0], [(0 - seat) % 4, 1]])
    ob = lay.decode(env.observe("player_0")["observation"])
    assert ob["declaring"].tolist() == [1, 1, 0, 0] and ob["trick_leader"].tolist() == [1, 0, 0, 0]


def test_abondance_trump_choice_is_its_own_decision():
    env = solo_whist_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "C5"})
    for a in (SOLO, MISERE, ABONDANCE, PASS, PASS, PASS):
        env.step(a)
    assert env.agent_selection == "player_2" and env.unwrapped.deal.phase == "trump"
    assert np.flatnonzero(env.observe("player_2")["action_mask"]).tolist() == [61, 62, 63, 64]
    ob = SOLO_WHIST_LAYOUT.decode(env.observe("player_0")["observation"])
    assert ob["phase"].tolist() == [0, 1, 0] and not ob["trump"].any()
    env.step(trump_action(2))
    ob = SOLO_WHIST_LAYOUT.decode(env.observe("player_0")["observation"])
    assert ob["trump"].tolist() == [0, 0, 1, 0, 0] and env.agent_selection == "player_0"


def test_render_shows_the_table():
    env = solo_whist_v0.env(render_mode="ansi", viewer=0)
    env.reset(options={"deal": DEAL_002, "dealer": 3, "turned_card": "C5"})
    for a in (PASS, PASS, PASS, PASS):
        env.step(a)
    text = env.render()
    assert "turned card C5" in text and "thrown in" in text and "Payments (points): N +0" in text

