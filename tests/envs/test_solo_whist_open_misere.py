"""The illustrated open-misère deal of the Collection (its Solo Whist part, docs/rules/index.md), replayed through solo_whist_v0.

Кирилл deals and turns the two of hearts; Алексей (eldest) bids solo, Влад
misère, Роман abondance, Кирилл open misère; the others pass.  No trump.
The hands, seats and both lines of play are in
``tests/data/solo_whist_open_misere.json`` (rebuilt from everything the
text says; its ``consistency_notes`` give the reasoning): Кирилл N (0),
Алексей E (1), Влад S (2), Роман W (3).  Every trick is played card by card,
every winner the text names is checked, the first line ends with the open
misère made, the second with it lost at the seventh trick.
"""

import json
import pathlib

import numpy as np

from vint_env import solo_whist_v0
from vint_env.cards import NO_TRUMP, card_text, parse_card, parse_pbn
from vint_env.games.solo_whist import SOLO_WHIST_LAYOUT
from vint_env.rules.solo_whist_calls import OPEN_MISERE, parse_action

KIRILL, ALEKSEI, VLAD, ROMAN = 0, 1, 2, 3
CASE = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" / "solo_whist_open_misere.json")
                  .read_text(encoding="utf-8"))
DEAL = CASE["pbn"]
AUCTION = [parse_action(c["call"].replace("_", " ")) for c in CASE["auction"]]
LINE_1, LINE_2 = CASE["lines"]


def tricks_of(items):
    """(leader, cards, winner, named by the text) of each trick of a line."""
    return [(t["leader"], t["cards"], t["winner"], t.get("winner_named_by_text", False)) for t in items]


FIRST_LINE = tricks_of(LINE_1["tricks"])
FIRST_LINE_REST = tricks_of(LINE_1["continuation_tricks_not_in_text"])   # not in the text
SECOND_LINE = tricks_of(LINE_2["tricks"])


def start():
    env = solo_whist_v0.env(reward_scale=1.0)
    env.reset(options={"deal": DEAL, "dealer": CASE["dealer"], "turned_card": CASE["turned_card"]})
    for call in AUCTION:
        env.step(call)
    return env


def play_tricks(env, tricks):
    """Play the tricks card by card, checking the player to move and each named winner."""
    deal = env.unwrapped.deal
    named = 0
    for number, (leader, cards, winner, by_text) in enumerate(tricks, start=deal.play.tricks_played + 1):
        for i, card in enumerate(cards):
            seat = (leader + i) % 4
            assert env.agent_selection == f"player_{seat}", f"trick {number}: {card} by the wrong player"
            assert not deal.is_over, f"the deal ended before trick {number}"
            env.step(parse_card(card))
        assert deal.play.trick_winners[number - 1] == winner, f"trick {number} won by the wrong player"
        named += by_text
    return named


def final_rewards(env):
    rewards = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert term
        rewards[agent] = reward
        env.step(None)
    return rewards


def test_deal_matches_the_text():
    hands = parse_pbn(DEAL)
    assert CASE["dealer"] == KIRILL and CASE["turned_card"] == "H2" and CASE["declarer"] == KIRILL
    for seat in range(4):
        assert hands[seat] == sum(1 << parse_card(c) for c in CASE["hands"][str(seat)])
    held = {seat: {card_text(c) for c in range(52) if hands[seat] >> c & 1} for seat in range(4)}
    assert not any(c.startswith("D") for c in held[KIRILL])              # Кирилл: no diamonds
    assert not any(c.startswith("S") for c in held[ALEKSEI])             # Алексей: no spades
    assert not any(c.startswith("C") for c in held[ROMAN])               # Роман: no clubs
    assert sum(c.startswith("H") for c in held[ALEKSEI]) == 6            # six trumps for his solo
    assert "H2" in held[KIRILL]


def test_the_auction():
    env = start()
    deal = env.unwrapped.deal
    assert deal.contract == OPEN_MISERE and deal.declarer == KIRILL and deal.trump == NO_TRUMP
    assert [s for s, _ in deal.calls] == [c["seat"] for c in CASE["auction"]] == [1, 2, 3, 0, 1, 2, 3]
    assert [a for _, a in deal.calls] == AUCTION
    assert env.agent_selection == f"player_{ALEKSEI}"                    # eldest hand leads


def test_first_line_open_misere_made():
    env = start()
    deal = env.unwrapped.deal
    play_tricks(env, FIRST_LINE[:1])
    # after the first trick Кирилл's cards are on the table for everybody
    for agent in env.possible_agents:
        ob = SOLO_WHIST_LAYOUT.decode(env.observe(agent)["observation"])
        assert set(np.flatnonzero(ob["exposed"])) == {c for c in range(52) if deal.play.hands[KIRILL] >> c & 1}
    assert play_tricks(env, FIRST_LINE[1:]) == 5       # tricks 2..6 winners named by the text
    assert deal.play.hands[KIRILL] == sum(1 << parse_card(c) for c in ("S3", "C10", "C9", "C6", "C4", "C2"))
    assert deal.play.tricks_won[KIRILL] == 0 and not deal.is_over
    # The text stops here, the result being certain while Кирилл plays under.  The engine
    # plays on until nobody, Кирилл included, can change it: after the third trick of the
    # JSON's continuation (his C 10 9 under Алексей's C A Q, nobody else with a club or a
    # spade), as the JSON's "whatever_the_declarer_plays" says.
    stop = LINE_1["result_certain_after_trick"]["whatever_the_declarer_plays"]
    play_tricks(env, FIRST_LINE_REST[:stop - 7])
    assert deal.is_over and deal.made and deal.ended_early and deal.play.tricks_played == stop == 10
    assert final_rewards(env) == {"player_0": 48, "player_1": -16, "player_2": -16, "player_3": -16}


def test_second_line_open_misere_lost_at_the_seventh_trick():
    env = start()
    deal = env.unwrapped.deal
    assert play_tricks(env, SECOND_LINE) == 7          # every winner named by the text
    assert deal.is_over and not deal.made and deal.ended_early
    assert deal.play.tricks_played == 7 and deal.play.trick_winners[-1] == KIRILL
    assert final_rewards(env) == {"player_0": -48, "player_1": 16, "player_2": 16, "player_3": 16}


def test_any_card_in_the_first_line_after_trick_seven_keeps_the_misere():
    """The text's claim: "no further play can make Кирилл take a trick" while he plays under."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        env = start()
        deal = env.unwrapped.deal
        play_tricks(env, FIRST_LINE)
        while not deal.is_over:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            if env.agent_selection == f"player_{KIRILL}" and deal.play.trick:
                led = deal.play.trick[0] // 13
                top = max(c for c in deal.play.trick if c // 13 == led)
                under = [c for c in legal if c // 13 != led or c < top]
                env.step(int(max(under)))         # the highest card that still goes under
            else:
                env.step(int(rng.choice(legal)))
        assert deal.made
