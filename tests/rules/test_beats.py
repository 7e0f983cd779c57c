"""One rule of which card wins a trick (rules.tricks.beats), and every other implementation tested against it."""

import numpy as np
from hypothesis import given, settings, strategies as st

from vint_env.agents.rule import play_view
from vint_env.agents.search.two_hand_dd import _leader_wins
from vint_env.cards import NO_TRUMP
from vint_env.rules.tricks import beats, trick_winner, winning_index

cards = st.integers(0, 51)
trumps = st.integers(0, NO_TRUMP)


def test_beats_by_hand():
    ace, king = 12, 11                          # spades; clubs are 13..25
    assert beats(ace, king, NO_TRUMP) and not beats(king, ace, NO_TRUMP)
    assert not beats(13 + ace, king, NO_TRUMP)  # another suit, no trumps: never
    assert beats(13, ace, 1)                    # the club two ruffs the spade ace
    assert not beats(13, 13 + 5, 1) and beats(13 + 6, 13 + 5, 1)   # trump over trump: by rank
    assert play_view.beats is beats             # the rule bots read the rules' own


@settings(max_examples=300, deadline=None)
@given(st.lists(cards, min_size=4, max_size=4, unique=True), st.integers(0, 3), trumps)
def test_the_trick_winner_is_the_card_that_beat_every_card_before_it(trick, leader, trump):
    i = winning_index(trick, trump)
    assert all(not beats(c, trick[i], trump) for c in trick if c != trick[i])
    assert trick_winner(trick, leader, trump) == (leader + i) % 4
    led = [c for c in trick if c // 13 == trick[0] // 13]
    trumps_in = [c for c in trick if c // 13 == trump]
    assert trick[i] == (max(trumps_in) if trumps_in else max(led))      # docs/rules: highest trump, else highest led


@settings(max_examples=300, deadline=None)
@given(cards, cards, trumps)
def test_the_two_hand_solver_kernel_agrees(led, follow, trump):
    if led != follow:
        assert bool(_leader_wins(np.int64(led), np.int64(follow), np.int64(trump))) == (not beats(follow, led, trump))
