"""Evaluation harness: statistics, boards, duplicate swapping, determinism, reports, CLI."""

import json
import math

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH
from vint_env.agents import Agent
from vint_env.agents.rule.vint import VintRuleAgent
from vint_env.cards import DeckError
from vint_env.evaluation import generate_boards, run_match, summarize, summary_markdown
from vint_env.evaluation.cli import main as cli_main
from vint_env.evaluation.deals import boards_to_pbn, load_boards, parse_boards, standard_boards
from vint_env.evaluation.match import seat_plans
from vint_env.evaluation.stats import mean_ci, share_ci, t_cdf, t_quantile


# ------------------------------------------------------------ statistics

@pytest.mark.parametrize("p, df, expected", [
    (0.975, 1, 12.706205), (0.975, 9, 2.262157), (0.975, 29, 2.045230), (0.995, 5, 4.032143),
    (0.975, 1e9, 1.959964), (0.5, 4, 0.0), (0.025, 9, -2.262157),
])
def test_t_quantile_matches_tables(p, df, expected):
    assert t_quantile(p, df) == pytest.approx(expected, abs=2e-6)


def test_t_cdf_is_symmetric_and_monotone():
    xs = np.linspace(-5, 5, 41)
    ys = [t_cdf(x, 7) for x in xs]
    assert all(b > a for a, b in zip(ys, ys[1:]))
    assert t_cdf(1.3, 7) + t_cdf(-1.3, 7) == pytest.approx(1.0)


def test_mean_ci_known_case():
    # Worked by hand: mean 5.5, sd = sqrt(9.1666..) = 3.02765, se = 0.957427,
    # t(0.975, 9) = 2.262157 -> half width 2.165852.
    ci = mean_ci([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert ci.mean == pytest.approx(5.5)
    assert ci.sd == pytest.approx(3.0276504, rel=1e-7)
    assert ci.low == pytest.approx(5.5 - 2.165852, abs=1e-5)
    assert ci.high == pytest.approx(5.5 + 2.165852, abs=1e-5)
    assert ci.excludes_zero()


def test_mean_ci_edge_cases():
    with pytest.raises(ValueError, match="at least one"):
        mean_ci([])
    one = mean_ci([3.0])
    assert one.mean == 3.0 and math.isinf(one.half_width)
    flat = mean_ci([2.0] * 5)
    assert flat.low == flat.high == 2.0


def test_share_ci_wilson():
    p, lo, hi = share_ci(8, 10)
    assert p == 0.8 and lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)


# ------------------------------------------------------------ boards

def test_boards_are_seeded_prefix_stable_and_round_trip(tmp_path):
    b10, b3 = generate_boards(10, seed=4), generate_boards(3, seed=4)
    assert b10[:3] == b3
    assert generate_boards(3, seed=5) != b3
    for b in b10:
        assert b.hands[b.dealer] >> b.turned & 1
    assert parse_boards(boards_to_pbn(b10)) == b10
    assert standard_boards(5) == generate_boards(5, seed=0)


@pytest.mark.parametrize("text, message", [
    ('[Board "1"]\n[Dealer "N"]\n', "missing tag"),
    (f'[Dealer "Q"]\n[Deal "{ONE_SUIT_EACH}"]', "Dealer"),
    (f'[Dealer "N"]\n[Deal "{ONE_SUIT_EACH[:-1]}"]', "12 cards"),
    (f'[Dealer "N"]\n[Deal "{ONE_SUIT_EACH}"]\n'
     '[TurnedCard "H2"]', "not in the dealer's hand"),
    ("Deal N:...", "expected a PBN tag"),
    ("", "no boards"),
])
def test_bad_board_files_are_rejected_with_the_reason(text, message):
    with pytest.raises(DeckError, match=message):
        parse_boards(text)


def test_missing_board_file():
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_boards("/nonexistent/boards.pbn")


# ------------------------------------------------------------ duplicate

class SeatBiased(Agent):
    """Plays like the rule bot at seats 0 and 2, and its highest legal action at seats 1 and 3.

    Deterministic, so in duplicate two copies of it must tie on every board:
    whoever sits N/S wins, and the seats are swapped at the second table.
    """

    def __init__(self, game="vint"):
        self.rule = VintRuleAgent()

    def reset(self, seed=None):
        self.rule.reset(seed)

    def act(self, observation, env=None, agent=None):
        if agent in ("player_0", "player_2"):
            return self.rule.act(observation, None, agent)
        return int(np.flatnonzero(observation["action_mask"])[-1])


def seat_biased(game="vint"):
    return SeatBiased(game)


def test_duplicate_swaps_the_seats():
    assert seat_plans("partnership") == [["A", "B", "A", "B"], ["B", "A", "B", "A"]]
    boards = generate_boards(6, seed=1)
    spec = "py:tests.evaluation.test_evaluation:seat_biased"
    result = run_match("vint", spec, spec, boards, seed=3, analysis=False)
    for b in result.boards:
        t1, t2 = b.tables
        assert t1.seats == ["A", "B", "A", "B"] and t2.seats == ["B", "A", "B", "A"]
        assert t1.points[0] == t2.points[0] != 0        # N/S scores alike at both tables
        assert b.score == 0                               # ... so A's two results cancel
    # the same agent against random does not cancel: A's margin is real
    assert summarize(run_match("vint", spec, "random", boards, seed=3, analysis=False))["margin_per_board"]["mean"] > 0


def test_solo_format_rotates_the_agent_under_test():
    plans = seat_plans("solo")
    assert [p.index("A") for p in plans] == [0, 1, 2, 3]
    assert all(p.count("A") == 1 for p in plans)


def test_match_is_deterministic_and_equal_across_worker_counts():
    boards = generate_boards(3, seed=2)
    one = run_match("vint", "rule", "random", boards, seed=9, workers=1)
    again = run_match("vint", "rule", "random", boards, seed=9, workers=1)
    two = run_match("vint", "rule", "random", boards, seed=9, workers=2, chunk_size=1)
    assert "par_value" in one.boards[0].tables[0].details
    assert one.scores == again.scores == two.scores
    assert [[t.details for t in b.tables] for b in one.boards] == [[t.details for t in b.tables] for b in two.boards]
    other_seed = run_match("vint", "random", "random", boards, seed=10, analysis=False)
    assert other_seed.scores != run_match("vint", "random", "random", boards, seed=9, analysis=False).scores


def test_vint_summary_has_contract_and_double_dummy_figures():
    pytest.importorskip("endplay")
    result = run_match("vint", "dd", "rule", generate_boards(3, seed=0), seed=0)
    s = summarize(result)
    c = s["contracts"]["A"]
    assert c["tables"] == 6 and 0 <= c["made"] <= c["declared"]
    assert "declarer_tricks_minus_dd" in c and "auction_vs_par_points" in c
    # auction quality is zero-sum between the teams
    assert c["auction_vs_par_points"]["mean"] == pytest.approx(-s["contracts"]["B"]["auction_vs_par_points"]["mean"])
    text = summary_markdown(s, "cmd")
    assert "A minus B" in text and "declarer tricks - DD" in text


def test_rubber_mode_reports_rubbers():
    result = run_match("vint", "rule", "random", generate_boards(2, seed=0), seed=0, episode="rubber",
                       analysis=False)
    r = summarize(result)["rubbers"]
    assert r["rubbers"] == 4 and r["won_by_A"] + r["won_by_B"] + r["unfinished"] == 4
    assert r["won_by_A"] >= 3


def test_bad_match_arguments():
    boards = generate_boards(1)
    with pytest.raises(ValueError, match="unknown game"):
        run_match("bridge", "rule", "random", boards)
    with pytest.raises(ValueError, match="episode"):
        run_match("vint", "rule", "random", boards, episode="season")
    with pytest.raises(ValueError, match="no boards"):
        run_match("vint", "rule", "random", [])
    with pytest.raises(ValueError, match="unknown kind 'alphazero'"):
        run_match("vint", "rule", "alphazero", boards)


# ------------------------------------------------------------ league and CLI

def test_league_writes_ratings_table_json_and_chart(tmp_path):
    pytest.importorskip("openskill")
    from vint_env.evaluation.league import run_league, write_league
    league = run_league("vint", ["random", "rule"], generate_boards(4, seed=0), seed=0)
    paths = write_league(league, tmp_path, "cmd")
    data = json.loads(paths["json"].read_text())
    assert data["ratings"]["rule"]["mu"] > data["ratings"]["random"]["mu"]
    assert "| 1 | rule |" in paths["markdown"].read_text()
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_match_and_errors(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert cli_main(["match", "--a", "rule", "--b", "random", "--boards", "2", "--workers", "1",
                     "--no-progress", "--no-dd", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["boards"] == 2 and len(data["boards"]) == 2
    assert out.with_suffix(".md").exists()
    assert cli_main(["match", "--a", "rule", "--b", "nonsense", "--boards", "1", "--workers", "1"]) == 2
    assert "unknown kind" in capsys.readouterr().err
    assert cli_main(["--game", "whist", "--a", "rule", "--b", "random", "--boards", "1", "--workers", "1",
                     "--no-progress"]) == 0                      # `match` is the default command
    deals = tmp_path / "d.pbn"
    assert cli_main(["deals", "--boards", "3", "--seed", "1", "--out", str(deals)]) == 0
    assert load_boards(deals) == generate_boards(3, seed=1)


def test_solo_whist_match_rotates_and_sums_the_agent_under_test():
    result = run_match("solo_whist", "rule", "random", generate_boards(4, seed=0), seed=0)
    for b in result.boards:
        assert len(b.tables) == 4
        assert [t.seats.index("A") for t in b.tables] == [0, 1, 2, 3]
        assert b.score == pytest.approx(sum(t.points[k] for k, t in enumerate(b.tables)))
        for t in b.tables:
            assert sum(t.points) == pytest.approx(0)          # payments are zero-sum
    s = summarize(result)
    assert "solo_contracts" in s and s["tables_per_board"] == 4
    assert "A alone against three B" in summary_markdown(s)


def test_whist_match_replays_the_turned_card():
    boards = generate_boards(2, seed=0)
    result = run_match("whist", "rule", "random", boards, seed=0)
    for board, b in zip(boards, result.boards):
        for t in b.tables:
            assert t.details["trump"] == board.turned // 13


BUILT = []


class CountingAgent(Agent):
    """Records each construction, so a test can see when the harness loads agents."""

    def __init__(self, game=None):
        BUILT.append(game)
        self.rng = np.random.default_rng(0)

    def act(self, observation, env=None, agent=None):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[0])


def test_each_match_loads_its_agents_afresh():
    # A checkpoint evaluated twice in one process (e.g. during training) must not play stale weights.
    boards = generate_boards(2, seed=0)
    spec = f"py:{__name__}:CountingAgent"
    BUILT.clear()
    run_match("whist", spec, "random", boards, workers=1, analysis=False)
    first = len(BUILT)
    run_match("whist", spec, "random", boards, workers=1, analysis=False)
    assert first > 0 and len(BUILT) == 2 * first
