"""Phi-4-mini in prompt mode (`phi.py PhiHandler` for names containing `Phi-4-mini`):
`<|role|>...<|end|>` turns, the benchmark's system prompt, Phi's decoders."""

from __future__ import annotations

from fcbench.models.families.base import Doc, Family, Message


def render(messages: list[Message], functions: list[Doc]) -> str:
    return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages) + "<|assistant|>"


FAMILY = Family("phi-4-mini", "phi.py PhiHandler (Phi-4-mini models)", render, decoder="phi")
