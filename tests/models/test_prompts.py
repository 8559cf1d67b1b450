"""The request layout: system prompt from the fetched constants, language hints, messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.core.categories import Language
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts, load_texts
from fcbench.models.prompts import (
    HINTS,
    PromptConfig,
    build_request,
    system_prompt,
    with_language_hints,
)


@pytest.fixture
def texts(fetched_home: Path) -> PromptTexts:
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    return load_texts(DEFAULT_RELEASE)


FUNCS = [{"name": "f", "description": "Does f.", "parameters": {"type": "dict", "properties": {
    "a": {"type": "integer", "description": "A."}}, "required": ["a"]}}]


def case(category: str, messages: list[dict[str, str]]) -> TestCase:
    return TestCase(f"{category}_0", category, [messages], FUNCS, None)


def test_default_prompt_is_assembled_from_the_release(texts: PromptTexts) -> None:
    style = texts.prompts["PROMPT_STYLE_TEMPLATES"]["classic"]
    prompt = system_prompt(FUNCS, texts)
    assert texts.default_config == PromptConfig()
    assert prompt.startswith(style["persona"] + style["task"] + "\n\n")  # no space between
    assert texts.prompts["OUTPUT_FORMAT_MAPPING"]["python"] in prompt
    assert style["multiturn_behavior"] in prompt
    tail = "Here is a list of functions in json format that you can invoke.\n"
    assert prompt.endswith(tail + json.dumps(FUNCS, indent=4) + "\n")


def test_prompt_mode_inserts_or_merges_the_system_message(texts: PromptTexts) -> None:
    user = {"role": "user", "content": "hi"}
    request = build_request(case("simple_python", [user]), "prompt", texts)
    assert [m["role"] for m in request.messages] == ["system", "user"]
    assert request.tools is None
    hinted = with_language_hints(FUNCS, Language.PYTHON)
    assert request.messages[0]["content"] == system_prompt(hinted, texts)
    own = {"role": "system", "content": "Be brief."}
    merged = build_request(case("live_simple", [own, user]), "prompt", texts)
    assert len(merged.messages) == 2
    assert merged.messages[0]["content"].endswith("\n\nBe brief.")


def test_fc_mode_keeps_messages_and_sends_tools(texts: PromptTexts) -> None:
    messages = [{"role": "user", "content": "hi"}]
    request = build_request(case("simple_python", messages), "fc", texts)
    assert request.messages == messages
    assert request.tools is not None
    assert request.tools[0]["function"]["description"] == "Does f." + HINTS[Language.PYTHON]


def test_java_and_javascript_hints() -> None:
    docs = [{"name": "g", "description": "G.", "parameters": {"type": "dict", "properties": {
        "xs": {"type": "ArrayList", "description": "X.", "items": {"type": "String"}},
        "o": {"type": "any", "description": "O."},
    }}}]
    [java] = with_language_hints(docs, Language.JAVA)
    xs = java["parameters"]["properties"]["xs"]
    assert java["description"] == "G." + HINTS[Language.JAVA]
    assert xs["type"] == "string" and "items" not in xs
    assert xs["description"].startswith("X. This is Java ArrayList type parameter")
    assert "elements are of type String" in xs["description"]
    assert "any type of Java object" in java["parameters"]["properties"]["o"]["description"]
    js_docs = [{"name": "h", "description": "H.", "parameters": {"type": "dict", "properties": {
        "d": {"type": "dict", "description": "D.", "properties": {"k": {"type": "String"}}},
    }}}]
    [js] = with_language_hints(js_docs, Language.JAVASCRIPT)
    d = js["parameters"]["properties"]["d"]
    assert d["type"] == "string" and "properties" not in d
    assert d["description"].endswith('representation. {"k": {"type": "String"}}')
    assert docs[0]["parameters"]["properties"]["xs"]["type"] == "ArrayList"  # copies only


def test_config_parse() -> None:
    config = PromptConfig.parse(
        "ret_fmt=json&tool_call_tag=True&func_doc_fmt=json&prompt_fmt=markdown&style=experimental"
    )
    assert config == PromptConfig("json", True, "json", "markdown", "experimental")
