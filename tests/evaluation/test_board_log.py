"""A match logged board by board: resumed where it stopped, the same boards as one uninterrupted match."""

import json
from pathlib import Path

import pytest

from vint_env.evaluation import generate_boards, run_match, summarize
from vint_env.evaluation.board_log import MatchLogError, load_log, play_logged
from vint_env.evaluation import resumable_match

BOARDS = generate_boards(6, seed=9)
WHERE = {"deal_seed": 9}


def _scores(logged):
    return [e["score"] for e in logged.entries]


def test_a_stopped_match_resumes_and_equals_one_match(tmp_path):
    log = tmp_path / "m.jsonl"
    whole = run_match("whist", "rule", "random", BOARDS, seed=3, analysis=False)
    first = play_logged(log, "whist", "rule", "random", BOARDS[:2], seed=3, header_extra=WHERE)
    assert [e["board"] for e in first.entries] == [1, 2]
    played = []
    rest = play_logged(log, "whist", "rule", "random", BOARDS, seed=3, header_extra=WHERE, chunk_size=2,
                       piece_info=lambda: played.append(1) or {"n": len(played)})
    assert played == [1, 1]                       # boards 3-6 only, in two chunks
    assert _scores(rest) == whole.scores
    assert summarize(rest.result)["margin_per_board"] == summarize(whole)["margin_per_board"]
    assert [p["info"] for p in rest.pieces if "info" in p] == [{"n": 1}, {"n": 2}]
    # a third call plays nothing and gives the boards asked for
    again = play_logged(log, "whist", "rule", "random", BOARDS[:4], seed=3, header_extra=WHERE,
                        piece_info=lambda: pytest.fail("nothing to play"))
    assert _scores(again) == whole.scores[:4]


def test_a_line_cut_by_a_stop_is_played_again(tmp_path):
    log = tmp_path / "m.jsonl"
    play_logged(log, "whist", "rule", "random", BOARDS[:3], seed=0, header_extra=WHERE, chunk_size=1)
    lines = log.read_text().splitlines(keepends=True)
    third = next(i for i, line in enumerate(lines) if json.loads(line).get("board") == 3)
    log.write_text("".join(lines[:third]) + lines[third][:50])      # board 3's line cut short
    logged = play_logged(log, "whist", "rule", "random", BOARDS[:3], seed=0, header_extra=WHERE)
    assert [e["board"] for e in logged.entries] == [1, 2, 3]
    assert all(line.endswith("\n") for line in log.read_text().splitlines(keepends=True))


@pytest.mark.parametrize("change, named", [
    ({"agent_b": "rule"}, "agent_b"), ({"seed": 4}, "seed"), ({"header_extra": {"deal_seed": 8}}, "deal_seed"),
    ({"env_options": {"passout": "play"}}, "env_options"),
])
def test_the_log_of_another_match_is_refused(tmp_path, change, named):
    log = tmp_path / "m.jsonl"
    args = {"agent_b": "random", "seed": 0, "header_extra": WHERE, "env_options": None}
    game = "vint2p" if "env_options" in change else "whist"
    play_logged(log, game, "rule", args["agent_b"], BOARDS[:1], seed=0, header_extra=WHERE)
    args.update(change)
    with pytest.raises(MatchLogError, match=f"another match .it differs in {named}"):
        play_logged(log, game, "rule", args["agent_b"], BOARDS[:2], seed=args["seed"],
                    header_extra=args["header_extra"], env_options=args["env_options"])


def test_not_a_log(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"summary": {}}\n')
    with pytest.raises(MatchLogError, match="is not a match log"):
        load_log(bad)


def test_a_resumable_match_logs_and_summarises(tmp_path, capsys):
    log = tmp_path / "p.jsonl"
    resumable_match.main(["--game", "whist", "--a", "rule", "--b", "random", "--boards", "3", "--piece", "2",
                       "--deal-seed", "9", "--log", str(log)])
    result, stats = resumable_match.load(log)
    assert [b.number for b in result.boards] == [1, 2, 3]
    assert result.scores == run_match("whist", "rule", "random", generate_boards(3, seed=9), analysis=False,
                                      seed=0).scores
    assert stats["decisions"] == 0               # no PIMC agent here
    pimc_log = tmp_path / "pimc.jsonl"
    resumable_match.main(["--game", "whist", "--a", "pimc:samples=2", "--b", "random", "--boards", "1",
                       "--deal-seed", "9", "--log", str(pimc_log)])
    _, stats = resumable_match.load(pimc_log)
    assert stats["decisions"] == 52               # its two seats at each of two tables: 2 x 2 x 13 cards
    resumable_match.main(["--log", str(log), "--summary"])
    assert "rule (A) vs random (B): whist" in capsys.readouterr().out
    two = tmp_path / "two.jsonl"                  # two processes play the same boards, logged alike
    resumable_match.main(["--game", "whist", "--a", "rule", "--b", "random", "--boards", "3", "--piece", "2",
                          "--deal-seed", "9", "--workers", "2", "--log", str(two)])
    assert resumable_match.load(two)[0].scores == result.scores
    with pytest.raises(SystemExit):
        resumable_match.main(["--game", "whist", "--boards", "3", "--workers", "0", "--log", str(two)])
    assert "--workers" in capsys.readouterr().err


def test_a_resumable_match_of_a_changed_agent_is_another_match(tmp_path):
    """The log keeps the SHA-256 of the files each side plays from: a program changed there is refused."""
    import shutil
    import sys
    bot = tmp_path / "bot.py"
    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "random_bot.py", bot)
    log = tmp_path / "m.jsonl"
    argv = ["--game", "whist", "--a", f"program:{sys.executable},args={bot}", "--b", "rule", "--boards", "1",
            "--log", str(log)]
    resumable_match.main(argv)
    assert str(bot) in load_log(log).header["files"]
    resumable_match.main(argv[:-4] + ["--boards", "2", "--log", str(log)])       # the same files: resumed
    assert len(load_log(log).entries) == 2
    bot.write_text(bot.read_text() + "\n# changed\n")
    with pytest.raises(MatchLogError, match="differs in files"):
        resumable_match.main(argv)
