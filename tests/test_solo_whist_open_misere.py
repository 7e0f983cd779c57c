"""The illustrated open-misère deal of seed 000 (first part), replayed through solo_whist_v0.

Кирилл deals and turns the two of hearts; Алексей (eldest) bids solo, Влад
misère, Роман abondance, Кирилл open misère; the others pass.  No trump.
Seats: Кирилл N (0), Алексей E (1), Влад S (2), Роман W (3).

The hands are rebuilt from everything the text says:
- Кирилл: void in diamonds; the turned H2 is his only heart; his highest spade
  is the 7 and he discards S7 S6 S5 S4 keeping S3; his clubs are K J 10 9 6 4 2
  (after trick 7 of the first line he holds S3 and C 10 9 6 4 2).
- Алексей: void in spades; six hearts with 9 the lowest (A K Q J 10 9, the
  10 never named: the sixth heart); two diamonds (10 9: "у Алексея бубен не
  осталось" after them); the clubs A 7 5 3 of the second line and the Q, the
  last club unaccounted for.
- Влад: hearts 7 5 4 3 (void at trick 7), one club (the 8), diamonds 7 6 4;
  the rest low (he bid misère): S 9 8 2, D 5 2.
- Роман: void in clubs; hearts 8 6; S A K Q; diamonds J 8 Q 3 and, to take
  nine tricks with diamonds trump (his abondance), D A K and S J 10.
"""

import numpy as np

from vint_env import solo_whist_v0
from vint_env.cards import card_text, parse_card, parse_pbn
from vint_env.envs.solo_whist_obs import SOLO_WHIST_LAYOUT
from vint_env.rules.solo_whist_calls import ABONDANCE, MISERE, OPEN_MISERE, PASS, SOLO

KIRILL, ALEKSEI, VLAD, ROMAN = 0, 1, 2, 3
DEAL = "N:76543.2..KJT9642 .AKQJT9.T9.AQ753 982.7543.76542.8 AKQJT.86.AKQJ83."
AUCTION = [SOLO, MISERE, ABONDANCE, OPEN_MISERE, PASS, PASS, PASS]

# Tricks as the text tells them: (leader, cards in play order, winner named by the text or None).
FIRST_LINE = [
    (ALEKSEI, ["D10", "D7", "DJ", "CK"], ROMAN),
    (ROMAN, ["H8", "H2", "H9", "H7"], ALEKSEI),
    (ALEKSEI, ["D9", "D6", "D8", "CJ"], ALEKSEI),
    (ALEKSEI, ["HA", "H5", "H6", "S7"], ALEKSEI),
    (ALEKSEI, ["HK", "H4", "SA", "S6"], ALEKSEI),
    (ALEKSEI, ["HQ", "H3", "SK", "S5"], ALEKSEI),
    (ALEKSEI, ["HJ", "C8", "SQ", "S4"], ALEKSEI),
]
# The text stops here: "Никакая дальнейшая игра не заставит взять Кирилла взятку".
# Алексей alone holds clubs and keeps the lead; one continuation (Кирилл under each club):
FIRST_LINE_REST = [
    (ALEKSEI, ["C3", "S2", "S10", "C2"], ALEKSEI),
    (ALEKSEI, ["C5", "S8", "SJ", "C4"], ALEKSEI),
    (ALEKSEI, ["C7", "S9", "D3", "C6"], ALEKSEI),
]
SECOND_LINE = [
    (ALEKSEI, ["D10", "D7", "DJ", "CK"], ROMAN),
    (ROMAN, ["DQ", "CJ", "D9", "D6"], ROMAN),
    (ROMAN, ["D3", "C10", "HA", "D4"], VLAD),
    (VLAD, ["C8", "SA", "C6", "CA"], ALEKSEI),
    # Влад and Роман "discard any cards": here hearts and spades
    (ALEKSEI, ["C7", "H3", "SK", "C4"], ALEKSEI),
    (ALEKSEI, ["C5", "H4", "SQ", "C2"], ALEKSEI),
    (ALEKSEI, ["C3", "H5", "SJ", "C9"], KIRILL),        # the open misère is lost
]

def start():
    env = solo_whist_v0.env(reward_scale=1.0)
    env.reset(options={"deal": DEAL, "dealer": KIRILL, "turned_card": "H2"})
    for call in AUCTION:
        env.step(call)
    return env


def play_tricks(env, tricks):
    """Play the tricks card by card, checking the player to move and each named winner."""
    deal = env.unwrapped.deal
    for number, (leader, cards, winner) in enumerate(tricks, start=deal.play.tricks_played + 1):
        for i, card in enumerate(cards):
            seat = (leader + i) % 4
            assert env.agent_selection == f"player_{seat}", f"trick {number}: {card} by the wrong player"
            assert not deal.is_over
            env.step(parse_card(card))
        assert deal.play.trick_winners[number - 1] == winner, f"trick {number} won by the wrong player"


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
    held = {seat: {card_text(c) for c in range(52) if hands[seat] >> c & 1} for seat in range(4)}
    assert not any(c.startswith("D") for c in held[KIRILL])              # Кирилл: no diamonds
    assert not any(c.startswith("S") for c in held[ALEKSEI])             # Алексей: no spades
    assert not any(c.startswith("C") for c in held[ROMAN])               # Роман: no clubs
    assert sum(c.startswith("H") for c in held[ALEKSEI]) == 6            # six trumps for his solo
    assert "H2" in held[KIRILL]


def test_the_auction():
    env = start()
    deal = env.unwrapped.deal
    assert deal.contract == OPEN_MISERE and deal.declarer == KIRILL and deal.trump == -1
    assert [(s, a) for s, a in deal.calls] == list(zip([1, 2, 3, 0, 1, 2, 3], AUCTION))
    assert env.agent_selection == f"player_{ALEKSEI}"                    # eldest hand leads


def test_first_line_open_misere_made():
    env = start()
    deal = env.unwrapped.deal
    play_tricks(env, FIRST_LINE[:1])
    # after the first trick Кирилл's cards are on the table for everybody
    for agent in env.possible_agents:
        ob = SOLO_WHIST_LAYOUT.decode(env.observe(agent)["observation"])
        assert set(np.flatnonzero(ob["exposed"])) == {c for c in range(52) if deal.play.hands[KIRILL] >> c & 1}
    play_tricks(env, FIRST_LINE[1:])
    assert deal.play.hands[KIRILL] == sum(1 << parse_card(c) for c in ("S3", "C10", "C9", "C6", "C4", "C2"))
    assert deal.play.tricks_won[KIRILL] == 0 and not deal.is_over
    play_tricks(env, FIRST_LINE_REST)
    # Now nobody can give Кирилл a trick whatever is played (his C 10 9 under Алексей's
    # C A Q, the others without clubs or spades): play stops, the open misère is made.
    assert deal.is_over and deal.made and deal.ended_early and deal.play.tricks_played == 10
    assert final_rewards(env) == {"player_0": 48, "player_1": -16, "player_2": -16, "player_3": -16}


def test_second_line_open_misere_lost_at_the_seventh_trick():
    env = start()
    deal = env.unwrapped.deal
    play_tricks(env, SECOND_LINE)
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
