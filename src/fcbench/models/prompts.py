"""What a single-turn request says: the default system prompt, language hints, message layout.

Every prompt text comes from the fetched release's constants.json (`default_prompts` module),
never from fcbench's source, so a new benchmark release brings its own wording. The pieces:

* prompt mode (spec §4.1): a system prompt assembled from the release's templates for the
  default configuration (`DEFAULT_SYSTEM_PROMPT_FORMAT`: python calls, no tag, json docs,
  plaintext, classic), inserted before the first message, or prepended (blank line between) to
  the case's own system message;
* FC mode: the case's first-turn messages unchanged, the docs sent as `tools`;
* both modes: the language hints of spec §2.5 point 3 added to the docs at generation time.
  These sentences live inside a function of the official tool (not in its constants), so they
  are the one piece of wording fcbench states itself (`HINTS`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fcbench.dataset import categories
from fcbench.dataset.categories import Language
from fcbench.dataset.model import TestCase
from fcbench.models.base import ChatRequest, Mode, StepContext, TurnLayout, plain_copy
from fcbench.models.tools import convert_tools

HINTS: dict[Language, str] = {
    Language.PYTHON: " Note that the provided function is in Python 3 syntax.",
    Language.JAVA: " Note that the provided function is in Java 8 SDK syntax.",
    Language.JAVASCRIPT: " Note that the provided function is in JavaScript syntax.",
}
_LANG_NAME = {Language.JAVA: "Java", Language.JAVASCRIPT: "JavaScript"}


class PromptError(ValueError):
    """The release's constants lack a prompt piece, or a configuration is not supported."""


@dataclass(frozen=True)
class PromptConfig:
    """One system-prompt configuration (the `ret_fmt=...&style=...` string of the official)."""

    return_format: str = "python"
    tool_call_tag: bool = False
    doc_format: str = "json"
    prompt_format: str = "plaintext"
    style: str = "classic"

    @classmethod
    def parse(cls, text: str) -> PromptConfig:
        """Parse `ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&...`."""
        fields = dict(part.split("=", 1) for part in text.split("&") if "=" in part)
        return cls(
            return_format=fields.get("ret_fmt", "python"),
            tool_call_tag=fields.get("tool_call_tag", "False") == "True",
            doc_format=fields.get("func_doc_fmt", "json"),
            prompt_format=fields.get("prompt_fmt", "plaintext"),
            style=fields.get("style", "classic"),
        )


@dataclass(frozen=True)
class PromptTexts:
    """The release's prompt constants and FC type table, as fetched."""

    prompts: dict[str, Any]
    type_map: dict[str, str]

    @classmethod
    def from_constants(cls, constants: dict[str, Any]) -> PromptTexts:
        prompts = constants.get("default_prompts")
        types = (constants.get("type_mappings") or {}).get("GORILLA_TO_OPENAPI")
        if not isinstance(prompts, dict) or "PROMPT_STYLE_TEMPLATES" not in prompts:
            raise PromptError("the fetched constants hold no default prompts; refetch the data")
        if not isinstance(types, dict):
            raise PromptError("the fetched constants hold no GORILLA_TO_OPENAPI type table")
        return cls(prompts, types)

    @property
    def default_config(self) -> PromptConfig:
        return PromptConfig.parse(str(self.prompts.get("DEFAULT_SYSTEM_PROMPT_FORMAT", "")))


@lru_cache(maxsize=8)
def load_texts(release: str) -> PromptTexts:
    """The prompt texts of a fetched release (cached per process)."""
    from fcbench.dataset.fetch import load_constants

    return PromptTexts.from_constants(load_constants(release))


def system_prompt(
    functions: list[dict[str, Any]], texts: PromptTexts, config: PromptConfig | None = None
) -> str:
    """The benchmark's system prompt for these docs (json doc format only, for now)."""
    config = config or texts.default_config
    p = texts.prompts
    try:
        style = p["PROMPT_STYLE_TEMPLATES"][config.style]
        template = p["PROMPT_TEMPLATE_MAPPING"][config.prompt_format]
        output_format = p["OUTPUT_FORMAT_MAPPING"][config.return_format]
        param_types = p["PARAM_TYPE_MAPPING"][config.return_format]
    except KeyError as exc:
        raise PromptError(f"no prompt text for {exc} in the fetched constants") from None
    if config.doc_format != "json":
        raise PromptError(f"function doc format {config.doc_format!r} is not supported yet")
    call_key = "tool_call_with_tag" if config.tool_call_tag else "tool_call_no_tag"
    tool_call_format = style[call_key].format(output_format=output_format, param_types=param_types)
    docs = json.dumps(functions, indent=4)
    available = style["available_tools"].format(format=config.doc_format, functions=docs)
    return str(template).format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=tool_call_format,
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=available,
    )


def language_of(case: TestCase) -> Language:
    """The language of a case's functions (Python for categories fcbench does not know)."""
    try:
        return categories.get(case.category).language
    except categories.UnknownCategoryError:
        return Language.PYTHON


def with_language_hints(
    functions: list[dict[str, Any]], language: Language
) -> list[dict[str, Any]]:
    """Copies of the docs with the generation-time language hints (spec §2.5 point 3)."""
    docs: list[dict[str, Any]] = plain_copy(functions)
    for doc in docs:
        doc["description"] = str(doc.get("description", "")) + HINTS[language]
        if language is not Language.PYTHON:
            properties = (doc.get("parameters") or {}).get("properties") or {}
            for schema in properties.values():
                if isinstance(schema, dict):
                    _stringify_param(schema, language)
    return docs


def _stringify_param(schema: dict[str, Any], language: Language) -> None:
    """Java/JS parameters are sent as strings; the description says what they really are."""
    lang = _LANG_NAME[language]
    kind = schema.get("type")
    note = str(schema.get("description", ""))
    if kind == "any":
        note += f" This parameter can be of any type of {lang} object in string representation."
    else:
        note += f" This is {lang} {kind} type parameter in string representation."
    array_types = ("ArrayList", "Array") if language is Language.JAVA else ("array",)
    if kind in array_types:
        element = (schema.get("items") or {}).get("type")
        note += f" The list elements are of type {element}; they are not in string representation."
        schema.pop("items", None)
    if language is Language.JAVASCRIPT and kind == "dict" and "properties" in schema:
        note += (
            " The dictionary entries have the following schema; they are not in string "
            f"representation. {json.dumps(schema['properties'])}"
        )
        del schema["properties"]
    schema["description"] = note
    schema["type"] = "string"


def layout_request(
    case: TestCase, texts: PromptTexts, layout: TurnLayout
) -> tuple[ChatRequest, list[list[Any]]]:
    """The first request of a backend with its own layout, and every turn as it lays them
    out (prompt mode; the docs also as OpenAI tools, for families that render those)."""
    functions = with_language_hints(case.functions, language_of(case))

    def prompted() -> list[dict[str, Any]]:  # built only for families that use it
        return build_request(case, "prompt", texts).messages

    turns = layout.turns(case, prompted)
    tools = convert_tools(functions, texts.type_map)
    request = ChatRequest(turns[0] if turns else [], tools, "prompt", functions,
                          StepContext(case))
    return request, turns


def build_request(
    case: TestCase, mode: Mode, texts: PromptTexts, layout: TurnLayout | None = None
) -> ChatRequest:
    """The Chat Completions request the official handler sends for a case's first turn; the
    case itself travels in the request's context, and the docs (with the language hints) in
    `functions`, for backends that render prompts themselves.

    A backend with its own `layout` (open-model prompt formats, always prompt mode) gets the
    first turn it lays out, and the docs also as OpenAI tools for families that render those.
    """
    if layout is not None:
        return layout_request(case, texts, layout)[0]
    functions = with_language_hints(case.functions, language_of(case))
    messages: list[dict[str, Any]] = plain_copy(case.question[0]) if case.question else []
    context = StepContext(case)
    if mode == "fc":
        tools = convert_tools(plain_copy(functions), texts.type_map, in_place=True)
        return ChatRequest(messages, tools or None, mode, functions, context)
    prompt = system_prompt(functions, texts)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + str(messages[0].get("content", ""))
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return ChatRequest(messages, None, mode, functions, context)
