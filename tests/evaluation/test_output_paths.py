"""Issue 23 item 2: no command writes an output over one of its inputs or over another output."""

from __future__ import annotations

import os

import pytest

from vint_env.evaluation.cli import main as eval_main
from vint_env.file_roles import OutputOverInputError, check_file_roles


@pytest.fixture
def boards(tmp_path):
    path = tmp_path / "boards.pbn"
    assert eval_main(["deals", "--boards", "2", "--out", str(path)]) == 0
    return path


def _match(*extra):
    return ["match", "--a", "rule", "--b", "random", "--workers", "1", "--no-progress", "--no-dd", *extra]


def test_match_out_over_the_deal_file_is_refused_and_the_deals_stay(boards, capsys):
    before = boards.read_bytes()
    assert eval_main(_match("--deals", str(boards), "--out", str(boards))) == 2
    assert "is the same file as --deals" in capsys.readouterr().err
    assert boards.read_bytes() == before


def test_match_out_over_the_deal_file_through_a_symlink_or_hard_link(boards, tmp_path, capsys):
    (tmp_path / "link.pbn").symlink_to(boards)
    os.link(boards, tmp_path / "hard.pbn")
    for alias in ("link.pbn", "hard.pbn"):
        assert eval_main(_match("--deals", str(tmp_path / alias), "--out", str(boards))) == 2
        assert "is the same file as --deals" in capsys.readouterr().err


def test_match_json_and_html_on_one_path_is_refused(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert eval_main(_match("--boards", "1", "--out", str(out), "--html", str(out))) == 2
    assert "--html" in capsys.readouterr().err and not out.exists()


def test_match_out_over_an_agents_checkpoint_is_refused(tmp_path, capsys):
    ckpt = tmp_path / "agent.json"
    ckpt.write_text("precious")
    assert eval_main(["match", "--a", f"network:{ckpt}", "--b", "random", "--workers", "1", "--out", str(ckpt)]) == 2
    assert "agent network:" in capsys.readouterr().err and ckpt.read_text() == "precious"


def _copy_baseline(folder):
    import shutil
    from vint_env.baselines import DIR
    folder.mkdir()
    for name in ("whist.pt", "whist.json"):
        shutil.copy(DIR / name, folder / name)
    return folder


def test_match_out_over_a_baseline_folders_checkpoint_is_refused(tmp_path, capsys):
    """Issue 31 item 5: ``--a baseline:DIR --out DIR/whist.pt`` wrote JSON over the checkpoint."""
    folder = _copy_baseline(tmp_path / "mine")
    before = (folder / "whist.pt").read_bytes()
    for out in ("whist.pt", "whist.json", "new.json"):
        assert eval_main(["match", "--game", "whist", "--a", f"baseline:{folder}", "--b", "random", "--boards", "2",
                          "--workers", "1", "--no-progress", "--out", str(folder / out)]) == 2
        assert "the folder agent baseline:" in capsys.readouterr().err
    assert (folder / "whist.pt").read_bytes() == before and sorted(p.name for p in folder.iterdir()) == \
        ["whist.json", "whist.pt"]
    # the shipped baselines are the folder of a plain `baseline` (and `residual`): no output lands there either
    from vint_env.baselines import DIR
    for spec in ("baseline", " residual"):
        assert eval_main(["match", "--game", "whist", "--a", spec, "--b", "random", "--boards", "1", "--workers", "1",
                          "--no-progress", "--html", str(DIR / "whist.pt")]) == 2
        assert "the folder agent" in capsys.readouterr().err


def test_html_over_a_bidders_checkpoint_is_refused(tmp_path, capsys):
    """Issue 31 item 5: ``--html b.pt`` with ``--a bidder:b.pt`` overwrote the bidder; the check reads the parsed
    spec, options and all."""
    ckpt = tmp_path / "b.pt"
    ckpt.write_text("precious")
    for spec in (f"bidder:{ckpt}", f"bidder:{ckpt},cards=rule", f" bidder:{ckpt},margin=5"):
        assert eval_main(["match", "--game", "vint", "--a", spec, "--b", "random", "--workers", "1",
                          "--html", str(ckpt)]) == 2
        assert "is the same file as agent bidder:" in capsys.readouterr().err
    assert ckpt.read_text() == "precious"
    picture = tmp_path / "b.png"
    picture.write_text("precious")
    assert eval_main(["video", "--game", "vint", "--b", f"bidder:{picture}", "--out", str(picture)]) == 2
    assert "is the same file as agent bidder:" in capsys.readouterr().err and picture.read_text() == "precious"


def test_view_html_over_its_results_is_refused(tmp_path, capsys):
    results = tmp_path / "r.json"
    assert eval_main(_match("--boards", "1", "--out", str(results))) == 0
    before = results.read_bytes()
    assert eval_main(["view", str(results), "--html", str(results)]) == 2
    assert "is the same file as results" in capsys.readouterr().err
    assert results.read_bytes() == before
    renamed = tmp_path / "r.html"                 # results named .html: the default page is the same file
    results.rename(renamed)
    assert eval_main(["view", str(renamed)]) == 2
    assert renamed.read_bytes() == before


def test_league_out_dir_holding_the_deals_as_league_json_is_refused(tmp_path, boards, capsys):
    deals = tmp_path / "league.json"
    boards.rename(deals)
    assert eval_main(["league", "--agents", "rule", "random", "--deals", str(deals), "--workers", "1",
                      "--out-dir", str(tmp_path)]) == 2
    assert "--out-dir (league.json)" in capsys.readouterr().err


def test_vint_train_overwrite_does_not_delete_the_config_it_reads(tmp_path, capsys):
    pytest.importorskip("torch")
    from vint_env.training.cli import main as train_main
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"x")
    config = run / "my.yaml"
    config.write_text(open("configs/smoke.yaml").read())
    assert train_main(["--config", str(config), "--run-dir", str(run), "--overwrite", "--no-progress"]) == 2
    assert "lies inside the run folder --overwrite deletes" in capsys.readouterr().err
    assert config.exists()


def test_distinct_paths_pass(tmp_path):
    check_file_roles({"--deals": tmp_path / "a"}, {"--out": tmp_path / "b", "--html": tmp_path / "c"})
    with pytest.raises(OutputOverInputError):
        check_file_roles({}, {"--out": tmp_path / "b", "--html": tmp_path / "sub" / ".." / "b"})


def test_video_out_over_the_deal_file_is_refused(boards, capsys):
    before = boards.read_bytes()
    gif = boards.with_suffix(".gif")
    boards.rename(gif)                               # a deal file that happens to be named .gif
    assert eval_main(["video", "--a", "rule", "--b", "random", "--board", "1", "--deals", str(gif),
                      "--out", str(gif)]) == 2
    assert "is the same file as --deals" in capsys.readouterr().err
    assert gif.read_bytes() == before


# ---------------------------------------------------------------- issue 49 item 11: a py: agent's module

BOT_SOURCE = ("import pathlib\n"
              "pathlib.Path(__file__).with_name('imported').write_text('yes')   # proves an import ran\n"
              "from vint_env.agents.base import RandomAgent\n"
              "def make(game):\n"
              "    return RandomAgent()\n")


@pytest.mark.parametrize("module, source", [("mybot", "mybot.py"), ("botpkg.inner", "botpkg/inner.py"),
                                            ("botpkg", "botpkg/__init__.py")])
def test_match_out_over_a_py_agents_module_is_refused_without_importing_it(tmp_path, monkeypatch, capsys,
                                                                           module, source):
    (tmp_path / "botpkg").mkdir()
    (tmp_path / "botpkg" / "__init__.py").write_text(BOT_SOURCE)
    (tmp_path / "botpkg" / "inner.py").write_text(BOT_SOURCE)
    (tmp_path / "mybot.py").write_text(BOT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert eval_main(["match", "--game", "whist", "--a", f"py:{module}:make", "--b", "random", "--workers", "1",
                      "--no-progress", "--boards", "1", "--out", source]) == 2
    err = capsys.readouterr().err
    assert f"is the same file as agent py:{module}:make (its module)" in err, err
    assert (tmp_path / source).read_text() == BOT_SOURCE
    assert not list(tmp_path.rglob("imported"))                  # found without running the module


def test_a_py_agent_writes_elsewhere_as_before(tmp_path, monkeypatch):
    (tmp_path / "mybot.py").write_text(BOT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert eval_main(["match", "--game", "whist", "--a", "py:mybot:make", "--b", "random", "--workers", "1",
                      "--no-progress", "--no-dd", "--boards", "1", "--out", "result.json"]) == 0
    assert (tmp_path / "result.json").exists() and (tmp_path / "mybot.py").read_text() == BOT_SOURCE


def test_module_file_finds_no_file_for_what_has_none():
    from vint_env.agents.spec import module_file
    assert module_file("sys") is None and module_file("no_such_module_here") is None
    assert module_file("not a name") is None and module_file("json.no_such") is None
    assert module_file("json.decoder").name == "decoder.py"
