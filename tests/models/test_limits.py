"""Replies are bounded: a deadline for the whole request, a cap on the body (raw and decoded),
for every endpoint backend; both are retryable errors (`models.limits`)."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anthropic  # noqa: F401 - imported before timing: the backends import their SDK
import openai  # noqa: F401 - on first use, which would count against the deadline
import pytest
from google import genai  # noqa: F401

from fcbench.models.anthropic_native import AnthropicBackend
from fcbench.models.base import ChatRequest, TransientError
from fcbench.models.google_native import GoogleBackend
from fcbench.models.limits import ReplyOverdue, ReplyTooLarge
from fcbench.models.openai_compat import OpenAICompatBackend
from hostile.endpoints import KINDS, HostileEndpoint

CAP = 1_000_000
DEADLINE = 2.0
MEMORY = 500 * 2**20
REQUEST = ChatRequest([{"role": "user", "content": "q"}], None, "prompt")
EXPECTED: dict[str, type[TransientError]] = {
    "drip": ReplyOverdue, "endless": ReplyTooLarge, "huge": ReplyTooLarge,
    "huge-unannounced": ReplyTooLarge, "bomb": ReplyTooLarge,
}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[HostileEndpoint]:
    with HostileEndpoint(drip_every=0.5) as server:
        yield server


DRIP_DEADLINE = 1.0
"""The dripping reply sends a byte every 0.5 s: a deadline of twice that still never lets a
per-read timeout fire, and the test sits out 1 s instead of 2 per API."""


def backend(kind: str, url: str, deadline: float = DEADLINE) -> Any:
    if kind == "anthropic":
        return AnthropicBackend("m", [url], api_key="k", timeout=deadline, max_reply_bytes=CAP)
    if kind == "google":
        return GoogleBackend("m", [url], api_key="k", timeout=deadline, max_reply_bytes=CAP)
    return OpenAICompatBackend("m", [url], timeout=deadline, max_reply_bytes=CAP)


def measured(work: Callable[[], Awaitable[Any]]) -> tuple[BaseException | None, float, int]:
    """(what `work` raised, seconds, peak bytes allocated in Python meanwhile)."""

    async def main() -> BaseException | None:
        try:
            await work()
        except BaseException as exc:  # a TimeoutError of a test's guard is a failure too
            return exc
        return None

    tracemalloc.start()
    start = time.perf_counter()
    try:
        raised = asyncio.run(main())
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return raised, time.perf_counter() - start, peak


def bounded_step(chosen: Any) -> tuple[BaseException | None, float, int]:
    """A chat step of `chosen`, measured (`measured`); the backend closed after it."""

    async def step() -> None:
        try:
            await chosen.step(REQUEST)
        finally:
            await chosen.aclose()

    return measured(step)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("api", ["openai", "anthropic", "google"])
def test_hostile_replies_end_in_bounded_time_and_memory(
    endpoint: HostileEndpoint, api: str, kind: str
) -> None:
    deadline = DRIP_DEADLINE if kind == "drip" else DEADLINE
    raised, seconds, peak = bounded_step(backend(api, endpoint.url(kind), deadline))
    print(f"{api} {kind}: {seconds:.2f} s, {peak / 2**20:.0f} MiB peak")
    assert isinstance(raised, EXPECTED[kind]), repr(raised)
    assert "\n" not in str(raised) and len(str(raised)) < 300
    # The hostile replies never end by themselves (endless, dripping, unannounced sizes):
    # ending at all within a few deadlines is the rule; the slack is for a loaded 2-core
    # machine, where the Google SDK's client alone took 5 s (DEADLINE + 3 failed there).
    assert seconds <= 5 * DEADLINE and peak <= MEMORY


def test_a_normal_reply_is_untouched(endpoint: HostileEndpoint) -> None:
    raised, _, _ = bounded_step(backend("openai", endpoint.url("fine")))
    assert raised is None


def test_the_deadline_is_the_whole_request_not_each_read(endpoint: HostileEndpoint) -> None:
    """Each read gets a byte within 0.5 s, so a per-read timeout never fires."""
    chosen = OpenAICompatBackend("m", [endpoint.url("drip")], timeout=1.5)
    raised, seconds, _ = bounded_step(chosen)
    assert isinstance(raised, ReplyOverdue) and 1.4 <= seconds <= 4
    assert "within 1.5 s" in str(raised)


PREFLIGHT_KINDS = ("endless", "huge-unannounced", "bomb", "drip")
GUARD = 6 * DEADLINE
"""The test's own bound on a preflight: without the caps an endless listing grows for a
minute (4.9 GB in 64 s, issue 30; 3 GB in 30 s here); the guard stops it long before."""


def bounded_preflight(chosen: Any) -> tuple[BaseException | None, float, int]:
    """The preflight of `chosen` under the test's guard, measured (`measured`)."""
    return measured(lambda: asyncio.wait_for(chosen.preflight(), GUARD))


@pytest.mark.parametrize("kind", PREFLIGHT_KINDS)
@pytest.mark.parametrize("api", ["openai", "anthropic", "google"])
def test_hostile_model_lists_end_the_preflight_in_one_line(
    endpoint: HostileEndpoint, api: str, kind: str
) -> None:
    """The pre-run check's model list (or model description) is read under the reply cap
    and the request's deadline, like a chat reply: one line naming the URL, no traceback."""
    from fcbench.models.base import PreflightError

    url = endpoint.url(f"models-{kind}")
    deadline = DRIP_DEADLINE if kind == "drip" else DEADLINE
    raised, seconds, peak = bounded_preflight(backend(api, url, deadline))
    print(f"{api} {kind}: {seconds:.2f} s, {peak / 2**20:.0f} MiB peak")
    assert isinstance(raised, PreflightError), repr(raised)
    message = str(raised)
    assert url in message and "\n" not in message and len(message) < 400
    expected = "within" if kind == "drip" else "--max-reply-mb"
    assert expected in message
    assert seconds <= 5 * DEADLINE and peak <= MEMORY


def test_the_command_says_it_in_one_line(endpoint: HostileEndpoint, fetched_home: object,
                                         tmp_path: object) -> None:
    """`fcbench generate` against an endless model list: exit 2, one line, no result."""
    from pathlib import Path

    from click.testing import CliRunner

    from fcbench.cli import main

    folder = Path(str(tmp_path)) / "r"
    result = CliRunner().invoke(main, [
        "generate", "--model", "m", "--base-url", endpoint.url("models-endless"),
        "--categories", "simple_python", "--limit", "1", "--max-reply-mb", "1",
        "--result-dir", str(folder)])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith(f"fcbench: error: {endpoint.url('models-endless')} (model m) "
                               "answered the pre-run check with a reply larger than the "
                               "1,000,000-byte cap")
    assert not any(folder.rglob("*_result.json"))
