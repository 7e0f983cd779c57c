"""One version, written once (vint_env.__version__): the installed metadata and every console script's
``--version`` say it."""

import importlib
import importlib.metadata
from pathlib import Path

import pytest

import vint_env

tomllib = pytest.importorskip("tomllib")     # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def test_the_installed_metadata_has_the_package_version():
    assert vint_env.__version__ == importlib.metadata.version("vint-env")
    assert "version" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dynamic"]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_script_prints_its_name_and_the_version(script, capsys):
    module, _, function = SCRIPTS[script].partition(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"{script} {vint_env.__version__}\n"
