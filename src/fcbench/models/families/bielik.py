"""Bielik v2.3 (`bielik.py BielikHandler`): `<s>` then plain ChatML turns; the benchmark's
system prompt and decoders."""

from __future__ import annotations

from fcbench.models.families.base import Doc, Family, Message


def chatml(messages: list[Message]) -> str:
    """Every message as `<|im_start|>role\\ncontent<|im_end|>\\n`, then the assistant's turn."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


def render(messages: list[Message], functions: list[Doc]) -> str:
    return "<s>" + chatml(messages)


FAMILY = Family("bielik", "bielik.py BielikHandler", render)
