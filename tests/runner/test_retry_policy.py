"""The retry policy's defaults and shape, pinned where they are defined (runner/retry.py):
the backoff grows exponentially up to its ceiling, the jitter stays inside it, a Retry-After is
a floor capped at `max_retry_after`, and a real call's waits follow all three.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.models.base import TransientError
from fcbench.runner import retry
from fcbench.runner.retry import CallFailed, RetryPolicy, call_with_retries


def test_the_default_policy() -> None:
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.base_delay, policy.max_delay, policy.max_retry_after) == (
        8, 0.5, 60.0, 300.0)


@pytest.fixture
def top_of_jitter(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Jitter always at its upper bound, so that each delay is the backoff ceiling."""
    monkeypatch.setattr(retry.random, "uniform", lambda low, high: high)
    yield


@pytest.mark.usefixtures("top_of_jitter")
def test_the_backoff_ceiling_doubles_per_attempt_up_to_max_delay() -> None:
    policy = RetryPolicy()
    ceilings = [policy.delay(attempt, None) for attempt in range(1, 11)]
    assert ceilings == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]


@given(attempt=st.integers(1, 64), seed=st.integers(0, 2**32))
def test_the_jitter_stays_between_zero_and_the_ceiling(attempt: int, seed: int) -> None:
    random.seed(seed)
    policy = RetryPolicy()
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
    assert 0 <= policy.delay(attempt, None) <= ceiling


def test_the_jitter_is_full_jitter_not_a_constant() -> None:
    random.seed(7)
    delays = {RetryPolicy().delay(5, None) for _ in range(50)}
    assert len(delays) > 40 and min(delays) < 2.0 < max(delays)


@given(retry_after=st.floats(0, 10**6, allow_nan=False), attempt=st.integers(1, 20))
def test_retry_after_is_a_floor_capped_at_max_retry_after(retry_after: float,
                                                          attempt: int) -> None:
    policy = RetryPolicy()
    delay = policy.delay(attempt, retry_after)
    assert delay >= min(retry_after, policy.max_retry_after)
    assert delay <= max(min(retry_after, policy.max_retry_after), policy.max_delay)


def test_an_hour_of_retry_after_waits_the_cap() -> None:
    assert RetryPolicy().delay(1, 3600.0) == 300.0
    assert RetryPolicy(max_retry_after=5.0).delay(1, 3600.0) == 5.0


@pytest.mark.usefixtures("top_of_jitter")
def test_a_failing_call_waits_longer_each_time_then_gives_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(retry.asyncio, "sleep", no_sleep)

    async def busy() -> str:
        raise TransientError("HTTP 503: busy", 503)

    with pytest.raises(CallFailed) as failed:
        asyncio.run(call_with_retries(busy, RetryPolicy()))
    assert failed.value.attempts == 8
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
