"""Why cases fail, and when a run should stop asking.

A run against an endpoint that cannot answer (a wrong key, a wrong path, a model the server
does not serve) fails every case the same way. Asking the other few thousand cases only
wastes time and money, and a bare error total says nothing about the cause, so the runner
keeps, for every failed case, a short *reason* (the error message without the retry count,
numbers masked so that "context length 8192 < 9000" and "8192 < 9100" count as one) and:

* stops early when the first `stop_after` finished cases all failed with the same reason
  (`Outcomes.stop` says why; the cases in flight still finish and are stored);
* stops too when `stop_after` cases in a row, at any point of the run, failed alike by a
  failure of a service the model does not answer for (`in_a_row`: a web search provider
  that went down or ran out of quota mid-run would fail every later case);
* ends every run with the reasons and their counts (`401 Unauthorized × 400`), in the
  printed summary and in `model.json`'s run log.

It also records the waits a case goes through before a retry (`Wait`: a rate limit's
Retry-After, a backoff), so that progress displays can say why nothing moves.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

DEFAULT_STOP_AFTER = 20
"""Stop when this many first finished cases all failed the same way (0: never stop)."""

_GAVE_UP = re.compile(r"\s*\(gave up after \d+ attempts(?:: [^()]*)?\)$")
_HTTP_STATUS = re.compile(r"^HTTP (\d{3})")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
LABEL_WIDTH = 160


def reason_label(message: str) -> str:
    """The reason a person reads: the message on one line, without the retry count."""
    return shorten(" ".join(_GAVE_UP.sub("", message).split()))


def shorten(text: str, width: int = LABEL_WIDTH) -> str:
    """`text` in at most `width` characters for a terminal line: its start (the status, the
    kind of error) and its end, where servers put the cause (`... 'msg': "Input should be
    'system'"`), with the middle elided. The result file keeps the whole text."""
    if len(text) <= width:
        return text
    head = width // 3
    tail = width - head - 5
    return f"{text[:head]} ... {text[len(text) - tail:]}"


def reason_key(label: str) -> str:
    """What makes two reasons the same: the label with its numbers masked (the HTTP status
    kept), so that messages differing only in counts, sizes or ids group together."""
    status = _HTTP_STATUS.match(label)
    head = status.group(0) if status else ""
    return head + _NUMBER.sub("#", label[len(head):])


@dataclass(frozen=True)
class Wait:
    """A case waiting before its next attempt, for progress displays."""

    reason: str
    """The failure that caused the wait (e.g. `HTTP 429: rate limited`)."""
    delay: float
    """Seconds the case waits."""
    retry_after: float | None
    """What the server asked for (Retry-After), before the cap; None if it did not say."""
    cap: float
    """The longest Retry-After honoured (`--max-retry-wait`)."""
    until: float = field(default=0.0)
    """`time.monotonic()` when the wait ends."""

    @classmethod
    def start(cls, reason: str, delay: float, retry_after: float | None, cap: float) -> Wait:
        return cls(reason_label(reason), delay, retry_after, cap, time.monotonic() + delay)

    def remaining(self, now: float | None = None) -> float:
        return max(0.0, self.until - (time.monotonic() if now is None else now))

    def describe(self, now: float | None = None) -> str:
        """`waiting 280 s: HTTP 429 ... (Retry-After 3600 s, capped at 300 s)`."""
        why = "backoff"
        if self.retry_after is not None:
            why = f"Retry-After {self.retry_after:.0f} s"
            if self.retry_after > self.cap:
                why += f", capped at {self.cap:.0f} s (--max-retry-wait)"
        return f"waiting {self.remaining(now):.0f} s: {self.reason} ({why})"


class Outcomes:
    """Every finished case's outcome in a run: reasons counted, the early stop decided."""

    def __init__(self, stop_after: int = DEFAULT_STOP_AFTER) -> None:
        self.stop_after = stop_after
        self.stop: str | None = None
        """Set when the run must stop: the one-line reason."""
        self._first: list[str | None] = []
        self._labels: dict[str, str] = {}
        self._streak: tuple[str | None, int] = (None, 0)
        """The reason key of the latest `in_a_row` failures, and how many in a row."""

    def failed(
        self, message: str, into: Counter[str] | None = None, *, in_a_row: bool = False,
        final: bool = False,
    ) -> str:
        """Record a failed case; its reason label (counted in `into`, e.g. a job's stats).
        `in_a_row`: a service's failure, which stops the run after `stop_after` alike in a
        row wherever they happen. `final`: the case's own error (its prompt does not fit the
        context), which says the endpoint works: counted, but it stops nothing (a model
        whose context is too small for a whole category would otherwise stop every run)."""
        label = reason_label(message)
        key = reason_key(label)
        shown = self._labels.setdefault(key, label)
        if into is not None:
            into[shown] += 1
        if final:
            self.succeeded()
            return shown
        self._observe(key)
        if in_a_row:
            self._count_streak(key)
        else:
            self._streak = (None, 0)
        return shown

    def succeeded(self) -> None:
        self._observe(None)
        self._streak = (None, 0)

    def _count_streak(self, key: str) -> None:
        last, count = self._streak
        count = count + 1 if key == last else 1
        self._streak = (key, count)
        if self.stop is None and self.stop_after > 0 and count >= self.stop_after:
            self.stop = (f"{self.stop_after} cases in a row failed with: "
                         f"{self._labels[key]}")

    def _observe(self, key: str | None) -> None:
        if self.stop_after <= 0 or len(self._first) >= self.stop_after:
            return
        self._first.append(key)
        full = len(self._first) == self.stop_after
        if full and key is not None and all(k == key for k in self._first):
            self.stop = f"the first {self.stop_after} cases all failed with: {self._labels[key]}"


def merged(counters: Iterable[Mapping[str, int]]) -> Counter[str]:
    """Reason counts summed over jobs."""
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return total


def describe_reasons(reasons: Mapping[str, int], limit: int = 5) -> list[str]:
    """`<reason> × <count>` lines, most frequent first, the rest summed in one line."""
    ordered = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    lines = [f"{label} × {count}" for label, count in ordered[:limit]]
    rest = ordered[limit:]
    if rest:
        lines.append(f"{len(rest)} other reason(s) × {sum(c for _, c in rest)}")
    return lines
