"""Progress for logs: plain lines at an interval, when there is no terminal to draw on.

A CI job or a `nohup` run has no terminal, and a live display drawn there is either lost or
floods the log; what such a reader needs is a line now and then: cases done, rate, time left,
errors by reason, and, when nothing moves, why (a rate limit's Retry-After, a backoff). A
wait that begins is printed at once when it is long, because it may last longer than the
interval.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TextIO

from fcbench.runner.failures import Wait, describe_reasons, merged
from fcbench.runner.generate import GenerationJob, ProgressSink

DEFAULT_INTERVAL = 15.0
"""Seconds between two progress lines."""


def current_wait(jobs: Sequence[GenerationJob], now: float | None = None) -> Wait | None:
    """The wait still running that ends last, over the jobs (None when nothing waits)."""
    now = time.monotonic() if now is None else now
    waits = [j.stats.wait for j in jobs if j.stats.wait is not None]
    running = [w for w in waits if w.until > now]
    return max(running, key=lambda w: w.until) if running else None


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds} s"


class PlainProgress(ProgressSink):
    """One line on `stream` (default stderr) every `interval` seconds, and at the end."""

    def __init__(self, stream: TextIO | None = None, interval: float = DEFAULT_INTERVAL) -> None:
        self.stream = stream
        self.interval = interval
        self._jobs: Sequence[GenerationJob] = ()
        self._started = 0.0
        self._last = 0.0
        self._wait_shown: Wait | None = None

    def start(self, jobs: Sequence[GenerationJob]) -> None:
        self._jobs = jobs
        self._started = self._last = time.monotonic()
        pending = sum(len(j.cases) for j in jobs)
        done = sum(j.already for j in jobs)
        self._print(f"{pending} case(s) to ask ({done} already done)")

    def update(self, job: GenerationJob) -> None:
        self.tick()

    def tick(self) -> None:
        now = time.monotonic()
        wait = current_wait(self._jobs, now)
        new_long_wait = (wait is not None and wait is not self._wait_shown
                         and wait.delay >= min(self.interval, 5.0))
        if now - self._last >= self.interval or new_long_wait:
            self._wait_shown = wait
            self._last = now
            self._print(self.line(now))

    def stop(self) -> None:
        if self._jobs:
            self._print(self.line(time.monotonic()))

    def line(self, now: float) -> str:
        """`120/400 cases (30%), 12.3/s, ETA 23 s, retries 5, errors 3 (...); waiting ...`."""
        jobs = self._jobs
        total = sum(len(j.cases) for j in jobs)
        done = sum(j.stats.done for j in jobs)
        elapsed = max(now - self._started, 1e-6)
        rate = done / elapsed
        left = (total - done) / rate if rate > 0 else None
        percent = 100 * done / total if total else 100.0
        parts = [f"{done}/{total} cases ({percent:.0f}%)", f"{rate:.1f}/s",
                 f"ETA {eta_text(left)}", f"retries {sum(j.stats.retries for j in jobs)}"]
        errors = sum(j.stats.errors for j in jobs)
        reasons = describe_reasons(merged(j.stats.reasons for j in jobs), limit=3)
        parts.append(f"errors {errors}" + (f" ({'; '.join(reasons)})" if reasons else ""))
        text = ", ".join(parts)
        wait = current_wait(jobs, now)
        return text + (f"; {wait.describe(now)}" if wait is not None else "")

    def _print(self, text: str) -> None:
        stream = self.stream or sys.stderr
        print(f"fcbench: {text}", file=stream, flush=True)
