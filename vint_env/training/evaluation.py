"""Periodic evaluation of the learner through the harness (``vint_env.evaluation``).

At each evaluation the trainer hands the harness a frozen copy of its network, held in memory
(:meth:`PPOAgent.from_network <vint_env.agents.learned.policy.PPOAgent.from_network>`: greedy, on the CPU,
named ``network (update N)``); no file is written or read for it, and it plays exactly as the same weights
loaded from a checkpoint would.  The harness plays it in duplicate against each
of ``eval_opponents`` on the same boards every time (seeded by the run's
seed), so the learning curves compare like with like.  The figures logged
are the harness's: the margin in raw points per board (both tables of a
duplicate board summed) with its 95% confidence interval, and the share of
boards won.
"""

from __future__ import annotations

from pathlib import Path

from vint_env.agents.base import Agent
from vint_env.games import Game
from vint_env.points import ci_parts

from .progress import Quiet


def as_player(agent: Agent | str | Path) -> Agent | str:
    """What the harness plays: an ``Agent`` object as it is, a checkpoint's path as ``network:PATH``."""
    return agent if isinstance(agent, Agent) else f"network:{agent}"


class HarnessEvaluator:
    """``evaluator(agent, update, deals)`` -> scalars ``eval/<opponent>/...``; ``agent`` is an ``Agent`` held in
    memory (the trainer's frozen network) or a checkpoint's path.

    Keeps the harness summaries of the latest evaluation in ``last_summaries``
    (opponent -> :func:`vint_env.evaluation.summarize` dict).
    """

    def __init__(self, game: Game, opponents: list[str], seed: int = 0, workers: int = 1,
                 env_options: dict | None = None):
        import vint_env.evaluation  # noqa: F401  (fail here, not at the first evaluation, without the harness)
        self.game = game                 # the record (the run resolved it once)
        self.opponents = list(opponents)
        self.seed = seed
        self.workers = workers
        self.last_summaries: dict[str, dict] = {}
        self.last_matches: dict[str, object] = {}       # opponent -> the harness's MatchResult
        self._boards: dict[int, list] = {}
        # the env's rule options trained on (two-player Vint's way ...); rewards stay the harness's raw points
        self.env_options = {k: v for k, v in (env_options or {}).items() if k not in ("reward_scale", "episode")}
        self.progress = Quiet()          # each match is a stage: "vs <opponent>" (progress.py); the run sets it

    @classmethod
    def from_config(cls, cfg, game: Game) -> HarnessEvaluator:
        """The evaluator of a run's config; ``game``: the run's record."""
        return cls(game, cfg.evaluation.eval_opponents, seed=cfg.run.seed, env_options=cfg.run.env_kwargs)

    def boards(self, n: int) -> list:
        from vint_env.evaluation import generate_boards
        if n not in self._boards:
            self._boards[n] = generate_boards(n, seed=self.seed)
        return self._boards[n]

    def match(self, agent_a: Agent | str, agent_b: Agent | str, boards: list, label: str | None = None):
        """The harness's duplicate match (agents: specs or objects), without its per-board double-dummy analysis
        (a quarter of a second per Vint board, which would dominate an evaluation inside training); the stage
        ``vs <label>`` (default: B's spec or name) of :attr:`progress`, a bar of boards."""
        from vint_env.evaluation import run_match
        label = label or (agent_b if isinstance(agent_b, str) else getattr(agent_b, "name", "B"))
        with self.progress.stage(f"vs {label}", len(boards), "board") as bar:
            return run_match(self.game, agent_a, agent_b, boards, seed=self.seed, workers=self.workers,
                             analysis=False, env_options=self.env_options,
                             on_chunk=lambda results, cpu: bar.update(len(results)))

    def __call__(self, agent: Agent | str | Path, update: int, deals: int) -> dict:
        from vint_env.evaluation import summarize
        scalars: dict[str, float] = {}
        self.last_summaries = {}
        self.last_matches = {}
        for opp in self.opponents:
            result = self.match(as_player(agent), opp, self.boards(deals))
            s = summarize(result)
            self.last_summaries[opp] = s
            self.last_matches[opp] = result
            m = s["margin_per_board"]
            scalars[f"eval/{opp}/mean"] = m["mean"]
            scalars[f"eval/{opp}/ci_low"] = m["low"]
            scalars[f"eval/{opp}/ci_high"] = m["high"]
            scalars[f"eval/{opp}/share_won"] = s["share_won"]["share"]
            scalars[f"eval/{opp}/boards"] = s["boards"]
        return scalars

    WARM_START = "warm_start"   # the scalars' name (eval/warm_start/...) and the table's row for the clone

    def against_warm_start(self, agent: Agent | str | Path, warm_start: Agent | str | Path, deals: int) -> dict:
        """The agent after RL (A) against the same agent before it (B: the warm start's clone, the run's
        ``warm_start.pt``) on the final boards: ``eval/warm_start/...`` scalars, and a row of :meth:`table`."""
        from vint_env.evaluation import summarize
        result = self.match(as_player(agent), as_player(warm_start), self.boards(deals), self.WARM_START)
        s = summarize(result)
        self.last_summaries[self.WARM_START] = s
        self.last_matches[self.WARM_START] = result
        m = s["margin_per_board"]
        return {f"eval/{self.WARM_START}/mean": m["mean"], f"eval/{self.WARM_START}/ci_low": m["low"],
                f"eval/{self.WARM_START}/ci_high": m["high"], f"eval/{self.WARM_START}/share_won": s["share_won"]["share"]}

    def write_viewer(self, path: str | Path, title: str) -> Path | None:
        """The HTML match viewer of the latest evaluation (one tab per opponent), or None if none ran."""
        from vint_env.evaluation.report import match_json, summary_markdown
        from vint_env.evaluation.viewer import write_html
        if not self.last_matches:
            return None
        records = []
        for opp, result in self.last_matches.items():
            record = match_json(result, self.last_summaries[opp])
            record["markdown"] = summary_markdown(self.last_summaries[opp])
            records.append(record)
        return write_html(path, records, title)

    def table(self) -> str:
        """The final evaluation as a Markdown table, one row per opponent."""
        if not self.last_summaries:
            return "(no evaluation was run)"
        rows = ["| opponent (B) | boards | margin per board (A - B) | 95% CI | boards won / lost / tied |",
                "|---|---|---|---|---|"]
        for opp, s in self.last_summaries.items():
            m = s["margin_per_board"]
            if opp == self.WARM_START:
                opp = "the same agent before RL (the warm start's clone): RL's gain"
            verdict = "" if (m["low"] > 0 or m["high"] < 0) else " (CI includes 0)"
            mean, low, high = ci_parts(m["mean"], m["low"], m["high"])
            rows.append(f"| {opp} | {s['boards']} | {mean}{verdict} | [{low}, {high}] "
                        f"| {s['boards_won']} / {s['boards_lost']} / {s['boards_tied']} |")
        return "\n".join(rows)
