"""`vint-eval` and `vint-train` on bad input and interruptions: clear errors, distinct output files,
a prompt clean stop on Ctrl-C, readable league charts."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from card_game_checks import ONE_SUIT_EACH as DEAL
from vint_env.cards import DeckError
from vint_env.evaluation import generate_boards
from vint_env.evaluation.cli import main as cli_main
from vint_env.evaluation.cli import output_paths
from vint_env.evaluation.deals import boards_to_pbn, load_boards, parse_boards

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------ --out

@pytest.mark.parametrize("out, expected", [
    ("r.md", ("r.json", "r.md")), ("r.json", ("r.json", "r.md")), ("r", ("r.json", "r.md")),
    ("r.txt", ("r.txt", "r.md")),
])
def test_output_paths_are_distinct(out, expected):
    assert tuple(p.name for p in output_paths(Path(out))) == expected


def test_out_md_writes_json_and_markdown_separately(tmp_path, capsys):
    out = tmp_path / "report.md"
    assert cli_main(["match", "--a", "rule", "--b", "random", "--boards", "2", "--workers", "1",
                     "--no-progress", "--no-dd", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {tmp_path / 'report.json'} and {out}" in printed
    assert json.loads((tmp_path / "report.json").read_text())["summary"]["boards"] == 2
    assert out.read_text().startswith("## rule (A) vs random (B)")


def test_results_folder_is_ignored_by_git():
    lines = (ROOT / ".gitignore").read_text().split()
    assert "results/" in lines


# ------------------------------------------------------------ --boards, --deals

@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_boards_must_be_a_positive_integer(value, capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main(["match", "--a", "rule", "--b", "random", "--boards", value, "--workers", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--boards" in err and "positive integer" in err and "Traceback" not in err


def test_deals_that_is_a_folder_is_a_clear_error(tmp_path, capsys):
    assert cli_main(["match", "--a", "rule", "--b", "random", "--deals", str(tmp_path), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and str(tmp_path) in err


def test_uncreatable_out_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert cli_main(["match", "--a", "rule", "--b", "random", "--boards", "1", "--workers", "1", "--no-dd",
                     "--no-progress", "--out", str(tmp_path / "file" / "r.json")]) == 2
    assert "vint-eval: error:" in capsys.readouterr().err


def test_pbn_with_a_utf8_byte_order_mark_is_read(tmp_path):
    boards = generate_boards(2, seed=3)
    path = tmp_path / "bom.pbn"
    path.write_bytes(b"\xef\xbb\xbf" + boards_to_pbn(boards).encode())
    assert load_boards(path) == boards
    assert parse_boards("\ufeff" + boards_to_pbn(boards)) == boards


def test_a_second_deal_tag_in_one_board_is_refused_naming_the_board():
    text = f'[Board "7"]\n[Dealer "N"]\n[Deal "{DEAL}"]\n[Deal "{DEAL}"]\n'
    with pytest.raises(DeckError, match=r"board 7 has a second \[Deal"):
        parse_boards(text, source="x.pbn")


def test_a_human_in_a_multi_process_match_is_refused_with_the_way_out(capsys):
    assert cli_main(["match", "--a", "human", "--b", "rule", "--boards", "1", "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert "--workers 1" in err and "vint-play" in err


# ------------------------------------------------------------ vint-train --run-dir

def test_uncreatable_run_dir_is_a_clear_error(tmp_path, capsys):
    pytest.importorskip("torch")
    from vint_env.training.cli import main as train_main
    (tmp_path / "file").write_text("x")
    run_dir = tmp_path / "file" / "run"
    assert train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--run-dir", str(run_dir),
                       "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "cannot create the run folder" in err and str(run_dir) in err and "Traceback" not in err


# ------------------------------------------------------------ league chart

def test_league_chart_writes_light_text_on_dark_cells(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import colormaps
    from matplotlib.axes import Axes

    from vint_env.evaluation.league import League, league_chart, text_color
    from vint_env.evaluation.match import MatchResult

    cmap = colormaps["RdBu"]
    assert text_color(cmap(0.0)) == "white" and text_color(cmap(1.0)) == "white"
    assert text_color(cmap(0.5)) == "black"

    class _Board:
        def __init__(self, score):
            self.score = score

    # a beats b by 100 per board, b beats c by 5: the a/b cells are the dark ends of the map
    matches = [MatchResult("vint", x, y, "deal", 0, [_Board(s)] * 4, 1.0, 1.0, 1)
               for x, y, s in (("a", "b", 100.0), ("a", "c", 100.0), ("b", "c", 5.0))]
    ratings = {n: {"mu": mu, "sigma": 1.0} for n, mu in (("a", 30), ("b", 25), ("c", 20))}
    colours = {}
    real_text = Axes.text

    def spy(self, x, y, s, *args, **kwargs):
        colours[s] = kwargs.get("color")
        return real_text(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(Axes, "text", spy)
    league_chart(League("vint", ["a", "b", "c"], matches, ratings), tmp_path / "league.png")
    assert colours["100"] == "white" and colours["-100"] == "white"
    assert colours["5"] == "black" and colours["-5"] == "black"
    assert (tmp_path / "league.png").stat().st_size > 5000


# ------------------------------------------------------------ Ctrl-C

@pytest.mark.signals
def test_ctrl_c_stops_a_two_worker_match_promptly_and_writes_nothing(tmp_path):
    """Ctrl-C reaches the whole process group: the workers ignore it, the parent stops the pool at
    once, says that nothing was written, and prints no traceback."""
    out = tmp_path / "m.json"
    proc = subprocess.Popen([sys.executable, "-m", "vint_env.evaluation.cli", "match", "--a", "rule", "--b",
                             "random", "--boards", "3000", "--workers", "2", "--no-dd", "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    err: list[str] = []

    def read():
        while chunk := proc.stderr.read1(4096):
            err.append(chunk.decode(errors="replace"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 180
        while not re.search(r"\b[1-9]\d*/3000", "".join(err)):      # the workers have played boards
            assert proc.poll() is None, "".join(err)
            assert time.monotonic() < deadline, "no progress: " + "".join(err)
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)                          # what Ctrl-C does
        stopped = time.monotonic()
        assert proc.wait(timeout=30) == 130
        assert time.monotonic() - stopped < 15
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(5)
    text = "".join(err)
    assert "interrupted; nothing was written" in text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert not out.exists() and not list(tmp_path.iterdir())


def test_vint_eval_agents_lists_every_kind_with_its_options(capsys):
    from vint_env.agents.spec import KINDS
    assert cli_main(["agents"]) == 0
    text = capsys.readouterr().out
    for declared in KINDS.values():
        assert f"\n{declared.usage()}\n" in text
        for o in declared.options:
            assert f"    {o.name}: {o.doc}" in text.replace("\n      ", " ")
    assert "samples: deals sampled and solved per decision (a positive integer (at most 1000); default 12)" in text
