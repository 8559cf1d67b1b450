"""`fcbench._atomic`: a failed replacement keeps the old file and leaves no temporary."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fcbench._atomic import replace_file


def test_replace_creates_folders_and_replaces(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b.json"
    replace_file(path, b"one")
    replace_file(path, b"two")
    assert path.read_bytes() == b"two"
    assert [p.name for p in path.parent.iterdir()] == ["b.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    replace_file(path, b"old")
    bad: Any = "not bytes"
    with pytest.raises(TypeError):
        replace_file(path, bad)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]


def test_replace_and_append_never_write_through_a_planted_symlink(tmp_path: Path) -> None:
    """Issue 30: a symlink at the name is replaced by a file of fcbench's own; its target
    keeps its bytes (the old writers followed it)."""
    from fcbench._atomic import open_append, replace_text

    target = tmp_path / "outside"
    target.write_text("precious")
    for name in ("replaced.json", "appended.log"):
        (tmp_path / name).symlink_to(target)
    replace_text(tmp_path / "replaced.json", "new")
    fd = open_append(tmp_path / "appended.log")
    os.write(fd, b"line\n")
    os.close(fd)
    assert target.read_text() == "precious"
    assert (tmp_path / "replaced.json").read_text() == "new"
    assert (tmp_path / "appended.log").read_text() == "line\n"
    assert not any(p.is_symlink() for p in tmp_path.iterdir())
    assert oct((tmp_path / "replaced.json").stat().st_mode & 0o777) == oct(
        0o666 & ~_umask())  # what open(path, "w") would give, not mkstemp's 0600


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_a_result_file_planted_as_a_symlink_is_not_appended_through(tmp_path: Path) -> None:
    from fcbench.results.store import CategoryStore

    target = tmp_path / "outside.json"
    target.write_text("")  # an empty file reads as a clean result file
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    path.symlink_to(target)
    store = CategoryStore(path)
    store.open()
    store.append({"id": "simple_python_0", "result": "[]"})
    store.close()
    assert target.read_text() == ""
    assert not path.is_symlink() and "simple_python_0" in path.read_text()
