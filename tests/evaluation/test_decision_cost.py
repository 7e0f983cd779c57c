"""Cost beside strength: each side's decisions and seconds per decision in a match's summary."""

import itertools

import pytest

from vint_env.evaluation import generate_boards, run_match, summarize, summary_markdown
from vint_env.evaluation import match as match_mod
from vint_env.evaluation.report import format_seconds, match_json


@pytest.fixture
def one_second_a_call(monkeypatch):
    """``perf_counter`` advanced by exactly one second at each call: every decision then takes 1 s."""
    ticks = itertools.count()
    monkeypatch.setattr(match_mod.time, "perf_counter", lambda: float(next(ticks)))


def test_whist_sides_make_half_the_card_plays_each(one_second_a_call):
    result = run_match("whist", "rule", "random", generate_boards(3, seed=5), analysis=False)
    s = summarize(result)
    # 52 cards a table, two tables a board: each side plays 26 at each table
    assert s["decisions"] == {"a": 3 * 2 * 26, "b": 3 * 2 * 26}
    assert s["seconds_per_decision"] == {"a": 1.0, "b": 1.0}
    for board in result.boards:
        for t in board.tables:
            assert t.decisions == [13, 13, 13, 13] and t.think_seconds == [13.0] * 4


def test_solo_whist_counts_the_lone_seat_apart_from_its_three_opponents():
    result = run_match("solo_whist", "rule", "random", generate_boards(4, seed=2), analysis=False)
    s = summarize(result)
    lone = sum(n for b in result.boards for t in b.tables for team, n in zip(t.seats, t.decisions) if team == "A")
    total = sum(sum(t.decisions) for b in result.boards for t in b.tables)
    assert s["decisions"] == {"a": lone, "b": total - lone}
    assert 0 < lone < total - lone              # one seat of four at each table
    assert all(v is not None and v >= 0 for v in s["seconds_per_decision"].values())


def test_results_file_and_report_carry_the_cost(tmp_path):
    result = run_match("whist", "rule", "random", generate_boards(2, seed=1), analysis=False)
    s = summarize(result)
    record = match_json(result, s)
    assert record["boards"][0]["tables"][0]["decisions"] == [13, 13, 13, 13]
    assert len(record["boards"][0]["tables"][0]["think_seconds"]) == 4
    text = summary_markdown(s)
    assert "per decision" in text and "(rule)" in text and "104 decisions" in text


def test_untimed_results_say_none_not_zero():
    """Boards read back from a file without the clock's figures: the cost is None, not 0 s."""
    result = run_match("whist", "rule", "random", generate_boards(1, seed=1), analysis=False)
    for t in result.boards[0].tables:
        t.decisions, t.think_seconds = [], []
    assert summarize(result)["seconds_per_decision"] == {"a": None, "b": None}


@pytest.mark.parametrize("x, text", [(None, "n/a"), (4.2e-5, "42 µs"), (0.0123, "12.3 ms"), (1.25, "1.25 s")])
def test_format_seconds(x, text):
    assert format_seconds(x) == text
