"""DeepSeek-R1 (`deepseek_reasoning.py DeepseekReasoningHandler`): every system text first
(joined by blank lines), then `<｜User｜>` / `<｜Assistant｜>` turns, reasoning opened with
`<think>`. Before the first step the benchmark's system prompt is added and then, in every
turn, system messages become user messages and consecutive user messages are joined. The
execution results of a step come back as ONE user message whose content is the list of
`{"role": "tool", "name": call, "content": result}` (rendered as its Python repr).

[quirk] The stored answer is the text after the last `</think>`, and so is the reasoning the
handler records (it cuts the already-cut answer again).
"""

from __future__ import annotations

from fcbench.core.model import TestCase
from fcbench.models.families.base import (
    Doc,
    Family,
    Message,
    Parsed,
    Prompted,
    benchmark_system_prompt,
)
from fcbench.models.families.gemma import combine_users

BOS = "<｜begin▁of▁sentence｜>"


def prepare(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    turns = benchmark_system_prompt(case, prompted)
    for turn in turns:
        for message in turn:
            if message["role"] == "system":
                message["role"] = "user"
    return [combine_users(turn) for turn in turns]


def _call_text(tool: dict[str, object]) -> str:
    function = tool["function"]
    assert isinstance(function, dict)
    return (f"<｜tool▁call▁begin｜>{tool['type']}<｜tool▁sep｜>{function['name']}\n```json\n"
            f"{function['arguments']}\n```<｜tool▁call▁end｜>")


def render(messages: list[Message], functions: list[Doc]) -> str:
    systems = [m["content"] for m in messages if m["role"] == "system"]
    out = BOS + "\n\n".join(systems)
    first_call, in_tools, first_output = False, False, True
    for message in messages:
        role = message["role"]
        if role == "user":
            in_tools = False
            out += f"<｜User｜>{message['content']}"
        elif role == "assistant" and "tool_calls" in message:
            in_tools = False
            for tool in message["tool_calls"]:
                if not first_call:
                    text = "" if message.get("content") is None else message["content"]
                    out += f"<｜Assistant｜>{text}<｜tool▁calls▁begin｜>{_call_text(tool)}"
                    first_call = True
                else:
                    out += "\n" + _call_text(tool)
            out += "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        elif role == "assistant":
            if in_tools:
                out += f"<｜tool▁outputs▁end｜>{message['content']}<｜end▁of▁sentence｜>"
                in_tools = False
            else:
                content = message["content"].split("</think>")[-1]
                out += f"<｜Assistant｜>{content}<｜end▁of▁sentence｜>"
        elif role == "tool":
            in_tools = True
            begin = "<｜tool▁outputs▁begin｜>" if first_output else ""
            first_output = False
            out += f"{begin}<｜tool▁output▁begin｜>{message['content']}<｜tool▁output▁end｜>"
    return out + ("<｜tool▁outputs▁end｜>" if in_tools else "<｜Assistant｜><think>\n")


def parse(text: str) -> Parsed:
    answer = text.split("</think>")[-1] if "</think>" in text else text
    reasoning = answer.split("</think>")[0] if "</think>" in text else ""
    return Parsed(answer, {"role": "assistant", "content": text}, reasoning)


def user_results(calls: list[str], results: list[str], tool_call_ids: list[str]) -> list[Message]:
    rows = [{"role": "tool", "name": call, "content": result}
            for result, call in zip(results, calls, strict=False)]
    return [{"role": "user", "content": rows}]


FAMILY = Family("deepseek-r1", "deepseek_reasoning.py DeepseekReasoningHandler", render, prepare,
                parse, user_results)
