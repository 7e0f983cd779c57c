"""The throughput benchmarks are scripts of the clone (``python -m benchmarks.NAME``), never modules of the
installed package: the wheel's package discovery finds ``vint_env`` alone, and each script answers ``--help``."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem != "__init__")


def test_the_installed_package_holds_no_benchmark():
    tomllib = pytest.importorskip("tomllib")
    from setuptools import find_packages
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(str(ROOT), include=found["include"])
    assert "vint_env" in packages and all(p.split(".")[0] == "vint_env" for p in packages), packages
    measuring = [str(p.relative_to(ROOT)) for p in (ROOT / "vint_env").rglob("*.py")
                 if "throughput" in p.stem or p.stem.endswith("bench") or "measure" in p.stem]
    assert not measuring, f"benchmarks inside the package: {measuring}"


def test_every_benchmark_names_what_it_measures():
    assert SCRIPTS and all(name.split("_")[-1] in ("throughput", "ratio") for name in SCRIPTS), SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_benchmark_runs_as_a_module_of_the_clone(name):
    run = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "usage: python -m benchmarks." in run.stdout
