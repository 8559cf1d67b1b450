"""What a single-turn request says: the system prompt, language hints, message layout.

Every prompt text comes from the fetched release's constants.json (`default_prompts` module),
never from fcbench's source, so a new benchmark release brings its own wording. The pieces:

* prompt mode (spec §4.1): a system prompt assembled from the release's templates for a
  configuration (`PromptConfig`: return format, tool-call tag, function-doc format, plaintext
  or markdown, classic or experimental style), inserted before the first message, or
  prepended (blank line between) to the case's own system message. A format-sensitivity case
  names its configuration in its id; every other case gets the release's default
  (`DEFAULT_SYSTEM_PROMPT_FORMAT`: python calls, no tag, json docs, plaintext, classic);
* FC mode: the case's first-turn messages unchanged, the docs sent as `tools`;
* both modes: the language hints of spec §2.5 point 3 (`dataset/hints.py`) added to the docs
  at generation time; the docs' own layout in the prompt is `doc_formats.py`'s.
"""

from __future__ import annotations

from typing import Any

from fcbench.core import categories
from fcbench.core.categories import Language
from fcbench.core.model import TestCase
from fcbench.dataset.format_sensitivity import PromptConfig, split_id
from fcbench.dataset.hints import HINTS, with_language_hints
from fcbench.dataset.prompt_texts import PromptError, PromptTexts
from fcbench.models.base import ChatRequest, Mode, StepContext, TurnLayout, plain_copy
from fcbench.models.doc_formats import render_docs
from fcbench.models.tools import convert_tools

__all__ = [
    "HINTS",
    "PromptConfig",
    "build_request",
    "language_of",
    "prompt_config",
    "system_prompt",
    "with_language_hints",
]


def system_prompt(
    functions: list[dict[str, Any]], texts: PromptTexts, config: PromptConfig | None = None
) -> str:
    """The benchmark's system prompt for these docs under a configuration (default: the
    release's): the template's pieces filled in with the return format, its parameter-type
    note and the docs in the configuration's doc format."""
    config = config or texts.default_config
    p = texts.prompts
    try:
        style = p["PROMPT_STYLE_TEMPLATES"][config.style]
        template = p["PROMPT_TEMPLATE_MAPPING"][config.prompt_format]
        output_format = p["OUTPUT_FORMAT_MAPPING"][config.return_format]
        param_types = p["PARAM_TYPE_MAPPING"][config.return_format]
        call_key = "tool_call_with_tag" if config.tool_call_tag else "tool_call_no_tag"
        tool_call_format = style[call_key].format(
            output_format=output_format, param_types=param_types
        )
        available = style["available_tools"].format(
            format=config.doc_format, functions=render_docs(functions, config.doc_format)
        )
        return str(template).format(
            persona=style["persona"],
            task=style["task"],
            tool_call_format=tool_call_format,
            multiturn_behavior=style["multiturn_behavior"],
            available_tools=available,
        )
    except KeyError as exc:
        raise PromptError(f"no prompt text for {exc} in the fetched constants") from None


def prompt_config(case: TestCase, texts: PromptTexts) -> PromptConfig:
    """The configuration a case is asked under: the one its id names (format sensitivity),
    else the release's default."""
    named = split_id(case.id)
    return named[0] if named is not None else texts.default_config


def language_of(case: TestCase) -> Language:
    """The language of a case's functions (Python for categories fcbench does not know)."""
    try:
        return categories.get(case.category).language
    except categories.UnknownCategoryError:
        return Language.PYTHON


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
    prompt = system_prompt(functions, texts, prompt_config(case, texts))
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + str(messages[0].get("content", ""))
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return ChatRequest(messages, None, mode, functions, context)
