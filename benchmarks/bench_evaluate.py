#!/usr/bin/env python3
"""Benchmark ``fcbench evaluate`` against the official evaluator (``bfcl-eval`` 2026.3.23).

Workload: the v1 corpus (``../shared/corpus/v1``, 14 models x 7 single-turn categories:
simple_python, simple_java, simple_javascript, multiple, parallel, parallel_multiple,
irrelevance; the exec_* and rest files are ignored).

Measured:

* whole evaluation -- official: ``bfcl evaluate`` once per model, each in a fresh process
  with its own ``BFCL_PROJECT_ROOT`` (the official tool's normal usage); fcbench: one
  ``fcbench evaluate --result-dir DIR --score-dir DIR`` for all models (fcbench's normal
  usage). Wall time summed over processes; both write score files and leaderboard CSVs,
  which are verified and whose per-category counts are compared (with each other and with
  the corpus's recorded official verdicts).
* checking alone (the floor: "no start-up, no CSVs") -- everything else the evaluation does
  (read the result files, load the data, judge, write the score files), timed after the
  imports, in a fresh process: the official ``evaluate_task`` per result file (after its
  ``load_file``), model by model, vs fcbench's ``evaluation.evaluate`` (its normal worker
  processes included). fcbench's modules that an evaluation imports on first use
  (tree-sitter among them) are imported before the clock, as the official's are at its
  start-up.
* for information, no floor: the per-answer decode+check loop alone over already-loaded data,
  one process on both sides (official: ``_official_check_driver.py`` inside its venv times
  the loop of its runners; fcbench: :func:`_fcbench_check_only`).
* peak memory -- max RSS of the largest official ``bfcl evaluate`` process (one model)
  versus that of the one fcbench process (all models).
* ``fcbench --help`` start-up -- median of 10 runs (after a warm-up run).

Floors (from the issues): whole evaluate >= 20x faster, checking alone >= 5x faster, peak
memory <= 1/4, ``fcbench --help`` < 0.3 s. PASS/FAIL is printed; the exit status is 0 unless
``--strict`` is given (then 1 on any FAIL). If ``fcbench evaluate`` is unavailable, the fcbench
half stops with a clear message and exit status 2.

The official tool runs in a throwaway venv cached under ``$FCBENCH_BENCH_HOME`` (default
``~/.cache/fcbench-bench``) with a minimal dependency set; modules it imports but never uses
to evaluate single-turn categories (vendor SDKs, torch-based retrieval, ...) are replaced by
import-only stubs. FAIRNESS NOTE: the stubs can only make the official tool start faster,
never slower. See ``_official.py`` for the exact commands and ``_bfcl_stubs.py`` for the
stub list. Official timings are cached so that ``--fcbench-only`` can still show ratios.

Usage::

    python benchmarks/bench_evaluate.py [--models N] [--repeat N] [--keep]
                                        [--official-only | --fcbench-only] [--strict]

Python stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import _official
from _bfcl_stubs import STUBBED_MODULES
from _measure import (
    CATEGORIES,
    Counts,
    median_seconds,
    read_score_header,
    read_verdict_counts,
    run_measured,
    score_category,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
DEFAULT_CORPUS = SHARED / "corpus" / "v1"
DEFAULT_WHEELS = SHARED / "wheels"
OFFICIAL_CACHE = "official-results.json"
HELP_RUNS = 10

# Floors from the issues.
FLOOR_EVALUATE_SPEEDUP = 20.0
FLOOR_CHECK_SPEEDUP = 5.0
FLOOR_MEMORY_RATIO = 0.25
FLOOR_HELP_SECONDS = 0.3

MB = 1024 * 1024


class FcbenchUnavailable(RuntimeError):
    """``fcbench evaluate`` cannot be run (yet)."""


# --------------------------------------------------------------------------------------
# fcbench "checking alone" -- the one function the lead adjusts as fcbench's API settles.
# --------------------------------------------------------------------------------------


def _fcbench_check_only(result_dir: Path) -> float:
    """Seconds fcbench spends on checking alone (decode + check) for every model in ``result_dir``.

    Runs in a fresh child process (``--fcbench-check-driver``), so imports are not counted.
    As on the official side (``_official_check_driver.py``), every piece of loading (result
    files, questions, ground truth, model encodings) happens before the clock starts; the
    clock covers judging every answer, one process, category by category as fcbench's jobs do
    (answers that decode to the same calls for a case checked once), and no score files or CSVs.
    """
    from fcbench.check import registry
    from fcbench.check.registry import JudgeSettings
    from fcbench.check.single_turn import CheckMemo, judge
    from fcbench.core import categories
    from fcbench.evaluation import model_encoding
    from fcbench.results.read import find_model_dirs, find_result_files, read_result_file

    settings = JudgeSettings("2026.3.23", details=False)
    work: dict[str, list[tuple[Any, Any, Any]]] = {}
    loaded: dict[str, Any] = {}
    for name, folder in find_model_dirs(result_dir).items():
        encoding = model_encoding(name, folder, None)
        for file in find_result_files(folder):
            category = categories.get(file.category)
            if category.name not in loaded:
                kind = registry.get(category.checker)
                loaded[category.name] = kind.load(category, settings).cases
            cases = loaded[category.name]
            for test_id, entry in read_result_file(file).entries.items():
                item = (cases[test_id], entry["result"], encoding)
                work.setdefault(category.name, []).append(item)
    start = time.perf_counter()
    for name, items in work.items():
        category = categories.get(name)
        checks = CheckMemo()  # as fcbench's jobs: one per category, shared by every model
        for case, raw, encoding in items:
            judge(case, category, raw, encoding, checks)
    return time.perf_counter() - start


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass
class OfficialResults:
    """Everything measured on the official side."""

    models: list[str]
    wall: dict[str, float]  # per model, one process each
    max_rss: dict[str, int]  # bytes, per model process
    counts: dict[str, Counts]
    check_only: float  # seconds, all models
    help_seconds: float
    no_startup: float | None = None  # seconds, all models: evaluation minus start-up and CSVs
    verdict_mismatches: list[str] = field(default_factory=list)
    installed: list[str] = field(default_factory=list)
    cached_from: str | None = None

    @property
    def total_wall(self) -> float:
        return sum(self.wall.values())

    @property
    def peak_rss(self) -> int:
        return max(self.max_rss.values())


@dataclass
class OfficialSide:
    """How to run the official checking-alone driver."""

    env: Any  # _official.OfficialEnv
    jobs: list[tuple[str, str, Path]]


@dataclass
class FcbenchSide:
    """How to run fcbench's checking-alone driver."""

    python: str
    result_dir: Path
    env: dict[str, str]


@dataclass
class FcbenchResults:
    """Everything measured on the fcbench side."""

    help_seconds: float
    wall: float | None = None
    max_rss: int | None = None
    check_only: float | None = None
    no_startup: float | None = None
    wall_cold: float | None = None  # the first whole run, which builds the derived cache
    no_startup_cold: float | None = None  # likewise for checking alone
    counts: dict[str, Counts] = field(default_factory=dict)
    driver: FcbenchSide | None = None


# --------------------------------------------------------------------------------------
# Official side
# --------------------------------------------------------------------------------------


def run_official(
    model_dirs: Sequence[Path], workdir: Path, args: argparse.Namespace
) -> tuple[OfficialResults, OfficialSide]:
    """Install (or reuse) the official tool and measure it on ``model_dirs``."""
    wheels = args.wheel_dir if args.wheel_dir.exists() else None
    env = _official.ensure_venv(args.official_python, wheels, rebuild=args.rebuild_venv)
    print(f"official: {_official.OFFICIAL_DIST}=={_official.OFFICIAL_VERSION} in {env.root}")
    print(f"  installed: {', '.join(env.installed)}")
    print(f"  stubbed (import-only, never used by evaluation): {', '.join(STUBBED_MODULES)}")
    print("  FAIRNESS NOTE: stubs make the official tool start faster, never slower.")

    wall: dict[str, list[float]] = {}
    rss: dict[str, int] = {}
    counts: dict[str, Counts] = {}
    mismatches: list[str] = []
    jobs: list[tuple[str, str, Path]] = []
    print(f"\nofficial: bfcl evaluate, one fresh process per model (x{args.repeat})")
    print(f"  {'model':<40} {'handler':<28} {'wall s':>7} {'max RSS MB':>10}  verdicts")
    for model_dir in model_dirs:
        model = model_dir.name
        for attempt in range(args.repeat):
            root = workdir / "official" / model / f"run{attempt}"
            handler, results_dir = _official.layout_model(model_dir, root)
            run = _official.evaluate_model(env, root, handler, model)
            wall.setdefault(model, []).append(run.measured.seconds)
            rss[model] = max(rss.get(model, 0), run.measured.max_rss_bytes)
            counts[model] = run.counts
            if attempt == 0:
                jobs.append((model, handler, results_dir))
        expected = read_verdict_counts(model_dir, CATEGORIES)
        agree = "n/a"
        if expected:
            diff = _diff_counts(expected, counts[model])
            agree = "agree" if not diff else "DIFFER: " + "; ".join(diff)
            mismatches.extend(f"{model}: {d}" for d in diff)
        print(
            f"  {model:<40} {handler:<28} {statistics.median(wall[model]):>7.2f}"
            f" {rss[model] / MB:>10.1f}  {agree}"
        )

    print(f"official: bfcl --help, median of {HELP_RUNS}")
    help_env = _official.official_environ(workdir / "official-help")
    help_seconds = median_seconds([str(env.bfcl), "--help"], HELP_RUNS, env=help_env)
    print(f"  {help_seconds:.3f} s")

    results = OfficialResults(
        models=[d.name for d in model_dirs],
        wall={m: statistics.median(t) for m, t in wall.items()},
        max_rss=rss,
        counts=counts,
        check_only=0.0,  # measured later, interleaved with fcbench's (see measure_checking)
        help_seconds=help_seconds,
        verdict_mismatches=mismatches,
        installed=list(env.installed),
    )
    return results, OfficialSide(env, jobs)


def _cache_key(models: Sequence[str], corpus: Path) -> str:
    return json.dumps([str(corpus), list(models)])


def _read_cache(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        cache: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    return cache


def save_official(results: OfficialResults, corpus: Path) -> None:
    """Cache the official measurements (per corpus and model set) for ``--fcbench-only``."""
    path = _official.bench_home() / OFFICIAL_CACHE
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = _read_cache(path)
    data = asdict(results)
    data["saved"] = time.strftime("%Y-%m-%d %H:%M:%S")
    cache[_cache_key(results.models, corpus)] = data
    path.write_text(json.dumps(cache, indent=1), encoding="utf-8")


def load_official(models: Sequence[str], corpus: Path) -> OfficialResults | None:
    """Cached official measurements for exactly these models of this corpus, if any."""
    path = _official.bench_home() / OFFICIAL_CACHE
    data = _read_cache(path).get(_cache_key(models, corpus))
    if data is None:
        return None
    data = dict(data)
    saved = data.pop("saved")
    data["cached_from"] = f"{path} ({saved})"
    data["counts"] = {
        m: {c: (v[0], v[1]) for c, v in per.items()} for m, per in data["counts"].items()
    }
    return OfficialResults(**data)


# --------------------------------------------------------------------------------------
# fcbench side
# --------------------------------------------------------------------------------------


def find_fcbench(explicit: str | None) -> Path:
    """The ``fcbench`` command: ``--fcbench``, else next to this Python, else on PATH."""
    if explicit:
        found = shutil.which(explicit)
        if found is None:
            raise FcbenchUnavailable(f"--fcbench {explicit}: no such command")
        return Path(found)
    sibling = Path(sys.executable).parent / "fcbench"
    if sibling.exists():
        return sibling
    found = shutil.which("fcbench")
    if found is None:
        raise FcbenchUnavailable("no `fcbench` command found (install fcbench, or pass --fcbench)")
    return Path(found)


def run_fcbench(
    model_dirs: Sequence[Path], workdir: Path, args: argparse.Namespace
) -> FcbenchResults:
    """Measure fcbench on ``model_dirs``."""
    fcbench = find_fcbench(args.fcbench)
    env = fcbench_environ()
    print(f"\nfcbench: {fcbench} (FCBENCH_HOME={env['FCBENCH_HOME']})")
    _probe([str(fcbench), "evaluate", "--help"], env)
    # Untimed set-up, like the official venv: the BFCL data in fcbench's (isolated) cache.
    wheel = args.wheel_dir / _official.WHEEL_NAME
    fetch = [str(fcbench), "data", "fetch", *(["--from", str(wheel)] if wheel.exists() else [])]
    print("  $ " + " ".join(fetch))
    _probe(fetch, env)

    print(f"fcbench: fcbench --help, median of {HELP_RUNS}")
    results = FcbenchResults(
        help_seconds=median_seconds([str(fcbench), "--help"], HELP_RUNS, env=env)
    )
    print(f"  {results.help_seconds:.3f} s")

    # fcbench's own layout: DIR/<model>/model.json + result files.
    result_dir = workdir / "fcbench" / "results"
    for model_dir in model_dirs:
        target = result_dir / model_dir.name
        target.mkdir(parents=True)
        for name in ["model.json", *(f"BFCL_v4_{c}_result.json" for c in CATEGORIES)]:
            shutil.copyfile(model_dir / name, target / name)

    print(
        f"fcbench: fcbench evaluate, one process for all {len(model_dirs)} models"
        f" (x{args.repeat})"
    )
    walls: list[float] = []
    rss = 0
    score_dir = result_dir
    for attempt in range(args.repeat):
        if attempt == 0:
            _clear_derived(env)  # the first run builds fcbench's derived data cache
        score_dir = workdir / "fcbench" / f"score{attempt}"
        measured = run_measured(
            [
                str(fcbench), "evaluate",
                "--result-dir", str(result_dir),
                "--score-dir", str(score_dir),
                "--categories", ",".join(CATEGORIES),
            ],
            env=env,
            log=workdir / "fcbench" / f"evaluate{attempt}.log",
        )
        measured.check()
        walls.append(measured.seconds)
        rss = max(rss, measured.max_rss_bytes)
    results.wall, results.max_rss = statistics.median(walls), rss
    results.wall_cold = walls[0]
    print(f"  {results.wall:.3f} s (first run, building the derived cache: {walls[0]:.3f} s),"
          f" max RSS {rss / MB:.1f} MB")
    results.counts = _read_fcbench_scores(score_dir, [d.name for d in model_dirs])
    if not results.counts:
        print(f"  WARNING: no BFCL_v4_*_score.json files found under {score_dir}")

    python = fcbench.parent / "python"
    results.driver = FcbenchSide(
        str(python) if python.exists() else sys.executable, result_dir, env
    )
    return results


def measure_checking(
    official: OfficialResults | None,
    official_side: OfficialSide | None,
    fcb: FcbenchResults | None,
    workdir: Path,
    repeat: int,
) -> None:
    """Checking alone, both readings, each timing in a fresh process; official and fcbench
    runs alternate, so that both see the same machine (this kind of machine drifts by tens of
    percent over minutes, which would otherwise decide the ratio)."""
    print(f"\nchecking alone, official and fcbench alternating (x{repeat})")
    official_runs: list[Any] = []
    fcbench_runs: dict[str, list[float]] = {"check": [], "no-startup": []}
    for attempt in range(repeat):
        if official is not None and official_side is not None:
            scratch = workdir / "official-check" / f"run{attempt}"
            run = _official.check_only(official_side.env, official_side.jobs, scratch)
            official_runs.append(run)
        if fcb is not None and fcb.driver is not None:
            for mode, times in fcbench_runs.items():
                if attempt == 0 and mode == "no-startup":
                    _clear_derived(fcb.driver.env)  # the first run builds the derived cache
                times.append(_fcbench_driver(fcb.driver, workdir, mode, attempt))
    if official_runs and official is not None:
        official.check_only = statistics.median(run.total for run in official_runs)
        official.no_startup = statistics.median(run.task_total for run in official_runs)
        for model, check_counts in official_runs[0].counts.items():
            for d in _diff_counts(official.counts[model], check_counts):
                official.verdict_mismatches.append(
                    f"{model} (check-only driver vs bfcl evaluate): {d}"
                )
        print(f"  official: loop {official.check_only:.3f} s; no start-up, no CSVs"
              f" {official.no_startup:.3f} s")
    if fcb is not None and fcbench_runs["check"]:
        fcb.check_only = statistics.median(fcbench_runs["check"])
        fcb.no_startup = statistics.median(fcbench_runs["no-startup"])
        fcb.no_startup_cold = fcbench_runs["no-startup"][0]
        print(f"  fcbench:  loop {fcb.check_only:.3f} s; no start-up, no CSVs"
              f" {fcb.no_startup:.3f} s")


def _fcbench_driver(side: FcbenchSide, workdir: Path, mode: str, attempt: int) -> float:
    out = workdir / "fcbench" / f"{mode}{attempt}.json"
    run_measured(
        [side.python, str(Path(__file__).resolve()), "--fcbench-check-driver",
         str(side.result_dir), str(out), mode],
        env=side.env,
        log=workdir / "fcbench" / f"{mode}{attempt}.log",
    ).check()
    return float(json.loads(out.read_text(encoding="utf-8"))["seconds"])


def _clear_derived(env: dict[str, str]) -> None:
    """Delete fcbench's derived data cache (the slim cases it keeps next to the release)."""
    for folder in Path(env["FCBENCH_HOME"]).glob("releases/*/derived"):
        shutil.rmtree(folder, ignore_errors=True)


def fcbench_environ() -> dict[str, str]:
    """Environment for fcbench processes: its data cache isolated under the bench home."""
    return {**os.environ, "FCBENCH_HOME": str(_official.bench_home() / "fcbench-home")}


def _probe(argv: Sequence[str], env: dict[str, str]) -> None:
    """Run a set-up command; raise :class:`FcbenchUnavailable` with its last line if it fails."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, env=env, check=False)
    except OSError as exc:
        raise FcbenchUnavailable(f"cannot run {argv[0]}: {exc}") from exc
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise FcbenchUnavailable(
            f"`{' '.join(['fcbench', *argv[1:]])}` failed (exit {done.returncode}):"
            f" {detail[-1] if detail else 'no output'}"
        )


def _read_fcbench_scores(score_dir: Path, models: Sequence[str]) -> dict[str, Counts]:
    counts: dict[str, Counts] = {}
    for model in models:
        per = {
            score_category(p): read_score_header(p)
            for p in sorted((score_dir / model).rglob("BFCL_v4_*_score.json"))
        }
        if per:
            counts[model] = per
    return counts


# Modules fcbench imports on first use during an evaluation of these categories. The official
# tool imports all of its own (its tree-sitter parsers included) when it starts, and its
# "no start-up" timings exclude that, so fcbench's exclude these imports too. Importing runs
# no evaluation code: no parser is built, nothing is loaded or cached.
_EVALUATION_MODULES = (
    "fcbench.check.ast.java_types",
    "fcbench.check.ast.js_types",
    "fcbench.decode.java",
    "fcbench.decode.javascript",
    "fcbench.check.kinds.ast",
    "fcbench.check.kinds.relevance",
    "fcbench.check.records",
    "fcbench.results.score_files",
    "fcbench.runner.forks",
    "tree_sitter",
    "tree_sitter_java",
    "tree_sitter_javascript",
)


def _import_evaluation_modules() -> None:
    import importlib

    for name in _EVALUATION_MODULES:
        importlib.import_module(name)


def fcbench_check_driver(result_dir: Path, out: Path, mode: str) -> int:
    """Child-process body for one fcbench checking-alone measurement (`check` or `no-startup`)."""
    _import_evaluation_modules()
    if mode == "check":
        seconds = _fcbench_check_only(result_dir)
    else:
        seconds = _fcbench_no_startup(result_dir, out.parent / f"{out.stem}-scores")
    out.write_text(json.dumps({"seconds": seconds}), encoding="utf-8")
    return 0


def _fcbench_no_startup(result_dir: Path, score_dir: Path) -> float:
    """Seconds of fcbench's evaluation minus start-up and CSVs, as on the official side: read
    the result files, load the data, judge, write the score files (imports done beforehand)."""
    from fcbench.evaluation import evaluate

    start = time.perf_counter()
    evaluate(result_dir, score_dir=score_dir, keep_cases=False)
    return time.perf_counter() - start


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------


def _diff_counts(expected: Counts, actual: Counts) -> list[str]:
    diffs = []
    for category in sorted(set(expected) | set(actual)):
        e, a = expected.get(category), actual.get(category)
        if e != a:
            diffs.append(f"{category} {_fmt_counts(e)} vs {_fmt_counts(a)}")
    return diffs


def _fmt_counts(counts: tuple[int, int] | None) -> str:
    return "missing" if counts is None else f"{counts[0]}/{counts[1]}"


def _speedup(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x SLOWER"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def report(
    n_models: int, official: OfficialResults | None, fcb: FcbenchResults | None
) -> list[bool | None]:
    """Print the summary table; return the floor verdicts (None = not measured)."""
    def sec(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f} s"

    def mem(x: int | None) -> str:
        return "-" if x is None else f"{x / MB:.1f} MB"

    def ratio(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None or b == 0 else a / b

    o_wall = official.total_wall if official else None
    o_check = official.check_only if official else None
    o_task = official.no_startup if official else None
    o_rss = official.peak_rss if official else None
    f_wall = fcb.wall if fcb else None
    f_check = fcb.check_only if fcb else None
    f_task = fcb.no_startup if fcb else None
    f_rss = fcb.max_rss if fcb else None
    f_help = fcb.help_seconds if fcb else None

    speedup = ratio(o_wall, f_wall)
    check_speedup = ratio(o_check, f_check)
    task_speedup = ratio(o_task, f_task)
    mem_ratio = ratio(float(f_rss) if f_rss else None, float(o_rss) if o_rss else None)
    verdicts = [
        None if speedup is None else speedup >= FLOOR_EVALUATE_SPEEDUP,
        None if task_speedup is None else task_speedup >= FLOOR_CHECK_SPEEDUP,
        None if mem_ratio is None else mem_ratio <= FLOOR_MEMORY_RATIO,
        None if f_help is None else f_help < FLOOR_HELP_SECONDS,
    ]
    rows = [
        (f"whole evaluate ({n_models} models)", sec(o_wall), sec(f_wall),
         _speedup(speedup),
         f">= {FLOOR_EVALUATE_SPEEDUP:g}x", _verdict(verdicts[0])),
        ("checking alone (no start-up, no CSVs)", sec(o_task), sec(f_task),
         _speedup(task_speedup),
         f">= {FLOOR_CHECK_SPEEDUP:g}x", _verdict(verdicts[1])),
        ("decode+check loop only, one process", sec(o_check), sec(f_check),
         _speedup(check_speedup), "no floor", "info"),
        ("peak memory (max RSS)", mem(o_rss), mem(f_rss),
         "-" if mem_ratio is None else f"{mem_ratio:.2f} of official",
         f"<= {FLOOR_MEMORY_RATIO:g}", _verdict(verdicts[2])),
        (f"--help start-up (median of {HELP_RUNS})",
         sec(official.help_seconds if official else None), sec(f_help), "-",
         f"fcbench < {FLOOR_HELP_SECONDS:g} s", _verdict(verdicts[3])),
    ]
    header = ("", "official", "fcbench", "ratio", "floor", "")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print("\n" + "=" * (sum(widths) + 2 * len(widths)))
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)))
    print("=" * (sum(widths) + 2 * len(widths)))

    print(
        "checking alone = the evaluation minus start-up (imports) and the CSVs: read the result"
        " files, load the data, judge, write the score files (official: its per-file"
        " `evaluate_task`, model by model; fcbench: `evaluate`, one job per category over its"
        " worker processes). The loop line times only the per-answer decode+check, one process"
        " on both sides, for information: there both sides run the same kind of Python (ast"
        " parsing, tree-sitter, the same checks), so that is where the two are closest."
    )
    if fcb and fcb.no_startup_cold is not None and fcb.wall_cold is not None:
        print(
            "fcbench keeps the slim form of each category it evaluates in a derived cache next"
            " to the fetched data (built on first use, rebuilt when the data or fcbench"
            " changes); the first of the runs above started without it: whole evaluate"
            f" {fcb.wall_cold:.3f} s, checking alone {fcb.no_startup_cold:.3f} s"
            + (f" ({o_task / fcb.no_startup_cold:.1f}x)" if o_task else "")
            + "; the medians include that run."
        )
    if official:
        if official.cached_from:
            print(f"official numbers cached from {official.cached_from}")
        print(
            "official: whole evaluate = sum of one `bfcl evaluate` process per model; peak memory"
            " = the largest of those processes (one model each)."
        )
        print(
            "official dependency set: only what evaluation runs, plus import-only stubs for "
            f"{len(STUBBED_MODULES)} unused modules (FAIRNESS NOTE: stubs make it faster, "
            "never slower)."
        )
        if official.verdict_mismatches:
            print("WARNING: official counts disagree (with the corpus verdicts or each other):")
            for line in official.verdict_mismatches:
                print(f"  {line}")
        else:
            print(
                "official per-category counts agree with the corpus's recorded verdicts"
                " (and the checking-alone driver judged the same)."
            )
    if official and fcb and fcb.counts:
        diffs = [
            f"{m}: {d}" for m in official.counts
            for d in _diff_counts(official.counts[m], fcb.counts.get(m, {}))
        ]
        total = sum(len(c) for c in official.counts.values())
        print(f"fcbench per-category counts equal to official: {total - len(diffs)}/{total}")
        for line in diffs[:20]:
            print(f"  {line}")
    return verdicts


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark fcbench evaluate against the official bfcl-eval 2026.3.23.",
    )
    parser.add_argument("--models", type=int, metavar="N", help="only the first N corpus models")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="repeat every timed run N times and take the median (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--official-only", action="store_true", help="measure the official tool only")
    side.add_argument("--fcbench-only", action="store_true",
                      help="measure fcbench only (ratios use cached official numbers if any)")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any floor FAILs")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                        help=f"corpus folder (default {DEFAULT_CORPUS})")
    parser.add_argument("--wheel-dir", type=Path, default=DEFAULT_WHEELS,
                        help="folder with the official wheel; if absent, install from the index")
    parser.add_argument("--official-python", default=sys.executable,
                        help="interpreter for the official venv (default: this one)")
    parser.add_argument("--rebuild-venv", action="store_true",
                        help="rebuild the cached official venv")
    parser.add_argument("--fcbench", help="the fcbench command (default: next to python, or PATH)")
    parser.add_argument("--fcbench-check-driver", nargs=3, metavar=("DIR", "OUT", "MODE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.fcbench_check_driver:
        result_dir, out, mode = args.fcbench_check_driver
        return fcbench_check_driver(Path(result_dir), Path(out), mode)

    corpus: Path = args.corpus.resolve()
    model_dirs = sorted(p.parent for p in corpus.glob("*/model.json"))
    if not model_dirs:
        print(f"error: no model folders with model.json in {corpus}", file=sys.stderr)
        return 2
    if args.models is not None:
        model_dirs = model_dirs[: args.models]
    print(f"corpus: {corpus} ({len(model_dirs)} models, categories: {', '.join(CATEGORIES)})")

    workdir = Path(tempfile.mkdtemp(prefix="fcbench-bench-"))
    official: OfficialResults | None = None
    official_side: OfficialSide | None = None
    fcb: FcbenchResults | None = None
    unavailable: str | None = None
    try:
        if args.fcbench_only:
            official = load_official([d.name for d in model_dirs], corpus)
            if official is None:
                print("no cached official numbers for these models: ratios are n/a")
        else:
            official, official_side = run_official(model_dirs, workdir, args)
        if not args.official_only:
            try:
                fcb = run_fcbench(model_dirs, workdir, args)
            except (FcbenchUnavailable, RuntimeError) as exc:
                unavailable = str(exc)
        measure_checking(
            None if args.fcbench_only else official, official_side, fcb, workdir, args.repeat
        )
        if official is not None and not args.fcbench_only:
            save_official(official, corpus)
    finally:
        if args.keep:
            print(f"\nkept temporary files in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    verdicts = report(len(model_dirs), official, fcb)
    if unavailable:
        print(
            f"\nERROR: fcbench half not measured: {unavailable}\n"
            "  `fcbench evaluate --result-dir DIR [--score-dir DIR] [--categories LIST]` must"
            " work first (run with --official-only meanwhile).",
            file=sys.stderr,
        )
        return 2
    if args.strict and (
        False in verdicts or (not args.official_only and None in verdicts)
    ):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
