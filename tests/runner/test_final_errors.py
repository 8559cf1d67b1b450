"""Permanent answers are final: a case whose prompt does not fit the model's context (measured
by fcbench, or said by the server in its own words) is recorded once as a failed case and
not asked again on resume, unless `retry_permanent` asks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.layout import result_path
from fcbench.models.base import ChatRequest, FcArgs, PermanentError, Reply, TransientError
from fcbench.models.limits import context_overflow
from fcbench.models.openai_compat import classify
from fcbench.runner.generate import GenerateSettings, RetryPolicy, generate

try:  # the HTTP library of the installed openai client
    import httpx2 as httpx
except ImportError:
    import httpx  # type: ignore[no-redef]

CATEGORY = categories.get("simple_python")
FAST = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.002)
HF_OVERFLOW = "the prompt (8215 tokens) leaves no room in the context (8192)"

# Each server's context-length answer, in its own words (and its status).
SERVER_WORDINGS = {
    "vllm": (400, {"object": "error", "message": (
        "This model's maximum context length is 8192 tokens. However, you requested 9000 "
        "tokens (8000 in the messages, 1000 in the completion). Please reduce the length of "
        "the messages or completion."), "type": "BadRequestError", "param": None, "code": 400}),
    "vllm-old": (400, {"object": "error", "message": (
        "Input prompt (9000 tokens) is too long and exceeds limit of 8192"), "code": 400}),
    "sglang": (400, {"object": "error", "message": (
        "The input (9000 tokens) is longer than the model's context length (8192 tokens)."),
        "type": "BadRequestError", "param": None, "code": 400}),
    "llama.cpp": (400, {"error": {"code": 400, "message": (
        "the request exceeds the available context size. try increasing the context size or "
        "enable context shift"), "type": "exceed_context_size_error", "n_prompt_tokens": 9000,
        "n_ctx": 8192}}),
    "llama.cpp-500": (500, {"error": {"code": 500, "message": (
        "Context size has been exceeded."), "type": "server_error"}}),
    "openai": (400, {"error": {"message": (
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 202868 tokens. Please reduce the length of the messages."),
        "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}}),
}


def status_error(status: int, body: dict[str, Any]) -> openai.APIStatusError:
    """The exception the `openai` client raises for this answer."""
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    response = httpx.Response(status, json=body, request=request)
    error_body = body.get("error", body)
    kind = openai.BadRequestError if status == 400 else openai.InternalServerError
    return kind(f"Error code: {status} - {body}", response=response, body=error_body)


@pytest.mark.parametrize("server", sorted(SERVER_WORDINGS))
def test_each_servers_context_answer_is_a_final_error(server: str) -> None:
    status, body = SERVER_WORDINGS[server]
    found = classify(status_error(status, body), "http://127.0.0.1:1/v1")
    assert isinstance(found, PermanentError) and found.final, found
    assert found.status == status


@pytest.mark.parametrize(("status", "message"), [
    (400, "tool_choice auto requires --enable-auto-tool-choice"),  # the server's setup
    (401, "Incorrect API key provided"),
    (404, "The model `m` does not exist."),
])
def test_other_errors_are_not_final(status: int, message: str) -> None:
    found = classify(status_error(status, {"error": {"message": message}}))
    assert isinstance(found, PermanentError) and not found.final


def test_a_500_without_context_words_stays_transient() -> None:
    found = classify(status_error(500, {"error": {"message": "CUDA out of memory"}}))
    assert isinstance(found, TransientError)


def test_the_recogniser_knows_fcbench_and_other_apis_and_nothing_else() -> None:
    assert context_overflow(HF_OVERFLOW)
    assert context_overflow("HTTP 400: prompt is too long: 215000 tokens > 200000 maximum")
    assert context_overflow("HTTP 400: The input token count (1200000) exceeds the maximum "
                            "number of tokens allowed (1048576).")
    for other in ("HTTP 400: Input should be 'system'", "the context manager failed",
                  "HTTP 400: max_tokens must be at least 1", ""):
        assert not context_overflow(other), other


class TooLong:
    """fcbench's own measure, as `--backend hf` raises it: the cases in `long` never fit."""

    name = "too-long"
    fc_args: FcArgs = "json_string"

    def __init__(self, long: set[str]) -> None:
        self.long = long
        self.asked: list[str] = []

    def describe(self) -> dict[str, Any]:
        return {}

    async def step(self, request: ChatRequest) -> Reply:
        case = request.context.case
        assert case is not None
        self.asked.append(case.id)
        await asyncio.sleep(0)
        if case.id in self.long:
            raise PermanentError(HF_OVERFLOW, final=True)
        return Reply(f"ok-{case.id}", latency=0.001)

    async def aclose(self) -> None:
        return None


def cases(n: int) -> list[TestCase]:
    return [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None) for i in range(n)]


def read(folder: Path) -> dict[str, dict[str, Any]]:
    lines = result_path(folder, CATEGORY).read_text().splitlines()
    return {e["id"]: e for e in map(json.loads, lines)}


@pytest.mark.usefixtures("fetched_home")
def test_a_case_past_the_context_is_recorded_once_and_not_asked_again(tmp_path: Path) -> None:
    settings = GenerateSettings(mode="prompt", concurrency=2, policy=FAST)
    folder = tmp_path / "m"
    long = {"simple_python_3"}
    first = generate(TooLong(long), folder, [(CATEGORY, cases(6))], settings)
    assert first.errors == 1 and first.final == 1
    entry = read(folder)["simple_python_3"]
    assert entry["result"] == f"Error during inference: {HF_OVERFLOW}"
    assert entry["final"] is True and entry["attempts"] == 1

    resumed = TooLong(long)
    again = generate(resumed, folder, [(CATEGORY, cases(6))], settings)
    assert resumed.asked == [] and again.skipped == 6 and again.done == 6
    assert read(folder)["simple_python_3"] == entry

    settings.retry_permanent = True
    asked = TooLong(set())
    generate(asked, folder, [(CATEGORY, cases(6))], settings)
    assert asked.asked == ["simple_python_3"]
    assert read(folder)["simple_python_3"]["result"] == "ok-simple_python_3"


@pytest.mark.usefixtures("fetched_home")
def test_final_errors_do_not_stop_the_run_early(tmp_path: Path) -> None:
    """A model whose context is too small for a whole category: every case fails for good,
    each its own verdict, and the first-N early stop does not cut the run (it would on every
    resume)."""
    settings = GenerateSettings(mode="prompt", concurrency=2, policy=FAST, stop_after=5)
    every = {c.id for c in cases(12)}
    report = generate(TooLong(every), tmp_path / "m", [(CATEGORY, cases(12))], settings)
    assert report.stopped is None and report.final == report.errors == 12
    assert report.reasons == {HF_OVERFLOW: 12}
