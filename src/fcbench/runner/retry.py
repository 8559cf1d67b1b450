"""Retries, backoff and rate limits: the one policy every backend's calls go through.

A call that fails with `TransientError` (rate limit, server error, timeout, dropped
connection) is tried again after an exponential backoff with full jitter, a server's
Retry-After (capped) being a floor; `PermanentError` and the last failed attempt end it with
`CallFailed`. A token bucket caps requests per second across all cases of a run.

Two limits keep a case from failing slowly (issue 25): the same HTTP error returned
`max_identical` times in a row (a server rejecting the request's shape answers the same 500
to every attempt; rate limits and 503 "busy" are exempt, they are waits), and a retry budget
per case in time (`case_budget`: seconds spent in failed attempts and waits before a retry;
a greedy request that timed out times out again, so eight 300 s timeouts are not waited out).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from fcbench.models.base import PermanentError, TransientError
from fcbench.runner.failures import Wait

if TYPE_CHECKING:
    from fcbench.runner.health import Health

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a call is retried."""

    max_attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 60.0
    max_retry_after: float = 300.0
    max_identical: int = 3
    """Attempts that may end with the same HTTP error (status and text) in a row."""
    case_budget: float = 900.0
    """Seconds a case may spend in failed attempts and waits before its next retry."""

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Full-jitter exponential backoff; a Retry-After (capped) is a floor."""
        backoff = random.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))
        if retry_after is not None:
            return max(min(retry_after, self.max_retry_after), backoff)
        return backoff


class RateLimiter:
    """A token bucket: at most `rate` calls per second on average, bursts up to one second."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._tokens = rate
        self._last = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.rate, self._tokens + (now - self._last) * self.rate)
                self._last = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                await asyncio.sleep((1 - self._tokens) / self.rate)


class CallFailed(Exception):
    """A call that failed for good (permanent error, or every attempt used); `final`: the
    error is the case's own (`PermanentError.final`), so a resume does not ask it again."""

    def __init__(self, message: str, attempts: int, *, final: bool = False) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.final = final


EXEMPT_FROM_IDENTICAL = frozenset({429, 503})
"""Statuses that say "come back later": their repetition is a wait, not a verdict."""


@dataclass
class RetryAccount:
    """What one case has spent on failures: seconds (failed attempts and waits), and the last
    HTTP error with how often in a row it came."""

    spent: float = 0.0
    last_error: tuple[int, str] | None = None
    repeats: int = 0

    def failed(self, exc: TransientError, seconds: float) -> None:
        self.spent += seconds
        key = (exc.status, str(exc)) if exc.status is not None else None
        if key is not None and key == self.last_error:
            self.repeats += 1
        else:
            self.last_error, self.repeats = key, 1 if key is not None else 0

    def give_up(self, exc: TransientError, policy: RetryPolicy, delay: float) -> str | None:
        """Why the case stops retrying now (None: retry)."""
        if exc.status not in EXEMPT_FROM_IDENTICAL and self.repeats >= policy.max_identical:
            return f"the same error {self.repeats} times in a row"
        if self.spent + delay > policy.case_budget:
            return (f"the case's retry budget of {policy.case_budget:.0f} s is spent, "
                    f"{self.spent:.0f} s in failed attempts")
        return None


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    limiter: RateLimiter | None = None,
    on_retry: Callable[[], None] | None = None,
    on_wait: Callable[[Wait], None] | None = None,
    account: RetryAccount | None = None,
) -> tuple[T, int]:
    """(value, attempts) of the first successful call; CallFailed when giving up.
    `on_wait` hears of each wait before a retry (how long, and why); `account` is the case's
    (shared by every call of a conversation), a fresh one per call by default."""
    account = account if account is not None else RetryAccount()
    attempt = 0
    while True:
        attempt += 1
        if limiter is not None:
            await limiter.acquire()
        started = time.monotonic()
        try:
            return await call(), attempt
        except PermanentError as exc:
            raise CallFailed(str(exc), attempt, final=exc.final) from exc
        except TransientError as exc:
            if attempt >= policy.max_attempts:
                raise CallFailed(f"{exc} (gave up after {attempt} attempts)", attempt) from exc
            account.failed(exc, time.monotonic() - started)
            delay = policy.delay(attempt, exc.retry_after)
            why = account.give_up(exc, policy, delay)
            if why is not None:
                raise CallFailed(f"{exc} (gave up after {attempt} attempts: {why})",
                                 attempt) from exc
            account.spent += delay
            if on_wait is not None:
                on_wait(Wait.start(str(exc), delay, exc.retry_after, policy.max_retry_after))
            if on_retry is not None:
                on_retry()
            await asyncio.sleep(delay)


@dataclass
class Guard:
    """The retry policy, rate limit and retry counter of one case, for its solver's calls."""

    policy: RetryPolicy
    limiter: RateLimiter | None = None
    on_retry: Callable[[], None] | None = None
    on_wait: Callable[[Wait], None] | None = None
    account: RetryAccount = field(default_factory=RetryAccount)
    """The case's failures so far: its retry budget covers every call of a conversation."""
    health: Health | None = None
    """The run's endpoint health, told of every attempt (`runner.health`)."""

    async def call(self, call: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """(value, attempts) of one guarded call; CallFailed when giving up."""
        if self.health is not None:
            call = self.health.watch(call)
        return await call_with_retries(
            call, self.policy, limiter=self.limiter, on_retry=self.on_retry,
            on_wait=self.on_wait, account=self.account,
        )
