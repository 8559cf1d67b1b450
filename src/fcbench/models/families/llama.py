"""Llama 3.x in the benchmark's prompt (`llama.py LlamaHandler`, for every Llama 3 and 4 model
but 3.1 in FC mode, and for fine-tunes such as ToolACE, watt-tool, CoALM, BitAgent-8B).

The benchmark's system prompt is the first message; each message becomes one header block with
its text stripped; execution results come back in the `ipython` role, one message per result.
Llama 4 (`llama-4`) is the same layout with Llama 4's tokens.
"""

from __future__ import annotations

from collections.abc import Callable

from fcbench.models.families.base import Doc, Family, Message


def header_prompt(
    start: str, end: str, eot: str
) -> Callable[[list[Message], list[Doc]], str]:
    """A renderer for `<|begin_of_text|>` + one `start role end \\n\\n text eot` per message."""

    def render(messages: list[Message], functions: list[Doc]) -> str:
        out = "<|begin_of_text|>"
        for message in messages:
            out += f"{start}{message['role']}{end}\n\n{message['content'].strip()}{eot}"
        return out + f"{start}assistant{end}\n\n"

    return render


def ipython_results(
    calls: list[str], results: list[str], tool_call_ids: list[str]
) -> list[Message]:
    """Llama's results: one `ipython` message per result."""
    return [{"role": "ipython", "content": result} for result in results]


render = header_prompt("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")

FAMILY = Family("llama", "llama.py LlamaHandler", render,
                results=ipython_results)
