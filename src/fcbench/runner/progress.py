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
from collections import deque
from collections.abc import Sequence
from typing import TextIO

from fcbench.runner.failures import Wait, describe_reasons, merged
from fcbench.runner.generate import GenerationJob, ProgressSink

DEFAULT_INTERVAL = 15.0
"""Seconds between two progress lines."""

RECENT_CASES = 20
"""The rate and the ETA shown while a run goes are measured over the latest this-many
finished cases: a server that slows down (or a category of long conversations) shows at once,
instead of being averaged away by the fast start."""


def rate_text(cases: float, seconds: float) -> str:
    """A rate that reads right at any speed: `12.3/s`; below one a second `4.2/min` (a small
    model on a CPU finishes a case every 20 s, which `0.0/s` would show as stopped); below one
    a minute the seconds each case takes, `95 s/case`. `0/s` when nothing finished."""
    if cases <= 0 or seconds <= 0:
        return "0/s"
    per_second = cases / seconds
    if per_second >= 1:
        return f"{per_second:.1f}/s"
    if per_second * 60 >= 1:
        return f"{per_second * 60:.1f}/min"
    return f"{seconds / cases:.0f} s/case"


class Throughput:
    """When the latest cases finished, for a recent rate and an ETA that do not drift.

    `record(now, done)` notes each increase of the finished count. The rate is that of the
    last `keep` finished cases (from the start while fewer have finished). The ETA is the
    time the remaining cases take at that rate, counted down from the last finished case:
    while nothing finishes it falls instead of climbing. Once that countdown is spent with
    cases left (overdue: a local model's batch outlasts its estimate), the ETA is the live
    rate's, the time up to now counted: the remaining cases at the recent window's cases
    over the seconds from its start until now; never `0 s` while cases remain."""

    def __init__(self, start: float, done: int = 0, keep: int = RECENT_CASES) -> None:
        self._marks: deque[tuple[float, int]] = deque([(start, done)], maxlen=keep + 1)

    def record(self, now: float, done: int) -> None:
        if done > self._marks[-1][1]:
            self._marks.append((now, done))

    def rate(self) -> tuple[int, float]:
        """(cases, seconds) over the recent window; (0, 0.0) before the first case."""
        (first, done_first), (last, done_last) = self._marks[0], self._marks[-1]
        return done_last - done_first, last - first

    def eta(self, now: float, remaining: int) -> float | None:
        """Seconds left (None while no case has finished)."""
        cases, seconds = self.rate()
        if cases <= 0:
            return None
        if remaining <= 0:
            return 0.0
        since_last = now - self._marks[-1][0]
        countdown = remaining * seconds / cases - since_last
        if countdown > 0:
            return countdown
        return remaining * (seconds + since_last) / cases  # overdue: the rate up to now


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
        self._last = 0.0
        self._wait_shown: Wait | None = None
        self._throughput = Throughput(0.0)
        self._activity: str | None = None

    def start(self, jobs: Sequence[GenerationJob]) -> None:
        self._jobs = jobs
        self._last = time.monotonic()
        self._throughput = Throughput(self._last)
        pending = sum(len(j.cases) for j in jobs)
        done = sum(j.already for j in jobs)
        self._print(f"{pending} case(s) to ask ({done} already done)")

    def update(self, job: GenerationJob) -> None:
        self._throughput.record(time.monotonic(), sum(j.stats.done for j in self._jobs))
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

    def activity(self, text: str | None) -> None:
        self._activity = text

    def note(self, text: str) -> None:
        self._print(f"warning: {text}")

    def stop(self) -> None:
        if self._jobs:
            self._print(self.line(time.monotonic()))

    def line(self, now: float) -> str:
        """`120/400 cases (30%), 12.3/s, ETA 23 s, retries 5, errors 3 (...); waiting ...;
        generating 8 case(s): 312 token(s) so far, 41 s`: the rate and the ETA of the recent
        cases (`Throughput`), the backend's activity while cases remain."""
        jobs = self._jobs
        total = sum(len(j.cases) for j in jobs)
        done = sum(j.stats.done for j in jobs)
        left = self._throughput.eta(now, total - done)
        percent = 100 * done / total if total else 100.0
        parts = [f"{done}/{total} cases ({percent:.0f}%)",
                 rate_text(*self._throughput.rate()),
                 f"ETA {eta_text(left)}", f"retries {sum(j.stats.retries for j in jobs)}"]
        errors = sum(j.stats.errors for j in jobs)
        reasons = describe_reasons(merged(j.stats.reasons for j in jobs), limit=3)
        parts.append(f"errors {errors}" + (f" ({'; '.join(reasons)})" if reasons else ""))
        text = ", ".join(parts)
        wait = current_wait(jobs, now)
        text += f"; {wait.describe(now)}" if wait is not None else ""
        return text + (f"; {self._activity}" if self._activity and done < total else "")

    def _print(self, text: str) -> None:
        stream = self.stream or sys.stderr
        print(f"fcbench: {text}", file=stream, flush=True)
