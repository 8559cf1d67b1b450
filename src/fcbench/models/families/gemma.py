"""Gemma 3 (`gemma.py GemmaHandler`): the benchmark's system prompt folded into the first user
turn, `<start_of_turn>role ... <end_of_turn>` blocks with stripped text. Before the first
step every turn's consecutive user messages are joined (a blank line between) and the data's
`assistant` messages renamed `model`; messages added during the conversation keep their
roles (`assistant`, `tool`), as in the handler."""

from __future__ import annotations

from fcbench.core.model import TestCase
from fcbench.models.families.base import (
    Doc,
    Family,
    Message,
    Prompted,
    benchmark_system_prompt,
)


def combine_users(messages: list[Message]) -> list[Message]:
    """Consecutive user messages as one (`combine_consecutive_user_prompts`)."""
    combined: list[Message] = []
    for message in messages:
        if message["role"] == "user" and combined and combined[-1]["role"] == "user":
            combined[-1]["content"] += "\n\n" + message["content"]
        else:
            combined.append(message)
    return combined


def prepare(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    turns = [combine_users(turn) for turn in benchmark_system_prompt(case, prompted)]
    for turn in turns:
        for message in turn:
            if message["role"] == "assistant":
                message["role"] = "model"
    return turns


def render(messages: list[Message], functions: list[Doc]) -> str:
    prefix = ""
    if messages[0]["role"] == "system":
        prefix, messages = messages[0]["content"].strip() + "\n\n", messages[1:]
    out = "<bos>"
    for index, message in enumerate(messages):
        first = prefix if index == 0 else ""
        text = message["content"].strip()
        out += f"<start_of_turn>{message['role']}\n{first}{text}<end_of_turn>\n"
    return out + "<start_of_turn>model\n"


FAMILY = Family("gemma", "gemma.py GemmaHandler", render, prepare)
