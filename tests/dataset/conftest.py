"""Fixtures for the data-layer tests: homes with, without, or with a private copy of the data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from release_copies import write_v3_copy

from fcbench.dataset.fetch import clear_caches


@pytest.fixture
def home(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's fetched home, with FCBENCH_HOME pointing at it for this test."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    return fetched_home


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


@pytest.fixture(scope="session")
def v3_data(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default release's data laid out as a v3-era release (built once per session)."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    data = fetched_home / "releases" / DEFAULT_RELEASE / "data"
    return write_v3_copy(data, tmp_path_factory.mktemp("v3-release") / "data")
