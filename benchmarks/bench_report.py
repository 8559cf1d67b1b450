#!/usr/bin/env python3
"""Benchmark the HTML report: its size, build time, peak RSS, the cost it adds to
``fcbench evaluate``, and (when Chromium is installed) the time until it is usable.

Workload: the v1 corpus (``../shared/corpus/v1``: 14 models, 2024 categories; executable
categories offline, so their web cases are skipped), and a smoke run (``fcbench run --model
ground-truth --categories simple_python,multiple --limit 3``).

Measured, each in a fresh process (wall time and that process's own peak RSS):

* ``fcbench evaluate --no-report`` and ``fcbench evaluate`` (which writes report.html, from the
  verdicts in memory) on the corpus, back to back, ``--repeat`` times: the median ratio of a
  pair is the report's cost to an evaluation;
* ``fcbench report`` of the corpus's score folder: build time, peak RSS, file size; and of
  one model's score folder: the size is extrapolated to the issue's 57 models as one model's
  report plus 56 times the size each further model adds (the questions, functions and
  expected answers are stored once per case, not per model; labelled as extrapolated);
* the smoke run's report: size and build time;
* with ``--browser`` (Debian's chromium): seconds from navigation until the page says it is
  ready (charts and tables drawn), offline, for the corpus report.

Floors (issue 23): the 57-model report <= 4 MB, built in <= 5 s with peak RSS <= 200 MB,
usable in Chromium in <= 2 s; a smoke run's report <= 1 MB and <= 1 s; evaluate with the
report <= 1.3x evaluate --no-report. PASS/FAIL is printed; exit status 1 on a FAIL only with
``--strict``.
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
ISSUE_MODELS = 57
MB = 1024 * 1024
FLOORS = {"size_57": 4 * MB, "build_s": 5.0, "rss": 200 * MB, "ready_s": 2.0,
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


def evaluate_pairs(work: Path, env: dict[str, str], repeat: int
                   ) -> list[tuple[Measured, Measured]]:
    """`evaluate --no-report` and `evaluate` (with the report) back to back, `repeat` times,
    sorted by their ratio: on a machine shared with other work, a pair run together sees the
    same load, and the median pair's ratio is the figure least moved by a burst."""
    pairs = []
    for index in range(max(1, repeat)):
        shutil.rmtree(work / "plain", ignore_errors=True)
        shutil.rmtree(work / "scores", ignore_errors=True)
        plain = measured(fcbench("evaluate", "--result-dir", str(CORPUS), "--score-dir",
                                 str(work / "plain"), "--no-report"), env,
                         work / f"plain-{index}.log")
        with_report = measured(fcbench("evaluate", "--result-dir", str(CORPUS), "--score-dir",
                                       str(work / "scores")), env,
                               work / f"evaluate-{index}.log")
        pairs.append((plain, with_report))
    return sorted(pairs, key=lambda pair: pair[1].seconds / pair[0].seconds)


def one_model_report(work: Path, env: dict[str, str]) -> Path:
    """The report of the corpus's first model alone (its score folder copied apart)."""
    first = min(p for p in (work / "scores").iterdir() if p.is_dir())
    shutil.copytree(first, work / "one" / "scores" / first.name, dirs_exist_ok=True)
    page = work / "one" / "report.html"
    measured(fcbench("report", str(work / "one" / "scores"), "--result-dir", str(CORPUS),
                     "-o", str(page)), env, work / "one-report.log")
    return page


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    parser.add_argument("--strict", action="store_true", help="exit 1 on any FAIL")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3,
                        help="evaluate pairs (--no-report, with report) to take the median of")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"needs the v1 corpus in {CORPUS}", file=sys.stderr)
        return 2
    work = args.workdir or Path(tempfile.mkdtemp(prefix="fcbench-bench-report-"))
    env = {**os.environ, "FCBENCH_HOME": str(work / "home"), "FCBENCH_CACHE": "off"}
    fetch = ["data", "fetch", *(["--from", str(WHEEL)] if WHEEL.exists() else [])]
    subprocess.run(fcbench(*fetch), env=env, check=True, capture_output=True)
    models = sum(1 for p in CORPUS.iterdir() if p.is_dir())

    pairs = evaluate_pairs(work, env, args.repeat)
    plain, with_report = pairs[len(pairs) // 2]  # the pair of the median ratio
    page = work / "report.html"
    build = measured(fcbench("report", str(work / "scores"), "--result-dir", str(CORPUS),
                             "-o", str(page)), env, work / "report.log")
    size = page.stat().st_size
    one_page = one_model_report(work, env)
    one_size = one_page.stat().st_size
    per_model = (size - one_size) / (models - 1)
    size_57 = one_size + per_model * (ISSUE_MODELS - 1)

    smoke = work / "smoke"
    measured(fcbench("run", "--model", "ground-truth", "--categories", "simple_python,multiple",
                     "--limit", "3", "--result-dir", str(smoke / "result"), "--score-dir",
                     str(smoke / "score"), "--no-report"), env, work / "smoke-run.log")
    smoke_page = work / "smoke.html"
    smoke_build = measured(fcbench("report", str(smoke / "score"), "--result-dir",
                                   str(smoke / "result"), "-o", str(smoke_page)), env,
                           work / "smoke-report.log")
    smoke_size = smoke_page.stat().st_size
    ratio = with_report.seconds / plain.seconds

    print(f"workload: {CORPUS} ({models} models); work folder {work}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("evaluate pairs (--no-report, with report; run back to back): " + ", ".join(
        f"{a.seconds:.2f}/{b.seconds:.2f} s = {b.seconds / a.seconds:.2f}x" for a, b in pairs)
        + "; the median pair below")
    print(f"evaluate --no-report       {plain.seconds:7.2f} s  peak RSS "
          f"{plain.max_rss_bytes / MB:6.1f} MB")
    print(f"evaluate (with report)     {with_report.seconds:7.2f} s  peak RSS "
          f"{with_report.max_rss_bytes / MB:6.1f} MB  ratio {ratio:.2f}x "
          f"(floor <= {FLOORS['ratio']}x) {verdict(ratio <= FLOORS['ratio'])}")
    print(f"report build               {build.seconds:7.2f} s  peak RSS "
          f"{build.max_rss_bytes / MB:6.1f} MB  (floors <= {FLOORS['build_s']} s "
          f"{verdict(build.seconds <= FLOORS['build_s'])}, <= 200 MB "
          f"{verdict(build.max_rss_bytes <= FLOORS['rss'])}; {models} models, not 57)")
    print(f"report size                {size / MB:7.2f} MB  (one model {one_size / 1024:.0f} kB, "
          f"{per_model / 1024:.0f} kB per further model; extrapolated to {ISSUE_MODELS} models "
          f"{size_57 / MB:.2f} MB, floor <= 4 MB {verdict(size_57 <= FLOORS['size_57'])})")
    small, quick = smoke_size <= FLOORS["smoke_size"], smoke_build.seconds <= FLOORS["smoke_s"]
    print(f"smoke report               {smoke_size / 1024:7.1f} kB  built in "
          f"{smoke_build.seconds:.2f} s (floors <= 1 MB {verdict(small)}, <= 1 s "
          f"{verdict(quick)}; the time includes the interpreter's start-up)")
    ok = [ratio <= FLOORS["ratio"], build.seconds <= FLOORS["build_s"],
          build.max_rss_bytes <= FLOORS["rss"], size_57 <= FLOORS["size_57"],
          small, quick]
    if args.browser:
        ready = browser_ready_seconds(page, work / "profile")
        if ready is None:
            print("chromium: not installed, not timed")
        else:
            print(f"usable in Chromium         {ready:7.2f} s  (floor <= 2 s "
                  f"{verdict(ready <= FLOORS['ready_s'])})")
            ok.append(ready <= FLOORS["ready_s"])
    return 1 if args.strict and not all(ok) else 0


if __name__ == "__main__":
    sys.exit(main())
