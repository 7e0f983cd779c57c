"""The engine's speed guard by ratio (``python -m benchmarks.engine_throughput --against``): its options and one
trivial run; no speed is asserted here (speed lives in the opt-in script)."""

from __future__ import annotations

import subprocess

import pytest

from benchmarks import engine_throughput, engine_throughput_ratio

ROOT = engine_throughput_ratio.working_tree()


@pytest.mark.parametrize("argv, message", [
    (["--engines", "vint,poker"], "--engines takes"),
    (["--engines", ""], "--engines takes"),
    (["--threads", "3"], "--threads takes 1 and/or 2"),
    (["--threads", "one"], "--threads takes 1 and/or 2"),
    (["--rounds", "0"], "--rounds must be >= 1"),
    (["--seconds", "nan"], "--seconds > 0"),
    (["--min-ratio", "0"], "--min-ratio in"),
    (["--reference-tree", "/nonexistent"], "holds no vint_env package"),
])
def test_bad_options_are_refused_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        engine_throughput.main(["--against", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_bench_hands_against_to_the_ratio_guard(monkeypatch):
    seen = []
    monkeypatch.setattr(engine_throughput_ratio, "main", lambda argv: seen.append(argv) or 0)
    assert engine_throughput.main(["--against", "abc123", "--rounds", "3"]) == 0
    assert seen == [["--against", "abc123", "--rounds", "3"]]


def test_a_trivial_run_against_a_tree_prints_a_ratio_per_engine_and_thread_count(capsys):
    code = engine_throughput_ratio.main(["--reference-tree", str(ROOT), "--engines", "whist,solo_whist",
                                         "--threads", "1", "--batch-size", "4", "--rounds", "2", "--seconds", "0.01",
                                         "--min-ratio", "0.001"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [line.split() for line in out.splitlines() if line.startswith(("WhistEngine", "SoloWhistEngine"))]
    assert [r[:2] for r in rows] == [["WhistEngine", "1"], ["SoloWhistEngine", "1"]]
    for r in rows:
        assert float(r[4].rstrip("x")) > 0 and len(r) == 8           # medians, ratios, two rounds
    assert "every median ratio >= 0.001x" in out


def test_a_ratio_below_the_bar_exits_1(capsys):
    code = engine_throughput_ratio.main(["--reference-tree", str(ROOT), "--engines", "whist", "--threads", "1",
                                         "--batch-size", "2", "--rounds", "1", "--seconds", "0.01", "--min-ratio", "9.9"])
    assert code == 1
    assert "below 9.9x: WhistEngine, 1 thread(s)" in capsys.readouterr().out


def test_a_commit_is_exported_once_from_git(tmp_path):
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    tree = engine_throughput_ratio.reference_tree(ROOT, "HEAD", tmp_path)
    assert (tree / "vint_env" / "vector" / "engine.py").is_file() and (tree / ".complete").is_file()
    (tree / "vint_env" / "marker").write_text("kept")
    assert engine_throughput_ratio.reference_tree(ROOT, "HEAD", tmp_path) == tree
    assert (tree / "vint_env" / "marker").read_text() == "kept"            # not exported again
    with pytest.raises(SystemExit, match="rev-parse"):
        engine_throughput_ratio.reference_tree(ROOT, "no-such-commit-0123", tmp_path)


def test_the_engines_come_from_the_game_records_and_an_unpinned_one_needs_a_reference(monkeypatch, capsys):
    from vint_env import games
    classes = engine_throughput_ratio.engine_classes()
    assert set(classes) == set(games.engine_games())
    assert set(classes.values()) == set(engine_throughput_ratio.REFERENCES)      # every engine pinned today
    monkeypatch.setattr(engine_throughput_ratio, "engine_classes",
                        lambda: {"whist": "WhistEngine", "vint2p": "NewEngine"})
    with pytest.raises(SystemExit) as info:
        engine_throughput_ratio.main(["--engines", "vint2p"])
    assert info.value.code == 2 and "no pinned reference for NewEngine" in capsys.readouterr().err
