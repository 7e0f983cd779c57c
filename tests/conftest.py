import json
import pathlib

import pytest

SHARED = pathlib.Path(__file__).resolve().parents[1].parent / "shared"
DATA = pathlib.Path(__file__).resolve().parent / "data"


def shared_path(*parts) -> pathlib.Path:
    """A file of ../shared (next to the repo), or a copy under tests/data."""
    p = SHARED.joinpath(*parts)
    if p.exists():
        return p
    return DATA.joinpath(*parts)


@pytest.fixture(scope="session")
def vint_scoring_cases():
    return json.loads(shared_path("examples", "vint_scoring_cases.json").read_text())["cases"]
