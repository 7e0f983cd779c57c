"""The warm start inside a run's budget, and what its curves show: cloning stops when ``max_minutes`` is
spent (between two minibatches), the untrained network is evaluated before cloning (once, also across a
kill and ``--resume``), and the learning-curve plot draws the cloning phase."""

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from vint_env import games
from vint_env.training.config import load_config
from vint_env.training.imitation import behaviour_clone
from vint_env.training.logs import RunLogger, cloning_rows, plot_learning_curves, trained_range
from vint_env.training.trainer import Trainer
from vint_env.training.teacher_data import generate
from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import PPOAgent

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def whist_rule_data():
    return generate(games.get("whist"), {}, "rule", seed=5, deals=8)


class Calls:
    """``stop()`` that turns True from its ``n``-th call on, counting the calls."""

    def __init__(self, n):
        self.n, self.calls = n, 0

    def __call__(self):
        self.calls += 1
        return self.calls >= self.n


def test_cloning_stops_between_minibatches_when_told(whist_rule_data):
    # 416 decisions, batches of 64: 7 minibatches an epoch. stop() is asked before each epoch and before each
    # minibatch but the first of an epoch: calls 1-7 in epoch 1, calls 8-10 let epoch 2 run 3 minibatches,
    # call 11 (before its 4th minibatch) stops it.
    torch.manual_seed(0)
    net = build_network("mlp", whist_rule_data.obs_size, 52, {"hidden_sizes": [32]})
    stop = Calls(11)
    h = behaviour_clone(net, whist_rule_data, epochs=5, batch_size=64, learning_rate=1e-3, seed=0,
                        stop=stop, measure_start=True)
    assert [r["epoch"] for r in h] == [0, 1, 2]
    assert "stopped" not in h[1] and h[2]["stopped"] == 1 and h[2]["epoch_done"] == pytest.approx(3 / 7)
    assert stop.calls == 11
    assert "train_loss" not in h[0] and 0 <= h[0]["agreement"] <= 1     # epoch 0: the untrained network


def test_cloning_told_to_stop_at_once_leaves_the_network_untouched(whist_rule_data):
    torch.manual_seed(0)
    net = build_network("mlp", whist_rule_data.obs_size, 52, {"hidden_sizes": [32]})
    before = {k: v.clone() for k, v in net.state_dict().items()}
    h = behaviour_clone(net, whist_rule_data, epochs=3, batch_size=64, learning_rate=1e-3, seed=0,
                        stop=lambda: True, measure_start=True)
    assert [r["epoch"] for r in h] == [0]
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())


def warm_cfg(tmp_path, *extra):
    return load_config(SMOKE, ["game=whist_v0", "teacher=rule", "teacher_deals=8", "bc_epochs=6",
                               "bc_batch_size=64", "bc_holdout=0", "kl_coef=0.5", "opponent_mix={self: 1.0}",
                               "eval_opponents=[]", "num_envs=2", "num_steps=20", "total_timesteps=120",
                               f"runs_dir={tmp_path / 'runs'}", *extra])


def test_cloning_respects_max_minutes(tmp_path):
    """The run's clock passes max_minutes during the second epoch: cloning ends there, says so in the log,
    and the run then has no budget left for PPO updates."""
    cfg = warm_cfg(tmp_path, "max_minutes=1")
    t = Trainer(cfg, tmp_path / "run", logger=RunLogger(tmp_path / "run", tensorboard=False))
    clock = Calls(10)        # 7 minibatches an epoch (8 deals, batches of 64): the 10th call is in epoch 2

    def seconds():
        return 61.0 if clock() else 0.0
    t.pretrain(seconds)
    rows = t.logger.rows
    assert [r["bc/epoch"] for r in rows if r.get("bc/epoch")] == ["0", "1", "2"]
    summary = next(r for r in rows if r.get("bc/stopped_by_budget"))
    assert summary["bc/stopped_by_budget"] == "1" and 1 < float(summary["bc/epochs_done"]) < 2
    assert t.state.pretrained and t.reference is not None
    # the same run, its clock spent before cloning even starts: epoch 0 only, and train() adds no update
    u = Trainer(warm_cfg(tmp_path, "max_minutes=1e-9"), tmp_path / "spent",
                logger=RunLogger(tmp_path / "spent", tensorboard=False))
    u.train()
    assert [r["bc/epoch"] for r in u.logger.rows if r.get("bc/epoch")] == ["0"]
    assert u.state.update == 0 and u.state.pretrained


def test_cloning_is_not_cut_short_without_a_clock_limit(tmp_path):
    t = Trainer(warm_cfg(tmp_path, "max_minutes=0", "bc_epochs=2"), tmp_path / "run",
                logger=RunLogger(tmp_path / "run", tensorboard=False))
    t.pretrain(lambda: 1e9)
    summary = next(r for r in t.logger.rows if r.get("bc/epochs_done"))
    assert (summary["bc/epochs_done"], summary["bc/stopped_by_budget"]) == ("2.0", "0")


class FakeEval:
    """An evaluation hook that records which agent it was given and can fail once (a kill)."""

    def __init__(self, fail_first=False):
        self.paths, self.fail_first = [], fail_first

    def __call__(self, agent, update, deals):
        assert isinstance(agent, PPOAgent)          # the network in memory, not a file
        self.paths.append(agent.name)
        if self.fail_first:
            self.fail_first = False
            raise KeyboardInterrupt
        return {"eval/bot/mean": float(len(self.paths)), "eval/bot/ci_low": 0.0, "eval/bot/ci_high": 9.0}


def test_untrained_network_is_evaluated_before_cloning_once_across_a_kill(tmp_path):
    cfg = warm_cfg(tmp_path, "eval_every=2", "bc_epochs=2")
    run = tmp_path / "run"
    killed = FakeEval(fail_first=True)
    t = Trainer(cfg, run, evaluate=killed, logger=RunLogger(run, tensorboard=False))
    with pytest.raises(KeyboardInterrupt):
        t.train()
    assert killed.paths == ["network (untrained)"] and (run / "checkpoints" / "latest.pt").exists()
    # resumed: the evaluation before cloning is played again, then the cloning and the run as usual
    again = FakeEval()
    notes = []
    u = Trainer(cfg, run, evaluate=again, say=notes.append)
    u.restore(run / "checkpoints" / "latest.pt")
    assert not u.state.evaluated_before_cloning and not u.state.pretrained
    u.logger = RunLogger(run, resume_update=0, resume_step=0, tensorboard=False)
    u.train()
    assert again.paths[:2] == ["network (untrained)", "network (update 0)"]
    assert "the untrained network: vs bot +1 points a board (duplicate)" in notes
    assert "the clone: vs bot +2 points a board (duplicate)" in notes
    assert not (run / "checkpoints" / "before_cloning.pt").exists()
    rows = u.logger.rows
    before = [r for r in rows if r.get("eval_before_cloning/bot/mean")]
    assert len(before) == 1 and before[0]["update"] == "0" and before[0]["eval_before_cloning/bot/mean"] == "1.0"
    order = [k for r in rows for k in r if k in ("eval_before_cloning/bot/mean", "bc/epoch", "eval/bot/mean")]
    assert order[:5] == ["eval_before_cloning/bot/mean", "bc/epoch", "bc/epoch", "bc/epoch", "eval/bot/mean"]
    # a run resumed after the warm start does not evaluate the untrained network again
    w = Trainer(cfg, run, evaluate=FakeEval())
    w.restore(run / "checkpoints" / "latest.pt")
    assert w.state.evaluated_before_cloning and w.state.pretrained
    # the plot draws the cloning panel and the before-cloning point
    assert [r["epoch"] for r in cloning_rows(u.logger)] == [0.0, 1.0, 2.0]
    png = plot_learning_curves(u.logger, ["bot"], tmp_path / "curves.png", "test")
    assert png is not None and png.stat().st_size > 10_000


def test_a_clone_only_value_run_plots_its_held_out_regret_and_no_training_games(tmp_path):
    from vint_env.training.logs import curve_panels
    lg = RunLogger(tmp_path, tensorboard=False)
    for epoch, (net, bot) in enumerate([(0.40, 0.20), (0.25, 0.19)]):
        lg.log(0, 0, {"bc/epoch": epoch, "bc/agreement": 0.9, "bc/heldout_agreement": 0.88,
                      "bc/heldout_value_regret": net, "bc/heldout_teacher_value_regret": 0.2,
                      "bc/heldout_residual_value_regret@2": bot, "bc/heldout_residual_override_rate@2": 0.02})
    lg.log(0, 0, {"eval/rule/mean": 0.3, "eval/rule/ci_low": -0.1, "eval/rule/ci_high": 0.7})
    assert curve_panels(lg, ["random", "rule"]) == ["values", "cloning", "vs rule"]
    png = plot_learning_curves(lg, ["rule"], tmp_path / "curves.png", "test")
    assert png is not None and png.stat().st_size > 10_000
    # a PPO run's training games keep their panel; a plain clone has no values panel
    lg2 = RunLogger(tmp_path / "b", tensorboard=False)
    lg2.log(0, 0, {"bc/epoch": 0, "bc/agreement": 0.5})
    lg2.log(1, 100, {"return_vs_rule": -0.5})
    assert curve_panels(lg2, ["rule"]) == ["cloning", "training"]


def test_an_evaluation_panel_is_scaled_to_the_trained_agent_when_the_untrained_one_would_flatten_it():
    # the quick job's vs-rule panel: -141,952 untrained, a few hundred below zero after cloning
    ys, lo, hi = [-140, -117, -161], [-250, -220, -264], [-40, -20, -57]
    # band -264..-20, zero added (near), padded by 12% of 264 = 31.68 each side
    assert trained_range(ys, lo, hi, -141952.0) == (-295.68, 31.68)
    # an untrained value within three spans (3 x 6,000) of the band 119,000..125,000: one scale for both
    assert trained_range([121850, 122273], [119000, 119500], [124700, 125000], 101000.0) is None
    assert trained_range([121850, 122273], [119000, 119500], [124700, 125000], 11141.0) == (118280.0, 125720.0)
    # far above, zero far away: the band alone, padded (span 10, pad 1.2)
    assert trained_range([105.0], [100.0], [110.0], 1e6) == (98.8, 111.2)


class FakeEvalWithWarmStart(FakeEval):
    """A hook that also plays the final agent against the warm start, as the harness evaluator does."""

    def __init__(self):
        super().__init__()
        self.against = []

    def against_warm_start(self, agent, before, deals):
        self.against.append((agent.name, Path(before).name, deals))
        return {"eval/warm_start/mean": 0.5, "eval/warm_start/ci_low": -1.0, "eval/warm_start/ci_high": 2.0}


def test_the_final_evaluation_plays_the_agent_against_its_warm_start(tmp_path):
    from vint_env.training.warm_start import WARM_START_FILE
    cfg = warm_cfg(tmp_path, "eval_every=2", "bc_epochs=2", "final_eval_deals=7")
    run = tmp_path / "run"
    hook = FakeEvalWithWarmStart()
    t = Trainer(cfg, run, evaluate=hook, logger=RunLogger(run, tensorboard=False))
    clone = {}
    real_pretrain = t.pretrain

    def pretrain(seconds=None):
        out = real_pretrain(seconds)
        clone.update({k: v.clone() for k, v in t.net.state_dict().items()})
        return out
    t.pretrain = pretrain
    final = t.train()
    # only the final evaluation plays the warm start, from the clone's own checkpoint, on the final boards
    assert hook.against == [(f"network (update {t.state.update})", WARM_START_FILE, 7)]
    assert final["eval/warm_start/mean"] == 0.5
    warm = run / "checkpoints" / WARM_START_FILE
    agent = PPOAgent.load(warm, game=cfg.run.game)            # an agent: network:<path> plays it
    for k, v in clone.items():
        assert torch.equal(agent.network.state_dict()[k], v)
    assert any(r.get("eval/warm_start/mean") == "0.5" for r in t.logger.rows)


def test_the_harness_table_names_rl_gain_and_an_agent_equals_itself_against_its_warm_start(tmp_path):
    from vint_env.agents.learned.policy import save_checkpoint
    from vint_env.training.checkpoints import policy_payload
    from vint_env.training.evaluation import HarnessEvaluator
    cfg = warm_cfg(tmp_path)
    net = build_network("mlp", 965, 52, {"hidden_sizes": [16]})
    cfg.model.network, cfg.model.network_kwargs = "mlp", {"hidden_sizes": [16]}
    a = save_checkpoint(tmp_path / "a.pt", policy_payload(cfg, 965, 52, net.state_dict()))
    b = save_checkpoint(tmp_path / "b.pt", policy_payload(cfg, 965, 52, net.state_dict()))
    ev = HarnessEvaluator(games.get("whist"), ["random"], seed=3)
    scalars = ev.against_warm_start(a, b, 4)
    # the same greedy weights at every seat of both tables: every duplicate board is a tie
    assert scalars["eval/warm_start/mean"] == 0.0
    assert "the same agent before RL" in ev.table() and "| 4 |" in ev.table()


def test_init_from_starts_a_run_from_a_checkpoints_network(tmp_path):
    import torch as _torch

    from vint_env.training.config import ConfigError, load_config
    from vint_env.training.trainer import Trainer
    base = ["game=whist_v0", "num_envs=2", "network_kwargs={hidden_sizes: [8]}", "eval_opponents=[]",
            "total_timesteps=1", f"runs_dir={tmp_path}"]
    first = Trainer(load_config(None, base + ["seed=3"]), tmp_path / "a")
    path = first.save()
    cfg = load_config(None, base + [f"init_from={path}", "kl_coef=0.5"])
    second = Trainer(cfg, tmp_path / "b")
    assert not all(_torch.equal(a, b) for a, b in zip(first.net.parameters(), second.net.parameters()))
    second.init_from()
    assert all(_torch.equal(a, b) for a, b in zip(first.net.parameters(), second.net.parameters()))
    assert second.reference is not None and second.state.pretrained
    # another network is refused with the config, before any run folder is made
    with pytest.raises(ConfigError, match="holds network 'sparse' with .*8.*set network and network_kwargs"):
        load_config(None, base + [f"init_from={path}", "network_kwargs={hidden_sizes: [16]}"])
    with pytest.raises(ConfigError, match="takes no teacher"):
        load_config(None, base + [f"init_from={path}", "teacher=rule"])
    with pytest.raises(ConfigError, match="no checkpoint file"):
        load_config(None, base + [f"init_from={tmp_path / 'missing.pt'}"])


def test_the_curves_second_axis_maps_env_steps_to_training_minutes(tmp_path):
    from vint_env.training.logs import training_minutes
    lg = RunLogger(tmp_path, tensorboard=False)
    assert training_minutes(lg) is None                   # nothing logged: no second axis
    for update, (step, minutes) in enumerate([(100, 0.5), (200, 1.5), (300, 1.4), (400, 3.0)], start=1):
        lg.log(update, step, {"elapsed_minutes": minutes, "eval/rule/mean": 0.1 * update,
                              "eval/rule/ci_low": 0.1 * update - 0.3, "eval/rule/ci_high": 0.1 * update + 0.3})
    # a clock that stepped back (a resumed run's rounding) is held level, so the map stays invertible
    assert training_minutes(lg) == ([100, 200, 300, 400], [0.5, 1.5, 1.5, 3.0])
    png = plot_learning_curves(lg, ["rule"], tmp_path / "curves.png", "test")
    assert png is not None and png.stat().st_size > 10_000
    clone_only = RunLogger(tmp_path / "c", tensorboard=False)
    clone_only.log(0, 0, {"elapsed_minutes": 2.0})
    assert training_minutes(clone_only) is None
