"""The README's test command collects on the README's install: a module of an optional integration whose
package is missing is left out of the doctest collection (conftest.py at the repository's root), and only
such a module."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _root_conftest():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_missing_outside_package_is_named_and_nothing_else_is():
    missing_package = _root_conftest().missing_package
    try:
        try:
            import pyspiel_not_installed_anywhere  # noqa: F401
        except ModuleNotFoundError as exc:
            raise ImportError("needs OpenSpiel") from exc
    except ImportError as exc:
        assert missing_package(exc) == "pyspiel_not_installed_anywhere"
    # a module of the project itself that is missing, or a name missing from a module: real errors
    assert missing_package(ModuleNotFoundError("no module", name="vint_env.wrappers.gone")) is None
    assert missing_package(ModuleNotFoundError("no module", name="training.gone")) is None
    assert missing_package(ImportError("cannot import name 'x' from 'vint_env.cards'")) is None


def test_the_openspiel_modules_are_left_out_without_openspiel_and_the_rest_collected():
    # OpenSpiel hidden (a None entry in sys.modules makes its import fail), whether or not it is installed
    code = ("import sys, pytest\n"
            "sys.modules['pyspiel'] = None\n"
            "sys.exit(pytest.main(['--collect-only', '-q', '-n', '0', '-p', 'no:cacheprovider', 'vint_env/wrappers']))\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "vint_env/wrappers/single_agent.py" in run.stdout          # the other modules are collected
    assert "wrappers/openspiel" not in run.stdout
    assert "error" not in run.stdout.lower()
