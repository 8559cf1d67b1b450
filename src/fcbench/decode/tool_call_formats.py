"""Tool-call formats: client-side parsers for tool calls that open models write as text.

A model served without a server-side tool parser answers with text such as
`<tool_call>{"name": "f", "arguments": {...}}</tool_call>`. `--tool-call-format` names the
convention (not to be confused with an output format, `decode.families`: how a family's
prompt-mode output is decoded when scoring); the parser turns the text into the FC stored
form `[{name: arguments_json}]`, so the FC decoder and checker see exactly what a server-side
parser would have produced. Text in
which no call is found is kept as text (an answer without a call, like the official FC result).
Nothing here evaluates model text: JSON is parsed with `json`, Python calls with `ast`.

`PARSERS` is the registry `--tool-call-format` offers (`names()`): one function + one line adds a
convention; `register` adds one at run time, and an installed package through the
`fcbench.text_parsers` entry-point group (a function `text -> calls | None`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fcbench import plugins
from fcbench.decode.spans import trimmed_tagged_bodies

FcResult = list[dict[str, str]]

TOOL_CALLS, ARGS = "[TOOL_CALLS]", "[ARGS]"
"""Mistral's markers: before the calls, and between a call's name and its arguments."""
_MISTRAL_NAMED = re.compile(re.escape(TOOL_CALLS) + r"\s*([A-Za-z0-9_.\-]+)\s*" + re.escape(ARGS))


def _item(obj: Any) -> dict[str, str] | None:
    """`{"name": n, "arguments"|"parameters": a}` -> `{n: json(a)}`; None if not that shape."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        return _item(obj["function"])
    args = obj.get("arguments", obj.get("parameters", {}))
    return {obj["name"]: args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}


def _items(value: Any) -> FcResult:
    values = value if isinstance(value, list) else [value]
    found = [_item(v) for v in values]
    return [f for f in found if f is not None]


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the interpreter's depth
        return None


def parse_hermes(text: str) -> FcResult | None:
    """Hermes / Qwen: one `<tool_call>{json}</tool_call>` block per call."""
    calls: FcResult = []
    for body in trimmed_tagged_bodies(text, "<tool_call>", "</tool_call>"):
        calls.extend(_items(_loads(body)))
    return calls or None


def parse_llama3(text: str) -> FcResult | None:
    """Llama 3.x JSON tool calls: `{"name": .., "parameters": ..}`, a list, or `;`-separated."""
    body = text.replace("<|python_tag|>", "").replace("<|eom_id|>", "").strip()
    body = body.removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    whole = _loads(body)
    if whole is not None:
        return _items(whole) or None
    calls: FcResult = []
    for part in body.split(";"):
        calls.extend(_items(_loads(part.strip())))
    return calls or None


def parse_mistral(text: str) -> FcResult | None:
    """Mistral: `[TOOL_CALLS][{...}, ...]`, or the newer `[TOOL_CALLS]name[ARGS]{...}`."""
    if TOOL_CALLS not in text:
        return None
    named = list(_MISTRAL_NAMED.finditer(text))
    if named:
        calls: FcResult = []
        for match in named:
            try:
                args = json_value_at(text, match.end())
            except (ValueError, RecursionError):
                continue
            calls.append({match.group(1): json.dumps(args, ensure_ascii=False)})
        return calls or None
    body = text.split(TOOL_CALLS, 1)[1].strip()
    try:
        value, _ = json.JSONDecoder().raw_decode(body)
    except (ValueError, RecursionError):
        return None
    return _items(value) or None


_WINDOW = 512
_LOOKAHEAD = 16
"""Characters past a value's end (or an error's place) the JSON scanner may have looked at
(a number's exponent, `-Infinity`, a `\\uXXXX\\uXXXX` pair): a value or an error that far
inside a window is the whole text's."""
_MAY_CONTINUE = "Unterminated string"
"""The one error reported at the string's start, not where the scanner stopped reading."""


def json_value_at(text: str, start: int) -> Any:
    """`json.JSONDecoder().raw_decode(text, start)[0]`, in time bounded by what it reads.

    `raw_decode` on the whole text costs as much as the text before `start` when it fails
    (its error counts the lines up to there), so reading a value after each of many markers
    is quadratic (`[TOOL_CALLS]f[ARGS]` repeated). The value is read from a window after
    `start` instead, doubled while the window's end may have decided the outcome; the result,
    or the error, is the whole text's."""
    decoder = json.JSONDecoder()
    size = _WINDOW
    while True:
        window = text[start:start + size]
        whole = start + size >= len(text)
        try:
            value, end = decoder.raw_decode(window)
        except json.JSONDecodeError as exc:
            if whole or (exc.pos + _LOOKAHEAD < len(window)
                         and not exc.msg.startswith(_MAY_CONTINUE)):
                raise
        else:
            if whole or end + _LOOKAHEAD < len(window):
                return value
        size *= 2


def parse_python_list(text: str) -> FcResult | None:
    """The benchmark's own `[f(a=1), g(b='x')]` format, parsed (never run) like prompt mode."""
    from fcbench.decode.errors import DecodeError
    from fcbench.decode.python_calls import decode_prompt

    try:
        calls = decode_prompt(text)
    except DecodeError:
        return None
    try:
        return [{c.name: json.dumps(c.args, ensure_ascii=False)} for c in calls] or None
    except (TypeError, ValueError):
        return None


TextParser = Callable[[str], FcResult | None]
"""Model text -> the FC stored form of the calls in it, or None when it holds none."""


def _plugin_parser(name: str, value: object) -> TextParser:
    if not callable(value):
        raise TypeError(f"not a parser function but {type(value).__name__}")
    parser: TextParser = value
    return parser


PARSERS: plugins.Registry[TextParser] = plugins.Registry(plugins.TEXT_PARSERS, {
    "hermes": parse_hermes,
    "llama3": parse_llama3,
    "mistral": parse_mistral,
    "python": parse_python_list,
}, _plugin_parser)
"""`--tool-call-format` name -> parser."""


def register(name: str, parser: TextParser) -> None:
    """Add (or replace) a text parser at run time."""
    PARSERS[name] = parser


def names() -> list[str]:
    """Every text parser's name (installed plugins' included)."""
    return list(PARSERS)


def parse_text_calls(fmt: str, text: str) -> FcResult | None:
    """The calls in `text` under convention `fmt`, or None when it holds none."""
    try:
        parser = PARSERS[fmt]
    except KeyError:
        raise ValueError(f"unknown output format {fmt!r} (known: {', '.join(PARSERS)})") from None
    return parser(text)


def as_tool_calls(calls: FcResult) -> tuple[dict[str, Any], list[str]]:
    """Calls parsed from text as the assistant message of a conversation (OpenAI layout, ids
    made up) and those ids: chat templates render the calls, tool results answer them."""
    ids = [f"call_{i}" for i in range(len(calls))]
    tool_calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        for call_id, call in zip(ids, calls, strict=True)
        for name, args in call.items()
    ]
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}, ids
