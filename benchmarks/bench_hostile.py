#!/usr/bin/env python3
"""Benchmark fcbench's decoders on hostile model answers: time and peak memory of each.

Workload: every entry of `tests/hostile_corpus.py` (`HOSTILE`, a list of named answers at
its top: nested and concatenated repetition, huge exponents, exponential trees, deep nesting,
10 MB strings, regular-expression bombs for every decoder; add a line there to add an input),
each decoded in a fresh interpreter as the evaluator would decode it. The baseline is the
same measurement of a normal answer (`NORMAL`) in the same run: interpreter start-up,
fcbench's imports and one ordinary decoding.

Measured per entry: wall seconds of the process, its peak resident memory (`getrusage` of
that child, from `os.wait4`), the memory over the baseline's, and the outcome (the recorded
failure and its reason, or what it decoded to). Floors: every entry <= 10 s and <= 500 MB
over the baseline; the worst of each is printed against them.

Usage::

    python benchmarks/bench_hostile.py [--only NAME[,NAME...]] [--timeout SECONDS]

Exit status 1 when a floor is broken or an entry crashed or timed out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from hostile_corpus import HOSTILE, NORMAL, Measured, measure  # noqa: E402

SECONDS_FLOOR = 10.0
MEGABYTES_FLOOR = 500.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated entry names")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds before an entry's process is killed (default 60)")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) if args.only else None
    entries = [entry for entry in HOSTILE if wanted is None or entry.name in wanted]

    baseline = measure(NORMAL.name, args.timeout)
    print(f"baseline ({NORMAL.name}): {baseline.seconds:.2f} s, {baseline.peak_mb:.0f} MB peak")
    print(f"{'input':26} {'route':22} {'s':>6} {'MB':>6} {'+MB':>6}  outcome")
    worst_seconds, worst_mb, broken = 0.0, 0.0, 0
    for entry in entries:
        measured = measure(entry.name, args.timeout)
        over = measured.peak_mb - baseline.peak_mb
        ok = _within_floors(measured, over)
        broken += not ok
        worst_seconds, worst_mb = max(worst_seconds, measured.seconds), max(worst_mb, over)
        print(f"{entry.name:26} {entry.route:22} {measured.seconds:6.2f} "
              f"{measured.peak_mb:6.0f} {over:6.0f}  {'' if ok else 'FLOOR BROKEN '}"
              f"{_describe(measured)}")
    print(f"worst time: {worst_seconds:.2f} s (floor {SECONDS_FLOOR:.0f} s); worst memory: "
          f"{worst_mb:.0f} MB over the baseline (floor {MEGABYTES_FLOOR:.0f} MB); "
          f"{len(entries) - broken}/{len(entries)} within the floors")
    return 1 if broken else 0


def _within_floors(measured: Measured, over_mb: float) -> bool:
    finished = "timeout" not in measured.outcome and "crash" not in measured.outcome
    return finished and measured.seconds <= SECONDS_FLOOR and over_mb <= MEGABYTES_FLOOR


def _describe(measured: Measured) -> str:
    outcome = measured.outcome
    if "failure" in outcome:
        return f"{outcome['failure']}: {outcome['reason'][:70]}"
    if "calls" in outcome:
        return f"decoded, {outcome['calls']} call(s) (the checker fails it)"
    return str(outcome)[:100]


if __name__ == "__main__":
    sys.exit(main())
