"""Issue 23 item 17: results files are strict JSON (no NaN or Infinity), even for a one-board match."""

from __future__ import annotations

import json

from vint_env.evaluation.cli import main as eval_main
from vint_env.evaluation.report import strict_json
from vint_env.evaluation.stats import mean_ci


def _strict_load(text):
    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_a_one_board_match_writes_strict_json_and_says_why_there_is_no_interval(tmp_path, capsys):
    out = tmp_path / "one.json"
    assert eval_main(["match", "--a", "rule", "--b", "random", "--boards", "1", "--workers", "1",
                      "--no-progress", "--out", str(out), "--html", str(tmp_path / "one.html")]) == 0
    printed = capsys.readouterr().out
    data = _strict_load(out.read_text())
    m = data["summary"]["margin_per_board"]
    assert m["low"] is None and m["high"] is None and m["n"] == 1 and "no confidence interval" in m["interval"]
    assert "95% CI [n/a, n/a]" in printed
    assert eval_main(["view", str(out), "--html", str(tmp_path / "again.html")]) == 0    # reads it back


def test_strict_json_turns_non_finite_numbers_into_null():
    assert strict_json({"a": float("nan"), "b": [float("inf"), 1.5], "c": (-float("inf"),)}) == \
        '{"a": null, "b": [null, 1.5], "c": [null]}'
    assert mean_ci([1.0, 3.0]).as_dict()["low"] is not None
