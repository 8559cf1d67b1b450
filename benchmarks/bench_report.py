#!/usr/bin/env python3
"""Benchmark the HTML report: its size, build time, peak RSS, the cost it adds to
``fcbench evaluate``, and (when Chromium is installed) the time until it is usable.

Workload (issue 32): folders of 57 and of 100 real-shaped models made from the 2024 corpus
(``../shared/corpus/v1``: 14 real models, every category they hold; executable categories
offline, so their web cases are skipped). The 15th model on is the corpus's model of index
``k mod 14`` under a new name (its files linked, not copied): real outputs, real failure
texts, real sizes; no two models of one folder share a name. ``../shared`` holds the 14
models only, so 57 is made the same way as 100. And a smoke run (``fcbench run --model
ground-truth --categories simple_python,multiple --limit 3``).

Measured, each in a fresh process (wall time and that process's own peak RSS), for each
folder:

* ``fcbench evaluate --no-report`` and ``fcbench evaluate`` (which writes report.html, from the
  verdicts in memory), back to back, ``--repeat`` times: the median ratio of a pair is the
  report's cost to an evaluation, its peak RSS the report's memory;
* the report's size (measured, not extrapolated) and ``fcbench report`` of the score folder
  (build time, peak RSS);
* with ``--browser`` (Debian's chromium): seconds from navigation until the page says it is
  ready (summary, charts and tables drawn), offline.

Floors (issues 23 and 32), at 57 models: report <= 4 MB, peak RSS <= 200 MB, evaluate with
the report <= 1.3x ``--no-report``, usable in Chromium in <= 2 s; ``fcbench report`` <= 5 s; a
smoke run's report <= 1 MB and <= 1 s. The 100-model figures are printed against the same
floors for reference. PASS/FAIL is printed; exit status 1 on a FAIL only with ``--strict``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _measure import Measured, run_measured

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
CORPUS = SHARED / "corpus" / "v1"
WHEEL = SHARED / "wheels" / "bfcl_eval-2026.3.23-py3-none-any.whl"
SIZES = (57, 100)
MB = 1024 * 1024
FLOORS = {"size": 4 * MB, "build_s": 5.0, "rss": 200 * MB, "ready_s": 2.0,
          "smoke_size": 1 * MB, "smoke_s": 1.0, "ratio": 1.3}


def fcbench(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from fcbench.cli import main; sys.exit(main())",
            *args]


def measured(argv: Sequence[str], env: dict[str, str], log: Path) -> Measured:
    result = run_measured(argv, env=env, log=log)
    result.check()
    return result


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def browser_ready_seconds(page: Path, profile: Path) -> float | None:
    """Seconds until the page's data-ready flag, in headless Chromium (None: no chromium)."""
    sys.path.insert(0, str(HERE.parent / "tests" / "report" / "html"))
    from headless_chromium import Browser, find_chromium

    executable = find_chromium()
    if executable is None:
        return None
    browser = Browser(executable, profile)
    try:
        start = time.perf_counter()
        browser.open(page.as_uri(), "document.body && document.body.dataset.ready", timeout=120)
        return time.perf_counter() - start
    finally:
        browser.close()


def model_folder(work: Path, count: int) -> Path:
    """`count` models' result folders made from the corpus's: the first 14 as they are, the
    others the corpus's model of index k mod 14 renamed `<name>-r<k div 14>` (files linked)."""
    folder = work / f"results-{count}"
    originals = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    for k in range(count):
        model = originals[k % len(originals)]
        name = model.name if k < len(originals) else f"{model.name}-r{k // len(originals)}"
        target = folder / name
        target.mkdir(parents=True, exist_ok=True)
        for file in model.iterdir():
            if not (target / file.name).exists():
                (target / file.name).symlink_to(file)
    return folder


def evaluate_pairs(results: Path, work: Path, env: dict[str, str], repeat: int
                   ) -> list[tuple[Measured, Measured]]:
    """`evaluate --no-report` and `evaluate` (with the report) back to back, `repeat` times,
    sorted by their ratio: on a machine shared with other work, a pair run together sees the
    same load, and the median pair's ratio is the figure least moved by a burst."""
    pairs = []
    for index in range(max(1, repeat)):
        shutil.rmtree(work / "plain", ignore_errors=True)
        shutil.rmtree(work / "scores", ignore_errors=True)
        plain = measured(fcbench("evaluate", "--result-dir", str(results), "--score-dir",
                                 str(work / "plain"), "--no-report"), env,
                         work / f"plain-{index}.log")
        with_report = measured(fcbench("evaluate", "--result-dir", str(results), "--score-dir",
                                       str(work / "scores")), env,
                               work / f"evaluate-{index}.log")
        pairs.append((plain, with_report))
    return sorted(pairs, key=lambda pair: pair[1].seconds / pair[0].seconds)


def bench_folder(count: int, work: Path, env: dict[str, str], args: argparse.Namespace
                 ) -> list[bool]:
    """Every figure of one folder of `count` models, printed; the PASS/FAIL of each floor."""
    results = model_folder(work, count)
    here = work / f"n{count}"
    here.mkdir(exist_ok=True)
    pairs = evaluate_pairs(results, here, env, args.repeat)
    plain, with_report = pairs[len(pairs) // 2]  # the pair of the median ratio
    page = here / "scores" / "report.html"
    size = page.stat().st_size
    build = measured(fcbench("report", str(here / "scores"), "--result-dir", str(results),
                             "-o", str(here / "report.html")), env, here / "report.log")
    ratio = with_report.seconds / plain.seconds
    print(f"-- {count} models ({results}); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print("evaluate pairs (--no-report, with report; run back to back): " + ", ".join(
        f"{a.seconds:.2f}/{b.seconds:.2f} s = {b.seconds / a.seconds:.2f}x" for a, b in pairs)
        + "; the median pair below")
    cpu = sorted(b.cpu_seconds / a.cpu_seconds for a, b in pairs if a.cpu_seconds)
    if cpu:  # user + system time, workers included: what other work on the machine moves least
        print("  in CPU time (user + system, workers included): " + ", ".join(
            f"{a.cpu_seconds:.2f}/{b.cpu_seconds:.2f} s" for a, b in pairs)
            + f"; median ratio {cpu[len(cpu) // 2]:.2f}x")
    print(f"evaluate --no-report       {plain.seconds:7.2f} s  peak RSS "
          f"{plain.max_rss_bytes / MB:6.1f} MB")
    ok = [ratio <= FLOORS["ratio"], with_report.max_rss_bytes <= FLOORS["rss"],
          size <= FLOORS["size"], build.seconds <= FLOORS["build_s"],
          build.max_rss_bytes <= FLOORS["rss"]]
    print(f"evaluate (with report)     {with_report.seconds:7.2f} s  peak RSS "
          f"{with_report.max_rss_bytes / MB:6.1f} MB (<= 200 MB {verdict(ok[1])})  ratio "
          f"{ratio:.2f}x (<= {FLOORS['ratio']}x {verdict(ok[0])})")
    print(f"report size                {size / MB:7.2f} MB  (<= 4 MB {verdict(ok[2])}; "
          f"{size / count / 1024:.0f} kB a model)")
    print(f"fcbench report             {build.seconds:7.2f} s  peak RSS "
          f"{build.max_rss_bytes / MB:6.1f} MB  (<= {FLOORS['build_s']} s {verdict(ok[3])}, "
          f"<= 200 MB {verdict(ok[4])})")
    if args.browser:
        ready = browser_ready_seconds(page, here / "profile")
        if ready is None:
            print("chromium: not installed, not timed")
        else:
            ok.append(ready <= FLOORS["ready_s"])
            print(f"usable in Chromium         {ready:7.2f} s  (<= 2 s {verdict(ok[-1])})")
    return ok if count == SIZES[0] else []  # the floors are the 57-model report's


def smoke(work: Path, env: dict[str, str]) -> list[bool]:
    """The smoke run's report: size and build time (start-up included)."""
    folder = work / "smoke"
    measured(fcbench("run", "--model", "ground-truth", "--categories", "simple_python,multiple",
                     "--limit", "3", "--result-dir", str(folder / "result"), "--score-dir",
                     str(folder / "score"), "--no-report"), env, work / "smoke-run.log")
    page = work / "smoke.html"
    build = measured(fcbench("report", str(folder / "score"), "--result-dir",
                             str(folder / "result"), "-o", str(page)), env,
                     work / "smoke-report.log")
    size = page.stat().st_size
    small, quick = size <= FLOORS["smoke_size"], build.seconds <= FLOORS["smoke_s"]
    print(f"-- smoke report             {size / 1024:7.1f} kB  built in {build.seconds:.2f} s "
          f"(floors <= 1 MB {verdict(small)}, <= 1 s {verdict(quick)}; the time includes the "
          "interpreter's start-up)")
    return [small, quick]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    parser.add_argument("--strict", action="store_true", help="exit 1 on any FAIL")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3,
                        help="evaluate pairs (--no-report, with report) to take the median of")
    parser.add_argument("--models", type=int, nargs="*", default=list(SIZES),
                        help="folder sizes to measure (default: 57 100)")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"needs the v1 corpus in {CORPUS}", file=sys.stderr)
        return 2
    work = args.workdir or Path(tempfile.mkdtemp(prefix="fcbench-bench-report-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FCBENCH_HOME": str(work / "home"), "FCBENCH_CACHE": "off"}
    fetch = ["data", "fetch", *(["--from", str(WHEEL)] if WHEEL.exists() else [])]
    subprocess.run(fcbench(*fetch), env=env, check=True, capture_output=True)
    print(f"work folder {work}")
    ok = [flag for count in args.models for flag in bench_folder(count, work, env, args)]
    ok += smoke(work, env)
    return 1 if args.strict and not all(ok) else 0


if __name__ == "__main__":
    sys.exit(main())
