"""The match summary's boards won / lost / tied and its share-won interval, on hand-made boards of known margins.

These counts are what the README, the baselines' manifests and the benchmark publish; a tie is neither won nor
lost, and a board where B scored more is lost by A.
"""

import math
from statistics import NormalDist

import pytest

from vint_env.evaluation.match import BoardResult, MatchResult, TableResult
from vint_env.evaluation.report import summarize, summary_markdown


def whist_board(number: int, a_first: float, a_second: float) -> BoardResult:
    """A duplicate Whist board: A's points at the first table (A in N/S) and at the second (A in E/W)."""
    tables = [TableResult(["A", "B", "A", "B"], [a_first, -a_first, a_first, -a_first]),
              TableResult(["B", "A", "B", "A"], [-a_second, a_second, -a_second, a_second])]
    return BoardResult(number, a_first + a_second, tables)


#: (A's points at table 1, at table 2) per board, and A's margin on the board: 3 won, 2 lost, 3 tied.
BOARDS = [((8, -3), +5),      # won
          ((4, -4), 0),       # tied: the same result at both tables
          ((-6, 3), -3),      # lost: a win for B
          ((0, 0), 0),        # tied: nothing scored
          ((2, 0), +2),       # won
          ((7, 0), +7),       # won
          ((-10, 9), -1),     # lost by one point
          ((-2, 2), 0)]       # tied


def hand_made_match() -> MatchResult:
    boards = [whist_board(i + 1, *points) for i, (points, _) in enumerate(BOARDS)]
    return MatchResult(game="whist", agent_a="a", agent_b="b", episode="deal", seed=0, boards=boards,
                       seconds=1.0, cpu_seconds=1.0, workers=1)


def wilson(successes: int, n: int) -> tuple[float, float, float]:
    """The 95% Wilson score interval, written out here independently of vint_env.evaluation.stats."""
    z = NormalDist().inv_cdf(0.975)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return p, centre - half, centre + half


def test_the_hand_made_boards_score_their_margins():
    assert hand_made_match().scores == [margin for _, margin in BOARDS]


def test_won_lost_tied_count_ties_as_neither():
    s = summarize(hand_made_match())
    assert (s["boards"], s["boards_won"], s["boards_lost"], s["boards_tied"]) == (8, 3, 2, 3)


def test_share_won_is_the_wilson_interval_of_boards_won_over_all_boards():
    share = summarize(hand_made_match())["share_won"]
    expected = wilson(3, 8)
    assert share["share"] == 3 / 8
    # (stats takes z from Student's t with 10^9 degrees of freedom: the normal quantile to 1e-7)
    assert (share["low"], share["high"]) == pytest.approx(expected[1:], abs=1e-6)
    assert (round(share["low"], 4), round(share["high"], 4)) == (0.1368, 0.6943)   # the textbook figures


def test_the_markdown_report_prints_the_counts_and_the_share():
    text = summary_markdown(summarize(hand_made_match()))
    assert "- boards won by A: 3, lost: 2, tied: 3 (share won 0.375, 95% CI [0.137, 0.694])" in text


def test_a_match_of_ties_only_is_neither_won_nor_lost():
    match = hand_made_match()
    match.boards = [whist_board(1, 4, -4), whist_board(2, 0, 0)]
    s = summarize(match)
    assert (s["boards_won"], s["boards_lost"], s["boards_tied"]) == (0, 0, 2)
    assert s["share_won"]["share"] == 0 and s["share_won"]["low"] == pytest.approx(0, abs=1e-12)
    assert s["share_won"]["high"] == pytest.approx(wilson(0, 2)[2], abs=1e-6)
