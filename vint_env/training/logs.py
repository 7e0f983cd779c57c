"""Scalar logs of a run: a CSV file, TensorBoard events, and the learning-curve plot.

Every scalar goes to both sinks under the same name.  The CSV
(``metrics.csv``) has one row per logged step (``update``, ``global_step``
and the scalars given then; other cells empty), so it reads in any
spreadsheet or ``pandas.read_csv``.  On ``--resume`` the rows after the
checkpoint's update are dropped (a killed run may have logged past its last
checkpoint) and TensorBoard purges its events past that step.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np

from ..atomic import atomic_write, remove_stale_temporaries
from ..points import format_points

#: In the logged row of a run's final evaluation: 1 (the plot draws that evaluation as the final one).
FINAL_EVALUATION = "eval/final"


class RunLogger:
    """Writes scalars to ``<run_dir>/metrics.csv`` and ``<run_dir>/tb``."""

    def __init__(self, run_dir: str | Path, resume_update: int | None = None, resume_step: int | None = None,
                 tensorboard: bool = True):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.csv_path = self.run_dir / "metrics.csv"
        remove_stale_temporaries(self.run_dir)      # a run killed while plotting or writing left them
        self.rows: list[dict] = []
        if resume_update is not None and self.csv_path.exists():
            with open(self.csv_path, newline="") as f:
                self.rows = [r for r in csv.DictReader(f) if int(r["update"]) <= resume_update]
            self._rewrite()
        elif self.csv_path.exists():
            self.csv_path.unlink()
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # tensorboard not installed: the CSV still has everything
                SummaryWriter = None
            if SummaryWriter is not None:
                self.writer = SummaryWriter(str(self.run_dir / "tb"),
                                            purge_step=resume_step if resume_update is not None else None)

    def log(self, update: int, global_step: int, scalars: dict) -> None:
        row = {"update": update, "global_step": global_step}
        for k, v in scalars.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            row[k] = v
            if self.writer is not None and not math.isnan(float(v)):
                self.writer.add_scalar(k, v, global_step)
        self.rows.append({k: str(v) for k, v in row.items()})
        self._rewrite()
        if self.writer is not None:
            self.writer.flush()

    def drop_rows(self, update: int, prefix: str) -> None:
        """Remove the rows of ``update`` whose scalars all start with ``prefix`` (an evaluation's row,
        to be logged again)."""
        def only_prefixed(r: dict) -> bool:
            keys = [k for k, v in r.items() if k not in ("update", "global_step") and v not in ("", None)]
            return bool(keys) and all(k.startswith(prefix) for k in keys)
        kept = [r for r in self.rows if not (int(r["update"]) == update and only_prefixed(r))]
        if len(kept) != len(self.rows):
            self.rows = kept
            self._rewrite()

    def _rewrite(self) -> None:
        """Rewrite the CSV (atomically) with every row so far; columns grow as new scalars appear."""
        columns: list[str] = []
        for r in self.rows:
            for k in r:
                if k not in columns:
                    columns.append(k)
        tmp = self.csv_path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns or ["update", "global_step"])
            w.writeheader()
            w.writerows(self.rows)
        os.replace(tmp, self.csv_path)

    def series(self, name: str) -> tuple[list[int], list[float]]:
        """``(global_steps, values)`` of one scalar."""
        xs, ys = [], []
        for r in self.rows:
            v = r.get(name, "")
            if v not in ("", None):
                xs.append(int(r["global_step"]))
                ys.append(float(v))
        return xs, ys

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def cloning_rows(logger: RunLogger) -> list[dict]:
    """The behaviour-cloning rows of a warm-started run (``bc/epoch`` 0 = before cloning), as floats."""
    out = []
    for r in logger.rows:
        if r.get("bc/epoch", "") not in ("", None):
            out.append({k[3:]: float(v) for k, v in r.items() if k.startswith("bc/") and v not in ("", None)})
    return out




def _training_kinds(logger: RunLogger) -> list[str]:
    """The opponent kinds of the training games the run logged rewards against."""
    return [k for k in ("random", "rule", "pool")
            if any(not math.isnan(y) for y in logger.series(f"return_vs_{k}")[1])]


def curve_panels(logger: RunLogger, opponents: list[str]) -> list[str]:
    """The panels :func:`plot_learning_curves` draws, left to right: ``values`` (cloning to action values),
    ``cloning``, ``vs <opponent>`` per evaluated opponent, ``training`` (not for a clone-only run)."""
    evaluated = [o for o in opponents if logger.series(f"eval/{o}/mean")[0]]
    training = _training_kinds(logger)
    cloning = cloning_rows(logger)
    if not evaluated and not training and not cloning:
        return []
    return ((["values"] if any("heldout_value_regret" in r for r in cloning) else [])
            + (["cloning"] if cloning else []) + [f"vs {o}" for o in evaluated]
            + (["training"] if training or not cloning else []))


def trained_range(ys, lo, hi, untrained: float) -> tuple[float, float] | None:
    """The y-range of an evaluation panel that leaves the untrained network out, or None to keep them all.

    Cloning moves Vint's margin against the rule bot from about -140,000 to a few hundred: on one scale
    the trained agent's curve is a flat line.  When the untrained value lies more than three times
    the trained curve's span (its CI band) away from it, the panel is scaled to the trained curve
    (and zero, if near) and the untrained value is written at the panel's edge.
    """
    low, high = min(list(lo or ys) + list(ys)), max(list(hi or ys) + list(ys))
    span = max(high - low, 1e-9)
    if low - 3 * span <= untrained <= high + 3 * span:
        return None
    if low - 3 * span <= 0 <= high + 3 * span:
        low, high = min(low, 0.0), max(high, 0.0)
    pad = 0.12 * (high - low)
    return round(low - pad, 6), round(high + pad, 6)


def _scale_to_trained(ax, ys, lo, hi, untrained: float) -> None:
    limits = trained_range(ys, lo, hi, untrained)
    if limits is None:
        return
    ax.set_ylim(*limits)
    edge = limits[0] if untrained < limits[0] else limits[1]
    ax.annotate(f"untrained {format_points(untrained)}, off this scale", (0, edge), textcoords="offset points",
                xytext=(8, 10 if untrained < limits[0] else -14), color="C3")


def training_minutes(logger: RunLogger) -> tuple[list[int], list[float]] | None:
    """``(env steps, training minutes)`` of the logged updates, both rising, or ``None`` when the log has
    fewer than two updates with a time (a clone-only run): the map between the curves' two x-axes."""
    xs, ys = logger.series("elapsed_minutes")
    pairs = sorted(zip(xs, ys))
    steps = [x for x, _ in pairs]
    minutes = list(np.maximum.accumulate([y for _, y in pairs])) if pairs else []
    if len(pairs) < 2 or steps[-1] <= steps[0] or minutes[-1] <= minutes[0]:
        return None
    return steps, [float(m) for m in minutes]


def minute_ticks(steps: list[int], minutes: list[float], axis_steps: float, gap: float = 0.12) -> list[float]:
    """The ticks of the minutes axis: round minutes within the run's time, each at least ``gap`` of the axis'
    width (``axis_steps`` env steps) right of the one before.  Minutes pass unevenly over the steps (an
    evaluation takes minutes and no step), so round minutes close in time can fall on nearly one step.

    >>> minute_ticks([0, 300, 310, 1000], [0.0, 1.0, 4.0, 5.0], axis_steps=1000)   # 2, 3, 4: near step 300
    [0.0, 1.0, 5.0]
    """
    from matplotlib.ticker import MaxNLocator
    kept: list[float] = []
    for tick in MaxNLocator(nbins=6).tick_values(minutes[0], minutes[-1]):
        if not minutes[0] <= tick <= minutes[-1]:                         # no tick past the run's time
            continue
        if not kept or np.interp(tick, minutes, steps) - np.interp(kept[-1], minutes, steps) >= gap * axis_steps:
            kept.append(round(float(tick), 6))
    return kept


def _minutes_axis(ax, logger: RunLogger) -> None:
    """A second x-axis on top of an evaluation panel: the training minutes at which the steps were reached."""
    both = training_minutes(logger)
    if both is None:
        return
    steps, minutes = both
    top = ax.secondary_xaxis("top", functions=(lambda x: np.interp(x, steps, minutes),
                                               lambda m: np.interp(m, minutes, steps)))
    low, high = ax.get_xlim()
    top.set_xticks(minute_ticks(steps, minutes, high - low))
    top.xaxis.set_major_formatter("{x:g}")
    top.set_xlabel("training minutes (wall)")


def _legend_below(ax) -> None:
    """The panel's legend under its x-axis, where it hides no curve or interval band."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize="small", frameon=False)


def _interval(lo: float, hi: float) -> str:
    return f"[{format_points(lo)}, {format_points(hi)}]"


def _evaluation_panel(ax, logger: RunLogger, opp: str) -> None:
    """The margin against ``opp`` at each evaluation with its 95% interval: the periodic evaluations as a
    curve with its band, the final one (``eval/final``, often on more boards) as a point of its own, the
    untrained network (warm start) at step 0.  The values are written in the legend, not beside the points."""
    xs, ys = logger.series(f"eval/{opp}/mean")
    _, lo = logger.series(f"eval/{opp}/ci_low")
    _, hi = logger.series(f"eval/{opp}/ci_high")
    boards = dict(zip(*logger.series(f"eval/{opp}/boards")))
    finals = logger.series(FINAL_EVALUATION)[0]
    final = bool(finals) and finals[-1] == xs[-1]
    intervals = len(lo) == len(xs) and len(hi) == len(xs)
    during = len(xs) - 1 if final else len(xs)          # the periodic evaluations

    def on(i: int) -> str:
        return f"{boards[xs[i]]:,.0f} boards, " if xs[i] in boards else ""

    if during:
        label = f"during training ({on(during - 1)}95% CI)" if intervals else "during training"
        if not final:
            label += f": last {format_points(ys[during - 1])}"
        if intervals:
            ax.errorbar(xs[:during], ys[:during], yerr=[np.subtract(ys, lo)[:during], np.subtract(hi, ys)[:during]],
                        marker="o", color="C0", capsize=3, label=label)
            ax.fill_between(xs[:during], lo[:during], hi[:during], alpha=0.15, color="C0")
        else:
            ax.plot(xs[:during], ys[:during], marker="o", color="C0", label=label)
    if final:
        if during:
            ax.plot(xs[-2:], ys[-2:], ":", color="C0", lw=1)
        yerr = [[ys[-1] - lo[-1]], [hi[-1] - ys[-1]]] if intervals else None
        ax.errorbar(xs[-1:], ys[-1:], yerr=yerr, fmt="D", markersize=7, color="C2", capsize=4,
                    label=f"final evaluation ({on(len(xs) - 1)}95% CI): {format_points(ys[-1])}"
                          + (f" {_interval(lo[-1], hi[-1])}" if intervals else ""))
    _, before = logger.series(f"eval_before_cloning/{opp}/mean")
    if before:
        _, blo = logger.series(f"eval_before_cloning/{opp}/ci_low")
        _, bhi = logger.series(f"eval_before_cloning/{opp}/ci_high")
        ax.plot([0, xs[0]], [before[-1], ys[0]], "--", color="C3", lw=1)
        yerr = ([[before[-1] - blo[-1]], [bhi[-1] - before[-1]]] if blo and bhi else None)
        ax.errorbar([0], [before[-1]], yerr=yerr, fmt="s", color="C3", capsize=3,
                    label=f"untrained (before cloning): {format_points(before[-1])}")
        _scale_to_trained(ax, ys, lo, hi, before[-1])
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_title(f"vs {opp} (harness, duplicate)")
    ax.set_xlabel("env steps")
    _minutes_axis(ax, logger)
    ax.set_ylabel("margin per board, raw points")
    _legend_below(ax)


def plot_learning_curves(logger: RunLogger, opponents: list[str], path: str | Path, title: str) -> Path | None:
    """PNG of the learning curves: one panel per evaluation opponent (the harness's margin in raw
    points per board, with its 95% CI band; each on its own scale, since Vint's margin against
    random is hundreds of times that against the rule bot) and one of the learner's mean reward
    per deal in its training games against each kind of opponent.  ``None`` without data.

    A run with an imitation warm start gets a first panel, the cloning: agreement with the teacher per
    epoch (epoch 0 = the untrained network), on the decisions trained on and on held-out deals; and its
    evaluation panels start with the untrained network's margin (``eval_before_cloning/...``, drawn
    at step 0 and joined to the clone's by a dashed line), so the jump that cloning makes is seen.
    A panel whose untrained value would flatten the trained curve is scaled to the trained curve
    (:func:`trained_range`).  Cloning to action values (``teacher_values``) adds a panel of the points given up per valued
    decision on held-out deals: by the network alone, by the teacher, and by the teacher corrected by
    the network (``residual_margin``).  A clone-only run (no PPO update) has no training-games panel."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = curve_panels(logger, opponents)
    if not names:
        return None
    evaluated = [n[3:] for n in names if n.startswith("vs ")]
    training = _training_kinds(logger)
    cloning = cloning_rows(logger)
    values, updates = "values" in names, "training" in names
    panels = len(names)
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 5.0), squeeze=False, layout="constrained")
    axes = list(axes[0])
    if values:
        ax = axes.pop(0)
        epochs = [r["epoch"] for r in cloning]
        lines = [("heldout_value_regret", "the network alone (greedy)", "-", "C0"),
                 ("heldout_teacher_value_regret", "the teacher", ":", "grey")]
        margins = sorted({k.partition("@")[2] for r in cloning for k in r
                          if k.startswith("heldout_residual_value_regret@")}, key=float)
        lines += [(f"heldout_residual_value_regret@{m}", f"the teacher corrected by it (margin {m})", "--", f"C{2 + i}")
                  for i, m in enumerate(margins)]
        for key, label, style, color in lines:
            ys = [r.get(key, math.nan) for r in cloning]
            if any(not math.isnan(y) for y in ys):
                ax.plot(epochs, ys, style, marker="o", label=label, color=color)
        teacher = [r["heldout_teacher_value_regret"] for r in cloning if "heldout_teacher_value_regret" in r]
        network = [r["heldout_value_regret"] for r in cloning[1:] if "heldout_value_regret" in r]
        if teacher and network:   # the untrained network's regret would squash the interesting range
            ax.set_ylim(0, 1.6 * max(teacher[0], max(network)))
        ax.set_xlabel("cloning epoch (0 = untrained)")
        ax.set_ylabel("points given up per valued decision")
        ax.set_title("held-out deals: points lost against the best action")
        _legend_below(ax)
    if cloning:
        ax = axes.pop(0)
        epochs = [r["epoch"] for r in cloning]
        for key, label, style in (("agreement", "trained-on decisions", "--"),
                                  ("heldout_agreement", "held-out deals", "-")):
            ys = [100 * r[key] if key in r else math.nan for r in cloning]
            if any(not math.isnan(y) for y in ys):
                ax.plot(epochs, ys, style, marker="o", label=label)
        ax.set_ylim(0, 100)
        ax.set_xlabel("cloning epoch (0 = untrained)")
        ax.set_ylabel("agreement with the teacher, % of decisions")
        ax.set_title("behaviour cloning")
        _legend_below(ax)
    for ax, opp in zip(axes, evaluated):
        _evaluation_panel(ax, logger, opp)
    if updates:
        ax = axes[-1]
        for i, kind in enumerate(training):
            xs, ys = logger.series(f"return_vs_{kind}")
            pts = [(x, y) for x, y in zip(xs, ys) if not math.isnan(y)]
            ax.plot(*zip(*pts), label=f"vs {kind}", alpha=0.8, color=f"C{i + 1}")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title("training games")
        ax.set_xlabel("env steps")
        ax.set_ylabel("learner reward per deal (env scale)")
        if training:
            _legend_below(ax)
    fig.suptitle(title)
    path = Path(path)
    try:
        with atomic_write(path) as f:
            fig.savefig(f, dpi=100, format="png")
    finally:
        plt.close(fig)
    return path
