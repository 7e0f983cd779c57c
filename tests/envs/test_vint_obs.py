"""Golden observation layout of vint_v0: offsets pinned, and every block checked on a known deal."""

import numpy as np

from vint_env import vint_v0
from vint_env.cards import hand_cards, parse_card, parse_pbn
from vint_env.games.vint import STATE_SIZE, VINT_LAYOUT
from vint_env.rules import PASS, bid_action
from vint_env.rules.vint_scoring import NT

from card_game_checks import DEAL_002  # the shared deals

GOLDEN = [  # name, offset, shape
    ("phase", 0, (2,)), ("dealer", 2, (4,)), ("to_move", 6, (4,)), ("hand", 10, (52,)),
    ("bids", 62, (4, 35)), ("pass_count", 202, (4,)), ("contract", 206, (35,)),
    ("declarer", 241, (4,)), ("trump", 245, (5,)), ("passout_play", 250, (1,)),
    ("trick_leader", 251, (4,)), ("trick", 255, (4, 52)), ("last_trick", 463, (4, 52)),
    ("played", 671, (4, 52)), ("trick_winner", 879, (4,)), ("winning_card", 883, (52,)),
    ("voids", 935, (4, 4)), ("cards_out", 951, (4, 14)), ("top_remaining", 1007, (52,)),
    ("tricks_taken", 1059, (2, 14)), ("rubber_mode", 1087, (1,)),
    ("games_won", 1088, (2, 2)), ("below_line", 1092, (2,)), ("marks", 1094, (8,)),
]


def test_layout_is_pinned():
    assert [(b.name, b.start, b.shape) for b in VINT_LAYOUT.blocks.values()] == GOLDEN
    assert VINT_LAYOUT.size == 1102 and STATE_SIZE == 1314
    env = vint_v0.env()
    assert env.observation_space("player_0")["observation"].shape == (1102,)
    assert env.action_space("player_0").n == 88


def decode(env, agent):
    return VINT_LAYOUT.decode(env.observe(agent)["observation"])


def test_every_block_on_a_known_deal():
    env = vint_v0.env()
    env.reset(options={"deal": DEAL_002, "dealer": 0})
    # N 1S, E pass, S 2NT, W pass, N pass, E pass: 2 NT by S; W (left of S) leads.
    for a in (bid_action(1, 0), PASS, bid_action(2, NT), PASS):
        env.step(a)
    ob = decode(env, "player_1")          # E during the auction, N to call
    assert ob["phase"].tolist() == [1, 0]
    assert ob["dealer"].tolist() == [0, 0, 0, 1]       # N is on E's right
    assert ob["to_move"].tolist() == [0, 0, 0, 1]
    assert set(np.flatnonzero(ob["hand"])) == set(hand_cards(parse_pbn(DEAL_002)[1]))
    assert np.argwhere(ob["bids"]).tolist() == [[1, 9], [3, 0]]   # S (E's left) bid 2NT = 9, N 1S = 0
    assert ob["pass_count"].tolist() == [0, 1, 0, 0]
    assert np.flatnonzero(ob["contract"]).tolist() == [9] and ob["declarer"].tolist() == [0, 1, 0, 0]
    assert not ob["trump"].any() and not ob["trick"].any() and not ob["played"].any()
    for a in (PASS, PASS):
        env.step(a)
    assert env.agent_selection == "player_3"
    for card in ("S6", "S4", "SA"):          # W leads S6, N S4, E SA
        env.step(parse_card(card))
    ob = decode(env, "player_2")          # S, declarer, to play third... S is to move
    assert ob["phase"].tolist() == [0, 1] and ob["trump"].tolist() == [0, 0, 0, 0, 1]
    assert ob["to_move"].tolist() == [1, 0, 0, 0] and ob["trick_leader"].tolist() == [0, 1, 0, 0]
    # relative to S: W is left (1), N partner (2), E right (3)
    assert np.argwhere(ob["trick"]).tolist() == [[1, parse_card("S6")], [2, parse_card("S4")], [3, parse_card("SA")]]
    np.testing.assert_array_equal(ob["played"], ob["trick"])
    assert not ob["last_trick"].any()
    assert ob["tricks_taken"][0, 0] == 1 and ob["tricks_taken"][1, 0] == 1
    env.step(parse_card("S3"))            # E wins with the ace
    ob = decode(env, "player_2")
    assert not ob["trick"].any() and ob["last_trick"].sum() == 4
    assert ob["tricks_taken"][1, 1] == 1 and ob["trick_leader"].tolist() == [0, 0, 0, 1]
    assert parse_card("S3") not in np.flatnonzero(ob["hand"])
    assert not ob["rubber_mode"].any() and not ob["marks"].any()


def test_rubber_blocks():
    env = vint_v0.env(episode="rubber")
    env.reset(seed=0)
    for _ in range(4):
        env.step(PASS)                  # a pass-out: one mark, a new deal
    ob = decode(env, env.agent_selection)
    assert ob["rubber_mode"].tolist() == [1] and ob["marks"].tolist()[:2] == [0, 1]
    assert ob["games_won"].tolist() == [[1, 0], [1, 0]] and ob["below_line"].tolist() == [0, 0]
