"""Double-dummy: perfect play reaches the DD trick count; other defences concede at least that."""

import numpy as np
import pytest

pytest.importorskip("endplay")

from card_game_checks import ONE_SUIT_EACH, TOP_CARDS_NORTH
from vint_env.agents.search.double_dummy import (DoubleDummyAgent, VintParGame, best_dd_card, dd_table,
                                          solve_position)
from vint_env.agents.registry import load_agent
from vint_env.cards import NO_TRUMP, parse_pbn, random_deal
from vint_env.rules.tricks import TrickPlay
from vint_env.rules.vint import PASS, VintDeal

NT = 4


def play_out(hands, trump, leader, choose):
    """Play 13 tricks; ``choose(play, seat)`` gives each card."""
    play = TrickPlay(hands, trump, leader)
    while not play.is_over:
        play.play(choose(play, play.current_player))
    return play


def random_chooser(rng):
    def choose(play, seat):
        legal = play.legal_cards()
        return legal[rng.integers(len(legal))]
    return choose


def test_all_four_double_dummy_take_exactly_the_dd_count():
    rng = np.random.default_rng(7)
    for _ in range(4):
        hands = random_deal(rng)
        table = dd_table(hands)
        for strain in range(5):
            declarer = int(rng.integers(4))
            trump = NO_TRUMP if strain == NT else strain
            play = play_out(hands, trump, (declarer + 1) % 4, lambda p, s: best_dd_card(p))
            assert play.side_tricks()[declarer & 1] == table[strain][declarer]


def test_double_dummy_declarer_takes_at_least_the_dd_count_against_any_defence():
    rng = np.random.default_rng(8)
    for _ in range(4):
        hands = random_deal(rng)
        table = dd_table(hands)
        strain, declarer = int(rng.integers(5)), int(rng.integers(4))
        trump = NO_TRUMP if strain == NT else strain
        defence = random_chooser(rng)

        def choose(play, seat):
            return best_dd_card(play) if (seat & 1) == (declarer & 1) else defence(play, seat)
        play = play_out(hands, trump, (declarer + 1) % 4, choose)
        assert play.side_tricks()[declarer & 1] >= table[strain][declarer]


def test_solve_position_counts_the_trick_in_progress():
    hands = parse_pbn(ONE_SUIT_EACH)
    play = TrickPlay(hands, NO_TRUMP, 1)       # East leads hearts: East takes every trick
    values = solve_position(play)
    assert set(values.values()) == {13}
    play.play(values and max(values))
    assert set(solve_position(play).values()) == {0}   # North cannot follow, takes nothing


def test_dd_table_orientation():
    # North holds all the spades: 13 tricks in spades or no-trump as North or South (East leads
    # into North's ... South declares, West leads: North still wins everything in spades).
    hands = parse_pbn(ONE_SUIT_EACH)
    table = dd_table(hands)
    assert table[0][0] == 13          # spades, North declares, East leads a heart: North ruffs
    assert table[3][1] == 13          # hearts, East declares: East's hearts are trumps
    assert table[NT][0] == 0          # no-trump, North declares, East leads hearts and runs them


def test_vint_par_of_a_lay_down_grand_slam():
    # N/S hold every top card: par is a grand slam for N/S.
    hands = parse_pbn(TOP_CARDS_NORTH)
    game = VintParGame(hands)
    value, bid, declarer = game.par(dealer=1)
    assert declarer in (0, 2) and bid // 5 + 1 == 7
    assert value == game.score[bid][declarer] > 10000


def test_dd_agent_bids_and_plays_legally_and_needs_the_env():
    agent = load_agent("dd", game="vint")
    with pytest.raises(ValueError, match="needs the env"):
        agent.act({"observation": np.zeros(3), "action_mask": np.ones(88, dtype=np.int8)})
    from vint_env import vint_v0
    from vint_env.evaluation.match import play_table
    env = vint_v0.raw_env(reward_scale=1.0)
    seats = [DoubleDummyAgent("vint"), load_agent("rule"), DoubleDummyAgent("vint"), load_agent("rule")]
    for i in range(3):
        points, steps = play_table(env, seats, {}, i, [0, 1, 2, 3])
        assert steps >= 4


def test_dd_agent_raises_partner_contract_toward_par():
    # A lay-down grand slam for N/S: a double-dummy North opens at the level par says.
    hands = parse_pbn(TOP_CARDS_NORTH)
    deal = VintDeal(hands, dealer=0)
    call = DoubleDummyAgent("vint").vint_call(deal, 0)
    game = VintParGame(hands)
    assert call != PASS and (call - 53) // 5 + 1 == 7
    assert game.value[call - 53][0] == max(game.value[b][d] for b in range(35) for d in (0, 2))
