"""Families that write each call as `<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`
(Qwen-FC, Granite 4, Nanbeige, Pelican-VL), and Falcon 3's single `<tool_call>` block.

`extract_tool_calls` is the handlers' extraction: every block matched by
`<tool_call>\\n(.*?)\\n</tool_call>` that parses as JSON, in order; blocks that do not parse are
dropped silently. Generation uses it too (the assistant message keeps the parsed calls).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.common import convert_to_function_call, paired
from fcbench.decode.spans import tagged_bodies

TOOL_CALL_BLOCK = ("<tool_call>\n", "\n</tool_call>")
"""The opening and closing of a block (the handlers' `<tool_call>\\n(.*?)\\n</tool_call>`)."""


def extract_tool_calls(text: str) -> list[Any]:
    """The JSON values of the well-formed `<tool_call>` blocks of `text`."""
    found = []
    for body in tagged_bodies(text, *TOOL_CALL_BLOCK):
        with contextlib.suppress(ValueError):
            found.append(json.loads(body))
    return found


def _calls(result: Any) -> list[dict[Any, Any]]:
    calls = extract_tool_calls(result)
    if any(type(item) is not dict for item in calls):
        raise ValueError(f"Model did not return a list of function calls: {result}")
    return calls


def tagged_ast(result: Any, language: Language) -> Any:
    return [{call["name"]: dict(call["arguments"].items())} for call in _calls(result)]


def tagged_execute(result: Any) -> list[str]:
    return convert_to_function_call([{call["name"]: call["arguments"]} for call in _calls(result)])


def _falcon_calls(result: Any) -> list[Any]:
    """Falcon 3: the JSON between the first `<tool_call>` and the next `</tool_call>` (an
    optional ```` ```json ```` fence removed); one call or a list of them."""
    if "<tool_call>" not in result:
        raise ValueError(f"No <tool_call> found in the model's response: {result}")
    body = result.split("<tool_call>")[1].split("</tool_call>")[0].strip()
    if body.startswith("```") and body.endswith("```"):
        body = body.strip("`").strip()
        if body.startswith("json"):
            body = body[4:].strip()
    try:
        calls = json.loads(body)
        if not isinstance(calls, list):
            calls = [calls]
        return [(call["name"], call["arguments"]) for call in calls]
    except (ValueError, KeyError, IndexError):
        raise ValueError(f"Failed to decode the model's response: {result}") from None


TOOL_CALL_TAGS = FamilyDecoder(tagged_ast, tagged_execute)
FALCON = paired(_falcon_calls)
