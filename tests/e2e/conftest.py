"""Fixtures the end-to-end tests share."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The response cache at its default mode (the suite turns it off), in this test's own
    folder; returns the folder."""
    monkeypatch.delenv("FCBENCH_CACHE", raising=False)
    folder = tmp_path / "response-cache"
    monkeypatch.setenv("FCBENCH_CACHE_DIR", str(folder))
    return folder
