import json
import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def vint_scoring_cases():
    """The thirteen worked Vint deal scores (both honours rules), see tests/data/examples."""
    return json.loads((DATA / "examples" / "vint_scoring_cases.json").read_text())["cases"]
