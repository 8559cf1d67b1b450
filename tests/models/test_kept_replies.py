"""Every backend fcbench ships keeps its replies as received (`models.exchange`): behind the
response cache, a second backend object asking the same step against the same file is
answered without a request (or, for a local model, without a generation) and reads what the
first one read. Loopback servers stand in for the APIs (the local model's case is in
test_hf_local, beside its tiny model)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from fcbench.models.base import ChatRequest, Reply
from fcbench.runner.cached import CacheSettings, with_cache

TOOL = {"type": "function", "function": {
    "name": "area", "description": "The area.",
    "parameters": {"type": "object", "properties": {"a": {"type": "integer"}},
                   "required": ["a"]}}}
DOC = {"name": "area", "description": "The area.",
       "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}},
                      "required": ["a"]}}
FC = ChatRequest([{"role": "user", "content": "what is the area of a"}], [TOOL], "fc", [DOC])
PROMPT = ChatRequest([{"role": "user", "content": "what is the area of a"}], None, "prompt",
                     [DOC])

Maker = Callable[[], Any]


def twice(make: Maker, request: ChatRequest, folder: Path) -> tuple[Reply, Reply, Any]:
    """Two runs of one step, each with its own backend object, one cache file; the second
    run's wrapper is returned for its counts."""
    replies = []
    for _ in range(2):
        backend = with_cache(make(), "m", CacheSettings("always", folder), sampling=None,
                             from_registry=True)

        async def one(backend: Any = backend) -> Reply:
            try:
                reply: Reply = await backend.step(request)
                return reply
            finally:
                await backend.aclose()

        replies.append(asyncio.run(one()))
    return replies[0], replies[1], backend


def same_reading(first: Reply, second: Reply) -> None:
    assert second.result == first.result and second.message == first.message
    assert (second.input_tokens, second.output_tokens) == (first.input_tokens,
                                                           first.output_tokens)
    assert second.latency == first.latency and second.finish_reason == first.finish_reason


@contextmanager
def served(kind: str) -> Iterator[tuple[Maker, Any]]:
    """A maker of backends of `kind` and the loopback server they ask."""
    if kind == "google":
        pytest.importorskip("google.genai", reason="the google extra is not installed")
        from fake_gemini import FakeGemini
        from fcbench.models.google_native import GoogleBackend

        with FakeGemini(lambda chat: {"content": "the area is 4"}) as gemini:
            yield (lambda: GoogleBackend("gemini-x", [gemini.base_url], api_key="k" * 10),
                   gemini)
        return
    with FakeOpenAI(chat_view=True) as server:  # Anthropic requests seen as chat ones
        if kind == "openai":
            from fcbench.models.openai_compat import OpenAICompatBackend

            yield lambda: OpenAICompatBackend("m", [server.base_url]), server
        elif kind == "completions":
            from fcbench.models import families
            from fcbench.models.completions import CompletionsBackend

            yield (lambda: CompletionsBackend("m", [server.base_url], families.get("qwen")),
                   server)
        else:
            pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
            from fcbench.models.anthropic_native import AnthropicBackend

            url = f"http://127.0.0.1:{server.port}"
            yield lambda: AnthropicBackend("claude-x", [url], api_key="k" * 10), server


@pytest.mark.parametrize("kind, request_", [
    ("openai", FC), ("completions", PROMPT), ("anthropic", FC), ("google", FC),
])
def test_an_api_reply_is_kept_and_read_again(kind: str, request_: ChatRequest,
                                             tmp_path: Path) -> None:
    with served(kind) as (make, server):
        first, second, backend = twice(make, request_, tmp_path)
        assert server.requests == 1
    same_reading(first, second)
    assert backend.run_summary()["cache"]["hits"] == 1
    assert first.result not in (None, "", [])
    db = sqlite3.connect(tmp_path / "responses.sqlite3")
    ((text,),) = db.execute("SELECT reply FROM responses").fetchall()
    db.close()
    kept = json.loads(text)  # the reply as received, not a reading of it
    assert kept["form"] == "raw" and isinstance(json.loads(kept["body"]), dict)


def test_a_reply_the_reading_rejects_is_asked_again(tmp_path: Path) -> None:
    """A body whose tool call is malformed is a TransientError of the reading: it is not
    kept, so the runner's retry reaches the server, and the good reply is kept."""
    from fcbench.models.base import TransientError
    from fcbench.models.openai_compat import OpenAICompatBackend

    answers = [{"tool_calls": [{"id": "c0", "type": "function", "function": {"x": 1}}]},
               {"tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": "area", "arguments": '{"a": 1}'}}]}]

    with FakeOpenAI(lambda request: answers[min(len(seen), 1)]) as server:
        seen: list[int] = []

        def step() -> Reply:
            backend = with_cache(OpenAICompatBackend("m", [server.base_url]), "m",
                                 CacheSettings("always", tmp_path), sampling=None,
                                 from_registry=True)

            async def one() -> Reply:
                try:
                    reply: Reply = await backend.step(FC)
                    return reply
                finally:
                    seen.append(server.requests)
                    await backend.aclose()

            return asyncio.run(one())

        with pytest.raises(TransientError, match="malformed tool call"):
            step()
        assert step().result == [{"area": '{"a": 1}'}]
        assert step().result == [{"area": '{"a": 1}'}]
        assert seen == [1, 2, 2]
