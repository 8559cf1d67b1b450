"""Fixtures for the data-layer tests: homes with, without, or with a private copy of the data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from fcbench.dataset.fetch import clear_caches


@pytest.fixture
def copied_home(fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the fetched home, for tests that damage or replace files."""
    copy = tmp_path / "home"
    shutil.copytree(fetched_home / "releases", copy / "releases")
    monkeypatch.setenv("FCBENCH_HOME", str(copy))
    clear_caches()
    return copy


@pytest.fixture
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An FCBENCH_HOME with nothing fetched."""
    empty = tmp_path / "empty-home"
    monkeypatch.setenv("FCBENCH_HOME", str(empty))
    return empty


@pytest.fixture
def offline_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `pip download` fail at once, without touching the network or the user's config."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/")
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(name, raising=False)
