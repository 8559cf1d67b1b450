"""Retrying one call: each wait is announced with its length and cause before it starts."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from fcbench.models.base import TransientError
from fcbench.runner.failures import Wait
from fcbench.runner.retry import RetryPolicy, call_with_retries


def test_on_wait_hears_the_retry_after_and_the_cap() -> None:
    attempts: list[int] = []

    async def limited() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise TransientError("HTTP 429: rate limited", 429, retry_after=3600.0)
        if len(attempts) == 2:
            raise TransientError("HTTP 503: busy", 503)
        return "ok"

    waits: list[Wait] = []
    policy = RetryPolicy(max_attempts=5, base_delay=0.001, max_delay=0.001, max_retry_after=0.01)
    value, count = asyncio.run(call_with_retries(limited, policy, on_wait=waits.append))
    assert (value, count) == ("ok", 3)
    assert [w.reason for w in waits] == ["HTTP 429: rate limited", "HTTP 503: busy"]
    assert waits[0].retry_after == 3600.0 and waits[0].delay == 0.01 and waits[0].cap == 0.01
    assert waits[1].retry_after is None and waits[1].delay <= 0.001


def test_the_same_server_error_is_not_retried_eight_times() -> None:
    """Issue 25 item 5: a 500 that repeats word for word gives up after `max_identical`
    attempts; a rate limit repeating is still waited out."""
    import pytest

    from fcbench.runner.retry import CallFailed

    calls: list[int] = []

    async def rejected() -> str:
        calls.append(1)
        raise TransientError("HTTP 500: 7 validation errors: ... 'msg': \"Input should be "
                             "'system'\"", 500)

    policy = RetryPolicy(max_attempts=8, base_delay=0.001, max_delay=0.001)
    with pytest.raises(CallFailed, match="the same error 3 times in a row") as failed:
        asyncio.run(call_with_retries(rejected, policy))
    assert len(calls) == 3 and failed.value.attempts == 3
    assert "Input should be 'system'" in str(failed.value)

    limited: list[int] = []

    async def rate_limited() -> str:
        limited.append(1)
        if len(limited) < 6:
            raise TransientError("HTTP 429: slow down", 429, retry_after=0.0)
        return "ok"

    assert asyncio.run(call_with_retries(rate_limited, policy)) == ("ok", 6)


def test_a_case_has_a_retry_budget_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25 item 3: a request that times out again and again stops when the case's
    seconds in failed attempts pass the budget, not after eight timeouts."""
    import time

    from fcbench.runner import retry
    from fcbench.runner.retry import CallFailed, Guard

    calls: list[int] = []
    clock = [0.0]  # the retry module's clock: each attempt takes 0.05 s of it, whatever the load

    async def times_out() -> str:
        calls.append(1)
        clock[0] += 0.05
        raise TransientError("request to http://127.0.0.1:1/v1 timed out")

    monkeypatch.setattr(retry, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    guard = Guard(RetryPolicy(max_attempts=8, base_delay=0.001, max_delay=0.001,
                              case_budget=0.12))
    started = time.monotonic()
    with pytest.raises(CallFailed, match="retry budget of 0 s is spent"):
        asyncio.run(guard.call(times_out))
    assert len(calls) == 3 and time.monotonic() - started < 1
    with pytest.raises(CallFailed, match="retry budget"):  # the next step of the same case
        asyncio.run(guard.call(times_out))
    assert len(calls) == 4
