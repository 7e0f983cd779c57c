import os

import pytest

from vint_env.atomic import atomic_write


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "sub" / "f.json"
    with atomic_write(path, "w", encoding="utf-8") as f:
        f.write("old")
    with pytest.raises(RuntimeError):
        with atomic_write(path, "w", encoding="utf-8") as f:
            f.write("half")
            raise RuntimeError("killed mid-write")
    assert path.read_text() == "old"
    assert os.listdir(path.parent) == ["f.json"]


def test_shared_files_are_world_readable(tmp_path):
    path = tmp_path / "m.json"
    with atomic_write(path, "w", shared=True) as f:
        f.write("{}")
    assert path.stat().st_mode & 0o777 == 0o644
