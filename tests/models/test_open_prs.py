"""Open upstream pull requests since the community-2026 profile (docs/conformance.md, "Open
pull requests"): #1356's vivo API read as its handler reads it, #1357's CloudSurf entry, and
#1358's routed Hammer kept apart from the plain Hammer family.

The PRs' handlers are not committed; what they do is restated here as facts read from their
diffs (ShishirPatil/gorilla refs/pull/<n>/head, 2026-12-07):
- #1356 `VivoAPIHandler(OpenAICompletionsHandler)`: OpenAI SDK at
  `https://api-ai.vivo.com.cn/v1`, key `VIVO_API_KEY`, FC, `underscore_to_dot=True`; its
  `_parse_query_response_FC` stores `[{name: arguments}]` for a non-empty `tool_calls`, the
  message content when the list is empty or absent, and the calls' ids.
- #1357 registers `cloudsurf-software/CloudSurf-4B-FC` with `Gemma4Handler` (the handler of
  the `gemma-4` family, held to the PR in tests/models/families/test_pr_prompts.py).
- #1358 `AgentWeaveHammerHandler(HammerHandler)` routes the functions through
  `BFCLToolRouter` (at most 6 tools of at most 4 name-prefix groups, ranked by
  all-MiniLM-L6-v2 similarity to the last user message) before Hammer's prompt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fcbench import corrections
from fcbench.models import families
from fcbench.models.openai_compat import OpenAICompatBackend


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    corrections.use_profile(None)
    yield
    corrections.use_profile(None)


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def vivo_handler_reading(message: dict[str, Any]) -> tuple[Any, list[str]]:
    """#1356's `_parse_query_response_FC`, restated: (stored result, tool call ids)."""
    calls = message.get("tool_calls")
    if calls:
        return ([{c["function"]["name"]: c["function"]["arguments"]} for c in calls],
                [c["id"] for c in calls])
    return message.get("content"), []


REPLIES = [
    {"content": None, "tool_calls": [call("a", "get_weather", '{"city": "Paris"}'),
                                     call("b", "get_time", "{}")]},
    {"content": "It is sunny.", "tool_calls": []},  # what generic upstream stores as []
    {"content": "It is sunny."},
    {"content": None, "tool_calls": []},
]


@pytest.mark.parametrize("message", REPLIES)
def test_vivo_replies_are_read_as_its_handler_reads_them_under_community_2026(
        message: dict[str, Any]) -> None:
    """fcbench's OpenAI-compatible backend with `--corrections community-2026` (its
    empty-tool-calls fix is exactly the vivo handler's reading of `tool_calls: []`)."""
    corrections.use_profile("community-2026")
    backend = OpenAICompatBackend("BlueLM-3.6-35B-A3B-0806", ["https://api-ai.vivo.com.cn/v1"])
    body = {"choices": [{"message": {"role": "assistant", **message}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    reply = backend.parse(body, "fc", 0.1, "https://api-ai.vivo.com.cn/v1")
    assert (reply.result, reply.tool_call_ids) == vivo_handler_reading(message)
    assert (reply.input_tokens, reply.output_tokens) == (7, 3)


def test_without_the_profile_an_empty_call_list_is_stored_as_generic_upstream_does() -> None:
    backend = OpenAICompatBackend("m", ["https://api-ai.vivo.com.cn/v1"])
    body = {"choices": [{"message": {"role": "assistant", **REPLIES[1]}}]}
    assert backend.parse(body, "fc", 0.1, "u").result == []  # not the vivo handler's text


def test_cloudsurf_takes_the_gemma_4_family_and_agentweave_no_family() -> None:
    """#1357 registers CloudSurf with the Gemma 4 handler; #1358's routed Hammer is not
    the Hammer family (its prompts differ wherever a case offers more than 6 functions), so
    its name picks no family rather than a wrong one."""
    assert families.family_for_model("cloudsurf-software/CloudSurf-4B-FC") == "gemma-4"
    assert families.served_name("cloudsurf-software/CloudSurf-4B-FC") == (
        "cloudsurf-software/CloudSurf-4B-FC")
    assert families.family_for_model("AgentWeave-Hammer2.1-1.5B") is None
    assert families.family_for_model("MadeAgents/Hammer2.1-1.5b") == "hammer"
