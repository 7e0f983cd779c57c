"""A match's worker processes: what reaches the caller when a worker's agent fails or a worker dies."""

import os
import signal
import time

import numpy as np
import pytest

from vint_env.agents import Agent
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.match import RemoteTraceback, WorkerError, run_match


class FailsOnSecondBoardAgent(Agent):
    """Plays its lowest legal action; on board 2 (seen through its reset seed count) it fails as told."""

    name = "fails"
    how = "raise"

    def __init__(self, game="whist"):
        self.resets = 0

    def reset(self, seed=None):
        self.resets += 1

    def act(self, observation, env=None, agent=None):
        if self.resets > 2 and os.environ.get("VINT_TEST_IN_WORKER") == str(os.getppid()):
            if self.how == "raise":
                raise ValueError("this agent gives up on the second board")
            os.kill(os.getpid(), signal.SIGKILL)
        return int(np.flatnonzero(observation["action_mask"])[0])


class DiesOnSecondBoardAgent(FailsOnSecondBoardAgent):
    how = "die"


def raises(game="whist"):
    return FailsOnSecondBoardAgent(game)


def dies(game="whist"):
    return DiesOnSecondBoardAgent(game)


@pytest.fixture
def in_workers(monkeypatch):
    # the agents misbehave only in a worker process (whose parent is this process), not while
    # run_match checks the specs here
    monkeypatch.setenv("VINT_TEST_IN_WORKER", str(os.getpid()))


def test_an_agents_exception_in_a_worker_reaches_the_caller_with_the_workers_traceback(in_workers):
    boards = generate_boards(6, seed=0)
    start = time.monotonic()
    with pytest.raises(ValueError, match="gives up on the second board") as info:
        run_match("whist", f"py:{__name__}:raises", "random", boards, workers=2, chunk_size=1, analysis=False)
    cause = info.value.__cause__
    assert isinstance(cause, RemoteTraceback)
    assert "in act" in str(cause) and "Traceback (most recent call last)" in str(cause)
    assert time.monotonic() - start < 60


def test_a_worker_that_dies_is_named_and_the_match_stops(in_workers):
    boards = generate_boards(6, seed=0)
    with pytest.raises(WorkerError, match=r"a match worker \(pid \d+\) died with exit code -9"):
        run_match("whist", f"py:{__name__}:dies", "random", boards, workers=2, chunk_size=1, analysis=False)


def test_more_workers_than_chunks_play_every_board_once():
    boards = generate_boards(2, seed=4)
    one = run_match("whist", "rule", "random", boards, seed=5, workers=1, analysis=False)
    five = run_match("whist", "rule", "random", boards, seed=5, workers=5, chunk_size=1, analysis=False)
    assert [b.number for b in five.boards] == [b.number for b in one.boards]
    assert five.scores == one.scores
    assert len(five.torch_threads) <= 2          # two chunks: at most two processes were started


def test_the_cli_names_a_dead_worker_without_a_traceback(in_workers, tmp_path, capsys):
    from vint_env.evaluation.cli import main as cli_main
    out = tmp_path / "m.json"
    assert cli_main(["match", "--game", "whist", "--a", f"py:{__name__}:dies", "--b", "random", "--boards", "6",
                     "--workers", "2", "--no-dd", "--no-progress", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "died with exit code -9; nothing was written" in err and "Traceback" not in err
    assert not out.exists()
