"""Bots in any language: agent spec program:PATH, a program that plays over stdin/stdout in JSON lines."""

import json
import os
import pathlib
import sys
import time

import pytest

from vint_env import games
from vint_env.agents import load_agent
from vint_env.agents.spec import AgentSpecError
from vint_env.agents.program import (BotCrashed, BotIllegalAction, BotProtocolError, BotSpecError, BotTimeout,
                                     hello, observation_blocks)
from vint_env.evaluation import generate_boards, run_match
from vint_env.evaluation.cli import main as cli_main

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLE = ROOT / "examples" / "random_bot.py"
BAD = HERE / "misbehaving_bot.py"


def bot(mode: str, piddir, after: int = 1, **options) -> str:
    """The spec of the misbehaving bot in ``mode`` (run by this Python: no executable bit needed)."""
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return f"program:{sys.executable},args={BAD} {mode} {piddir} {after}{extra}"


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting for a parent that is not us counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def assert_none_left(piddir, started: int) -> None:
    pids = [int(p.stem) for p in pathlib.Path(piddir).glob("*.pid")]
    assert len(pids) >= started
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], "a bot's process outlived the match"


BOARDS = generate_boards(2, seed=4)


def test_the_example_bot_plays_every_game_and_its_matches_repeat():
    spec = f"program:{sys.executable},args={EXAMPLE}"
    for game in games.names():
        result = run_match(game, spec, "random", BOARDS[:1], seed=1, analysis=False)
        assert all(sum(t.decisions) > 0 for t in result.boards[0].tables)
    first = run_match("whist", spec, "random", BOARDS, seed=1, analysis=False)
    assert first.scores == run_match("whist", spec, "random", BOARDS, seed=1, analysis=False).scores


def test_the_example_runs_as_an_executable_file():
    if not os.access(EXAMPLE, os.X_OK):
        pytest.skip("the checkout dropped the example's executable bit")
    result = run_match("whist", f"program:{EXAMPLE}", "rule", BOARDS[:1], analysis=False)
    assert len(result.boards) == 1


def test_hello_names_every_action_and_block_and_observations_are_those_blocks():
    record = games.get("vint")
    h = hello(record)
    assert h["protocol"] == "vint-env-bot/1" and len(h["actions"]) == record.num_actions == h["num_actions"]
    assert [b["name"] for b in h["blocks"]] == list(record.layout.blocks)
    env = record.env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    blocks = observation_blocks(record, obs["observation"])
    assert list(blocks) == list(record.layout.blocks)
    assert json.loads(json.dumps(blocks))["hand"] == blocks["hand"]
    assert sum(blocks["hand"]) == 13 and all(isinstance(x, int) for x in blocks["hand"])


@pytest.mark.parametrize("mode, error, message, workers", [
    ("slow", BotTimeout, r"gave no answer within 0.5 s \(the action of player_\d\)", 1),
    ("illegal", BotIllegalAction, r"answered action \d+ \(\w+\), which is not legal now for player_\d; legal: ", 1),
    ("malformed", BotProtocolError, r"wrote 'this is not json' for the action of player_\d: not a line of JSON", 1),
    ("crash", BotCrashed, r"ended with exit code 3 before the action of player_\d", 1),
    ("child", BotTimeout, r"gave no answer within 0.5 s", 1),
    # issue 49 item 7: lines Python's json refuses with another error than JSONDecodeError
    ("digits", BotProtocolError, r"^bot .*misbehaving_bot.py digits .*: wrote '\{\"action\": 10000.*\.\.\.' for the "
                                 r"action of player_\d: not a line of JSON this harness reads \(ValueError: Exceeds", 1),
    ("nested", BotProtocolError, r"^bot .*misbehaving_bot.py nested .*: wrote '\{\"action\": \[\[\[.*\.\.\.' for the "
                                 r"action of player_\d: not a line of JSON this harness reads \(RecursionError", 1),
    # in worker processes: the error comes back to this one, and the other worker, killed, takes its bot along
    ("crash", BotCrashed, r"ended with exit code 3 before the action of player_\d", 2),
    ("child", BotTimeout, r"gave no answer within 0.5 s", 2),
])
def test_a_bot_that_breaks_the_protocol_stops_the_match_and_leaves_no_process(tmp_path, mode, error, message,
                                                                              workers):
    # a time limit short enough to wait out for the bots that sleep (at their first decision: no answer has to
    # beat it), and far above any answer's time for the others (they misbehave at their third)
    sleeps = mode in ("slow", "child")
    spec = bot(mode, tmp_path, after=1 if sleeps else 3, time=0.5 if sleeps else 10)
    with pytest.raises(error, match=message):
        run_match("whist", spec, "rule", generate_boards(4, seed=1), analysis=False, workers=workers)
    assert_none_left(tmp_path, started=2 if mode == "child" else 1)


def test_a_bot_that_never_greets_is_a_timeout(tmp_path):
    # (start=5: time for two Pythons to start on a busy machine, so that the bot has written its pid)
    with pytest.raises(BotTimeout, match=r"gave no answer within 5 s \(its answer to hello\)"):
        run_match("whist", bot("mute", tmp_path, start=5), "rule", BOARDS[:1], analysis=False)
    assert_none_left(tmp_path, started=1)


def test_a_match_that_ends_well_leaves_no_process(tmp_path):
    result = run_match("vint2p", bot("good", tmp_path), "rule", BOARDS, analysis=False)
    assert len(result.boards) == 2
    assert_none_left(tmp_path, started=2)          # one process a player


@pytest.mark.parametrize("end", ["match ends", "bot fails"])
def test_a_helper_that_left_the_bots_process_session_ends_with_the_match(tmp_path, end):
    # issue 49 item 8: a daemon's double fork and setsid took a helper out of the bot's process group
    if not sys.platform.startswith("linux"):
        pytest.skip("the guard finds processes outside its group through Linux's /proc and subreaper")
    if end == "match ends":
        run_match("whist", bot("daemon", tmp_path), "rule", BOARDS[:1], analysis=False)
    else:
        with pytest.raises(BotIllegalAction):     # the bot breaks the protocol after daemonising
            run_match("whist", bot("daemon+illegal", tmp_path, after=3), "rule", BOARDS[:1], analysis=False)
    assert_none_left(tmp_path, started=2)


def test_bad_specs_name_what_is_wrong(tmp_path):
    with pytest.raises(BotSpecError, match="no such file"):
        load_agent(f"program:{tmp_path / 'nothing'}", game="whist")
    (tmp_path / "plain.txt").write_text("")
    with pytest.raises(BotSpecError, match="not executable"):
        load_agent(f"program:{tmp_path / 'plain.txt'}", game="whist")
    with pytest.raises(AgentSpecError, match="time"):
        load_agent(f"program:{sys.executable},time=0", game="whist")
    with pytest.raises(AgentSpecError, match="PATH"):
        load_agent("program:", game="whist")
    with pytest.raises(AgentSpecError, match="depth"):
        load_agent(f"program:{sys.executable},depth=3", game="whist")


@pytest.mark.parametrize("args, why", [('"a b', "no closing quotation"), ("'x", "no closing quotation"),
                                       ("a\\", "no escaped character")])
def test_args_whose_quoting_does_not_close_are_a_spec_error_naming_the_spec(args, why):
    # issue 49 item 10: a bare ValueError from shlex before
    spec = f"program:{sys.executable},args={args}"
    with pytest.raises(AgentSpecError, match="agent spec ['\"].*args=.*['\"]: program option args must be "
                                             f"blank-separated words in shell quoting, got .*: {why}"):
        load_agent(spec, game="whist")
    code = cli_main(["match", "--game", "whist", "--a", spec, "--b", "rule", "--boards", "1", "--no-progress"])
    assert code == 2


def test_vint_eval_says_which_bot_failed_and_exits_1(tmp_path, capsys):
    code = cli_main(["match", "--game", "whist", "--a", bot("illegal", tmp_path), "--b", "rule", "--boards", "2",
                     "--workers", "1", "--no-progress", "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 1 and "vint-eval: error: BotIllegalAction: bot " in err and "nothing was written" in err
    assert not (tmp_path / "m.json").exists()
    assert_none_left(tmp_path, started=1)


def test_a_bot_that_writes_unreadable_json_in_a_ladder_is_a_named_protocol_error(tmp_path, capsys):
    out = tmp_path / "out"
    code = cli_main(["ladder", "--game", "whist", "--agent", bot("nested", tmp_path, after=2), "--set", "dev",
                     "--boards", "2", "--rungs", "random", "--workers", "1", "--no-progress", "--bootstrap", "10",
                     "--out-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "BotProtocolError: bot " in err and "misbehaving_bot.py nested" in err, err
    assert "RecursionError" in err and "Traceback" not in err
    assert_none_left(tmp_path, started=1)


@pytest.mark.parametrize("answer, message", [
    (b'{"action": -1}', r"answered action '-1', which is no action of whist \(0 to 51\)"),
    (b'{"action": 1' + b"0" * 4000 + b"}", r"answered action 'an integer of about 4001 digits', which is no action"),
    (b'{"action": 1.5}', r"answered '\{\"action\": 1.5\}': expected \{\"action\": ID\} with an integer ID"),
    (b"[" * 70_000, r"wrote a line longer than 65536 bytes"),
    (b"\xff\xfe", r"not a line of JSON \(not UTF-8\)"),
])
def test_every_malformed_answer_is_a_protocol_error_naming_the_bot(tmp_path, answer, message):
    script = tmp_path / "answers.py"
    script.write_text("import sys, json\n"
                      "for line in sys.stdin.buffer:\n"
                      "    m = json.loads(line)\n"
                      "    if m['type'] == 'hello': sys.stdout.buffer.write(b'{\"type\": \"ready\", \"name\": \"fixed\"}\\n')\n"
                      f"    elif m['type'] == 'act': sys.stdout.buffer.write({answer!r} + b'\\n')\n"
                      "    else: continue\n"
                      "    sys.stdout.buffer.flush()\n")
    with pytest.raises((BotProtocolError, BotIllegalAction), match=r"^bot .*answers.py \(fixed\): .*" + message):
        run_match("whist", f"program:{sys.executable},args={script}", "rule", BOARDS[:1], analysis=False)


def test_a_bot_climbs_the_ladder(tmp_path, capsys):
    spec = f"program:{sys.executable},args={EXAMPLE}"
    assert cli_main(["ladder", "--game", "whist", "--agent", spec, "--set", "dev", "--boards", "2", "--rungs",
                     "random", "rule", "--workers", "1", "--no-progress", "--bootstrap", "10",
                     "--out-dir", str(tmp_path)]) == 0
    assert spec in capsys.readouterr().out
    assert len(list(tmp_path.glob("ladder_program*.json"))) == 1


def test_vint_serve_never_runs_a_program_from_a_request(tmp_path):
    pytest.importorskip("starlette", reason="vint-serve needs the serve extra")
    pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the test extra)")
    from starlette.testclient import TestClient
    from vint_env.serve.app import create_app
    with TestClient(create_app(), base_url="http://127.0.0.1:8000", raise_server_exceptions=False) as client:
        assert not [s for s in client.get("/api/games").json()["agents"] if s.startswith("program")]
        for field, spec in (("opponents", bot("good", tmp_path)), ("partner", f"  program:{EXAMPLE}"),
                            ("opponents", f"program :{EXAMPLE}")):
            r = client.post("/api/tables", json={"game": "whist", field: spec})
            assert r.status_code == 403 and "'program' is not served to web requests" in r.json()["error"], r.text
    assert not list(tmp_path.glob("*.pid"))            # nothing was started


def test_a_stored_training_config_never_decides_to_run_a_program():
    """vint-train --resume uses a stored config's code-running specs only when the user names them too."""
    from vint_env.training.config import code_specs, config_from_dict
    cfg = config_from_dict({"game": "whist_v0", "teacher": " program:/bin/bot", "total_timesteps": 1,
                            "eval_opponents": ["rule", "program:/x,time=1"]})
    assert code_specs(cfg) == {"teacher": "program:/bin/bot", "eval_opponents": "program:/x,time=1.0"}
