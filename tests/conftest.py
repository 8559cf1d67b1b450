"""Shared test fixtures: the official wheel and its modules, and the official data fetched once;
the network guard; the embedding weights the user fetched.

The wheel comes from ../shared/wheels on the project's machines and is downloaded once (pip,
sha256-checked) into ~/.cache/fcbench-tests elsewhere (`FCBENCH_TESTS_CACHE` moves it), so the
tests that need it run on a fresh clone too; if it can be neither found nor downloaded they
fail with the cause. Only tests that need ../shared/corpus (recorded model outputs) skip.

No test reaches the network: from the moment this file is imported, this process and every
child Python process refuse connections and name look-ups that are not loopback
(`network_guard.py`), and a test during which one was tried fails, naming it. The model and
dataset hubs are told to stay offline. The one deliberate exception is the download of the
official wheel above (pip, from the package index, only when ../shared is absent).

The all-MiniLM-L6-v2 weights are located once, before any fixture replaces `$FCBENCH_HOME`
(`fetched_home`), so that the weights `fcbench data fetch-embeddings` put in the user's own
home are found by every test: `$FCBENCH_EMBEDDING_MODEL` points at them for the session.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import network_guard
import official
import scheduling
from release_copies import write_v3_copy
from user_weights import point_at_user_weights

# Property tests judge rules, not speed: on a loaded 2-core machine (CI, xdist workers) drawing
# and running examples is slow, which Hypothesis would otherwise report as a failure.
settings.register_profile(
    "fcbench", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("fcbench")

OFFLINE_HUBS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
}
"""Model and dataset hubs forced offline for the tests and every process they start."""

_REFUSED: list[str] = []
"""What this process tried and the guard refused, in order."""
_CHILD_LOG = Path(tempfile.gettempdir()) / f"fcbench-tests-network-{os.getpid()}.log"
"""Where this process's children log what the guard refused them."""


def _guard_network() -> None:
    """Refuse non-loopback connections here and in child processes (inherited environment:
    the sitecustomize in tests/netguard runs in every child Python that sees it)."""
    os.environ.update(OFFLINE_HUBS)
    os.environ[network_guard.ENABLE_VAR] = "1"
    os.environ[network_guard.LOG_VAR] = str(_CHILD_LOG)
    guard_dir = str(Path(__file__).resolve().parent / "netguard")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if guard_dir not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([guard_dir, *paths])
    network_guard.install(_REFUSED.append)


_guard_network()
point_at_user_weights()


def _refused_since(mark: tuple[int, int]) -> tuple[list[str], tuple[int, int]]:
    """What was refused since `mark` (here and in children), and the new mark."""
    try:
        with open(_CHILD_LOG, "rb") as log:
            log.seek(mark[1])
            child = log.read().decode("utf-8", "replace")
    except OSError:
        child = ""
    found = _REFUSED[mark[0]:] + [line for line in child.splitlines() if line.strip()]
    return found, (len(_REFUSED), mark[1] + len(child.encode("utf-8")))


_MARK = pytest.StashKey[tuple[int, int]]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Remember where the refusals stood when the test started (its fixtures included)."""
    try:
        size = _CHILD_LOG.stat().st_size
    except OSError:
        size = 0
    item.stash[_MARK] = (len(_REFUSED), size)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test that tried to reach the network fails (in the phase where it was seen)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if call.when == "setup" or _MARK not in item.stash:
        return
    refused, item.stash[_MARK] = _refused_since(item.stash[_MARK])
    if refused and not report.failed:
        report.outcome = "failed"
        report.longrepr = ("the test reached for the network (tests stay on loopback): "
                           + "; ".join(refused))


_LONGEST_FIRST = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With `-n` (pytest-xdist) and no `--dist`, `scheduling.py` shares the work: a test
    file's tests on one worker (module-scoped set-ups happen once) except the files of long
    parametrized tests, the longest work first."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "loadscope"
        config.option.loadscopereorder = False  # the workers' collection order is the plan
        config.stash[_LONGEST_FIRST] = True


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return scheduling.make_scheduler(config, log) if config.stash.get(_LONGEST_FIRST, False) \
        else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """An xdist worker's collection, which the controller's work queue follows, longest first
    (a run without workers keeps the file order)."""
    if hasattr(config, "workerinput"):  # this process is a worker (not a pytest it started)
        items[:] = scheduling.longest_first(items)


def pytest_report_header(config: pytest.Config) -> str:
    return ("network guard: on (connections and look-ups off loopback fail the test; "
            f"{', '.join(sorted(OFFLINE_HUBS))} set)")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The children's refusal log is this process's own: gone with it."""
    _CHILD_LOG.unlink(missing_ok=True)


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
    """A folder holding the wheel's `bfcl_eval/` package, unpacked once per test run."""
    with _run_wide(tmp_path_factory, "official") as folder:
        return official.extract(bfcl_wheel, folder)


@contextlib.contextmanager
def _run_wide(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """A folder made once per test run: this session's own, or under pytest-xdist one shared
    by every worker, the first to get the lock filling it while the others wait (what is
    built there must be read-only afterwards, and its builder must skip finished work)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield tmp_path_factory.mktemp(name)
        return
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp().parent
    with FileLock(str(root / f"{name}.lock")):
        folder = root / name
        folder.mkdir(exist_ok=True)
        yield folder


@pytest.fixture(scope="module")
def official_modules(official_root: Path) -> Iterator[Path]:
    """The official modules importable (with stand-ins) for one test module's tests."""
    with official.importable(official_root) as root:
        yield root


@pytest.fixture(scope="session")
def fetched_home(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An FCBENCH_HOME holding the default release, fetched once per test run from the
    official wheel (shared by xdist workers: tests that change a home copy it first).

    FCBENCH_HOME points at it from first use until the end of the session; tests that need a
    different home set their own with `monkeypatch`, which restores this one afterwards.
    """
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.install import fetch

    with pytest.MonkeyPatch.context() as mp:
        with _run_wide(tmp_path_factory, "fcbench_home") as home:
            mp.setenv("FCBENCH_HOME", str(home))
            fetch(DEFAULT_RELEASE, source=bfcl_wheel)  # a no-op once a worker has fetched it
        yield home


@pytest.fixture
def home(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's fetched home, with FCBENCH_HOME pointing at it for this test."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    return fetched_home


@pytest.fixture(scope="session")
def v3_data(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default release's data laid out as a v3-era release (built once per session;
    the data-layer and validation tests read it)."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    data = fetched_home / "releases" / DEFAULT_RELEASE / "data"
    return write_v3_copy(data, tmp_path_factory.mktemp("v3-release") / "data")


@pytest.fixture(autouse=True)
def _private_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Generation tests make their own requests: the response cache is off unless a test
    asks for it (`--cache`, or deleting FCBENCH_CACHE), and each test has its own folder."""
    monkeypatch.setenv("FCBENCH_CACHE", "off")
    monkeypatch.setenv("FCBENCH_CACHE_DIR", str(tmp_path / "response-cache"))


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped output is laid out in `$COLUMNS` when set (`report.console.console_for`): a
    terminal's exported COLUMNS must not change what the tests read; tests set it to try it."""
    monkeypatch.delenv("COLUMNS", raising=False)


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
