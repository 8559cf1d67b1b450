"""Gemma 4 in prompt mode (upstream PR #1357, `gemma_4.py Gemma4Handler` and
`Gemma4NoThinkHandler`; not in bfcl-eval 2026.3.23).

Gemma 4 dropped Gemma 3's `<start_of_turn>` layout for `<|turn>role\\n...<turn|>\\n` blocks.
The PR renders the prompt-mode subset of the model's template by hand, because the template
itself drops a bare `tool` message: each run of `tool` messages is written as
`<|tool_response>` blocks inside the model turn before it (the call, then its results). The
thinking variant puts `<|think|>` in a system header that is written even without a system
text; the no-think variant instead closes an empty thought channel after the generation
prompt. Turns are prepared as Gemma 3's handler does (benchmark system prompt, consecutive
user messages joined) but the data's `assistant` messages keep their role.

The completion keeps its special tokens (`skip_special_tokens: false`), so the stored answer
is cut after the last `<channel|>`; native `<|tool_call>call:...<tool_call|>` blocks are
rewritten to the benchmark's `[call(...), ...]` list, and stray markers are removed.
"""

from __future__ import annotations

from collections.abc import Callable

from fcbench.core.model import TestCase
from fcbench.decode.spans import prefixed_bodies
from fcbench.models.families.base import (
    Doc,
    Family,
    Message,
    Parsed,
    Prompted,
    benchmark_system_prompt,
)
from fcbench.models.families.gemma import combine_users

TURN, END = "<|turn>", "<turn|>\n"
CALL_OPEN, CALL_CLOSE = "<|tool_call>", "<tool_call|>"
CHANNEL_OPEN, CHANNEL_CLOSE = "<|channel>thought", "<channel|>"
EMPTY_THOUGHT = "<|channel>thought\n<channel|>"
"""The generation prompt's suffix that tells the model not to think (no-think variant)."""

CALL_PREFIX = "call:"
"""The PR reads `<\\|tool_call>\\s*call:\\s*(.*?)\\s*<tool_call\\|>` (DOTALL); the same bodies
are found by `decode.spans.prefixed_bodies` in one pass (the regex rescans the rest of the
text from every unclosed tag: 70 s for 239 kB of `<|tool_call>call:f{`)."""


def prepare(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    """The benchmark's system prompt; consecutive user messages joined in every turn."""
    return [combine_users(turn) for turn in benchmark_system_prompt(case, prompted)]


def _text(message: Message) -> str:
    content = message["content"]
    return content if isinstance(content, str) else ""


def _tool_response(message: Message) -> str:
    """One result as the template's tool-response block with a string body."""
    name = message.get("name", "unknown")
    body = f'{{value:<|"|>{message["content"]}<|"|>}}'
    return f"<|tool_response>response:{name}{body}<tool_response|>"


def _body(messages: list[Message]) -> str:
    """Every message after the leading system one; a model turn swallows the tool
    messages right after it, a tool message without one gets a model turn of its own."""
    out, index = "", 0
    while index < len(messages):
        message, index = messages[index], index + 1
        role = message["role"]
        if role in ("user", "system"):
            out += f"{TURN}{role}\n{_text(message).strip()}{END}"
        elif role == "assistant":
            out += f"{TURN}model\n{_text(message).strip()}"
            while index < len(messages) and messages[index]["role"] == "tool":
                out += _tool_response(messages[index])
                index += 1
            out += END
        elif role == "tool":
            out += f"{TURN}model\n{_tool_response(message)}{END}"
    return out


def renderer(thinking: bool) -> Callable[[list[Message], list[Doc]], str]:
    """The PR's `_format_prompt` for the thinking or the no-think handler."""

    def render(messages: list[Message], functions: list[Doc]) -> str:
        system = ""
        if messages and messages[0]["role"] == "system":
            system, messages = messages[0]["content"], messages[1:]
        out = ""
        if system or thinking:
            out += f"{TURN}system\n" + ("<|think|>\n" if thinking else "")
            out += f"{system.strip()}{END}"
        out += _body(messages) + f"{TURN}model\n"
        return out if thinking else out + EMPTY_THOUGHT

    return render


def native_to_list(text: str) -> str:
    """Native call blocks as the benchmark's bracketed list (the text itself if none)."""
    calls = [call.strip() for call in prefixed_bodies(text, CALL_OPEN, CALL_PREFIX, CALL_CLOSE)]
    if not calls:
        return text
    return "[" + ", ".join(call for call in calls if call) + "]"


def parse(text: str) -> Parsed:
    """The answer after the last closed thought channel, native calls rewritten, stray
    call markers removed; the reasoning is what the channel held."""
    reasoning, answer = "", text
    if CHANNEL_CLOSE in text:
        reasoning, answer = text.rsplit(CHANNEL_CLOSE, 1)
        reasoning = reasoning.replace(CHANNEL_OPEN, "", 1)
    answer = native_to_list(answer).replace(CALL_OPEN, "").replace(CALL_CLOSE, "").strip()
    return Parsed(answer, {"role": "assistant", "content": answer}, reasoning)


_HANDLER = "gemma_4.py (upstream PR #1357)"
FAMILY = Family("gemma-4", f"{_HANDLER} Gemma4Handler", renderer(True), prepare, parse,
                extra_body={"skip_special_tokens": False}, decoder="default")
NO_THINK = Family("gemma-4-no-think", f"{_HANDLER} Gemma4NoThinkHandler", renderer(False),
                  prepare, parse, extra_body={"skip_special_tokens": False}, decoder="default")
