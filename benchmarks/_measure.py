"""Process measurement and score-file reading shared by the benchmark scripts (stdlib only)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The seven single-turn categories of the v1 corpus that both tools score.
CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)

#: (correct_count, total_count) per category.
Counts = dict[str, tuple[int, int]]


@dataclass(frozen=True)
class Measured:
    """One finished child process: wall time, its own peak RSS, and its exit status."""

    argv: tuple[str, ...]
    seconds: float
    max_rss_bytes: int
    returncode: int
    log: Path | None
    cpu_seconds: float = 0.0
    """User + system time of the process and the children it waited for (its workers): far
    less moved by other work on a shared machine than the wall time."""

    def check(self) -> None:
        """Raise a readable error if the process failed."""
        if self.returncode != 0:
            where = f"; see {self.log}" if self.log else ""
            tail = ""
            if self.log and self.log.exists():
                lines = self.log.read_text(errors="replace").splitlines()
                tail = "\n  | " + "\n  | ".join(lines[-15:])
            raise RuntimeError(
                f"command failed with exit code {self.returncode}: {' '.join(self.argv)}"
                f"{where}{tail}"
            )


def run_measured(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
) -> Measured:
    """Run ``argv`` to completion; measure its wall time and peak resident set size.

    The peak RSS is the child's own ``ru_maxrss`` as reported by ``wait4`` for that very pid,
    so it is exact per process (``RUSAGE_CHILDREN`` would be a running maximum over every
    child ever waited for). Output goes to ``log`` (stdout and stderr together) or is dropped.
    """
    sink = log.open("wb") if log is not None else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if log is not None and not isinstance(sink, int):
            sink.close()
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    scale = 1 if sys.platform == "darwin" else 1024
    return Measured(tuple(argv), seconds, usage.ru_maxrss * scale, proc.returncode, log,
                    usage.ru_utime + usage.ru_stime)


def median_seconds(
    argv: Sequence[str], runs: int, *, env: Mapping[str, str] | None = None
) -> float:
    """Median wall time of ``runs`` runs of ``argv`` (after one untimed warm-up run)."""
    run_measured(argv, env=env).check()
    times = []
    for _ in range(runs):
        result = run_measured(argv, env=env)
        result.check()
        times.append(result.seconds)
    return statistics.median(times)


def read_score_header(path: Path) -> tuple[int, int]:
    """``(correct_count, total_count)`` from the first line of a BFCL-style score file."""
    with path.open(encoding="utf-8") as handle:
        header = json.loads(handle.readline())
    return int(header["correct_count"]), int(header["total_count"])


def score_category(path: Path) -> str:
    """``simple_python`` from ``.../BFCL_v4_simple_python_score.json``."""
    return path.name.removeprefix("BFCL_v4_").removesuffix("_score.json")


def read_scores(model_score_dir: Path) -> Counts:
    """Counts of every ``BFCL_v4_*_score.json`` below one model's score folder."""
    return {
        score_category(path): read_score_header(path)
        for path in sorted(model_score_dir.rglob("BFCL_v4_*_score.json"))
    }


def read_verdict_counts(model_dir: Path, categories: Sequence[str]) -> Counts:
    """Counts from a corpus model folder's ``verdicts.jsonl`` (the recorded official verdicts)."""
    counts: dict[str, list[int]] = {category: [0, 0] for category in categories}
    path = model_dir / "verdicts.jsonl"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            verdict = json.loads(line)
            entry = counts.get(verdict["category"])
            if entry is not None:
                entry[0] += bool(verdict["valid"])
                entry[1] += 1
    return {category: (c, t) for category, (c, t) in counts.items() if t}
