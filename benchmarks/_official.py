"""The official evaluator (``bfcl-eval`` 2026.3.23) in a minimal, cached virtual environment.

Dependency set
==============
``bfcl-eval`` declares ~35 requirements (sentence-transformers -> torch with CUDA, faiss,
every vendor SDK, ...). Scoring single-turn categories needs only a few of them, found by
installing the wheel without dependencies and importing ``bfcl_eval.__main__`` (what the
``bfcl`` command imports) until it succeeded, then running ``bfcl evaluate`` on the corpus
and checking every per-category count against the corpus's recorded official verdicts:

* installed for real, with the official package's own version pins or specifiers, because
  evaluation runs their code: numpy, pandas (leaderboard CSVs), tree-sitter + the Java and
  JavaScript grammars (decoding), typer, python-dotenv, tabulate, tqdm (CLI and runner),
  overrides, tenacity, filelock (imported by the handlers and the file helpers);
* stubbed -- imported at module level but never used by single-turn evaluation: see
  :data:`_bfcl_stubs.STUBBED_MODULES` (vendor SDKs, HTTP clients, retrieval back-ends).

Commands (``$V`` is the venv, ``$PY`` the interpreter running the benchmark)::

    $PY -m venv $V
    $V/bin/python -m pip install --no-deps ../shared/wheels/bfcl_eval-2026.3.23-py3-none-any.whl
        # or, without ../shared/wheels:  ... --no-deps bfcl-eval==2026.3.23
    $V/bin/python -m pip install <RUNTIME_REQUIREMENTS>
    cp benchmarks/_bfcl_stubs.py $V/lib/pythonX.Y/site-packages/_fcbench_bench_stubs.py
    echo "import _fcbench_bench_stubs; _fcbench_bench_stubs.install()" \\
        > $V/lib/pythonX.Y/site-packages/_fcbench_bench_stubs.pth

Fairness: the stubs only make the official tool start faster (a placeholder imports in
microseconds; the real SDKs take hundreds of milliseconds), never slower.

Corpus layout
=============
For each corpus model ``M`` (whose ``model.json`` names the ``official_handler`` ``H``), a
project root ``R`` with ``R/result/<H with / -> _>/non_live/BFCL_v4_<category>_result.json``,
then ``BFCL_PROJECT_ROOT=R bfcl evaluate --model H --test-category <the 7 categories>`` in a
fresh process. The v1 result files hold every test case, so ``--partial-eval`` is not needed
(without it the official tool refuses incomplete files, which doubles as a check). Gemini's
handler refuses to start without ``GOOGLE_API_KEY``: dummy API keys are set (never used).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _bfcl_stubs import STUBBED_MODULES
from _measure import CATEGORIES, Counts, Measured, read_scores, run_measured

OFFICIAL_DIST = "bfcl-eval"
OFFICIAL_VERSION = "2026.3.23"
WHEEL_NAME = f"bfcl_eval-{OFFICIAL_VERSION}-py3-none-any.whl"

#: What single-turn evaluation needs at run time, with bfcl-eval 2026.3.23's own pins and
#: specifiers (from its METADATA); pip picks the newest versions that satisfy them.
RUNTIME_REQUIREMENTS: tuple[str, ...] = (
    "numpy==1.26.4",
    "pandas",
    "tree_sitter==0.21.3",
    "tree-sitter-java==0.21.0",
    "tree-sitter-javascript==0.21.4",
    "typer>=0.12.5",
    "python-dotenv>=1.0.1",
    "tabulate>=0.9.0",
    "tqdm",
    "overrides",
    "tenacity>=8.5.0",
    "filelock==3.20.0",
)

#: Handlers build API clients in their constructors; Gemini's refuses to without a key.
DUMMY_API_KEYS: dict[str, str] = {
    "OPENAI_API_KEY": "fcbench-bench-dummy",
    "GOOGLE_API_KEY": "fcbench-bench-dummy",
    "FIREWORKS_API_KEY": "fcbench-bench-dummy",
    "ANTHROPIC_API_KEY": "fcbench-bench-dummy",
    "MISTRAL_API_KEY": "fcbench-bench-dummy",
}

_HERE = Path(__file__).resolve().parent
_STUB_SOURCE = _HERE / "_bfcl_stubs.py"
_CHECK_DRIVER = _HERE / "_official_check_driver.py"
_STUB_MODULE = "_fcbench_bench_stubs"
_READY_MARKER = ".fcbench-bench-ready.json"

Log = Callable[[str], None]


def bench_home() -> Path:
    """``$FCBENCH_BENCH_HOME``, default ``~/.cache/fcbench-bench``."""
    return Path(os.environ.get("FCBENCH_BENCH_HOME", "~/.cache/fcbench-bench")).expanduser()


@dataclass(frozen=True)
class OfficialEnv:
    """A ready virtual environment holding the official evaluator."""

    root: Path
    python: Path
    bfcl: Path
    installed: tuple[str, ...]  # "name==version" of every distribution in the venv


def install_commands(venv: Path, python: str, wheel_dir: Path | None) -> list[list[str]]:
    """The exact commands that build the venv (the stub files are then copied in)."""
    venv_python = str(_venv_python(venv))
    pip = [venv_python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    wheel = wheel_dir / WHEEL_NAME if wheel_dir is not None else None
    official = str(wheel) if wheel is not None and wheel.exists() else (
        f"{OFFICIAL_DIST}=={OFFICIAL_VERSION}"
    )
    return [
        [python, "-m", "venv", str(venv)],
        [*pip, "--no-deps", official],
        [*pip, *RUNTIME_REQUIREMENTS],
    ]


def ensure_venv(
    python: str, wheel_dir: Path | None, *, rebuild: bool = False, log: Log = print
) -> OfficialEnv:
    """Create, or reuse from the cache, the official evaluator's minimal venv."""
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    venv = bench_home() / f"venv-bfcl_eval-{OFFICIAL_VERSION}-py{version}"
    commands = install_commands(venv, python, wheel_dir)
    fingerprint = _fingerprint(commands)
    marker = venv / _READY_MARKER

    if not rebuild and marker.exists():
        recorded = json.loads(marker.read_text(encoding="utf-8"))
        if recorded.get("fingerprint") == fingerprint:
            log(f"official venv: reusing {venv}")
            return _env(venv, recorded["installed"])
        log(f"official venv: {venv} is out of date, rebuilding")

    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    log(f"official venv: creating {venv}")
    for command in commands:
        log("  $ " + " ".join(command))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:  # pip's complaints about the skipped requirements are expected
            raise RuntimeError(f"failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site_packages = Path(
        subprocess.run(
            [str(_venv_python(venv)), "-c", purelib],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    stub_path = site_packages / f"{_STUB_MODULE}.py"
    log(f"  + stubs: {stub_path} (+ .pth): {', '.join(STUBBED_MODULES)}")
    shutil.copyfile(_STUB_SOURCE, stub_path)
    (site_packages / f"{_STUB_MODULE}.pth").write_text(
        f"import {_STUB_MODULE}; {_STUB_MODULE}.install()\n", encoding="utf-8"
    )

    # Smoke test: the `bfcl` command's module imports with this dependency set. (Importing
    # bfcl_eval creates result/, score/ and .file_locks/ under the project root.)
    with tempfile.TemporaryDirectory(prefix="fcbench-bench-smoke-") as scratch:
        subprocess.run(
            [str(_venv_python(venv)), "-c", "import bfcl_eval.__main__"],
            check=True,
            env=official_environ(Path(scratch)),
            stdout=subprocess.DEVNULL,
        )
    installed = _pip_freeze(venv)
    marker.write_text(
        json.dumps({"fingerprint": fingerprint, "installed": installed}, indent=1),
        encoding="utf-8",
    )
    return _env(venv, installed)


def official_environ(project_root: Path) -> dict[str, str]:
    """Environment for an official process: project root + dummy API keys."""
    env = dict(os.environ)
    env.update(DUMMY_API_KEYS)
    env["BFCL_PROJECT_ROOT"] = str(project_root)
    env.pop("PYTHONPATH", None)
    return env


def handler_dir_name(handler: str) -> str:
    """The official tool's folder name for a registered model name."""
    return handler.replace("/", "_")


def layout_model(
    model_dir: Path, project_root: Path, categories: Sequence[str] = CATEGORIES
) -> tuple[str, Path]:
    """Copy one corpus model's result files into a fresh official project root.

    Returns the official handler name and the folder holding the result files.
    """
    handler = str(json.loads((model_dir / "model.json").read_text())["official_handler"])
    results = project_root / "result" / handler_dir_name(handler) / "non_live"
    results.mkdir(parents=True)
    for category in categories:
        name = f"BFCL_v4_{category}_result.json"
        shutil.copyfile(model_dir / name, results / name)
    return handler, results


@dataclass(frozen=True)
class OfficialRun:
    """One model evaluated by ``bfcl evaluate`` in its own process."""

    model: str
    handler: str
    measured: Measured
    counts: Counts


def evaluate_model(
    env: OfficialEnv, project_root: Path, handler: str, model: str,
    categories: Sequence[str] = CATEGORIES,
) -> OfficialRun:
    """``bfcl evaluate`` for one laid-out model; verifies and reads the score files it wrote."""
    argv = [
        str(env.bfcl), "evaluate",
        "--model", handler,
        "--test-category", ",".join(categories),
    ]
    measured = run_measured(
        argv,
        cwd=project_root,
        env=official_environ(project_root),
        log=project_root / "bfcl-evaluate.log",
    )
    measured.check()
    score_dir = project_root / "score"
    counts = read_scores(score_dir / handler_dir_name(handler))
    missing = sorted(set(categories) - set(counts))
    if missing or not (score_dir / "data_overall.csv").exists():
        raise RuntimeError(
            f"official run for {model} wrote no score file for {missing or 'the CSVs'}"
            f" (see {measured.log})"
        )
    return OfficialRun(model, handler, measured, counts)


@dataclass(frozen=True)
class CheckOnly:
    """Checking-alone timing: seconds and counts per model."""

    seconds: dict[str, float]
    counts: dict[str, Counts]
    task_seconds: dict[str, float] = field(default_factory=dict)
    """Per model: the evaluation minus start-up and CSVs (file reading, loading, judging,
    score files), as `runner` does it for each result file."""

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    @property
    def task_total(self) -> float:
        return sum(self.task_seconds.values())


def check_only(env: OfficialEnv, jobs: Sequence[tuple[str, str, Path]], scratch: Path) -> CheckOnly:
    """Time the official per-entry checking loops over already-loaded data (one process).

    ``jobs`` holds ``(model, handler, folder of result files)``.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    jobs_path = scratch / "jobs.json"
    jobs_path.write_text(
        json.dumps([{"model": m, "handler": h, "dir": str(d)} for m, h, d in jobs]),
        encoding="utf-8",
    )
    data: dict[str, Any] = {}
    for mode in ("loop", "tasks"):  # each in a fresh process, as on the fcbench side
        out_path = scratch / f"check-only-{mode}.json"
        run_measured(
            [str(env.python), str(_CHECK_DRIVER), str(jobs_path), str(out_path), mode],
            cwd=scratch,
            env=official_environ(scratch),
            log=scratch / f"check-only-{mode}.log",
        ).check()
        data.update(json.loads(out_path.read_text(encoding="utf-8")))
    counts = {
        model: {category: (c, t) for category, (c, t) in per.items()}
        for model, per in data["counts"].items()
    }
    return CheckOnly(dict(data["seconds"]), counts, dict(data["task_seconds"]))


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _env(venv: Path, installed: Sequence[str]) -> OfficialEnv:
    bindir = _venv_python(venv).parent
    return OfficialEnv(venv, _venv_python(venv), bindir / "bfcl", tuple(installed))


def _pip_freeze(venv: Path) -> list[str]:
    out = subprocess.run(
        [str(_venv_python(venv)), "-m", "pip", "freeze", "--all", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def _fingerprint(commands: Sequence[Sequence[str]]) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps([list(c) for c in commands]).encode())
    digest.update(_STUB_SOURCE.read_bytes())
    digest.update(sys.implementation.name.encode())
    return digest.hexdigest()
