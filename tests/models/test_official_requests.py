"""The requests fcbench builds equal the official tool's, case by case (oracle test).

The official package's own functions (system prompt pre-processing, language hints, FC tool
conversion) are imported from the shared wheel and run on every single-turn case of several
categories; fcbench's prompt-mode messages, FC messages and FC tools must be identical. The
few third-party modules the official helpers import but these functions never use are stood in
for (tests/official.py).
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset.load import load_category
from fcbench.dataset.prompt_texts import load_texts
from fcbench.models.prompts import build_request

CATEGORIES = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
              "parallel_multiple", "irrelevance", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
              # the retired v1 categories: the official handlers asked them like the others
              "exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple", "rest",
              "sql", "chatable"]


@pytest.fixture(scope="module")
def official(official_modules: Path) -> Any:
    """The official request-building functions (imported from the wheel, with stand-ins)."""
    try:
        from bfcl_eval import utils as bfcl_utils
        from bfcl_eval.constants.enums import ModelStyle
        from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
        from bfcl_eval.model_handler import utils as handler_utils
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.fail(f"the official modules cannot be imported here: {exc!r}", pytrace=False)
    return types.SimpleNamespace(
        root=official_modules,
        hints=bfcl_utils.add_language_specific_hint_to_function_doc,
        load=bfcl_utils.load_dataset_entry,
        system=handler_utils.system_prompt_pre_processing_chat_model,
        tools=lambda fns: handler_utils.convert_to_tool(
            fns, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS
        ),
    )


def copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("category", CATEGORIES)
def test_requests_equal_the_official(fetched_home: Path, official: Any, category: str) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    texts = load_texts(DEFAULT_RELEASE)
    for case in load_category(category):
        entry = {"id": case.id, "question": copy(case.question), "function": copy(case.functions)}
        [entry] = official.hints([entry])
        prompt = build_request(case, "prompt", texts)
        assert prompt.messages == official.system(
            copy(entry["question"][0]), entry["function"], case.id
        ), case.id
        fc = build_request(case, "fc", texts)
        assert fc.messages == entry["question"][0], case.id
        assert fc.tools == (official.tools(entry["function"]) or None), case.id


def test_format_sensitivity_prompts_equal_the_official(fetched_home: Path, official: Any) -> None:
    """All 26 configurations on every item: the official builds each entry's system prompt
    from the entry as its generation loader makes it (the language hint twice) and the
    configuration in its id; fcbench from its loaded case."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.format_sensitivity import split_id

    texts = load_texts(DEFAULT_RELEASE)
    cases = load_category("format_sensitivity")
    entries = official.load("format_sensitivity")
    assert [c.id for c in cases] == [e["id"] for e in entries]
    seen = set()
    for case, entry in zip(cases, entries, strict=True):
        want = official.system(copy(entry["question"][0]), entry["function"], entry["id"])
        request = build_request(case, "prompt", texts)
        assert request.messages == want, case.id
        assert request.functions == entry["function"], case.id
        seen.add(str(split_id(case.id)[0]))  # type: ignore[index]
    assert len(seen) == 26


@pytest.mark.parametrize("category", ["simple_python", "simple_java", "live_multiple",
                                      "live_relevance", "irrelevance", "exec_parallel_multiple",
                                      "rest", "chatable"])
def test_anthropic_requests_equal_the_official_claude_handler(
    fetched_home: Path, official: Any, category: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic")
    from bfcl_eval.model_handler.api_inference.claude import ClaudeHandler

    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.models.anthropic_native import AnthropicBackend

    monkeypatch.setenv("ANTHROPIC_API_KEY", "unused")
    handler = ClaudeHandler("claude-x", 0.001, "claude-x-FC", True)
    texts = load_texts(DEFAULT_RELEASE)
    backend = AnthropicBackend("claude-x", [])
    for case in load_category(category):
        for mode in ("fc", "prompt"):
            entry = {"id": case.id, "question": copy(case.question),
                     "function": copy(case.functions)}
            [entry] = official.hints([entry])
            if mode == "fc":
                data = handler._pre_query_processing_FC({}, entry)
                data = handler._compile_tools(data, entry)
                data = handler.add_first_turn_message_FC(data, entry["question"][0])
                want = {"messages": data["message"], "tools": data["tools"]}
            else:
                data = handler._pre_query_processing_prompting(entry)
                data = handler.add_first_turn_message_prompting(data, entry["question"][0])
                want = {"messages": data["message"]}
            if "system_prompt" in data:
                want["system"] = data["system_prompt"]
            body = backend.body(build_request(case, "fc" if mode == "fc" else "prompt", texts))
            if mode == "fc":
                body.setdefault("tools", [])
            assert {k: v for k, v in body.items() if k in want} == want, (case.id, mode)
            assert set(body) - set(want) == {"model", "max_tokens", "temperature"}
