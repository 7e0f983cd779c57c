"""Issue 23 item 21: a misère certain before the first card ends at once (docs/rules_choices.md, Solo Whist 8).

Eldest hand (East, dealer North) calls misère holding only cards below everyone else's in every suit,
and the others hold cards of every suit: whatever East leads is overtaken, and East never gets the
lead back, so no play can give East a trick.  Before the fix the first trick was still played.
"""

from __future__ import annotations

import numpy as np

from card_game_checks import LOWEST_EAST as DEAL
from vint_env import solo_whist_v0
from vint_env.cards import NO_TRUMP, parse_card, parse_pbn
from vint_env.rules.solo_whist import SoloWhistDeal, misere_is_safe
from vint_env.rules.solo_whist_calls import MISERE, OPEN_MISERE, PASS
from vint_env.rules.tricks import TrickPlay


def test_the_issues_misere_is_made_before_the_first_card():
    deal = SoloWhistDeal(parse_pbn(DEAL), dealer=0, turned_card=parse_card("S9"))
    assert deal.current_player == 1                       # eldest hand calls first
    for action in (MISERE, PASS, PASS, PASS):
        deal.apply(action)
    assert deal.is_over and deal.made and deal.ended_early
    assert deal.play.tricks_played == 0 and deal.tricks == 0
    assert deal.payments == [-8, 24, -8, -8]             # misère: 2 points = 8 quarters from each opponent


def test_the_env_ends_the_episode_at_the_last_pass():
    env = solo_whist_v0.env()
    env.reset(seed=0, options={"deal": DEAL, "dealer": 0, "turned_card": "S9"})
    for action in (MISERE, PASS, PASS, PASS):
        env.step(action)
    assert all(env.terminations.values())
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == \
        [r * env.unwrapped.reward_scale for r in (-8, 24, -8, -8)]


def test_open_misere_too():
    deal = SoloWhistDeal(parse_pbn(DEAL), dealer=0, turned_card=parse_card("S9"))
    for action in (OPEN_MISERE, PASS, PASS, PASS):
        deal.apply(action)
    assert deal.is_over and deal.made and deal.play.tricks_played == 0


def test_on_lead_certainty_holds_under_every_random_continuation():
    """The new case (declarer on lead) checked the hard way: random positions, random play to the end."""
    rng = np.random.default_rng(23)
    checked = 0
    for _ in range(4000):
        cards = rng.permutation(52)[:16]              # four hands of four from a random part of the deck
        hands = [sum(1 << int(c) for c in cards[4 * s:4 * s + 4]) for s in range(4)]
        play = TrickPlay(hands, NO_TRUMP, leader=0)
        if not misere_is_safe(play, 0):
            continue
        checked += 1
        for _ in range(30):
            p = play.copy()
            while p.tricks_played < 4:                # four cards each
                legal = p.legal_cards()
                p.play(legal[int(rng.integers(len(legal)))])
            assert 0 not in p.trick_winners, hands
    assert checked > 5
