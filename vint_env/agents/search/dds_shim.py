"""The one place that touches endplay's compiled DDS binding (``endplay._dds``), checked against the installed endplay.

endplay's public API (``endplay.dds.solve_board``, ``solve_all_boards``) takes its ``Deal`` objects one
position at a time; PIMC hands DDS hundreds of binary positions per decision (:mod:`.dds_batch`), which only
the binding's structs and ``SolveAllBoardsBin`` do.  The binding is private to endplay, so it is imported
here only, for the endplay versions it was tested with (:data:`TESTED`), and every name it needs is checked
at import: another version fails with an ImportError that names the version needed, not deep inside DDS.
(tests/package/test_public_apis.py runs against the installed version.)
"""

from __future__ import annotations

from importlib import metadata

#: endplay versions whose ``_dds`` binding this shim was tested with: 0.5.12 and later 0.5 releases.
TESTED = ((0, 5, 12), (0, 6, 0))          # lowest tested, first untested
NEEDED = ("boards", "solvedBoards", "deal", "futureTricks", "SolveAllBoardsBin", "SolveBoard", "SetMaxThreads",
          "MAXNOOFBOARDS")
REQUIREMENT = "endplay>=0.5.12,<0.6"


def _version_tuple(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def load_binding(version: str | None = None):
    """``endplay._dds`` if the installed endplay is a tested version that has every name :data:`NEEDED`;
    else ImportError naming the version needed (``version``: for tests, instead of the installed one)."""
    try:
        installed = version or metadata.version("endplay")
    except metadata.PackageNotFoundError as exc:
        raise ImportError(f"double-dummy search needs endplay ({REQUIREMENT}): pip install 'vint-env[eval]'") \
            from exc
    if not TESTED[0] <= _version_tuple(installed) < TESTED[1]:
        raise ImportError(f"double-dummy search needs {REQUIREMENT} (its DDS binding), found endplay {installed}: "
                          f"pip install '{REQUIREMENT}'")
    import endplay._dds as binding
    missing = [name for name in NEEDED if not hasattr(binding, name)]
    if missing:
        raise ImportError(f"endplay {installed}'s DDS binding lacks {', '.join(missing)}: "
                          f"double-dummy search needs {REQUIREMENT}")
    return binding


__all__ = ["load_binding", "TESTED", "NEEDED", "REQUIREMENT"]
