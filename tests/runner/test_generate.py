"""The scheduler: retries, backoff, Retry-After, permanent errors, resume, rate limit."""

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
from fcbench.models.base import (
    ChatRequest,
    FcArgs,
    PermanentError,
    Reply,
    Response,
    StepContext,
    TransientError,
)
from fcbench.runner.generate import (
    GenerateSettings,
    RateLimiter,
    RetryPolicy,
    call_with_retries,
    generate,
)

pytestmark = pytest.mark.usefixtures("fetched_home")

CATEGORY = categories.get("simple_python")
FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.002)


def cases(n: int) -> list[TestCase]:
    return [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None) for i in range(n)]


class ScriptedBackend:
    """Answers `ok-<id>`; `script[id]` lists exceptions to raise on the first attempts."""

    name = "scripted"
    fc_args: FcArgs = "json_string"

    def __init__(self, script: dict[str, list[Exception]] | None = None) -> None:
        self.script = script or {}
        self.calls: dict[str, int] = {}

    def describe(self) -> dict[str, Any]:
        return {}

    async def step(self, request: ChatRequest) -> Reply:
        case = request.context.case
        assert case is not None
        n = self.calls.get(case.id, 0)
        self.calls[case.id] = n + 1
        failures = self.script.get(case.id, [])
        if n < len(failures):
            raise failures[n]
        await asyncio.sleep(0)
        return Reply(f"ok-{case.id}", input_tokens=3, output_tokens=4, latency=0.01,
                     finish_reason="stop")

    async def aclose(self) -> None:
        return None


def read(path: Path) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in map(json.loads, path.read_text().splitlines())}


def run(backend: ScriptedBackend, folder: Path, n: int = 20, **kw: Any) -> Any:
    settings = GenerateSettings(mode="prompt", concurrency=4, policy=FAST)
    return generate(backend, folder, [(CATEGORY, cases(n))], settings, **kw)


def test_transient_failures_are_retried(tmp_path: Path) -> None:
    backend = ScriptedBackend({
        "simple_python_3": [TransientError("503", 503), TransientError("timeout")],
        "simple_python_7": [TransientError("429", 429, retry_after=0.01)],
    })
    report = run(backend, tmp_path / "m")
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert len(entries) == 20 and report.errors == 0 and report.retries == 3
    assert entries["simple_python_3"]["attempts"] == 3
    assert entries["simple_python_3"]["result"] == "ok-simple_python_3"
    assert entries["simple_python_0"]["input_token_count"] == 3
    assert list(entries) == sorted(entries, key=lambda i: int(i.rsplit("_", 1)[1]))


def test_permanent_errors_are_recorded_then_retried_on_resume(tmp_path: Path) -> None:
    backend = ScriptedBackend({
        "simple_python_2": [PermanentError("HTTP 400: context too long", 400)],
        "simple_python_5": [TransientError("boom")] * 10,
    })
    report = run(backend, tmp_path / "m")
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert report.errors == 2
    message = "Error during inference: HTTP 400: context too long"
    assert entries["simple_python_2"]["result"] == message
    assert entries["simple_python_2"]["attempts"] == 1
    assert entries["simple_python_5"]["attempts"] == 4
    assert "gave up after 4 attempts" in entries["simple_python_5"]["error"]
    again = run(ScriptedBackend(), tmp_path / "m")
    assert again.asked == 2 and again.skipped == 18
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert len(entries) == 20 and not any("error" in e for e in entries.values())


def test_resume_skips_finished_and_rerun_reasks(tmp_path: Path) -> None:
    run(ScriptedBackend(), tmp_path / "m", n=10)
    backend = ScriptedBackend()
    report = run(backend, tmp_path / "m", n=12, rerun={"simple_python": {"simple_python_4"}})
    assert sorted(backend.calls) == ["simple_python_10", "simple_python_11", "simple_python_4"]
    assert report.asked == 3
    assert len(read(result_path(tmp_path / "m", CATEGORY))) == 12


def test_retry_after_is_a_floor() -> None:
    policy = RetryPolicy(base_delay=0.001, max_delay=0.001)
    assert policy.delay(1, 2.5) == 2.5
    assert policy.delay(1, 1e6) == policy.max_retry_after
    assert 0 <= policy.delay(3, None) <= 0.001


def test_call_with_retries_counts_attempts() -> None:
    calls = []

    async def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise TransientError("x")
        return "done"

    retried: list[int] = []
    call = call_with_retries(flaky, FAST, on_retry=lambda: retried.append(1))
    value, attempts = asyncio.run(call)
    assert (value, attempts, len(retried)) == ("done", 3, 2)


def test_rate_limiter_caps_requests_per_second() -> None:
    async def main() -> float:
        limiter = RateLimiter(50)
        start = time.monotonic()
        for _ in range(75):  # 50 in the first burst, 25 more at 50/s
            await limiter.acquire()
        return time.monotonic() - start

    elapsed = asyncio.run(main())
    assert 0.4 <= elapsed < 1.5


@pytest.mark.parametrize("concurrency", [1, 16])
def test_concurrency_levels_give_the_same_file(tmp_path: Path, concurrency: int) -> None:
    settings = GenerateSettings(mode="fc", concurrency=concurrency, policy=FAST)
    generate(ScriptedBackend(), tmp_path / "m", [(CATEGORY, cases(30))], settings)
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert [e["result"] for e in entries.values()] == [f"ok-simple_python_{i}" for i in range(30)]


def test_a_custom_solver_reuses_the_scheduler(tmp_path: Path) -> None:
    """What multi-turn will do: several guarded calls per case, one stored result."""
    from fcbench.runner.generate import Guard

    backend = ScriptedBackend({"simple_python_1": [TransientError("x")]})

    async def two_steps(case: TestCase, guard: Guard) -> tuple[Response, int]:
        request = ChatRequest([], None, "fc", None, StepContext(case))
        first, a = await guard.call(lambda: backend.step(request))
        second, b = await guard.call(lambda: backend.step(request))
        return Response([[first.result], [second.result]], 2, 2, 0.0), a + b

    settings = GenerateSettings(mode="fc", concurrency=2, policy=FAST)
    report = generate(backend, tmp_path / "m", [(CATEGORY, cases(3))], settings, solver=two_steps)
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert report.retries == 1
    assert entries["simple_python_1"]["attempts"] == 3
    assert entries["simple_python_0"]["result"] == [["ok-simple_python_0"], ["ok-simple_python_0"]]


def test_every_generation_writes_the_manifest(tmp_path: Path) -> None:
    """Whoever starts a generation, the folder says how its outputs are encoded."""
    from fcbench.decode.encoding import Encoding

    class ObjectArgs(ScriptedBackend):
        fc_args: FcArgs = "object"

    settings = GenerateSettings(mode="fc", model_name="org/m", policy=FAST)
    report = generate(ObjectArgs(), tmp_path / "m", [(CATEGORY, cases(2))], settings)
    manifest = json.loads((tmp_path / "m" / "model.json").read_text())
    assert (manifest["mode"], manifest["fc_args"], manifest["model"]) == ("fc", "object", "org/m")
    assert manifest["runs"][-1]["asked"] == report.asked == 2
    assert Encoding.from_file(tmp_path / "m" / "model.json") == Encoding("fc", "underscore",
                                                                          "object")
    prompt = GenerateSettings(mode="prompt", policy=FAST)
    with pytest.raises(ValueError, match=r'another configuration .*mode: "fc" -> "prompt"'):
        generate(ScriptedBackend(), tmp_path / "m", [(CATEGORY, cases(2))], prompt)


def test_an_unexpected_exception_is_recorded_on_the_case(tmp_path: Path) -> None:
    backend = ScriptedBackend({"simple_python_1": [KeyError("boom")]})
    report = run(backend, tmp_path / "m", n=3)
    entries = read(result_path(tmp_path / "m", CATEGORY))
    assert report.errors == 1 and len(entries) == 3
    assert entries["simple_python_1"]["error"] == "KeyError: 'boom'"


class AlwaysRefused(ScriptedBackend):
    """Every request fails the same permanent way (a wrong key), counting the requests."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    async def step(self, request: ChatRequest) -> Reply:
        self.requests += 1
        await asyncio.sleep(0.001)
        raise PermanentError("HTTP 401: Incorrect API key provided", 401)


def test_a_systematic_failure_stops_the_run_early(tmp_path: Path) -> None:
    backend = AlwaysRefused()
    settings = GenerateSettings(mode="prompt", concurrency=4, policy=FAST, stop_after=10)
    report = generate(backend, tmp_path / "m", [(CATEGORY, cases(200))], settings)
    assert report.stopped == ("the first 10 cases all failed with: HTTP 401: Incorrect API key "
                              "provided")
    assert 10 <= backend.requests <= 10 + 4
    assert report.reasons == {"HTTP 401: Incorrect API key provided": report.errors}
    assert len(read(result_path(tmp_path / "m", CATEGORY))) == report.errors == backend.requests
    run_log = json.loads((tmp_path / "m" / "model.json").read_text())["runs"][-1]
    assert run_log["stopped"] == report.stopped
    assert run_log["errors_by_reason"] == {"HTTP 401: Incorrect API key provided": report.errors}


def test_no_early_stop_when_disabled_or_when_some_succeed(tmp_path: Path) -> None:
    never = GenerateSettings(mode="prompt", concurrency=4, policy=FAST, stop_after=0)
    report = generate(AlwaysRefused(), tmp_path / "a", [(CATEGORY, cases(30))], never)
    assert report.stopped is None and report.errors == 30
    script = {f"simple_python_{i}": [PermanentError("HTTP 400: too long", 400)]
              for i in range(30) if i != 3}
    mixed = GenerateSettings(mode="prompt", concurrency=1, policy=FAST, stop_after=10)
    report = generate(ScriptedBackend(script), tmp_path / "b", [(CATEGORY, cases(30))], mixed)
    assert report.stopped is None and report.errors == 29 and report.asked == 30


def test_waits_are_recorded_for_progress(tmp_path: Path) -> None:
    backend = ScriptedBackend({"simple_python_0": [TransientError("HTTP 429: slow", 429, 5.0)]})
    policy = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.001, max_retry_after=0.02)
    settings = GenerateSettings(mode="prompt", concurrency=1, policy=policy)
    report = generate(backend, tmp_path / "m", [(CATEGORY, cases(1))], settings)
    wait = report.jobs[0].stats.wait
    assert wait is not None and report.errors == 0
    assert (wait.reason, wait.retry_after, wait.delay) == ("HTTP 429: slow", 5.0, 0.02)
    assert "capped at 0 s" in wait.describe(now=wait.until - 0.02)


def test_a_service_failing_mid_run_stops_it_after_n_in_a_row(tmp_path: Path) -> None:
    """A web provider that goes down after 5 good cases: the run stops after 3 more, not
    after asking the whole category."""
    from fcbench.runner.conversation import ToolFailed

    asked: list[str] = []

    async def solve(case: TestCase, guard: Any) -> Any:
        asked.append(case.id)
        if len(asked) > 5:
            raise ToolFailed(["SerpAPI HTTP 503"], 1)
        return Response.of(Reply(result="[f()]", input_tokens=1, output_tokens=1)), 1

    settings = GenerateSettings(mode="prompt", concurrency=1, policy=FAST, stop_after=3)
    report = generate(ScriptedBackend(), tmp_path / "m", [(CATEGORY, cases(40))], settings,
                      solver=solve)
    assert report.stopped == "3 cases in a row failed with: web tool failed: SerpAPI HTTP 503"
    assert len(asked) == 8 and report.errors == 3
