"""Issue 23 item 9: bad command-line input gets a clear error (exit 2, one line), never a raw traceback."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from vint_env.agents.registry import AgentSpecError, load_agent
from vint_env.evaluation.cli import main as eval_main

MATCH = ["match", "--b", "random", "--boards", "2", "--workers", "1", "--no-progress", "--no-dd"]


@pytest.mark.parametrize("extra, message", [
    (["--a", "rule", "--game", "vint", "--env-option", "way=1"], "unknown env option 'way'; its options: "),
    (["--a", "rule", "--env-option", "episode=rubber"], "choose it with --episode"),
    (["--a", "py:json:nope"], "module 'json' has no callable 'nope'"),
    (["--a", "py:json:dumps"], "dumps(game='vint') failed: TypeError"),
    (["--a", "py:no_such_module_xyz:A"], "cannot import module 'no_such_module_xyz'"),
    (["--a", "py:json:JSONDecodeError"], "failed: TypeError"),
    (["--a", "py:builtins:dict"], "returned dict, not a vint_env.agents.Agent"),
])
def test_bad_env_options_and_agent_specs_are_one_line_errors(extra, message, capsys):
    assert eval_main(MATCH + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("vint-eval: error: ") and message in err and "Traceback" not in err


def test_agent_spec_errors_are_one_catchable_type():
    for spec in ("py:json:nope", "alphazero", "py:builtins:dict"):
        with pytest.raises(AgentSpecError):
            load_agent(spec)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("res") / "r.json"
    assert eval_main(["match", "--a", "rule", "--b", "random", "--boards", "2", "--workers", "1", "--no-progress",
                      "--no-dd", "--out", str(path)]) == 0
    return json.loads(path.read_text())


def _paths(x, prefix=()):
    """Every key path of a JSON value, for corrupting it one place at a time."""
    yield prefix
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x[:2]):
            yield from _paths(v, prefix + (i,))


def _set(x, path, value):
    for k in path[:-1]:
        x = x[k]
    x[path[-1]] = value


def test_view_on_structurally_broken_results_is_a_clear_error(results, tmp_path, capsys):
    paths = [p for p in _paths(results) if p]
    assert len(paths) > 100
    broken = 0
    for i, path in enumerate(paths):
        for value in (None, [], {}, "x", -1):
            data = copy.deepcopy(results)
            _set(data, path, value)
            f = tmp_path / "bad.json"
            f.write_text(json.dumps(data))
            code = eval_main(["view", str(f), "--html", str(tmp_path / "v.html")])
            err = capsys.readouterr().err
            assert code in (0, 2), (path, value)
            if code == 2:
                broken += 1
                assert err.startswith("vint-eval: error: ") and "Traceback" not in err, (path, value, err)
    assert broken > 50


def test_view_on_deeply_nested_json_is_a_clear_error(tmp_path, capsys):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100000 + "]" * 100000)
    assert eval_main(["view", str(f)]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_view_on_binary_is_a_clear_error(tmp_path, capsys):
    f = tmp_path / "bin.json"
    f.write_bytes(b"\xff\xfe\x00\x00garbage")
    assert eval_main(["view", str(f)]) == 2
    assert "is not JSON text" in capsys.readouterr().err


@pytest.mark.parametrize("field, value", [
    ("checkpoint", ["x"]), ("checkpoint", {"sha256": 5}), ("observation", "x"), ("observation", {"size": "1"}),
    ("budget", []), ("results", 3),
])
def test_a_baseline_manifest_with_wrong_typed_fields_is_a_checkpoint_error(tmp_path, field, value):
    pytest.importorskip("torch")
    from vint_env.agents.learned.baseline import load_baseline, results_table
    from vint_env.agents.learned.policy import CheckpointError
    from vint_env.baselines import __file__ as shipped
    from pathlib import Path
    src = Path(shipped).parent
    shutil.copy(src / "vint.pt", tmp_path / "vint.pt")
    manifest = json.loads((src / "vint.json").read_text())
    manifest[field] = value
    (tmp_path / "vint.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="wrong-typed fields"):
        load_baseline("vint", tmp_path)
    assert "unreadable manifest" in results_table(tmp_path)


def test_a_baseline_manifest_with_broken_results_still_gives_a_table(tmp_path):
    pytest.importorskip("torch")
    from vint_env.agents.learned.baseline import results_table
    from vint_env.baselines import __file__ as shipped
    from pathlib import Path
    manifest = json.loads((Path(shipped).parent / "vint.json").read_text())
    manifest["results"] = {"vs": {"rule": {"margin_per_board": 3}}}
    (tmp_path / "vint.json").write_text(json.dumps(manifest))
    assert "malformed manifest results" in results_table(tmp_path)
