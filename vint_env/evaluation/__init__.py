"""Evaluation harness: duplicate matches, confidence intervals, leagues.

>>> from vint_env.evaluation import generate_boards, run_match, summarize
>>> result = run_match("vint", "rule", "random", generate_boards(4, seed=0), seed=0, analysis=False)
>>> summarize(result)["boards"]
4
"""

from .deals import Board, generate_boards, load_boards, save_boards, standard_boards
from .match import MatchResult, run_match
from .report import summarize, summary_markdown
from .stats import mean_ci, t_quantile

__all__ = ["Board", "generate_boards", "load_boards", "save_boards", "standard_boards",
           "MatchResult", "run_match", "summarize", "summary_markdown", "mean_ci", "t_quantile"]
