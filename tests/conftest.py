"""Shared test fixtures: where ../shared is, and the official data fetched once per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
WHEEL = SHARED / "wheels" / "bfcl_eval-2026.3.23-py3-none-any.whl"


@pytest.fixture(scope="session")
def bfcl_wheel() -> Path:
    """The official wheel from ../shared/wheels (skips the test when it is absent)."""
    if not WHEEL.is_file():
        pytest.skip(f"the official bfcl-eval wheel is not available at {WHEEL}")
    return WHEEL


@pytest.fixture(scope="session")
def fetched_home(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An FCBENCH_HOME holding the default release, fetched once from the shared wheel.

    FCBENCH_HOME points at it from first use until the end of the session; tests that need a
    different home set their own with `monkeypatch`, which restores this one afterwards.
    """
    from fcbench.dataset.fetch import DEFAULT_RELEASE, fetch

    home = tmp_path_factory.mktemp("fcbench_home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FCBENCH_HOME", str(home))
        fetch(DEFAULT_RELEASE, source=bfcl_wheel)
        yield home


@pytest.fixture(autouse=True)
def _private_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Generation tests make their own requests: the response cache is off unless a test
    asks for it (`--cache`, or deleting FCBENCH_CACHE), and each test has its own folder."""
    monkeypatch.setenv("FCBENCH_CACHE", "off")
    monkeypatch.setenv("FCBENCH_CACHE_DIR", str(tmp_path / "response-cache"))


@pytest.fixture(autouse=True)
def _forget_custom_datasets() -> Iterator[None]:
    """Custom datasets a test registers (`--data-dir`) are forgotten after it, so that the
    category registry every other test sees is the built-in one."""
    yield
    from fcbench.dataset.custom import unregister_all

    unregister_all()
