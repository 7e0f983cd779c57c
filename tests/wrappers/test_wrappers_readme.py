"""The recipes of the Integrations page (docs/integrations.md) run as written."""

import contextlib
import importlib.util
import io
import pathlib
import re

import pytest

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def recipes() -> dict[str, str]:
    """The first python block of each section of the page, keyed by the section's first word."""
    text = PAGE.read_text()
    blocks = {}
    for part in re.split(r"\n## ", text)[1:]:
        heading = part.splitlines()[0]
        code = re.findall(r"```python\n(.*?)```", part, flags=re.S)
        if code:
            blocks[heading.split(" ")[0].rstrip(":")] = code[0]
    return blocks


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__readme__"})
    return out.getvalue()


def needs(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} (extras)")


def test_the_section_has_a_recipe_per_library():
    assert set(recipes()) == {"Gymnasium", "Stable-Baselines3", "RLlib", "TorchRL", "Tianshou", "OpenSpiel"}
    # the OpenSpiel recipes run in tests/wrappers/test_openspiel.py


def test_gymnasium_recipe():
    printed = run(recipes()["Gymnasium"]).split()
    assert len(printed) == 2


@needs("torchrl")
@pytest.mark.slow
def test_torchrl_recipe():
    assert "tensor" in run(recipes()["TorchRL"])


@needs("tianshou")
@pytest.mark.slow
def test_tianshou_recipe():
    assert run(recipes()["Tianshou"]).strip().startswith("[[")


@needs("sb3_contrib")
@pytest.mark.slow
def test_sb3_recipe():
    assert run(recipes()["Stable-Baselines3"]).strip().startswith("(")


@needs("ray", "torch")
@pytest.mark.slow
def test_rllib_recipe():
    assert "player_0" in run(recipes()["RLlib"])
