"""`fcbench._atomic`: a failed replacement keeps the old file and leaves no temporary."""

from __future__ import annotations

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
