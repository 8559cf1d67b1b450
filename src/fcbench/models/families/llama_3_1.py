"""Llama 3.1 with JSON tool calls (`llama_3_1.py LlamaHandler_3_1`): Llama 3.1's own template
with the function docs in the first user message (`tools_in_user_message`), the date line
fixed at 26 Jul 2024, results in the `ipython` role.
"""

from __future__ import annotations

import json

from fcbench.models.doc_formats import indented_json
from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

HEAD, TAIL, EOT = "<|start_header_id|>", "<|end_header_id|>\n\n", "<|eot_id|>"
SYSTEM_LINES = (
    "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n"
)
TOOLS_INSTRUCTION = (
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt.\n\n"
    'Respond in the format {"name": function name, "parameters": dictionary of argument name '
    "and its value}.Do not use variables.\n\n"
)


def _tool(message: Message) -> str:
    content = message["content"]
    text = json.dumps(content) if isinstance(content, (dict, list)) else content
    return f"{HEAD}ipython{TAIL}{text}{EOT}"


def render(messages: list[Message], functions: list[Doc]) -> str:
    system, rest = "", messages
    if messages[0]["role"] == "system":
        system, rest = messages[0]["content"].strip(), messages[1:]
    out = f"<|begin_of_text|>{HEAD}system{TAIL}{SYSTEM_LINES}{system}{EOT}"
    first_user = True
    for message in rest:
        if message["role"] == "user" and first_user:
            first_user = False
            docs = "".join(indented_json(doc) + "\n\n" for doc in functions)
            out += f"{HEAD}user{TAIL}{TOOLS_INSTRUCTION}{docs}{message['content'].strip()}{EOT}"
        elif message["role"] == "tool":
            out += _tool(message)
        else:
            out += f"{HEAD}{message['role']}{TAIL}{message['content'].strip()}{EOT}"
    return out + f"{HEAD}assistant{TAIL}"


FAMILY = Family("llama-3.1", "llama_3_1.py LlamaHandler_3_1", render, own_system_prompt, fc=True)
