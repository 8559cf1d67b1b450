"""Retries, backoff and rate limits: the one policy every backend's calls go through.

A call that fails with `TransientError` (rate limit, server error, timeout, dropped
connection) is tried again after an exponential backoff with full jitter, a server's
Retry-After (capped) being a floor; `PermanentError` and the last failed attempt end it with
`CallFailed`. A token bucket caps requests per second across all cases of a run.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from fcbench.models.base import PermanentError, TransientError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a call is retried."""

    max_attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 60.0
    max_retry_after: float = 300.0

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
    """A call that failed for good (permanent error, or every attempt used)."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    limiter: RateLimiter | None = None,
    on_retry: Callable[[], None] | None = None,
) -> tuple[T, int]:
    """(value, attempts) of the first successful call; CallFailed when giving up."""
    attempt = 0
    while True:
        attempt += 1
        if limiter is not None:
            await limiter.acquire()
        try:
            return await call(), attempt
        except PermanentError as exc:
            raise CallFailed(str(exc), attempt) from exc
        except TransientError as exc:
            if attempt >= policy.max_attempts:
                raise CallFailed(f"{exc} (gave up after {attempt} attempts)", attempt) from exc
            if on_retry is not None:
                on_retry()
            await asyncio.sleep(policy.delay(attempt, exc.retry_after))


@dataclass
class Guard:
    """The retry policy, rate limit and retry counter of one case, for its solver's calls."""

    policy: RetryPolicy
    limiter: RateLimiter | None = None
    on_retry: Callable[[], None] | None = None

    async def call(self, call: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """(value, attempts) of one guarded call; CallFailed when giving up."""
        return await call_with_retries(
            call, self.policy, limiter=self.limiter, on_retry=self.on_retry
        )
