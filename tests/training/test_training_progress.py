"""Progress that tells the truth (issue 41 item 6): a stage per job of a run (teacher data, cloning, each
evaluation match, the PPO updates, the final evaluation), each counted to its end, opened only while its
job runs (so its rate leaves the other jobs' time out); no log line over a bar; ``--no-progress`` prints
no bar."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from vint_env import games
from vint_env.training.cli import main
from vint_env.training.config import load_config
from vint_env.training.evaluation import HarnessEvaluator
from vint_env.training.progress import Quiet, StageBars, progress_sink
from vint_env.training.trainer import Trainer

SMOKE = str(Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml")
BAR = re.compile(r"%\||\d+/\d+ \[|it/s|step/s|board/s|deal/s|batch/s")     # what a tqdm bar line holds


class Recorder(Quiet):
    """A progress sink that records every stage: its name, size, unit, count and the order of events."""

    def __init__(self):
        super().__init__(say=lambda msg: self.events.append(("note", msg)))
        self.events: list[tuple] = []
        self.stages: list[dict] = []

    def _open_bar(self, name, total, unit, initial):
        stage = {"name": name, "total": total, "unit": unit, "initial": initial, "n": initial, "updates": 0,
                 "outer": [s["name"] for s in self.stages if "closed" not in s]}
        self.stages.append(stage)
        self.events.append(("open", name))

        class Bar:
            def update(self, n=1):
                stage["n"] += n
                stage["updates"] += 1

            def update_to(self, n):
                stage["n"] = n
                stage["updates"] += 1

            def postfix(self, values):
                stage["postfix"] = values
        bar = Bar()
        bar.stage = stage
        return bar

    def _close_bar(self, bar):
        bar.stage["closed"] = True
        self.events.append(("close", bar.stage["name"]))

    def stage_named(self, name: str) -> dict:
        found = [s for s in self.stages if s["name"] == name]
        assert len(found) == 1, (name, [s["name"] for s in self.stages])
        return found[0]


def test_every_stage_of_a_warm_started_run_reports_its_own_progress(tmp_path):
    cfg = load_config(SMOKE, ["game=whist", "teacher=rule", "teacher_deals=4", "bc_epochs=2", "bc_batch_size=64",
                              "bc_holdout=0", "opponent_mix={self: 1.0}", "eval_opponents=[random]", "num_envs=2",
                              "num_steps=20", "total_timesteps=240", "eval_every=1", "eval_deals=2",
                              "final_eval_deals=2", f"runs_dir={tmp_path / 'runs'}"])
    recorder = Recorder()
    evaluator = HarnessEvaluator.from_config(cfg, games.get("whist"))
    evaluator.progress = recorder
    trainer = Trainer(cfg, tmp_path / "run", evaluate=evaluator, progress=recorder)
    trainer.train()
    names = [s["name"] for s in recorder.stages]
    updates = trainer.state.update
    assert updates >= 2
    assert names == (["untrained network vs random", "teacher data", "cloning", "the clone vs random",
                      "PPO updates"]
                     + [f"evaluation at update {u} vs random" for u in range(1, updates)]
                     + ["final evaluation vs random", "final evaluation vs warm_start"])
    teacher = recorder.stage_named("teacher data")
    assert (teacher["total"], teacher["unit"], teacher["n"]) == (4, "deal", 4)
    cloning = recorder.stage_named("cloning")
    assert cloning["unit"] == "batch" and cloning["n"] == cloning["total"] >= 2 and cloning["updates"] == cloning["n"]
    for s in recorder.stages:
        if s["unit"] == "board":
            assert s["total"] == 2 and s["n"] == 2, s
    ppo = recorder.stage_named("PPO updates")
    assert (ppo["total"], ppo["unit"], ppo["initial"]) == (240, "step", 0)
    assert ppo["n"] == 240 and ppo["updates"] == updates                   # one step of the bar per update
    # the PPO bar opens after the warm start's stages closed and closes before the final evaluation opens:
    # its rate and ETA count the updates' time only
    order = [e for e in recorder.events if e[0] != "note"]
    assert order.index(("close", "the clone vs random")) < order.index(("open", "PPO updates"))
    assert order.index(("close", "PPO updates")) < order.index(("open", "final evaluation vs random"))
    # the periodic evaluations run inside the PPO stage, as bars of their own below it
    assert all(s["outer"] == ["PPO updates"] for s in recorder.stages if s["name"].startswith("evaluation at"))
    assert all(not s["outer"] for s in recorder.stages if not s["name"].startswith("evaluation at"))
    # the cloning notes came through the sink, between the stages
    assert any(e[0] == "note" and e[1].startswith("behaviour cloning: epoch 2/2") for e in recorder.events)


def test_a_resumed_run_starts_its_ppo_bar_at_the_steps_done(tmp_path):
    args = ["--config", SMOKE, "--run-dir", str(tmp_path / "run"), "--no-progress", "--set", "eval_opponents=[]"]
    assert main(args + ["--set", "total_timesteps=500"]) == 0
    from vint_env.training.runner import resume_config
    cfg, ckpt = resume_config(tmp_path / "run", ["total_timesteps=1200"])
    recorder = Recorder()
    trainer = Trainer(cfg, tmp_path / "run", progress=recorder)
    trainer.restore(ckpt)
    done = trainer.state.global_step
    trainer.train()
    ppo = recorder.stage_named("PPO updates")
    assert 0 < ppo["initial"] == done < 1200 and ppo["n"] == 1200


def test_no_progress_prints_no_bar(tmp_path, capsys):
    assert main(["--config", SMOKE, "--run-dir", str(tmp_path / "run"), "--no-progress",
                 "--set", "total_timesteps=500", "--set", "eval_deals=2", "--set", "final_eval_deals=2"]) == 0
    out, err = capsys.readouterr()
    assert "final evaluation" in out
    assert not BAR.search(out) and not BAR.search(err) and "\r" not in out + err


def test_progress_forces_a_bar_per_stage_on_stderr(tmp_path, capsys):
    assert main(["--config", SMOKE, "--run-dir", str(tmp_path / "run"), "--progress",
                 "--set", "total_timesteps=1000", "--set", "eval_every=1", "--set", "eval_deals=2",
                 "--set", "final_eval_deals=2"]) == 0
    out, err = capsys.readouterr()
    assert not BAR.search(out) and "final evaluation of the trained agent" in out    # the bars are on stderr only
    for stage in ("PPO updates", "final evaluation vs random", "final evaluation vs rule"):
        assert re.search(re.escape(stage) + r":\s+100%\|", err), stage     # each counted to its end
    assert re.search(r"evaluation at update 1 vs random:\s+\d+%\|", err)     # below the PPO bar, then cleared
    assert len(re.findall(r"PPO updates:\s+100%\|", err)) >= 1


def test_bars_are_shown_on_a_terminal_only_unless_asked():
    assert isinstance(progress_sink(True), StageBars) and type(progress_sink(False)) is Quiet
    assert type(progress_sink(None)) is Quiet            # pytest's stderr is not a terminal


def test_a_note_is_written_between_redraws_never_onto_a_bar(monkeypatch):
    screen = io.StringIO()                       # stdout and stderr on one terminal
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    bars = StageBars(file=screen)
    with bars.stage("PPO updates", 100, "step") as bar:
        bar.update(40)
        bars.note("the clone: vs random +12 points a board")
        bar.update(60)
    text = screen.getvalue()
    line = text.index("the clone:")
    assert text[line - 1] in "\r\n"              # the bar was cleared before the line
    assert "PPO updates" in text[line:]           # and drawn again after it
    assert "the clone: vs random +12 points a board\n" in text


@pytest.mark.parametrize("show", [True, False])
def test_a_note_without_an_open_bar_is_a_plain_line(capsys, show):
    progress_sink(show).note("teacher data: 40 decisions from the cache")
    assert capsys.readouterr().out == "teacher data: 40 decisions from the cache\n"
