"""The benchmark's page: its tables come from the frozen sets and the ladders' results files kept in docs/benchmark/."""

import importlib.util
import json
import pathlib

import pytest

from vint_env import games
from vint_env.games import TWO_PLAYER
from vint_env.evaluation.bench_sets import SPLITS, frozen_sums
from vint_env.evaluation.ladder import ladder_key, ladder_json, rungs, run_ladder

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmark.md"
#: the ladders the page shows: every game, two-player Vint in its benchmark way
KEYS = [ladder_key(g, {"way": 4} if games.get(g).format == TWO_PLAYER else None) for g in games.names()]


def load_hook():
    spec = importlib.util.spec_from_file_location("docs_generate_hook", ROOT / "docs" / "hooks" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_has_every_games_ladder_and_the_sets():
    text = PAGE.read_text()
    assert KEYS == ["vint", "whist", "solo_whist", "vint2p_way4"]
    for key in KEYS:
        assert f"<!-- generated: ladder-table {key} -->" in text
    built = load_hook().expand(text)
    assert "<!-- generated:" not in built
    for digest in frozen_sums().values():
        assert digest in built


def test_a_ladder_table_has_a_row_per_player_with_its_command(tmp_path, monkeypatch):
    hook = load_hook()
    monkeypatch.setattr(hook, "BENCHMARK_RESULTS", tmp_path)
    assert hook.ladder_table("whist").startswith("*Not measured yet*")
    lad = run_ladder("whist", "dd", split="dev", boards=3, out_dir=tmp_path / "run", only_rungs=["random", "rule"],
                     bootstrap=20, say=lambda _: None)
    (tmp_path / "whist.json").write_text(json.dumps(ladder_json(lad)))
    table = hook.ladder_table("whist")
    for player in ("dd", "rule", "random"):
        assert (f"`vint-eval ladder --game whist --agent {player} --set dev --boards 3 --rungs random rule "
                "--workers 1`") in table
    assert "rungs not yet played: pimc, dd, baseline" in table
    assert table.count("\n| **") == 3            # the margins, row minus column, one row a player


@pytest.mark.parametrize("path", sorted((ROOT / "docs" / "benchmark").glob("*.json")), ids=lambda p: p.name)
def test_the_kept_results_are_ladders_on_a_whole_test_set(path):
    data = json.loads(path.read_text())
    assert path.stem in KEYS
    assert data["set"] == f"bench-v1/{data['game']}/test" and data["boards"] == SPLITS["test"]
    assert ladder_key(data["game"], data["env_options"]) == path.stem
    assert set(data["rungs"]) <= set(rungs(data["game"]))
    assert all(len(m["scores"]) == SPLITS["test"] for m in data["matches"])
