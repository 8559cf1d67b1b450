"""Hammer 2.1 (`hammer.py HammerHandler`): a fixed system turn, then one user turn with the
task instruction, the tools (name, description and flattened parameters, as compact JSON)
and the JSON answer format, then every message as a ChatML turn. System messages of the
first turn become user messages (Hammer takes no system prompt).

[quirk] The handler rewrites the case's function docs in place each time it renders: nested
object parameters are replaced by their properties, `required: true` is set on parameter
schemas, and every parameter with a default gets "default is '<value>'" appended to its
description, again at every step. The family re-applies those rewrites once per step the
conversation has had, so later steps see the docs exactly as the handler's model did.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.core.model import TestCase
from fcbench.models.base import plain_copy
from fcbench.models.families.base import (
    Doc,
    Family,
    Message,
    Prompted,
    counted_text,
    render_count,
)
from fcbench.models.families.bielik import chatml

TASK_INSTRUCTION = """You are a tool calling assistant. In order to complete the user's request, you need to select one or more appropriate tools from the following tools and fill in the correct values for the tool parameters. Your specific tasks are:
1. Make one or more function/tool calls to meet the request based on the question.
2. If none of the function can be used, point it out and refuse to answer.
3. If the given question lacks the parameters required by the function, also point it out.

The following are characters that may interact with you
1. user: Provides query or additional information.
2. tool: Returns the results of the tool calling.
"""  # noqa: E501
FORMAT_INSTRUCTION = """
The output MUST strictly adhere to the following JSON format, and NO other text MUST be included.
The example format is as follows. Please make sure the parameter type is correct. If no function call is needed, please directly output an empty list '[]'
```
[
    {"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}},
    ... (more tool calls as required)
]
```
"""  # noqa: E501


def _rewrite(doc: Doc) -> dict[str, Any]:
    """One pass of the handler's tool conversion; changes `doc`'s schemas in place."""
    params = doc["parameters"].get("properties", {})
    tool = {"name": doc["name"], "description": doc["description"], "parameters": params}
    for name in params:
        schema = params[name]
        if "properties" in schema and isinstance(schema["properties"], dict):
            required = schema.get("required", [])
            params[name] = schema["properties"]
            for nested in required:
                params[name][nested]["required"] = True
    for name in doc["parameters"].get("required", []):
        params[name]["required"] = True
    for name in params:
        if "default" in params[name]:
            params[name]["description"] += f"default is '{params[name]['default']}'"
    return tool


def tools_at_step(functions: list[Doc], renders: int) -> list[dict[str, Any]]:
    """The tools the handler shows at its `renders`-th rendering."""
    docs = plain_copy(functions)
    tools: list[dict[str, Any]] = []
    for _ in range(renders):
        tools = [_rewrite(doc) for doc in docs]
    return tools


def render(messages: list[Message], functions: list[Doc]) -> str:
    tools = tools_at_step(functions, render_count(messages))
    content = f"[BEGIN OF TASK INSTRUCTION]\n{TASK_INSTRUCTION}\n[END OF TASK INSTRUCTION]\n\n"
    content += f"[BEGIN OF AVAILABLE TOOLS]\n{json.dumps(tools)}\n[END OF AVAILABLE TOOLS]\n\n"
    content += (f"[BEGIN OF FORMAT INSTRUCTION]\n{FORMAT_INSTRUCTION}\n"
                "[END OF FORMAT INSTRUCTION]\n\n")
    return (f"<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
            f"<|im_start|>user\n{content}<|im_end|>\n" + chatml(messages))


def prepare(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    turns: list[list[Message]] = plain_copy(case.question)
    for message in turns[0] if turns else []:
        if message["role"] == "system":
            message["role"] = "user"
    return turns


FAMILY = Family("hammer", "hammer.py HammerHandler", render, prepare, counted_text)
