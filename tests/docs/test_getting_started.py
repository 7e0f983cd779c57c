"""The "my policy against the rule bots" recipe of docs/getting_started.md runs as written."""

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

from vint_env.evaluation.cli import main as vint_eval

PAGE = Path(__file__).resolve().parents[2] / "docs" / "getting_started.md"


def _section() -> str:
    text = PAGE.read_text()
    return text.split("## My policy against the rule bots", 1)[1].split("\n## ", 1)[0]


@pytest.fixture
def my_policy(tmp_path, monkeypatch):
    """The page's ``my_policy.py``, written to a folder on the import path, as the page says."""
    module, _ = re.findall(r"```python\n(.*?)```", _section(), flags=re.S)
    (tmp_path / "my_policy.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("my_policy", None)


def test_the_loop_plays_twenty_deals_against_the_rule_bots(my_policy):
    _, loop = re.findall(r"```python\n(.*?)```", _section(), flags=re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(loop, str(PAGE), "exec"), {"__name__": "__docs__"})
    m = re.fullmatch(r"my policy \(N/S\) minus the rule bots \(E/W\): ([+-]\d+\.\d\d) points a deal over 20 deals\n",
                     out.getvalue())
    assert m, out.getvalue()
    assert float(m.group(1)) < 0       # playing the highest card loses to the rule bots


def test_the_duplicate_match_of_the_page_measures_the_policy(my_policy, capsys):
    [command] = re.findall(r"```bash\n(.*?)\n```", _section(), flags=re.S)
    words = command.split()
    assert words[:2] == ["PYTHONPATH=.", "vint-eval"]
    args = words[2:]
    args[args.index("--boards") + 1] = "20"          # the page's 1,000 boards, cut for the test
    assert vint_eval(args + ["--workers", "1", "--no-progress"]) == 0
    report = capsys.readouterr().out
    assert "py:my_policy:HighestCard (A) vs rule (B): whist" in report
    margin = re.search(r"A minus B, points per board: \*\*([+-][\d.,]+)\*\*, 95% CI \[([+-][\d.,]+), ([+-][\d.,]+)\]",
                       report)
    assert margin, report
    mean, low, high = (float(x.replace(",", "")) for x in margin.groups())
    assert low <= mean <= high and mean < 0
