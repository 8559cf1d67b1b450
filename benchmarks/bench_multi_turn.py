#!/usr/bin/env python3
"""Benchmark fcbench's multi-turn scoring against the official evaluator (bfcl-eval 2026.3.23).

Workload: the multi-turn result files of the v4 corpus (``../shared/corpus/v4/2025-11-12-main``:
2 models x multi_turn_base, multi_turn_miss_func, multi_turn_miss_param = 1200 cases).

Measured (median of ``--repeat`` runs):

* checking alone -- official: ``_official_multi_turn_driver.py`` in its venv times the loop
  ``multi_turn_runner`` runs over pre-loaded entries (pre-checks, decode_execute, replay on
  the backend classes, state and response checks), one fresh process per model (its backend
  instances live in process globals); fcbench: ``judge_multi_turn`` over the same entries
  (with the failure details that score files show), in a fresh process. On both sides the
  environment modules are imported before the clock starts.
* whole evaluation -- official: ``bfcl evaluate --test-category <the 3 categories>``, one fresh
  process per model (summed); fcbench: one ``fcbench evaluate`` for both models. Both write
  score files and CSVs; their per-category counts are compared with each other and with the
  corpus's recorded official verdicts.

Floor: fcbench >= 5x faster at scoring the same files, i.e. on the whole evaluation in wall
seconds (what a user waits for; fcbench runs category jobs in parallel workers). Printed
next to it for information: the whole evaluation in CPU seconds (all processes), and
checking alone in CPU seconds of the checking loop (the figure a busy machine disturbs
least). Checking alone is bounded by work both sides share: they run comparable
environment code (fcbench's backends re-implement the official ones).

The official venv is ``_official.py``'s, plus the one extra package multi-turn scoring needs:
``mpmath==1.3.0`` (bfcl-eval's own pin; MathAPI imports it). The other backend modules import
only the standard library (the memory/web-search backends, which need sentence-transformers,
faiss, serpapi, ..., are not involved in these categories).

Usage::

    python benchmarks/bench_multi_turn.py [--repeat N] [--keep] [--strict]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import _official
from _measure import Counts, read_scores, read_verdict_counts, run_measured

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
DEFAULT_CORPUS = SHARED / "corpus" / "v4" / "2025-11-12-main"
DEFAULT_WHEELS = SHARED / "wheels"
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param")
EXTRA_OFFICIAL_REQUIREMENTS = ("mpmath==1.3.0",)
FLOOR_SPEEDUP = 5.0
_DRIVER = Path(__file__).resolve().parent / "_official_multi_turn_driver.py"


# --- official side -------------------------------------------------------------------------


def official_env(args: argparse.Namespace) -> _official.OfficialEnv:
    """The shared official venv, plus what the multi-turn backends import."""
    wheels = args.wheel_dir if args.wheel_dir.exists() else None
    env = _official.ensure_venv(args.official_python, wheels, rebuild=args.rebuild_venv)
    probe = subprocess.run([str(env.python), "-c", "import mpmath"], capture_output=True)
    if probe.returncode != 0:
        pip = [str(env.python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        print(f"  $ pip install {' '.join(EXTRA_OFFICIAL_REQUIREMENTS)}")
        subprocess.run([*pip, *EXTRA_OFFICIAL_REQUIREMENTS], check=True, capture_output=True)
    return env


def children_cpu() -> float:
    """CPU seconds of every finished child process so far (their own children included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def official_whole(
    env: _official.OfficialEnv, model_dirs: Sequence[Path], workdir: Path, repeat: int
) -> tuple[float, float, dict[str, Counts], dict[str, str]]:
    """Medians over runs of the summed ``bfcl evaluate`` wall and CPU seconds; counts;
    handler per model."""
    walls, cpus, counts, handlers = [], [], {}, {}
    for attempt in range(repeat):
        wall, cpu = 0.0, children_cpu()
        for model_dir in model_dirs:
            root = workdir / "official" / model_dir.name / f"run{attempt}"
            handler, _ = _official.layout_model(model_dir, root, MULTI_TURN)
            run = _official.evaluate_model(env, root, handler, model_dir.name, MULTI_TURN)
            wall += run.measured.seconds
            counts[model_dir.name], handlers[model_dir.name] = run.counts, handler
        walls.append(wall)
        cpus.append(children_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus), counts, handlers


def official_check(
    env: _official.OfficialEnv, model_dirs: Sequence[Path], handlers: dict[str, str],
    workdir: Path, repeat: int,
) -> tuple[float, dict[str, Counts]]:
    """Median over runs of the summed per-model checking time; the driver's counts."""
    totals, counts = [], {}
    for attempt in range(repeat):
        total = 0.0
        for model_dir in model_dirs:
            scratch = workdir / "official-check" / model_dir.name / f"run{attempt}"
            scratch.mkdir(parents=True)
            out = scratch / "out.json"
            argv = [str(env.python), str(_DRIVER), handlers[model_dir.name], str(model_dir),
                    str(out)]
            run_measured(argv, cwd=scratch, env=_official.official_environ(scratch),
                         log=scratch / "driver.log").check()
            data = json.loads(out.read_text(encoding="utf-8"))
            total += float(data["cpu"])
            counts[model_dir.name] = {c: (v[0], v[1]) for c, v in data["counts"].items()}
        totals.append(total)
    return statistics.median(totals), counts


# --- fcbench side --------------------------------------------------------------------------


def fcbench_environ() -> dict[str, str]:
    """fcbench's data cache under the bench home."""
    return {**os.environ, "FCBENCH_HOME": str(_official.bench_home() / "fcbench-home")}


def fcbench_setup(fcbench: Path, model_dirs: Sequence[Path], workdir: Path, wheels: Path) -> Path:
    """Untimed: fcbench's data cache and compiled modules, the result files in its layout.

    The official package was installed by pip, which compiles its modules. An editable
    fcbench started with ``PYTHONDONTWRITEBYTECODE`` set (as in some sandboxes) would compile
    its ~90 modules on every start, so they are compiled once here, in place (``__pycache__``
    is git-ignored): neither side pays compilation in the timed runs."""
    python = fcbench.parent / "python"
    interpreter = str(python) if python.exists() else sys.executable
    package = subprocess.run(
        [interpreter, "-c", "import fcbench, os; print(os.path.dirname(fcbench.__file__))"],
        check=True, capture_output=True, text=True, env=fcbench_environ(),
    ).stdout.strip()
    compile_all = [interpreter, "-m", "compileall", "-q", package]
    subprocess.run(compile_all, check=True, capture_output=True, env=fcbench_environ())
    wheel = wheels / _official.WHEEL_NAME
    fetch = [str(fcbench), "data", "fetch", *(["--from", str(wheel)] if wheel.exists() else [])]
    subprocess.run(fetch, check=True, capture_output=True, env=fcbench_environ())
    result_dir = workdir / "fcbench" / "results"
    for model_dir in model_dirs:
        target = result_dir / model_dir.name
        target.mkdir(parents=True)
        for name in ["model.json", *(f"BFCL_v4_{c}_result.json" for c in MULTI_TURN)]:
            shutil.copyfile(model_dir / name, target / name)
    return result_dir


def fcbench_whole(
    fcbench: Path, result_dir: Path, workdir: Path, repeat: int
) -> tuple[float, float, dict[str, Counts]]:
    """Medians of the wall and CPU seconds of ``fcbench evaluate`` (workers included)."""
    walls, cpus, score_dir = [], [], workdir
    for attempt in range(repeat):
        score_dir = workdir / "fcbench" / f"score{attempt}"
        argv = [str(fcbench), "evaluate", "--result-dir", str(result_dir),
                "--score-dir", str(score_dir), "--categories", ",".join(MULTI_TURN)]
        cpu = children_cpu()
        measured = run_measured(argv, env=fcbench_environ(),
                                log=workdir / "fcbench" / f"evaluate{attempt}.log")
        measured.check()
        walls.append(measured.seconds)
        cpus.append(children_cpu() - cpu)
    counts = {d.name: read_scores(d) for d in sorted(score_dir.iterdir()) if d.is_dir()}
    return statistics.median(walls), statistics.median(cpus), counts


def fcbench_check(fcbench: Path, result_dir: Path, workdir: Path, repeat: int) -> float:
    python = fcbench.parent / "python"
    interpreter = str(python) if python.exists() else sys.executable
    times = []
    for attempt in range(repeat):
        out = workdir / "fcbench" / f"check{attempt}.json"
        argv = [interpreter, str(Path(__file__).resolve()), "--fcbench-check-driver",
                str(result_dir), str(out)]
        run_measured(argv, env=fcbench_environ(),
                     log=workdir / "fcbench" / f"check{attempt}.log").check()
        times.append(float(json.loads(out.read_text(encoding="utf-8"))["cpu"]))
    return statistics.median(times)


def fcbench_check_driver(result_dir: Path, out: Path) -> int:
    """Child-process body: load everything, then time judging every multi-turn answer."""
    from fcbench.check import registry
    from fcbench.check.multi_turn import judge_multi_turn
    from fcbench.check.registry import JudgeSettings
    from fcbench.core import categories
    from fcbench.envs.multi_turn import CLASSES, load_class
    from fcbench.evaluation import model_encoding
    from fcbench.results.read import find_model_dirs, find_result_files, read_result_file

    for name in CLASSES:
        load_class(name)
    # mpmath: imported on first use by fcbench's MathAPI, at import time by the official one.
    with contextlib.suppress(ImportError):
        importlib.import_module("mpmath")
    settings = JudgeSettings("2026.3.23", details=False)
    work: list[tuple[Any, Any, Any, str]] = []
    loaded: dict[str, dict[str, Any]] = {}
    for model, folder in find_model_dirs(result_dir).items():
        encoding = model_encoding(model, folder, None)
        for file in find_result_files(folder):
            category = categories.get(file.category)
            if category.name not in loaded:
                kind = registry.get(category.checker)
                loaded[category.name] = kind.load(category, settings).cases
            cases = loaded[category.name]
            for test_id, entry in read_result_file(file).entries.items():
                work.append((cases[test_id], entry["result"], encoding, model))
    gc.freeze()  # as `fcbench evaluate` does once a result file is loaded (MultiTurnSession)
    start, cpu_start = time.perf_counter(), time.process_time()
    for case, raw, encoding, model in work:
        judge_multi_turn(case, raw, encoding, model, details=True)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    report = {"seconds": seconds, "cpu": cpu, "cases": len(work)}
    out.write_text(json.dumps(report), encoding="utf-8")
    return 0


def find_fcbench(explicit: str | None) -> Path:
    if explicit:
        found = shutil.which(explicit)
    else:
        sibling = Path(sys.executable).parent / "fcbench"
        found = str(sibling) if sibling.exists() else shutil.which("fcbench")
    if found is None:
        raise SystemExit("error: no `fcbench` command found (install fcbench, or pass --fcbench)")
    return Path(found)


# --- report --------------------------------------------------------------------------------


def compare_counts(label: str, expected: dict[str, Counts], actual: dict[str, Counts]) -> bool:
    diffs = [
        f"{model} {category}: {expected[model].get(category)} vs {counts.get(category)}"
        for model, counts in actual.items()
        for category in sorted(set(expected.get(model, {})) | set(counts))
        if expected.get(model, {}).get(category) != counts.get(category)
    ]
    print(f"  {label}: {'agree' if not diffs else 'DIFFER'}")
    for line in diffs:
        print(f"    {line}")
    return not diffs


def report(rows: list[tuple[str, float, float, bool]]) -> bool:
    """Print official vs fcbench seconds and the ratio; True if every gated row passes."""
    ok = True
    print(f"\n{'':40} {'official':>10} {'fcbench':>10} {'ratio':>8}  floor")
    for name, official, ours, gated in rows:
        ratio = official / ours if ours else float("inf")
        passed = ratio >= FLOOR_SPEEDUP
        ok &= passed or not gated
        floor = f">= {FLOOR_SPEEDUP:g}x {'PASS' if passed else 'FAIL'}" if gated else "(info)"
        print(f"{name:40} {official:9.3f}s {ours:9.3f}s {ratio:7.1f}x  {floor}")
    return ok


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, metavar="N",
                        help="timed runs per measurement, median taken (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a floor FAILs")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--wheel-dir", type=Path, default=DEFAULT_WHEELS)
    parser.add_argument("--official-python", default=sys.executable)
    parser.add_argument("--rebuild-venv", action="store_true")
    parser.add_argument("--fcbench", help="the fcbench command (default: next to python)")
    parser.add_argument("--fcbench-check-driver", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.fcbench_check_driver:
        return fcbench_check_driver(*args.fcbench_check_driver)
    corpus = args.corpus.resolve()
    model_dirs = sorted(p.parent for p in corpus.glob("*/model.json"))
    print(f"corpus: {corpus} ({len(model_dirs)} models; {', '.join(MULTI_TURN)})")
    print(f"cpus: {os.cpu_count()}, repeat: {args.repeat} (medians)")
    workdir = Path(tempfile.mkdtemp(prefix="fcbench-bench-mt-"))
    try:
        env = official_env(args)
        print(f"official: {env.root} (+ {', '.join(EXTRA_OFFICIAL_REQUIREMENTS)})")
        o_whole, o_whole_cpu, o_counts, handlers = official_whole(
            env, model_dirs, workdir, args.repeat
        )
        o_check, o_check_counts = official_check(env, model_dirs, handlers, workdir, args.repeat)
        fcbench = find_fcbench(args.fcbench)
        print(f"fcbench: {fcbench}")
        result_dir = fcbench_setup(fcbench, model_dirs, workdir, args.wheel_dir)
        f_whole, f_whole_cpu, f_counts = fcbench_whole(fcbench, result_dir, workdir, args.repeat)
        f_check = fcbench_check(fcbench, result_dir, workdir, args.repeat)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\ncounts (correct/total per category):")
    recorded = {d.name: read_verdict_counts(d, MULTI_TURN) for d in model_dirs}
    agree = compare_counts("official bfcl evaluate vs corpus verdicts", recorded, o_counts)
    agree &= compare_counts("official check driver vs bfcl evaluate", o_counts, o_check_counts)
    agree &= compare_counts("fcbench evaluate vs official", o_counts, f_counts)
    ok = report([
        (f"whole evaluate, wall ({len(model_dirs)} models)", o_whole, f_whole, True),
        ("whole evaluate, CPU", o_whole_cpu, f_whole_cpu, False),
        ("checking alone, CPU (1200 cases)", o_check, f_check, False),
    ])
    return 1 if args.strict and not (ok and agree) else 0


if __name__ == "__main__":
    sys.exit(main())
