"""xLAM-2 on Llama (`salesforce_llama.py SalesforceLlamaHandler`): Llama 3 headers, the xLAM
system prompt with the docs (indented JSON), results in the `ipython` role; assistant
messages that carry calls are rendered as the JSON list of `{name, arguments}`."""

from __future__ import annotations

import json
from collections.abc import Callable

from fcbench.models.doc_formats import indented_json
from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

XLAM_SYSTEM = (
    "You are a helpful assistant that can use tools. You are developed by Salesforce xLAM team."
)
XLAM_INSTRUCTIONS = (
    "You have access to a set of tools. When using tools, make calls in a single JSON array: "
    "\n\n"
    '[{"name": "tool_call_name", "arguments": {"arg1": "value1", "arg2": "value2"}}, ... '
    "(additional parallel tool calls as needed)]\n\n"
    "If no tool is suitable, state that explicitly. If the user's input lacks required "
    "parameters, ask for clarification. Do not interpret or respond until tool results are "
    "returned. Once they are available, process them or make additional calls if needed. "
    "For tasks that don't require tools, such as casual conversation or general advice, "
    "respond directly in plain text. The available tools are:\n\n"
)


Turn = Callable[[str, "str | None"], str]
"""A chat template's turn markup: `turn(role, text)`; None text opens the role's turn."""


def xlam_prompt(
    turn: Turn, start: str, tool_role: str, default_system: str
) -> Callable[[list[Message], list[Doc]], str]:
    """The xLAM layout over a chat template's turn markup (`turn(role, text)`)."""

    def render(messages: list[Message], functions: list[Doc]) -> str:
        system, rest = default_system, messages
        if messages[0]["role"] == "system":
            system, rest = messages[0]["content"].strip(), messages[1:]
        docs = "".join(indented_json(doc) + "\n\n" for doc in functions)
        out = start + turn("system", f"{system}\n{XLAM_INSTRUCTIONS}{docs}")
        for message in rest:
            out += _message(message, turn, tool_role)
        return out + turn("assistant", None)

    return render


def _message(message: Message, turn: Turn, tool_role: str) -> str:
    content = message["content"]
    if message["role"] == "tool":
        text = json.dumps(content) if isinstance(content, (dict, list)) else content
        return turn(tool_role, text)
    if message.get("tool_calls"):
        calls = [{"name": c["function"]["name"],
                  "arguments": json.loads(c["function"]["arguments"])}
                 for c in message["tool_calls"]]
        return turn("assistant", json.dumps(calls))
    return turn(message["role"], content.strip())


def llama_turn(role: str, text: str | None) -> str:
    """A Llama 3 header block; `None` text = the open assistant header."""
    head = f"<|start_header_id|>{role}<|end_header_id|>\n\n"
    return head if text is None else f"{head}{text}<|eot_id|>"


render = xlam_prompt(llama_turn, "<|begin_of_text|>", "ipython", XLAM_SYSTEM)

FAMILY = Family("xlam-llama", "salesforce_llama.py SalesforceLlamaHandler", render,
                own_system_prompt, fc=False)
