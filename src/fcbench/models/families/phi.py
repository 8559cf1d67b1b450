"""Phi-4 (`phi.py PhiHandler`): `<|im_start|>role<|im_sep|>...<|im_end|>` turns, the
benchmark's system prompt; its decoders drop a leading json/python code fence."""

from __future__ import annotations

from fcbench.models.families.base import Doc, Family, Message


def render(messages: list[Message], functions: list[Doc]) -> str:
    turns = "".join(f"<|im_start|>{m['role']}<|im_sep|>{m['content']}<|im_end|>\n"
                    for m in messages)
    return turns + "<|im_start|>assistant<|im_sep|>"


FAMILY = Family("phi", "phi.py PhiHandler", render)
