"""Server health over the whole run: a dead endpoint is set aside, a dead server stops the run.

`--stop-after` looks at the first cases only; a server that dies mid-run (killed, out of
memory, a key revoked) would otherwise be retried case after case for hours, every case
recorded as an error. So every attempt's outcome is watched here, per endpoint when the
backend has several (`endpoints`, e.g. the OpenAI-compatible backend's base URLs), as one
otherwise:

* an *outage* is a failure that says the endpoint cannot answer anything: the connection
  refused or reset, DNS, TLS, a timeout, HTTP 401/403/404, HTTP 5xx (`outage`);
* any answer, or a failure of another kind (a 429, a 400 on this case, a malformed body:
  the server is there), ends an endpoint's outage;
* an endpoint whose outage has lasted `down_after` seconds (two failed attempts at least) is
  *down*: while another one answers it is set aside for that long (the backend's replica
  choice skips it, then tries it again); when every endpoint is down the run stops
  (`Health.stop`, the one line: what failed, since when), the cases in flight are abandoned
  (nothing was written for them, so the next run asks them) and every finished case is kept.

`down_after` is `--down-after` (0: never).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from fcbench.models.base import BackendError, TransientError
from fcbench.models.limits import ReplyOverdue
from fcbench.runner.failures import reason_label

T = TypeVar("T")

DEFAULT_DOWN_AFTER = 300.0
"""Seconds an endpoint may fail without one answer before it is down (`--down-after`)."""

AUTH_OR_PATH = frozenset({401, 403, 404})
"""Statuses that say no request of this run can succeed here (key, permission, path, model)."""
ANY = ""
"""The key of a backend without several endpoints."""


def outage(exc: BaseException) -> bool:
    """Whether a failed attempt says its endpoint cannot answer at all (not: this request)."""
    if getattr(exc, "final", False):  # the server measured the case: it is alive
        return False
    status = getattr(exc, "status", None)
    if status is not None:
        return status in AUTH_OR_PATH or status >= 500
    if not isinstance(exc, TransientError):
        return False
    text = str(exc)
    return isinstance(exc, ReplyOverdue) or text.startswith("connection failed") or (
        text.startswith("request") and "timed out" in text)


@dataclass
class Outage:
    """One endpoint's failures since its last answer."""

    since: float
    """`time.time()` of the first failure (said to the user)."""
    started: float
    """`time.monotonic()` of the first failure (measured)."""
    failures: int
    last: str
    """The latest failure's reason label."""


class Health:
    """Every attempt's outcome, per endpoint; `stop` is set when every endpoint is down."""

    def __init__(
        self,
        down_after: float,
        endpoints: Sequence[str] = (),
        *,
        set_aside: Callable[[str, float], None] | None = None,
        on_stop: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.down_after = down_after
        self.endpoints = tuple(endpoints)
        self.set_aside = set_aside
        self.on_stop = on_stop
        self.clock = clock
        self.stop: str | None = None
        """Why the run stops (None: it goes on)."""
        self.outages: dict[str, Outage] = {}
        self.down: set[str] = set()

    def _key(self, endpoint: str | None) -> str | None:
        """The endpoint an outcome counts for; None: one this tracker cannot place."""
        if not self.endpoints:
            return ANY
        return endpoint if endpoint in self.endpoints else None

    def answered(self, endpoint: str | None) -> None:
        """An answer (or a failure that only a live server gives) from `endpoint`."""
        key = self._key(endpoint)
        if key is not None:
            self.outages.pop(key, None)
            self.down.discard(key)

    def failed(self, exc: BaseException) -> None:
        """A failed attempt."""
        key = self._key(getattr(exc, "endpoint", None))
        if key is None:
            return
        if not outage(exc):
            self.answered(key)
            return
        now = self.clock()
        current = self.outages.get(key)
        if current is None:
            current = self.outages[key] = Outage(time.time(), now, 0, "")
        current.failures += 1
        current.last = reason_label(str(exc))
        lasted = now - current.started
        if self.down_after > 0 and current.failures >= 2 and lasted >= self.down_after:
            self._is_down(key)

    def _is_down(self, key: str) -> None:
        self.down.add(key)
        every = set(self.endpoints) or {ANY}
        if not every <= self.down:
            if self.set_aside is not None:
                self.set_aside(key, self.down_after)
            return
        if self.stop is None:
            self.stop = self.describe()
            if self.on_stop is not None:
                self.on_stop()

    def describe(self) -> str:
        """`no answer from <what> since 05:12:03 UTC (2 min 5 s, 40 failed attempts): <last>`."""
        found = [self.outages[k] for k in sorted(self.outages)]
        first = min(found, key=lambda o: o.started)
        latest = max(found, key=lambda o: o.started)
        what = (f"any of the {len(self.endpoints)} endpoints" if len(self.endpoints) > 1
                else "the endpoint")
        when = time.strftime("%H:%M:%S UTC", time.gmtime(first.since))
        failures = sum(o.failures for o in found)
        return (f"no answer from {what} since {when} ({duration(self.clock() - first.started)}, "
                f"{failures} failed attempt(s)): {latest.last}")

    def watch(self, call: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[T]]:
        """`call`, its outcome observed (each attempt of a guarded call)."""

        async def watched() -> T:
            try:
                value = await call()
            except BackendError as exc:
                self.failed(exc)
                raise
            self.answered(getattr(value, "endpoint", None))
            return value

        return watched


def duration(seconds: float) -> str:
    """`45 s`, `2 min 5 s`, `1 h 3 min`."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
