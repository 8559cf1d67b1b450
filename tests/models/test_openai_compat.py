"""The OpenAI-compatible backend: response parsing, error classes, load spreading."""

from __future__ import annotations

import asyncio
from email.utils import formatdate
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from fcbench.models.base import ChatRequest, PermanentError, TransientError
from fcbench.models.openai_compat import OpenAICompatBackend, Sampling, retry_after


def body(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 5},
    }


def test_parse_tool_calls_text_and_empty_list() -> None:
    backend = OpenAICompatBackend("m", ["http://127.0.0.1:1/v1"])
    call = {"id": "c", "type": "function", "function": {"name": "f_g", "arguments": '{"a":1}'}}
    fc = backend.parse(body({"content": None, "tool_calls": [call]}, "tool_calls"), "fc", 0.5, "u")
    assert fc.result == [{"f_g": '{"a":1}'}] and fc.tool_call_ids == ["c"]
    assert fc.message == {"role": "assistant", "content": None, "tool_calls": [call]}
    assert (fc.input_tokens, fc.output_tokens, fc.finish_reason) == (11, 5, "tool_calls")
    text = backend.parse(body({"content": "no call", "tool_calls": None}), "fc", 0.1, "u")
    assert text.result == "no call"
    # like the official handler: an empty tool-call list is stored as the empty list
    assert backend.parse(body({"content": "x", "tool_calls": []}), "fc", 0.1, "u").result == []
    prompt = backend.parse(body({"content": "[f(a=1)]", "reasoning_content": "hmm"}), "prompt",
                           0.1, "u")
    assert prompt.result == "[f(a=1)]" and prompt.reasoning == "hmm" and not prompt.tool_call_ids
    with pytest.raises(TransientError):
        backend.parse({"choices": [{}]}, "fc", 0.1, "u")


def test_retry_after_header_forms() -> None:
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({}) is None
    later = retry_after({"retry-after": formatdate(usegmt=True)})
    assert later is not None and later <= 1.0
    assert retry_after({"retry-after": "soon"}) is None


def test_sampling_fields() -> None:
    assert Sampling().body_fields() == {"temperature": 0.001}
    fields = Sampling(None, 0.9, 10, {"top_k": 5, "temperature": 0.2}).body_fields()
    assert fields == {"top_p": 0.9, "max_tokens": 10, "top_k": 5, "temperature": 0.2}


def run_cases(backend: OpenAICompatBackend, n: int) -> list[Any]:
    request = ChatRequest([{"role": "user", "content": "q", "_note": "never sent"}], None,
                          "prompt")

    async def main() -> list[Any]:
        try:
            return await asyncio.gather(
                *(backend.step(request) for _ in range(n)), return_exceptions=True
            )
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_requests_spread_over_base_urls() -> None:
    with FakeOpenAI(delay=0.01) as one, FakeOpenAI(delay=0.01) as two:
        backend = OpenAICompatBackend("m", [one.base_url, two.base_url], concurrency=20)
        results = run_cases(backend, 40)
        counts = (one.requests, two.requests)
    assert all(r.result == "[f(a=1)]" for r in results)
    assert counts == (20, 20)


def test_annotations_are_not_sent() -> None:
    seen: list[dict[str, Any]] = []

    def record(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"content": "ok"}

    with FakeOpenAI(record) as server:
        run_cases(OpenAICompatBackend("m", [server.base_url]), 1)
    assert seen[0]["messages"] == [{"role": "user", "content": "q"}]


def test_status_codes_are_classified() -> None:
    def faults(request: dict[str, Any], attempt: int) -> str:
        return "429"

    with FakeOpenAI(faults=faults, retry_after="7") as server:
        backend = OpenAICompatBackend("m", [server.base_url])
        [error] = run_cases(backend, 1)
    assert isinstance(error, TransientError) and error.status == 429 and error.retry_after == 7
    backend = OpenAICompatBackend("m", ["http://127.0.0.1:9/v1"], timeout=2)
    [refused] = run_cases(backend, 1)
    assert isinstance(refused, TransientError) and "connection" in str(refused)


def test_bad_request_is_permanent() -> None:
    class Rejecting(FakeOpenAI):
        async def _fault(self, fault: str, writer: Any) -> bool:
            from fake_openai import _http

            writer.write(_http(400, b'{"error": {"message": "maximum context length"}}'))
            await writer.drain()
            return True

    with Rejecting(faults=lambda request, attempt: "400") as server:
        backend = OpenAICompatBackend("m", [server.base_url])
        [error] = run_cases(backend, 1)
    assert isinstance(error, PermanentError) and error.status == 400
    assert "maximum context length" in str(error)


def test_output_format_reads_text_beside_an_empty_call_list() -> None:
    backend = OpenAICompatBackend("m", ["http://127.0.0.1:1/v1"], output_format="hermes")
    text = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    parsed = backend.parse(body({"content": text, "tool_calls": []}), "fc", 0.1, "u")
    assert parsed.result == [{"f": '{"a": 1}'}] and parsed.extras["raw_text"] == text
    # the parsed calls go back into a conversation as tool calls, answered by their ids
    assert parsed.tool_call_ids == ["call_0"]
    assert parsed.message is not None and parsed.message["tool_calls"][0]["id"] == "call_0"
    plain = backend.parse(body({"content": "no calls", "tool_calls": []}), "fc", 0.1, "u")
    assert plain.result == [] and "raw_text" not in plain.extras
    server_side = backend.parse(body({"content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}),
        "fc", 0.1, "u")
    assert server_side.result == [{"g": "{}"}]


def test_a_local_server_is_asked_for_at_most_the_local_handlers_cap() -> None:
    """Issue 25 item 3: chat requests to a server on this machine carry max_tokens 4096 (the
    official local-inference handlers' cap) unless --max-tokens says otherwise; a remote API
    gets none, as the official OpenAI handlers send none."""
    from fcbench.models.openai_compat import local_max_tokens

    assert local_max_tokens(["http://127.0.0.1:8080/v1", "http://localhost:9/v1"]) == 4096
    assert local_max_tokens(["http://127.0.0.1:8080/v1", "https://api.openai.com/v1"]) is None
    request = ChatRequest([{"role": "user", "content": "q"}], None, "prompt")
    seen: list[dict[str, Any]] = []

    def record(sent: dict[str, Any]) -> dict[str, Any]:
        seen.append(sent)
        return {"content": "x"}

    with FakeOpenAI(record) as server:
        for sampling in (Sampling(), Sampling(max_tokens=16)):
            backend = OpenAICompatBackend("m", [server.base_url], sampling=sampling,
                                          default_max_tokens=local_max_tokens([server.base_url]))

            async def ask(backend: OpenAICompatBackend = backend) -> None:
                await backend.step(request)
                await backend.aclose()

            asyncio.run(ask())
    assert [body["max_tokens"] for body in seen] == [4096, 16]
    assert OpenAICompatBackend("m", ["https://x.invalid/v1"]).describe()[
        "default_max_tokens"] is None


def test_error_texts_keep_their_cause_and_timeouts_name_the_flags() -> None:
    """Issue 25 items 3 and 5: a long server error keeps its end (the failing field) in the
    stored message and in the terminal's shortened reason; a timeout names --timeout and
    --max-tokens."""
    import openai

    try:  # the HTTP library of the installed openai client
        import httpx2 as httpx
    except ImportError:
        import httpx  # type: ignore[no-redef]

    from fcbench.models.openai_compat import classify
    from fcbench.runner.failures import LABEL_WIDTH, reason_label

    url = "http://127.0.0.1:1/v1"
    detail = ("7 validation errors: {'type': 'literal_error', 'loc': ('body', 'messages', 0, "
              "'ChatCompletionRequestSystemMessage', 'role'), " * 12
              + "'msg': \"Input should be 'system'\"}")
    response = httpx.Response(500, request=httpx.Request("POST", url))
    error = classify(openai.InternalServerError("x", response=response,
                                                body={"message": detail}), url)
    assert isinstance(error, TransientError) and str(error) == f"HTTP 500: {detail}"
    label = reason_label(str(error) + " (gave up after 3 attempts: the same error 3 times "
                         "in a row)")
    assert len(label) <= LABEL_WIDTH and label.startswith("HTTP 500: 7 validation errors")
    assert label.endswith("'msg': \"Input should be 'system'\"}")
    timeout = classify(openai.APITimeoutError(request=httpx.Request("POST", url)), url)
    assert "--timeout" in str(timeout) and "--max-tokens" in str(timeout)


def test_the_model_seed_is_sent_and_described_only_when_set() -> None:
    """`--model-seed` (upstream PR #1304's `seed`) goes into the request body and model.json;
    unset, the body and the description are as before the seed existed."""
    assert Sampling(seed=7).body_fields() == {"temperature": 0.001, "seed": 7}
    assert Sampling(seed=7, extra_body={"seed": 8}).body_fields()["seed"] == 8
    assert Sampling(seed=7).describe()["seed"] == 7
    assert "seed" not in Sampling().describe() and "seed" not in Sampling().body_fields()
