"""The training throughput benchmark runs end to end and prints every figure the issue asks for (tiny settings;
slow)."""

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_the_bench_prints_every_figure(capsys):
    from benchmarks.training_throughput import main
    assert main(["--games", "whist", "--updates", "1", "--sb3-steps", "512", "--no-rllib",
                 "--set", "num_envs=16", "--set", "num_minibatches=2"]) == 0
    out = capsys.readouterr().out
    for column in ("engine env steps/s", "collection env steps/s", "inference samples/s", "update samples/s",
                   "end-to-end learner samples/s", "multiply-adds / sample", "share of the limit", "MaskablePPO",
                   "vs MaskablePPO", "matrix rate", "shared trunk: end-to-end"):
        assert column in out
    row = next(line for line in out.splitlines() if line.startswith("| whist |"))
    assert "sparse hidden_sizes=[256, 256]" in row and row.count("|") == 19
