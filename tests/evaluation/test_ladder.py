"""`vint-eval ladder`: the agent against every rung on a frozen set, resumable, with one rating."""

import json
import pathlib

import pytest

import ladder_agents
from vint_env import games
from vint_env.evaluation import ladder as ladder_mod
from vint_env.evaluation.bench_sets import bench_boards
from vint_env.evaluation.board_log import MatchLogError, load_log
from vint_env.evaluation.cli import main as cli_main
from vint_env.evaluation.ladder import LadderError, agent_files, margin_of, pairs, rungs, run_ladder
from vint_env.evaluation.match import run_match

STOP = "py:ladder_agents:stopping"


def test_each_games_rungs():
    assert rungs("vint") == ["random", "rule", "pimc", "dd", "baseline"]
    assert rungs("whist") == ["random", "rule", "pimc", "dd", "baseline"]
    assert rungs("solo_whist") == ["random", "rule", "baseline"]
    assert rungs("vint2p") == ["random", "rule", "pimc", "dd", "baseline"]   # way 4's network ships


def test_pairs_every_rung_pair_then_the_agent_cheapest_first():
    got = pairs("whist", "me", ["random", "rule", "pimc", "dd"])
    assert len(got) == 6 + 4 and len(set(got)) == 10
    assert got[0] == ("random", "rule") and {p for p in got if "pimc" in p} == set(got[-4:])
    assert pairs("whist", "rule", ["random", "rule", "dd"]) == [("random", "rule"), ("random", "dd"), ("rule", "dd")]
    solo = pairs("solo_whist", "me", ["random", "rule"])     # one agent alone against three: both ways
    assert sorted(solo) == sorted([("random", "rule"), ("rule", "random"), ("me", "random"), ("random", "me"),
                                   ("me", "rule"), ("rule", "me")])


def test_a_ladder_rates_everyone_and_its_matches_are_the_harness_matches(tmp_path):
    lad = run_ladder("whist", STOP, split="dev", boards=3, out_dir=tmp_path, only_rungs=["random", "rule"],
                     bootstrap=50, say=lambda _: None)
    assert [(m.agent_a, m.agent_b) for m in lad.matches] == [("random", "rule"), (STOP, "random"), (STOP, "rule")]
    boards = bench_boards("whist", "dev")[:3]
    for m in lad.matches:
        assert m.scores == run_match("whist", m.agent_a, m.agent_b, boards, seed=0, analysis=False).scores
        assert set(m.summary["seconds_per_decision"]) == {"a", "b"}
    assert set(lad.ratings) == {"random", "rule", STOP} and lad.ratings["random"]["rating"] == 0
    m = margin_of(lad, "rule", "random")          # played as random vs rule: the sign is turned
    assert m["mean"] == -sum(lad.matches[0].scores) / 3 and m["won"] == lad.matches[0].summary["boards_lost"]
    with pytest.raises(LadderError, match="random .the rating's zero. is always one"):
        run_ladder("whist", "dd", split="dev", boards=2, out_dir=tmp_path, only_rungs=["rule"])
    with pytest.raises(LadderError, match="holds 100 boards, asked for 101"):
        run_ladder("whist", "dd", split="dev", boards=101, out_dir=tmp_path)


def test_a_stopped_ladder_resumes_and_rungs_are_played_once(tmp_path, monkeypatch):
    kw = dict(split="dev", boards=3, out_dir=tmp_path, only_rungs=["random", "rule"], bootstrap=20,
              say=lambda _: None)
    monkeypatch.setattr(ladder_agents, "DECISIONS_LEFT", [2 * 52 + 10])   # two boards (2 seats x 2 tables x 13 cards each), then Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        run_ladder("whist", STOP, workers=1, **kw)
    logs = sorted(p.name for p in (tmp_path / "matches").iterdir())
    assert "random__rule.jsonl" in logs
    stopped = next(p for p in (tmp_path / "matches").iterdir() if p.name.startswith("py_ladder_agents"))
    assert [e["board"] for e in load_log(stopped).entries] == [1, 2]
    monkeypatch.setattr(ladder_agents, "DECISIONS_LEFT", [10 ** 9])
    played = []
    real = ladder_mod.play_logged

    def counting(path, *args, **kwargs):
        before = len(load_log(path, allow_empty=True).entries) if path.exists() else 0
        out = real(path, *args, **kwargs)
        played.append((path.name, len(out.entries) - before))
        return out
    monkeypatch.setattr(ladder_mod, "play_logged", counting)
    lad = run_ladder("whist", STOP, **kw)
    assert dict(played)["random__rule.jsonl"] == 0 and dict(played)[stopped.name] == 1
    assert [len(m.scores) for m in lad.matches] == [3, 3, 3]
    played.clear()
    run_ladder("whist", "dd", **kw)               # another agent: the rungs' match is not played again
    assert dict(played)["random__rule.jsonl"] == 0 and dict(played)["dd__random.jsonl"] == 3


def test_cli_writes_json_markdown_viewer_and_takes_rungs_from_a_results_file(tmp_path, capsys):
    first = tmp_path / "first"
    argv = ["ladder", "--game", "whist", "--agent", "dd", "--set", "dev", "--boards", "2", "--rungs", "random",
            "rule", "--workers", "1", "--no-progress", "--bootstrap", "20"]
    assert cli_main(argv + ["--out-dir", str(first)]) == 0
    out = capsys.readouterr().out
    assert "| rung | dd minus rung" in out and "first only, not the benchmark" in out
    assert "rungs left out: pimc, dd, baseline" in out
    data = json.loads((first / "ladder_dd.json").read_text())
    assert data["set"] == "bench-v1/whist/dev" and data["boards"] == 2 and data["agent"] == "dd"
    assert {(m["agent_a"], m["agent_b"]) for m in data["matches"]} == {("random", "rule"), ("dd", "random"),
                                                                      ("dd", "rule")}
    assert all(m["command"].startswith("vint-eval ladder --game whist --agent dd") for m in data["matches"])
    assert all(len(m["scores"]) == 2 and "seconds_per_decision" in m["summary"] for m in data["matches"])
    html = (first / "ladder_dd.html").read_text()
    assert "dd vs random" in html or "dd (A) vs random (B)" in html
    second = tmp_path / "second"
    assert cli_main(argv[:4] + ["random"] + argv[5:] + ["--out-dir", str(second),
                                                        "--rungs-from", str(first / "ladder_dd.json")]) == 0
    assert "random vs rule: from" in capsys.readouterr().out
    assert not (second / "matches").exists()             # the agent is a rung: nothing left to play
    again = json.loads((second / "ladder_random.json").read_text())
    assert again["matches"][0]["scores"] == data["matches"][0]["scores"]
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**data, "set": "bench-v1/whist/test"}))
    assert cli_main(argv + ["--out-dir", str(tmp_path / "third"), "--rungs-from", str(other)]) == 2
    assert "another ladder (its set differ" in capsys.readouterr().err


def test_cli_refuses_bad_rungs_and_outputs_over_inputs(tmp_path, capsys):
    assert cli_main(["ladder", "--game", "solo_whist", "--agent", "rule", "--rungs", "random", "pimc",
                     "--out-dir", str(tmp_path)]) == 2
    assert "solo_whist: the rungs are random, rule, baseline" in capsys.readouterr().err
    (tmp_path / "ladder_random.json").write_text("{}")
    assert cli_main(["ladder", "--game", "whist", "--agent", "random", "--out-dir", str(tmp_path),
                     "--rungs-from", str(tmp_path / "ladder_random.json")]) == 2
    assert "is the same file as --rungs-from" in capsys.readouterr().err


def test_a_changed_agent_is_never_resumed_into_its_old_log(tmp_path):
    """The log keeps the SHA-256 of the files an agent plays from: another program there is another match."""
    import shutil
    import sys
    bot = tmp_path / "bot.py"
    shutil.copy(pathlib.Path(__file__).resolve().parents[2] / "examples" / "random_bot.py", bot)
    spec = f"program:{sys.executable},args={bot}"
    assert str(bot) in agent_files(spec, "whist") and agent_files("rule", "whist") == {}
    assert agent_files("baseline", "whist")       # the shipped checkpoint
    kw = dict(split="dev", boards=1, out_dir=tmp_path / "lad", only_rungs=["random"], bootstrap=10,
              say=lambda _: None)
    run_ladder("whist", spec, **kw)
    bot.write_text(bot.read_text() + "\n# changed\n")
    with pytest.raises(MatchLogError, match="another match .it differs in files"):
        run_ladder("whist", spec, **kw)


def test_the_search_agent_plays_from_its_games_shipped_networks(tmp_path):
    """``search`` names no file, but plays from the shipped networks of its plan: the ladder's log keeps
    their hashes, and the agent plays a ladder like any other."""
    pytest.importorskip("torch")
    whist = agent_files("baseline", "whist")
    assert whist and agent_files("search", "whist") == whist
    assert agent_files("search:model=residual", "whist") == {**whist, **agent_files("residual", "whist")}
    # Vint's search: the network is the blueprint, the critic's network models the others
    vint = {**agent_files("baseline", "vint"), **agent_files("residual", "vint")}
    assert agent_files("search", "vint") == vint and "vint_env/baselines/vint.pt" in vint
    assert agent_files("search:blueprint=residual", "vint") == agent_files("residual", "vint")
    assert agent_files("search:blueprint=residual,model=baseline", "vint") == vint
    lad = run_ladder("whist", "search:samples=2,first_samples=1,candidates=4", split="dev", boards=1,
                     out_dir=tmp_path, only_rungs=["random"], bootstrap=10, say=lambda _: None)
    assert [(m.agent_a, m.agent_b) for m in lad.matches][-1][0].startswith("search")


def test_rungs_from_takes_a_match_only_while_its_players_play_from_the_same_files(tmp_path):
    """A retrained (re-shipped) baseline is another player: its matches in an older results file are played
    again, while the matches of players with no files (random, rule) are taken."""
    from vint_env.evaluation.bench_sets import set_name, sha256_of
    record = games.get("whist")
    base = {"format": ladder_mod.LADDER_FORMAT, "set": set_name(record, "dev"), "sha256": sha256_of(record, "dev"),
            "game": "whist", "env_options": {}, "seed": ladder_mod.MATCH_SEED}

    def match(a, b, files):
        return {"agent_a": a, "agent_b": b, "scores": [1, -2], "summary": {}, "command": "x", "files": files}
    shipped_now = ladder_mod.agent_files("baseline", record)
    assert shipped_now, "the shipped Whist baseline plays from its checkpoint"
    stale = {path: "0" * 64 for path in shipped_now}
    results = tmp_path / "old.json"
    results.write_text(json.dumps({**base, "matches": [match("random", "rule", {}), match("baseline", "random", stale),
                                                       match("rule", "baseline", {})]}))
    said = []
    taken = ladder_mod._cached_matches(results, record, {}, "dev", 2, said.append)
    assert set(taken) == {("random", "rule")}
    assert len(said) == 2 and all("not the ones they play from now" in s for s in said)
    results.write_text(json.dumps({**base, "matches": [match("baseline", "random", shipped_now)]}))
    assert set(ladder_mod._cached_matches(results, record, {}, "dev", 2, said.append)) == {("baseline", "random")}


def test_a_shipped_baselines_matches_are_kept_by_its_place_in_the_package_not_its_absolute_path(tmp_path):
    """A results file or log made in one checkout (or install) keys the shipped checkpoint by its place in
    the package, so another checkout with the same bytes takes the match (--rungs-from) and resumes the log;
    files written with the absolute path (before this) read the same."""
    pytest.importorskip("torch")
    from vint_env.evaluation.bench_sets import set_name, sha256_of
    record = games.get("whist")
    shipped_now = ladder_mod.agent_files("baseline", record)
    assert list(shipped_now) == ["vint_env/baselines/whist.pt"]
    elsewhere = {"/another/checkout/vint_env/baselines/whist.pt": shipped_now["vint_env/baselines/whist.pt"]}
    base = {"format": ladder_mod.LADDER_FORMAT, "set": set_name(record, "dev"), "sha256": sha256_of(record, "dev"),
            "game": "whist", "env_options": {}, "seed": ladder_mod.MATCH_SEED}
    results = tmp_path / "old.json"
    results.write_text(json.dumps({**base, "matches": [{"agent_a": "baseline", "agent_b": "random", "scores": [1, -2],
                                                        "summary": {}, "command": "x", "files": elsewhere}]}))
    assert set(ladder_mod._cached_matches(results, record, {}, "dev", 2, lambda _: None)) == {("baseline", "random")}
    kw = dict(split="dev", boards=1, out_dir=tmp_path / "lad", only_rungs=["random"], bootstrap=10, say=lambda _: None)
    run_ladder("whist", "baseline", **kw)
    log = next((tmp_path / "lad").rglob("*baseline*.jsonl"))
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["files"] == shipped_now
    header["files"] = elsewhere                              # as a log made in another checkout keeps it
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    run_ladder("whist", "baseline", **kw)                    # resumes: no "log of another match"
    header["files"] = {k: "0" * 64 for k in elsewhere}       # other bytes: another match
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(MatchLogError, match="another match .it differs in files"):
        run_ladder("whist", "baseline", **kw)
