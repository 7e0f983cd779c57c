"""The benchmark's frozen board sets: what is shipped is what the seeds make, checked by SHA-256."""

import hashlib
import subprocess
from pathlib import Path

import pytest

from vint_env import games
from vint_env.evaluation import bench_sets
from vint_env.evaluation.bench_sets import (SPLITS, SUMS, BenchSetError, bench_boards, bench_path, bench_seed,
                                            bench_seeds, frozen_set_of, frozen_sums, sha256_of, write_sets)
from vint_env.evaluation.deals import generate_boards

ROOT = Path(__file__).resolve().parents[2]


SETS = [(g, s) for g in games.names() for s in SPLITS]


def test_every_game_has_a_test_and_a_dev_set():
    assert set(frozen_sums()) == set(SETS)


def test_the_shipped_files_are_what_the_writer_makes(tmp_path):
    """Written again from the seeds, every file and SHA256SUMS come out byte for byte as shipped."""
    write_sets(tmp_path)
    for path in sorted(bench_path("vint", "test").parent.iterdir()):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize("game, split", SETS)
def test_the_shipped_file_is_its_seeds_boards_with_the_frozen_hash(game, split):
    raw = bench_path(game, split).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == sha256_of(game, split)
    boards = bench_boards(game, split)
    assert len(boards) == SPLITS[split] and [b.number for b in boards] == list(range(1, SPLITS[split] + 1))
    assert boards[:3] == generate_boards(3, seed=bench_seed(game, split))   # its documented seed's boards


def test_the_seed_rule_is_the_documented_one():
    digest = hashlib.sha256(b"vint-env bench-v1 whist test").digest()
    assert bench_seed("whist", "test") == int.from_bytes(digest[:4], "big") == 1308437435
    assert bench_seed("whist_v0", "dev") == bench_seed("whist", "dev")      # a game's env name names it too
    assert len(set(bench_seeds().values())) == len(SETS)


def test_dev_and_test_share_no_deal():
    for game in games.names():
        test = {b.deal for b in bench_boards(game, "test")}
        assert not test & {b.deal for b in bench_boards(game, "dev")}


def test_a_changed_file_is_refused(tmp_path, monkeypatch):
    text = bench_path("whist", "dev").read_text()
    changed = text.replace('[Dealer "W"]', '[Dealer "E"]', 1)
    assert changed != text
    (tmp_path / "whist_dev.pbn").write_text(changed)
    sums = bench_path("whist", "dev").with_name(SUMS)
    (tmp_path / SUMS).write_bytes(sums.read_bytes())
    monkeypatch.setattr(bench_sets, "FOLDER", tmp_path)
    with pytest.raises(BenchSetError, match=r"bench-v1/whist/dev: .* has SHA-256 [0-9a-f]{64}, not the frozen"):
        bench_boards("whist", "dev")
    with pytest.raises(BenchSetError, match="missing from the package"):
        bench_boards("vint", "dev")
    # SHA256SUMS is pinned by the code: a file whose hash was "updated" there is refused too
    (tmp_path / SUMS).write_text(sums.read_text().replace(sha256_of("whist", "dev"),
                                                          hashlib.sha256(changed.encode()).hexdigest()))
    with pytest.raises(BenchSetError, match=r"SHA256SUMS has SHA-256 [0-9a-f]{64}, not the frozen"):
        bench_boards("whist", "dev")


def test_bad_names_are_errors_naming_them():
    with pytest.raises(BenchSetError, match="split must be one of test, dev, got 'train'"):
        bench_boards("whist", "train")
    with pytest.raises(ValueError, match="chess"):
        bench_boards("chess", "test")


def test_the_trainer_refuses_a_seed_that_draws_a_frozen_set():
    from vint_env.training.config import ConfigError, config_from_dict
    seed = bench_seed("vint", "test")
    assert frozen_set_of(seed) == "bench-v1/vint/test" and frozen_set_of(1) is None
    with pytest.raises(ConfigError, match=f"seed {seed} draws the benchmark's frozen boards .bench-v1/vint/test"):
        config_from_dict({"run": {"game": "whist_v0", "seed": seed}})
    config_from_dict({"run": {"game": "whist_v0", "seed": 1}})


def test_no_other_file_of_the_repository_uses_a_benchmark_seed():
    """The seeds are the benchmark's alone: no config, test, script or page but the benchmark's own names one."""
    try:
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    own = {"vint_env/evaluation/bench_sets.py", "docs/benchmark.md", "tests/evaluation/test_bench_sets.py"}
    seeds = [str(s) for s in bench_seeds().values()]
    for name in files.splitlines():
        path = ROOT / name
        if name in own or name.startswith(("vint_env/evaluation/deals/bench-v1/", "docs/benchmark/")) \
                or path.suffix in (".pt", ".png", ".gif") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        assert not [s for s in seeds if s in text], f"{name} names a benchmark seed"
