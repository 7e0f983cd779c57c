"""Write a file atomically: into a temporary file in the same folder, flushed to disk, then renamed over the target.

A reader (or a resumed run) sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_write(path, mode: str = "wb", encoding: str | None = None, shared: bool = False):
    """``with atomic_write(path) as f: ...`` writes ``path`` atomically (folders made as needed).

    ``shared=True`` makes the file world-readable (``mkstemp`` makes it private), for files that ship.
    On any error the temporary file is removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if shared:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def remove_stale_temporaries(folder) -> list[Path]:
    """Delete the temporary files :func:`atomic_write` (and older writers) left in ``folder`` when a kill
    stopped them mid-write (``.NAME.XXXX.tmp``, ``.NAME.tmp.png``, ``NAME.csv.tmp``); return them.

    Call it where a run resumes in its own folder: nobody else writes there then.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    stale = [p for pattern in (".*.tmp", ".*.tmp.png", "*.csv.tmp") for p in folder.glob(pattern) if p.is_file()]
    for p in stale:
        p.unlink(missing_ok=True)
    return stale
