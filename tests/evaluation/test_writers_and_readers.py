"""Issue 31 items 7, 8, 11, 12, 13, 14: every writer goes through the atomic writer (no fixed temporary name, no link
followed), every reader takes a regular file of bounded size, and messages quote bounded excerpts."""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

import numpy as np
import pytest

from vint_env.cards import DeckError
from vint_env.evaluation.cli import main as eval_main
from vint_env.evaluation.deals import generate_boards, load_boards, save_boards
from vint_env.evaluation.report import write_json, write_text

OLD_TEMPORARIES = ("{name}.tmp", "{stem}.tmp.png")          # the fixed names the writers used before


@contextmanager
def no_hang(seconds: float = 30):
    """Fail instead of hanging (a FIFO opened for reading waits for a writer for ever)."""
    def on_alarm(signum, frame):
        raise AssertionError(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _plant_links(out, victim):
    """Links at every fixed temporary name of ``out`` pointing at ``victim``: what an attacker (or an old
    run) leaves in a shared folder."""
    links = []
    for pattern in OLD_TEMPORARIES:
        link = out.parent / pattern.format(name=out.name, stem=out.stem)
        if not link.is_symlink():
            link.symlink_to(victim)
            links.append(link)
    return links


def _check_untouched(out, victim, links):
    assert victim.read_text() == "precious"
    for link in links:
        assert link.is_symlink() and os.readlink(link) == str(victim)
    assert out.is_file() and not out.is_symlink()
    assert sorted(p.name for p in out.parent.iterdir()) == sorted([out.name, victim.name] + [p.name for p in links])


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "victim.txt"
    path.write_text("precious")
    return path


def test_match_out_never_writes_through_a_link_at_a_temporary_name(tmp_path, victim):
    """`vint-eval match --out out.json` with a link out.json.tmp -> victim.txt overwrote victim.txt."""
    out = tmp_path / "out.json"
    links = _plant_links(out, victim) + _plant_links(tmp_path / "out.md", victim) + \
        _plant_links(tmp_path / "page.html", victim)
    assert eval_main(["match", "--a", "rule", "--b", "random", "--boards", "1", "--workers", "1", "--no-progress",
                      "--no-dd", "--out", str(out), "--html", str(tmp_path / "page.html")]) == 0
    assert victim.read_text() == "precious" and out.is_file() and not out.is_symlink()
    assert all(link.is_symlink() for link in links)


def test_deals_out_leaves_the_users_own_temporary_file_alone(tmp_path):
    """`vint-eval deals --out keep.pbn` deleted the user's own keep.pbn.tmp."""
    mine = tmp_path / "keep.pbn.tmp"
    mine.write_text("my notes")
    assert eval_main(["deals", "--boards", "3", "--out", str(tmp_path / "keep.pbn")]) == 0
    assert mine.read_text() == "my notes" and len(load_boards(tmp_path / "keep.pbn")) == 3


@pytest.mark.parametrize("writer, name", [
    (lambda p: write_text(p, "text"), "r.md"),
    (lambda p: write_json(p, {"a": 1}), "r.json"),
    (lambda p: save_boards(generate_boards(2), p), "b.pbn"),
])
def test_each_writer_is_atomic_and_follows_no_link(tmp_path, victim, writer, name):
    out = tmp_path / name
    links = _plant_links(out, victim)
    writer(out)
    _check_untouched(out, victim, links)
    assert (out.stat().st_mode & 0o777) == 0o644


def test_pictures_and_league_charts_follow_no_link(tmp_path, victim):
    pytest.importorskip("PIL")
    from vint_env.envs.picture import save_gif
    from vint_env.evaluation.video import write_video
    frames = [np.zeros((4, 4, 3), dtype=np.uint8), np.full((4, 4, 3), 255, dtype=np.uint8)]
    for out, write in ((tmp_path / "a.gif", lambda p: save_gif(frames, p)),
                       (tmp_path / "b.png", lambda p: write_video(p, frames, 2.0))):
        links = _plant_links(out, victim)
        write(out)
        assert victim.read_text() == "precious" and out.read_bytes()[:3] in (b"GIF", b"\x89PN")
        assert all(link.is_symlink() for link in links)
    pytest.importorskip("matplotlib")
    pytest.importorskip("openskill")
    from vint_env.evaluation.league import run_league, write_league
    league = run_league("whist", ["random", "rule"], generate_boards(2), seed=0)
    folder = tmp_path / "league"
    folder.mkdir()
    links = _plant_links(folder / "league.png", victim) + _plant_links(folder / "league.md", victim)
    write_league(league, folder)
    assert victim.read_text() == "precious" and all(link.is_symlink() for link in links)


# ---------------------------------------------------------------- readers: regular files, bounded
def test_a_device_or_a_fifo_as_deals_is_refused_by_name(tmp_path, capsys):
    """`--deals /dev/zero` reached 7.5 GB of memory in 8 s; a FIFO as `--deals` hung."""
    fifo = tmp_path / "deals.pbn"
    os.mkfifo(fifo)
    with no_hang():
        for path, words in (("/dev/zero", "is a device, not a regular file"), (fifo, "is a FIFO"),
                            (tmp_path, "is a folder")):
            with pytest.raises(DeckError, match=words):
                load_boards(path)
            assert eval_main(["match", "--a", "rule", "--b", "random", "--deals", str(path), "--workers", "1"]) == 2
            assert words in capsys.readouterr().err


def test_a_fifo_with_a_writer_is_still_refused(tmp_path):
    fifo = tmp_path / "deals.pbn"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "w").write("x" * 100), daemon=True)
    writer.start()
    with no_hang(), pytest.raises(DeckError, match="FIFO"):
        load_boards(fifo)


def test_an_oversized_deal_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from vint_env.evaluation import deals
    path = tmp_path / "big.pbn"
    save_boards(generate_boards(20), path)
    monkeypatch.setattr(deals, "MAX_DEALS_BYTES", 100)
    with pytest.raises(DeckError, match="larger than 100 bytes"):
        load_boards(path)


def test_a_long_line_is_quoted_as_an_excerpt(tmp_path):
    """A PBN with a 5 MB line gave a 10 MB error message."""
    path = tmp_path / "long.pbn"
    path.write_text('[Board "1"]\n[Dealer "N"]\n[Deal "N:' + "A" * 5_000_000 + '"]\n')
    with pytest.raises(DeckError) as info:
        load_boards(path)
    assert len(str(info.value)) < 1000 and "(5000002 characters)" in str(info.value)
    path.write_text("x" * 5_000_000 + "\n")
    with pytest.raises(DeckError) as info:
        load_boards(path)
    assert len(str(info.value)) < 1000


def test_checkpoints_and_configs_that_are_not_files_are_named_as_such(tmp_path):
    """`network:/dev/zero` and `--config /dev/zero` said the file "does not exist"."""
    torch = pytest.importorskip("torch")  # noqa: F841
    from vint_env.agents import load_agent
    from vint_env.agents.learned.policy import CheckpointError
    from vint_env.training.config import ConfigError, load_config
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with no_hang():
        for path, words in (("/dev/zero", "is a device, not a regular file"), (fifo, "is a FIFO"),
                            (tmp_path, "is a folder")):
            with pytest.raises(CheckpointError, match=words):
                load_agent(f"network:{path}", game="whist")
            with pytest.raises(ConfigError, match=words):
                load_config(path)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(f"network:{tmp_path / 'none.pt'}", game="whist")


def test_a_key_given_twice_in_a_config_is_refused(tmp_path):
    """YAML keeps the last of two equal keys silently; a config refuses them, naming the key and lines."""
    from vint_env.training.config import ConfigError, load_config
    path = tmp_path / "twice.yaml"
    path.write_text("name: a\nseed: 1\nname: b\n")
    with pytest.raises(ConfigError, match=r"key 'name' is given twice \(lines 1 and 3\)"):
        load_config(path)
    path.write_text("ppo:\n  learning_rate: 0.001\n  learning_rate: 0.002\n")
    with pytest.raises(ConfigError, match="key 'learning_rate' is given twice"):
        load_config(path)
    with pytest.raises(ConfigError, match="key 'self' is given twice"):
        load_config(None, ["opponent_mix={self: 0.5, self: 0.5}"])


# ---------------------------------------------------------------- video: bounded options, only the board played
@pytest.mark.parametrize("fps, words", [("1e-300", "from 0.1 to 50"), ("nan", "a finite number"), ("inf", "a finite number"),
                                        ("0", "from 0.1 to 50"), ("1e9", "from 0.1 to 50"), ("x", "expected a number from 0.1 to 50")])
def test_video_fps_out_of_range_is_a_usage_error(tmp_path, capsys, fps, words):
    with pytest.raises(SystemExit) as info:
        eval_main(["video", "--fps", fps, "--out", str(tmp_path / "v.gif")])
    assert info.value.code == 2 and words in capsys.readouterr().err and not (tmp_path / "v.gif").exists()


def test_video_deals_only_the_board_it_plays(tmp_path, monkeypatch):
    """`--board 100000000` generated a hundred million boards first."""
    pytest.importorskip("PIL")
    from vint_env.evaluation import cli, deals
    monkeypatch.setattr(deals, "generate_boards", None)       # never called
    monkeypatch.setattr(cli, "generate_boards", None)
    out = tmp_path / "v.png"
    assert eval_main(["video", "--game", "whist", "--board", "100000000", "--out", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(SystemExit):
        eval_main(["video", "--board", "9" * 5000, "--out", str(out)])
    with pytest.raises(SystemExit):
        eval_main(["deals", "--boards", "100000000000000000000", "--out", str(tmp_path / "d.pbn")])


@pytest.mark.parametrize("game, table, tables", [("whist", "3", 2), ("solo_whist", "5", 4), ("vint2p", "3", 2)])
def test_video_table_out_of_range_names_the_one_based_range(tmp_path, capsys, game, table, tables):
    """issue 49: `--table 3` (1-based) was refused as 'table must be 0..1, got 2'."""
    out = tmp_path / "v.gif"
    assert eval_main(["video", "--game", game, "--table", table, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--table {table}: a board of {game} is played at tables 1 to {tables}" in err, err
    assert "0.." not in err and not out.exists()
