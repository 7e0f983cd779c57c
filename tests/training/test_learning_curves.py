"""The learning-curve plot: the final evaluation drawn as such, values in the legends (not on the points),
and a minutes axis whose ticks never crowd."""

import pytest

pytest.importorskip("matplotlib")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from vint_env.training.logs import FINAL_EVALUATION, RunLogger, _evaluation_panel, minute_ticks  # noqa: E402


def _evaluations(tmp_path, final: bool) -> RunLogger:
    lg = RunLogger(tmp_path, tensorboard=False)
    lg.log(0, 0, {"eval_before_cloning/rule/mean": -138533.0, "eval_before_cloning/rule/ci_low": -142000.0,
                  "eval_before_cloning/rule/ci_high": -135000.0})
    for update, mean in ((0, -200.0), (8, -146.0), (16, -199.0)):
        lg.log(update, update * 8192, {"elapsed_minutes": 3 + update / 8, "eval/rule/mean": mean,
                                       "eval/rule/ci_low": mean - 180, "eval/rule/ci_high": mean + 180,
                                       "eval/rule/boards": 100})
    if final:
        lg.log(17, 17 * 8192, {"eval/rule/mean": -224.0, "eval/rule/ci_low": -336.0, "eval/rule/ci_high": -112.0,
                               "eval/rule/boards": 300, FINAL_EVALUATION: 1})
    return lg


def _panel(lg):
    fig, ax = plt.subplots()
    try:
        _evaluation_panel(ax, lg, "rule")
        return [t.get_text() for t in ax.get_legend().get_texts()], [t.get_text() for t in ax.texts]
    finally:
        plt.close(fig)


def test_the_final_evaluation_is_its_own_point_with_its_boards_and_interval(tmp_path):
    labels, texts = _panel(_evaluations(tmp_path, final=True))
    assert labels == ["during training (100 boards, 95% CI)",
                      "final evaluation (300 boards, 95% CI): -224 [-336, -112]",
                      "untrained (before cloning): -138,533"]
    assert texts == ["untrained -138,533, off this scale"]        # no value written over a marker


def test_a_run_without_its_final_evaluation_says_its_last_value(tmp_path):
    labels, _ = _panel(_evaluations(tmp_path, final=False))
    assert labels[0] == "during training (100 boards, 95% CI): last -199"
    assert not any(label.startswith("final") for label in labels)


def test_minute_ticks_are_never_closer_than_the_gap_on_the_step_axis():
    import numpy as np
    rng = np.random.default_rng(0)
    for _ in range(200):
        steps = np.cumsum(rng.integers(1, 10_000, size=40)).tolist()
        minutes = np.cumsum(rng.exponential(0.3, size=40) * (rng.random(40) < 0.7)).tolist()
        if minutes[-1] <= minutes[0]:
            continue
        ticks = minute_ticks(steps, minutes, axis_steps=steps[-1])
        where = np.interp(ticks, minutes, steps)
        assert all(minutes[0] <= t <= minutes[-1] for t in ticks)
        assert np.all(np.diff(where) >= 0.12 * steps[-1] - 1e-6)
