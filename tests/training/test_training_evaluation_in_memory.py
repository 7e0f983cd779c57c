"""The trainer evaluates a frozen copy of its network held in memory, with no file written or read for it, and
the harness's results are those of the same weights loaded from their checkpoint, board for board."""

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from vint_env import games  # noqa: E402
from vint_env.training.config import load_config  # noqa: E402
from vint_env.training.evaluation import HarnessEvaluator  # noqa: E402
from vint_env.training.trainer import Trainer  # noqa: E402

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def played(result):
    return [(b.number, b.score, [(t.seats, t.points, t.replay) for t in b.tables]) for b in result.boards]


def test_an_evaluation_plays_the_network_in_memory_as_its_checkpoint(tmp_path, monkeypatch):
    cfg = load_config(SMOKE, ["eval_opponents=[random]", "checkpoint_every=100"])
    evaluator = HarnessEvaluator.from_config(cfg, games.get(cfg.run.game))
    t = Trainer(cfg, tmp_path / "run", evaluate=evaluator)
    t.update_once()
    loaded = []
    import vint_env.agents.learned.policy as policy
    real_load = policy.PPOAgent.load
    monkeypatch.setattr(policy.PPOAgent, "load", classmethod(
        lambda cls, path, *a, **k: loaded.append(path) or real_load.__func__(cls, path, *a, **k)))
    scalars = t.run_evaluation(4)
    assert loaded == []                                  # no checkpoint was read to play the network
    in_memory = evaluator.last_matches["random"]
    assert in_memory.agent_a == "network (update 1)" and scalars["eval/random/boards"] == 4
    # the same weights from their checkpoint play the same boards alike
    path = t.save()
    from_file = HarnessEvaluator.from_config(cfg, games.get(cfg.run.game))
    from_file(path, 1, 4)
    assert loaded and {str(p) for p in loaded} == {str(path)}       # the spec network:PATH reads its file
    assert played(in_memory) == played(from_file.last_matches["random"])
    assert from_file.last_matches["random"].agent_a == f"network:{path}"
