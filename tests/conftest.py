"""Shared test fixtures: the official wheel and its modules, and the official data fetched once.

The wheel comes from ../shared/wheels on the project's machines and is downloaded once (pip,
sha256-checked) into ~/.cache/fcbench-tests elsewhere (`FCBENCH_TESTS_CACHE` moves it), so the
tests that need it run on a fresh clone too; if it can be neither found nor downloaded they
fail with the cause. Only tests that need ../shared/corpus (recorded model outputs) skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import official


@pytest.fixture(scope="session")
def bfcl_wheel() -> Path:
    """The official wheel (shared copy, or downloaded once and verified); fails naming why
    it is unavailable."""
    cache = Path(os.environ.get("FCBENCH_TESTS_CACHE", official.DEFAULT_CACHE)).expanduser()
    try:
        return official.obtain_wheel(cache)
    except (official.WheelUnavailable, OSError) as exc:
        pytest.fail(f"the official bfcl-eval wheel is unavailable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def official_root(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the wheel's `bfcl_eval/` package, unpacked once per session."""
    return official.extract(bfcl_wheel, tmp_path_factory.mktemp("official"))


@pytest.fixture(scope="module")
def official_modules(official_root: Path) -> Iterator[Path]:
    """The official modules importable (with stand-ins) for one test module's tests."""
    with official.importable(official_root) as root:
        yield root


@pytest.fixture(scope="session")
def fetched_home(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An FCBENCH_HOME holding the default release, fetched once from the official wheel.

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


_REAL_MODEL_TIMES: list[tuple[str, str, float]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep the wall time of each real-model test (issue 25: shown in the CI log)."""
    if report.when == "call" and "real_model" in report.keywords:
        _REAL_MODEL_TIMES.append((report.nodeid, report.outcome, report.duration))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for nodeid, outcome, seconds in _REAL_MODEL_TIMES:
        terminalreporter.write_line(f"real model test: {nodeid} {outcome} in {seconds:.1f} s")
