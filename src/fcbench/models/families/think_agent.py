"""ThinkAgent (`think_agent.py ThinkAgentHandler`): a Llama-3.1-like prompt with the docs
written as a Python list (name, description, the parameters' properties) in the first user
turn. The handler renders only the first non-system message, so every step of a
conversation is asked the same prompt."""

from __future__ import annotations

from typing import Any

from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

SYSTEM = (
    "<|start_header_id|>system<|end_header_id|>Cutting Knowledge Date: December 2023"
    "Today Date: 07 Dec 2024<|eot_id|>"
)
INSTRUCTION = (
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt."
    'Respond in the format {"name": function name, "parameters": dictionary of argument name '
    'and its value}.Do not use variables.Available tools:'
)


def _tool(doc: Doc) -> dict[str, Any]:
    return {"name": doc["name"], "description": doc["description"],
            "parameters": dict(doc["parameters"].get("properties", {}).items())}


def render(messages: list[Message], functions: list[Doc]) -> str:
    rest = messages[1:] if messages[0]["role"] == "system" else messages
    out = "<|begin_of_text|>" + SYSTEM
    if rest:
        tools = [_tool(doc) for doc in functions]
        out += f"<|start_header_id|>user<|end_header_id|>{INSTRUCTION}{tools}"
        out += rest[0]["content"].strip() + "<|eot_id|>"
    return out + "<|start_header_id|>assistant<|end_header_id|>"


FAMILY = Family("think-agent", "think_agent.py ThinkAgentHandler", render, own_system_prompt)
