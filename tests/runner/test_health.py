"""Endpoint health over the whole run (`runner.health`): outages told apart from answers, a
dead endpoint set aside while another answers, the run stopped when every one is down, the
cases in flight abandoned and every finished one kept."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.layout import result_path
from fcbench.models.base import ChatRequest, FcArgs, PermanentError, Reply, TransientError
from fcbench.models.limits import ReplyOverdue
from fcbench.runner.generate import GenerateSettings, RetryPolicy, generate
from fcbench.runner.health import Health, duration, outage

CATEGORY = categories.get("simple_python")
REFUSED = "connection failed to http://127.0.0.1:9/v1: connection refused"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def refused(endpoint: str | None = None) -> TransientError:
    exc = TransientError(REFUSED)
    exc.endpoint = endpoint
    return exc


def http(status: int, endpoint: str | None = None, **kw: Any) -> Exception:
    kind = TransientError if status >= 500 or status == 429 else PermanentError
    exc = kind(f"HTTP {status}: x", status, **kw)
    exc.endpoint = endpoint
    return exc


@pytest.mark.parametrize(("exc", "down"), [
    (TransientError(REFUSED), True),
    (TransientError("request to http://h/v1 timed out (raise --timeout ...)"), True),
    (ReplyOverdue("no complete reply from http://h within 5 s"), True),
    (TransientError("HTTP 502: bad gateway", 502), True),
    (TransientError("HTTP 503: busy", 503), True),
    (PermanentError("HTTP 401: bad key", 401), True),
    (PermanentError("HTTP 403: forbidden", 403), True),
    (PermanentError("HTTP 404: no such model", 404), True),
    (TransientError("HTTP 429: slow down", 429), False),
    (PermanentError("HTTP 400: bad tool schema", 400), False),
    (PermanentError("HTTP 500: maximum context length is 8192", 500, final=True), False),
    (TransientError("malformed response body (not JSON)"), False),
])
def test_outages_are_told_from_answers(exc: Exception, down: bool) -> None:
    assert outage(exc) is down


def test_one_endpoint_is_down_after_the_window_not_before() -> None:
    clock = Clock()
    health = Health(60, clock=clock)
    health.failed(refused())
    clock.now += 59
    health.failed(refused())
    assert health.stop is None
    clock.now += 2
    health.failed(refused())
    assert health.stop is not None
    assert "no answer from the endpoint since" in health.stop
    assert "1 min 1 s, 3 failed attempt(s)" in health.stop and REFUSED in health.stop


def test_an_answer_or_a_live_failure_ends_the_outage() -> None:
    clock = Clock()
    health = Health(60, clock=clock)
    for sign_of_life in (lambda: health.answered(None), lambda: health.failed(http(429))):
        health.failed(refused())
        clock.now += 30
        sign_of_life()
        clock.now += 31
        health.failed(refused())
        assert health.stop is None  # the outage counts from the last answer
    clock.now += 61
    health.failed(refused())
    assert health.stop is not None


def test_a_single_failure_is_not_an_outage_and_zero_never_stops() -> None:
    clock = Clock()
    health = Health(60, clock=clock)
    clock.now += 600
    health.failed(refused())
    assert health.stop is None
    never = Health(0, clock=clock)
    for _ in range(100):
        never.failed(refused())
        clock.now += 100
    assert never.stop is None


def test_a_dead_replica_is_set_aside_and_the_run_stops_when_all_are() -> None:
    clock = Clock()
    aside: list[tuple[str, float]] = []
    stopped: list[bool] = []
    health = Health(10, ["http://a/v1", "http://b/v1"], clock=clock,
                    set_aside=lambda url, s: aside.append((url, s)),
                    on_stop=lambda: stopped.append(True))
    for _ in range(3):
        health.failed(refused("http://a/v1"))
        health.answered("http://b/v1")
        clock.now += 6
    assert aside == [("http://a/v1", 10)] and health.stop is None and not stopped
    health.answered(None)  # an answer from no known endpoint (a cache hit) proves nothing
    health.failed(http(503, "http://b/v1"))
    clock.now += 11
    health.failed(http(503, "http://b/v1"))
    assert health.stop is not None and stopped == [True]
    assert "any of the 2 endpoints" in health.stop


def test_durations_read_well() -> None:
    assert [duration(s) for s in (5, 65, 3725)] == ["5 s", "1 min 5 s", "1 h 2 min"]


# --------------------------------------------------------------------------- in a run


class DyingBackend:
    """Answers `ok-<id>` for its first `alive` steps, then refuses every connection."""

    name = "dying"
    fc_args: FcArgs = "json_string"

    def __init__(self, alive: int) -> None:
        self.alive = alive
        self.steps = 0

    def describe(self) -> dict[str, Any]:
        return {}

    async def step(self, request: ChatRequest) -> Reply:
        self.steps += 1
        number = self.steps
        await asyncio.sleep(0.001)
        if number > self.alive:
            raise TransientError(REFUSED)
        case = request.context.case
        assert case is not None
        return Reply(f"ok-{case.id}", latency=0.001)

    async def aclose(self) -> None:
        return None


def cases(n: int) -> list[TestCase]:
    return [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None) for i in range(n)]


def entries(folder: Path) -> list[dict[str, Any]]:
    path = result_path(folder, CATEGORY)
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.usefixtures("fetched_home")
def test_a_server_that_dies_mid_run_stops_it_and_a_resume_finishes(tmp_path: Path) -> None:
    # a patient policy: without the health watch each case would retry for minutes
    policy = RetryPolicy(max_attempts=50, base_delay=0.01, max_delay=0.05)
    settings = GenerateSettings(mode="prompt", concurrency=4, policy=policy, down_after=0.5)
    started = time.monotonic()
    report = generate(DyingBackend(alive=10), tmp_path / "m", [(CATEGORY, cases(40))],
                      settings)
    seconds = time.monotonic() - started
    assert report.stopped is not None and "no answer from the endpoint" in report.stopped
    assert seconds < 10, f"took {seconds:.1f} s to stop"
    kept = entries(tmp_path / "m")
    answered = [e for e in kept if "error" not in e]
    assert len(answered) == 10 and report.done == 10 and report.total == 40

    again = generate(DyingBackend(alive=1000), tmp_path / "m", [(CATEGORY, cases(40))],
                     settings)
    assert again.stopped is None and again.skipped == 10
    final = entries(tmp_path / "m")
    ids = [e["id"] for e in final]
    assert sorted(ids) == sorted(c.id for c in cases(40)) and len(set(ids)) == 40
    assert all(e["result"] == f"ok-{e['id']}" for e in final)


def test_the_replica_choice_skips_an_endpoint_set_aside_then_tries_it_again() -> None:
    from fcbench.models.openai_compat import OpenAICompatBackend

    backend = OpenAICompatBackend("m", ["http://a/v1", "http://b/v1"])
    backend._in_flight = [0, 5]  # a is idle (a dead server answers at once), b is busy
    assert backend.endpoints == ["http://a/v1", "http://b/v1"]
    assert backend._pick() == 0
    backend.set_aside("http://a/v1", 60)
    assert [backend._pick() for _ in range(4)] == [1, 1, 1, 1]
    backend.set_aside("http://b/v1", 60)  # every one set aside: all are used again
    assert backend._pick() == 0
    backend.set_aside("http://a/v1", 0)
    backend.set_aside("http://b/v1", 0)
    assert backend._pick() == 0
    backend.set_aside("http://elsewhere/v1", 60)  # not one of its endpoints: ignored
    assert backend._pick() == 0
