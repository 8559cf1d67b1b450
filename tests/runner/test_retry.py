"""Retrying one call: each wait is announced with its length and cause before it starts."""

from __future__ import annotations

import asyncio

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
