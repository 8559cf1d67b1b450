"""Granite-20B-FunctionCalling (`granite.py GraniteFunctionCallingHandler`): `SYSTEM:` text
with the docs (converted to tools, one compact JSON a line) after `<|function_call_library|>`,
then `ROLE:\\ncontent` blocks and `ASSISTANT: `. Names are sent with underscores."""

from __future__ import annotations

import json

from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

SYSTEM = (
    "SYSTEM: You are a helpful assistant with access to the following function calls. Your "
    "task is to produce a sequence of function calls necessary to generate response to the "
    "user utterance. Use the following function calls as required.\n<|function_call_library|>\n"
)
NO_FUNCTION = (
    "\nIf none of the functions are relevant or the given question lacks the parameters "
    'required by the function, please output "<function_call> {"name": "no_function", '
    '"arguments": {}}".\n\n'
)


def render(messages: list[Message], functions: list[Doc]) -> str:
    docs = "\n".join(json.dumps(tool.get("function", tool)) for tool in functions)
    out = SYSTEM + docs + NO_FUNCTION
    out += "".join(f"{m['role'].upper()}:\n{m['content']}\n\n" for m in messages)
    return out + "ASSISTANT: "


FAMILY = Family("granite-20b", "granite.py GraniteFunctionCallingHandler", render,
                own_system_prompt, fc=True, fc_names="underscore", docs="openai")
