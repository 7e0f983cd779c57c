"""The ladder's rating: Bradley-Terry on board outcomes, checked on cases with a known answer."""

import math

import numpy as np
import pytest

from vint_env.evaluation.rating import RatingError, board_outcomes, fit, rate


def _outcomes(won, tied, lost, seed=0):
    o = np.array([1.0] * won + [0.5] * tied + [0.0] * lost)
    np.random.default_rng(seed).shuffle(o)
    return o


def test_board_outcomes():
    assert board_outcomes([3.0, 0.0, -1.0, float("nan")]).tolist()[:3] == [1.0, 0.5, 0.0]
    assert math.isnan(board_outcomes([float("nan")])[0])


def test_two_players_odds_three_to_one():
    r = fit([("a", "b", _outcomes(750, 0, 250))], anchor="b", prior_draws=0)
    assert r["a"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    # a tie is half a win: 500 won and 500 tied is 750 to 250 again
    assert fit([("a", "b", _outcomes(500, 500, 0))], anchor="b", prior_draws=0)["a"] == pytest.approx(r["a"])


def test_three_players_with_consistent_strengths_nine_three_one():
    """Strengths 9 : 3 : 1 make a beat b 3 to 1, b beat c 3 to 1 and a beat c 9 to 1: the fit is exact."""
    matches = [("a", "b", _outcomes(750, 0, 250)), ("b", "c", _outcomes(750, 0, 250, 1)),
               ("c", "a", _outcomes(100, 0, 900, 2))]
    r = fit(matches, anchor="c", prior_draws=0)
    assert r["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r["a"] == pytest.approx(400 * math.log10(9), abs=1e-6)
    assert r["c"] == 0.0


def test_a_clean_sweep_is_finite_through_the_virtual_draws():
    r = fit([("a", "b", _outcomes(1000, 0, 0))], anchor="b")
    assert r["a"] == pytest.approx(400 * math.log10(1001), abs=1e-6)      # 1,000 + 1 won to 0 + 1 lost


def test_an_unbalanced_ladder_keeps_its_order():
    matches = [("rule", "random", _outcomes(1000, 0, 0)), ("dd", "rule", _outcomes(900, 50, 50)),
               ("dd", "random", _outcomes(1000, 0, 0)), ("x", "rule", _outcomes(400, 100, 500))]
    r = fit(matches)
    assert r["random"] == 0 < r["x"] < r["rule"] < r["dd"]


def test_bootstrap_interval_matches_the_binomial_one():
    """Two equal players, 1,000 boards: the log-odds' standard error is 2 / sqrt(1000), so the 95%
    interval is about +-1.96 * 2 / sqrt(1000) * 400 / ln 10 = +-21.5 rating points."""
    r = rate([("a", "b", _outcomes(500, 0, 500))], anchor="b", prior_draws=0, bootstrap=1000, seed=1)
    half = (r["a"].high - r["a"].low) / 2
    assert r["a"].rating == pytest.approx(0.0, abs=1e-9)
    assert half == pytest.approx(1.96 * 2 / math.sqrt(1000) * 400 / math.log(10), rel=0.1)
    assert (r["b"].low, r["b"].high) == (0.0, 0.0)          # the anchor
    assert r["a"].boards == r["b"].boards == 1000
    again = rate([("a", "b", _outcomes(500, 0, 500))], anchor="b", prior_draws=0, bootstrap=1000, seed=1)
    assert again["a"] == r["a"]                               # seeded: the same interval


def test_fewer_boards_give_a_wider_interval():
    many = rate([("a", "random", _outcomes(600, 0, 400))], bootstrap=500)["a"]
    few = rate([("a", "random", _outcomes(60, 0, 40))], bootstrap=500)["a"]
    assert few.high - few.low > 2 * (many.high - many.low)
    assert many.low < many.rating < many.high


def test_unplayed_boards_are_left_out():
    o = _outcomes(750, 0, 250)
    padded = np.concatenate([o, np.full(500, np.nan)])
    assert fit([("a", "b", padded)], anchor="b", prior_draws=0)["a"] == pytest.approx(400 * math.log10(3))


def test_errors_name_the_problem():
    with pytest.raises(RatingError, match="anchor 'random' played no match"):
        fit([("a", "b", _outcomes(1, 0, 1))])
    with pytest.raises(RatingError, match="no match links c, d to 'random'"):
        fit([("a", "random", _outcomes(1, 0, 1)), ("c", "d", _outcomes(1, 0, 1))])
