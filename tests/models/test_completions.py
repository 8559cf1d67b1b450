"""The completions backend: the request body, one step over HTTP, and its failures.

The prompts themselves are checked against the official handlers in
tests/models/families/test_official_prompts.py; end-to-end runs in
tests/e2e/test_completions_http.py.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from fcbench.decode.budget import MAX_REPLY_CHARS, MAX_TEXT_CHARS
from fcbench.decode.encoding import decode_ast
from fcbench.decode.errors import DECODER_FAILED, DecodeError
from fcbench.models import families
from fcbench.models.base import ChatRequest, PermanentError, Sampling, TransientError, layout_of
from fcbench.models.completions import CompletionsBackend, from_options
from fcbench.models.openai_compat import OpenAICompatBackend
from fcbench.models.registry import BackendOptions, BackendSetupError

DOCS = [{"name": "math.add", "description": "Add.", "parameters": {
    "type": "dict", "properties": {"a": {"type": "integer", "description": "x", "default": 1}},
    "required": ["a"]}}]
REQUEST = ChatRequest([{"role": "user", "content": "Add 1."}], None, "prompt", DOCS)


async def step_and_close(completions: CompletionsBackend) -> Any:
    try:
        return await completions.step(REQUEST)
    finally:
        await completions.aclose()


def backend(family: str, **kwargs: Any) -> CompletionsBackend:
    return CompletionsBackend("org/model-FC", ["http://127.0.0.1:9/v1"], families.get(family),
                              served_as="org/model", **kwargs)


def test_body_has_the_handlers_settings() -> None:
    body = backend("glm").body(REQUEST)
    assert body["model"] == "org/model"
    assert body["max_tokens"] == 4096 and body["temperature"] == 0.001
    assert body["stop_token_ids"] == [151329, 151336, 151338]
    assert body["prompt"] == "<|user|>\nAdd 1.<|assistant|>"  # GLM renders OpenAI tools only
    sampled = backend("qwen-fc", sampling=Sampling(0.7, 0.9, 512, {"top_k": 1})).body(REQUEST)
    assert (sampled["temperature"], sampled["top_p"], sampled["max_tokens"]) == (0.7, 0.9, 512)
    assert sampled["top_k"] == 1
    assert "<tools>\n" in sampled["prompt"] and '"math.add"' in sampled["prompt"]
    assert "seed" not in sampled
    assert backend("gemma-4", sampling=Sampling(seed=11)).body(REQUEST)["seed"] == 11


def test_it_lays_out_conversations_and_openai_backends_do_not() -> None:
    completions = backend("llama")
    assert layout_of(completions) is completions
    assert layout_of(OpenAICompatBackend("m", ["http://127.0.0.1:9/v1"])) is None
    rows = completions.result_messages(completions.reply("x", {}), ["f(a=1)"], ["3"])
    assert rows == [{"role": "ipython", "content": "3"}]


def test_a_step_over_http_is_read_the_familys_way() -> None:
    def answer(request: dict[str, Any]) -> dict[str, Any]:
        assert request["prompt"].endswith("<|im_start|>assistant\n")
        return {"content": '<think>\nadd it\n</think>\n\n<tool_call>\n'
                           '{"name": "math.add", "arguments": {"a": 1}}\n</tool_call>'}

    with FakeOpenAI(answer) as server:
        completions = CompletionsBackend("m", [server.base_url], families.get("qwen-fc"))
        reply = asyncio.run(step_and_close(completions))
    assert reply.result.startswith("<tool_call>")
    assert reply.reasoning == "add it"
    assert reply.message == {"role": "assistant", "content": "", "reasoning_content": "add it",
                             "tool_calls": [{"name": "math.add", "arguments": {"a": 1}}]}
    assert reply.output_tokens == 7 and reply.finish_reason == "stop"


@pytest.mark.parametrize("fault", ["500", "malformed", "nochoices"])
def test_server_faults_are_transient(fault: str) -> None:
    with FakeOpenAI(faults=lambda request, attempt: fault) as server:
        completions = CompletionsBackend("m", [server.base_url], families.get("qwen"))
        with pytest.raises(TransientError):
            asyncio.run(step_and_close(completions))


def test_a_doc_the_template_cannot_take_is_a_permanent_error() -> None:
    broken = ChatRequest(REQUEST.messages, None, "prompt", [{"name": "f", "parameters": {}}])
    with pytest.raises(PermanentError, match="cannot render the hammer prompt: KeyError"):
        backend("hammer").body(broken)


def test_a_completion_the_handler_cannot_read_is_a_permanent_error() -> None:
    with pytest.raises(PermanentError, match="arch handler cannot read"):
        backend("arch").reply("<tool_call>\nnot json at all\n</tool_call>", {})


CALL = "<|tool_call>call:math.add{a:1}<tool_call|>"
"""A Gemma 4 native call, read by its family's parser when the reply is within the budget."""


def test_a_reply_past_the_generation_bound_is_kept_unread_and_scored_over_budget() -> None:
    """No family parser reads more than `MAX_REPLY_CHARS` at generation (`gemma-4`'s took
    70 s on a fifth of this reply): the reply is stored as it came, marked, and scoring
    records the case as decoding does."""
    hostile = CALL + "<|tool_call>call:f{" * 60_000  # 1.1 MB

    with FakeOpenAI(lambda request: {"content": hostile}) as server:
        completions = CompletionsBackend("m", [server.base_url], families.get("gemma-4"))
        start = time.perf_counter()
        reply = asyncio.run(step_and_close(completions))
    assert time.perf_counter() - start < 5
    assert reply.result == hostile and reply.message["content"] == hostile
    assert reply.extras["over_budget"] == (
        f"the reply has {len(hostile):,} characters, over the 1,048,576 a parser reads at "
        "generation (the decoding budget is 131,072)")
    with pytest.raises(DecodeError, match="over the decoding budget") as refused:
        decode_ast(reply.result, completions.output_encoding)
    assert refused.value.error_type == DECODER_FAILED


def test_a_reply_at_the_generation_bound_is_read_by_its_family() -> None:
    """A reply past the decoding budget but within `MAX_REPLY_CHARS` is read (the official
    handlers strip a long reasoning block and score the answer); one character more is not."""
    at_budget = CALL + " " * (MAX_REPLY_CHARS - len(CALL))
    reply = backend("gemma-4").reply(at_budget, {})
    assert reply.result == "[math.add{a:1}]" and "over_budget" not in reply.extras
    assert "over_budget" in backend("gemma-4").reply(at_budget + " ", {}).extras


def test_a_chat_reply_past_the_budget_is_not_read_by_a_tool_call_format() -> None:
    chat = OpenAICompatBackend("m", ["http://127.0.0.1:9/v1"], output_format="hermes")
    call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    for text, parsed in ((call, True), (call + " " * MAX_TEXT_CHARS, True),
                         (call + " " * MAX_REPLY_CHARS, False)):
        body = {"choices": [{"message": {"role": "assistant", "content": text}}]}
        reply = chat.parse(body, "fc", 0.0, "u")
        assert (reply.result == [{"f": "{}"}]) is parsed
        assert ("over_budget" in reply.extras) is not parsed


def options(**kwargs: Any) -> BackendOptions:
    fields: dict[str, Any] = {"model": "my-model", "base_urls": ("http://127.0.0.1:9/v1",)}
    fields.update(kwargs)
    return BackendOptions(**fields)


def test_the_family_comes_from_the_flag_or_the_official_model_name() -> None:
    chosen = from_options(options(model="Qwen/Qwen3-8B-FC"))
    assert chosen.family.name == "qwen-fc" and chosen.transport.model == "Qwen/Qwen3-8B"
    assert chosen.describe()["prompt_format_chosen_by"].startswith("the official model registry")
    flagged = from_options(options(prompt_format="gemma"))
    assert flagged.family.name == "gemma" and flagged.describe()["prompt_format"] == "gemma"
    assert flagged.run_name == "my-model"
    assert from_options(options(prompt_format="hammer")).run_name == "my-model"
    assert from_options(options(prompt_format="qwen-fc")).run_name == "my-model-FC"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "no prompt format for model 'my-model'"),
    ({"prompt_format": "nope"}, "unknown prompt format 'nope'"),
    ({"prompt_format": "qwen", "tool_call_format": "hermes"}, "--tool-call-format applies"),
    ({"prompt_format": "qwen", "base_urls": ()}, "no endpoint"),
])
def test_setup_errors_are_one_line(
    kwargs: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(BackendSetupError, match=message) as error:
        from_options(options(**kwargs))
    assert "\n" not in str(error.value)
