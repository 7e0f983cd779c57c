"""training/search_distill.py: the expert's deals played by several processes give the same data as one,
a stopped run resumes without playing a chunk twice, and the distilled network is written, moved from the
shipped one and loadable as an agent.  The teacher here is the rule bot (cheap); the script's default
teacher, ``search``, plays through the same function."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from training import search_distill
from vint_env import games
from vint_env.agents.learned.baseline import checkpoint_path
from vint_env.agents.learned.policy import load_checkpoint
from vint_env.agents.registry import load_agent
from vint_env.training.teacher_data import TeacherData

WHIST = games.get("whist")


def _arrays(data):
    return {k: getattr(data, k) for k in ("obs_packed", "masks", "actions", "returns", "seats", "deal_ids")}


def test_workers_give_the_same_data_and_a_second_call_plays_nothing(tmp_path, monkeypatch):
    said = []
    one = search_distill.expert_data(WHIST, "rule", 77, 4, 1, tmp_path / "one", said.append, workers=1)
    two = search_distill.expert_data(WHIST, "rule", 77, 4, 1, tmp_path / "two", said.append, workers=2)
    assert len(one) > 4 * 13 * 4 - 1 and sorted(set(one.deal_ids)) == [0, 1, 2, 3]
    for key, value in _arrays(one).items():
        np.testing.assert_array_equal(value, _arrays(two)[key], err_msg=key)
    assert len(list((tmp_path / "two").glob("*.npz"))) == 4

    def no_play(job):
        raise AssertionError(f"chunk {job[3]} played again")

    monkeypatch.setattr(search_distill, "_play_chunk", no_play)
    said.clear()
    again = search_distill.expert_data(WHIST, "rule", 77, 4, 1, tmp_path / "two", said.append, workers=2)
    np.testing.assert_array_equal(again.actions, one.actions)
    assert said == [f"expert data: 4 of 4 chunks already in {tmp_path / 'two'}"]


def test_a_teacher_whose_files_changed_is_another_teacher(tmp_path, monkeypatch):
    """The chunks are named by the SHA-256 of the files the teacher plays from (as a ladder's logs are):
    with a changed network none of the old chunks is taken."""
    import vint_env.evaluation.ladder as ladder
    search_distill.expert_data(WHIST, "rule", 77, 2, 1, tmp_path, lambda msg: None)
    monkeypatch.setattr(ladder, "agent_files", lambda spec, game: {"vint_env/baselines/whist.pt": "0" * 64})
    played = []
    monkeypatch.setattr(search_distill, "_play_chunk", lambda job: played.append(job[3]) or 0)
    monkeypatch.setattr(TeacherData, "load", classmethod(lambda cls, path: path))      # nothing was written
    monkeypatch.setattr(TeacherData, "concat", classmethod(lambda cls, parts: parts))
    search_distill.expert_data(WHIST, "rule", 77, 2, 1, tmp_path, lambda msg: None)
    assert played == [0, 1]
    assert len(list(tmp_path.glob("*.npz"))) == 2          # the old chunks are still there, not taken


def test_the_distilled_network_is_written_moved_and_plays(tmp_path, capsys):
    out = tmp_path / "run"
    assert search_distill.main(["--game", "whist", "--teacher", "rule", "--deals", "3", "--chunk", "2",
                                "--epochs", "1", "--lr", "1e-3", "--seed", "5", "--out", str(out)]) == 0
    path = out / "whist_distilled.pt"
    distilled = load_checkpoint(path, game=WHIST)
    shipped = load_checkpoint(checkpoint_path(WHIST), game=WHIST)
    assert distilled["distilled"]["teacher"] == "rule" and distilled["distilled"]["deals"] == 3
    moved = [k for k, v in distilled["model"].items() if not torch.equal(v, shipped["model"][k])]
    assert moved, "cloning left every weight of the shipped network as it was"
    assert (out / "whist_distilled.json").is_file()
    agent = load_agent(f"network:{path}", game=WHIST)
    env = WHIST.raw_env()
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)]          # the distilled network plays a legal card
    assert f"network:{path}" in capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--workers", "--deals", "--chunk", "--epochs"])
def test_a_count_below_one_is_refused_by_name(flag, capsys):
    with pytest.raises(SystemExit) as stop:
        search_distill.main([flag, "0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and "positive integer" in err
