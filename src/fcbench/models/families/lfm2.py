"""Liquid AI LFM2.x (LFM2.5) in prompt mode (upstream PR #1341, `lfm2.py LFM2Handler`; not
in bfcl-eval 2026.3.23).

The handler brings its own tool-use instruction as the system text (before the case's own
system text, if any); for agentic categories, whose system prompt asks for prose, it only
appends the call-format sentence instead. The docs are the OpenAI-style tools, rendered as
the model's chat template renders `tools=`: `List of tools: [<json>, <json>]` after the
system text, in a ChatML-like layout that opens with `<|startoftext|>`; an assistant
message before the last one loses what precedes its `</think>`. Each value not a string is
written as JSON (the template's `tojson`: non-ASCII kept, keys in order).

The completion's `<think>` block is the reasoning; the stored answer is the first call
block with its markers removed (the text as is without one). All of a step's results go
back in one `tool` message, `repr([{'name': ..., 'result': ...}])`, paired in order with
the calls the handler read from the reply's blocks: results of calls it could not read
there (a bare list) go back as `[]`, as in the PR. Those names travel as the reply's
`tool_call_ids`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fcbench.core.categories import AGENTIC
from fcbench.core.model import TestCase
from fcbench.decode.families.lfm2 import END, START, extract_tool_calls
from fcbench.models.families.base import Doc, Family, Message, Parsed, Prompted
from fcbench.models.families.base import own_system_prompt as case_turns

BOS = "<|startoftext|>"
IM_START, IM_END = "<|im_start|>", "<|im_end|>\n"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"

SYSTEM_PROMPT = (
    "You are an expert in composing functions. You are given a question and a set of "
    "possible functions. Based on the question, you will need to make one or more "
    "function/tool calls to achieve the purpose.\nIf none of the functions can be used, "
    "point it out. If the given question lacks the parameters required by the function, "
    "also point it out.\nYou should only return the function calls in your response.\n\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of "
    "<|tool_call_start|>[func_name1(params_name1=params_value1, "
    "params_name2=params_value2...), func_name2(params)]<|tool_call_end|>\nYou SHOULD NOT "
    "include any other text in the response.\n\nAt each turn, you should try your best to "
    "complete the tasks requested by the user within the current turn. Continue to output "
    "functions to call until you have fulfilled the user's request to the best of your "
    "ability. Once you have no more functions to call, the system will consider the current "
    "turn complete and proceed to the next turn or task.\n"
)
"""The PR's `LFM2_FC_SYSTEM_PROMPT` (its words; the model's tool-use instruction)."""
FORMAT_INSTRUCTION = (
    "When you decide to invoke any of the available function(s), you MUST put the "
    "call(s) in the format of <|tool_call_start|>[func_name1(params_name1=params_value1, "
    "params_name2=params_value2...), func_name2(params)]<|tool_call_end|>."
)
"""The PR's `LFM2_TOOL_CALL_FORMAT_INSTRUCTION`, for agentic categories."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def prepare(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    """The case's turns, the first one's system text given the handler's instruction."""
    turns = case_turns(case, prompted)
    if not turns:
        return turns
    first = turns[0]
    agentic = case.category in AGENTIC
    if first and first[0]["role"] == "system":
        own = first[0]["content"]
        first[0]["content"] = (f"{own}\n\n{FORMAT_INSTRUCTION}" if agentic
                               else f"{SYSTEM_PROMPT}\n\n{own}")
    else:
        first.insert(0, {"role": "system",
                         "content": FORMAT_INSTRUCTION if agentic else SYSTEM_PROMPT})
    return turns


def _json(value: Any) -> str:
    """The template's `tojson` (transformers' filter: `json.dumps`, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _json(value)


def render(messages: list[Message], functions: list[Doc]) -> str:
    """The chat template with `tools=` and the generation prompt."""
    system = ""
    if messages and messages[0]["role"] == "system":
        system, messages = _text(messages[0]["content"]), messages[1:]
    if functions:
        system += ("\n" if system else "") + "List of tools: ["
        system += ", ".join(t if isinstance(t, str) else _json(t) for t in functions) + "]"
    out = BOS + (f"{IM_START}system\n{system}{IM_END}" if system else "")
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    for index, message in enumerate(messages):
        content = _text(message["content"])
        if message["role"] == "assistant" and index != last and THINK_CLOSE in content:
            content = content.split(THINK_CLOSE)[-1].strip()
        out += f"{IM_START}{message['role']}\n{content}{IM_END}"
    return out + f"{IM_START}assistant\n"


def _think(text: str) -> str:
    """The first `<think>` block's inside, stripped ("" without one)."""
    start = text.find(THINK_OPEN)
    end = text.find(THINK_CLOSE, start + len(THINK_OPEN)) if start != -1 else -1
    return text[start + len(THINK_OPEN):end].strip() if end != -1 else ""


def _without_think(text: str) -> str:
    """Every closed `<think>` block removed, then leading newlines, when the text has both
    markers (the text as is otherwise)."""
    if THINK_OPEN not in text or THINK_CLOSE not in text:
        return text
    kept, at = [], 0
    while (start := text.find(THINK_OPEN, at)) != -1:
        end = text.find(THINK_CLOSE, start + len(THINK_OPEN))
        if end == -1:
            break
        kept.append(text[at:start])
        at = end + len(THINK_CLOSE)
    kept.append(text[at:])
    return "".join(kept).lstrip("\n")


def _first_block(text: str) -> str:
    """The PR's `parse_liquid_response`: the first call block, markers removed, stripped;
    the text itself without both markers."""
    if START not in text or END not in text:
        return text
    start = text.find(START)
    end = text.find(END, start + len(START))
    answer = text[start + len(START):end] if end != -1 else text
    return answer.replace(START, "").replace(END, "").strip()


def parse(text: str) -> Parsed:
    content = _SURROGATE.sub("", text)
    reasoning = _think(content)
    answer = _without_think(content)
    message: Message = {"role": "assistant", "content": answer}
    if reasoning:
        message["thinking"] = reasoning
    names = [name for name, _ in extract_tool_calls(answer)]
    return Parsed(_first_block(answer), message, reasoning, names)


def results(calls: list[str], outputs: list[str], names: list[str]) -> list[Message]:
    """One `tool` message: each result with the name of the call read in that place."""
    rows = [{"name": name, "result": output}
            for output, name in zip(outputs, names, strict=False)]
    return [{"role": "tool", "content": repr(rows)}]


FAMILY = Family("lfm2", "lfm2.py (upstream PR #1341) LFM2Handler", render, prepare, parse,
                results, fc_names="underscore", docs="openai")
