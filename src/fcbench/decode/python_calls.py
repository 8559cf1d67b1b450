"""Prompt-mode decoding: a model's text reply -> calls, in the benchmark's return formats.

The default format is Python call syntax in brackets (`[f(a=1), g(b="x")]`); the JSON and the
two XML formats and the `<TOOLCALL>` tag variant exist for the format-sensitivity category and
for models prompted that way. Each rule below reproduces the official decoder, including its
quirks (spec §4.2): positional arguments are dropped, a unary operator always negates, a
language-tagged code fence breaks parsing, and so on.
"""

from __future__ import annotations

import ast
import json
import xml.etree.ElementTree as ET
from enum import Enum
from typing import Any

from fcbench.core.model import Call
from fcbench.decode import arithmetic, spans
from fcbench.decode.budget import Budget, check_raw
from fcbench.decode.calls import calls_from_decoded
from fcbench.decode.errors import DecodeError
from fcbench.decode.fast_calls import fast_python_calls


class ReturnFormat(str, Enum):
    PYTHON = "python"
    JSON = "json"
    VERBOSE_XML = "verbose_xml"
    CONCISE_XML = "concise_xml"


TOOLCALL_TAGS = ("<TOOLCALL>", "</TOOLCALL>")
_FUNCTIONS_TAGS = ("<functions>", "</functions>")


def bracketed(text: str) -> str:
    """The official pre-processing: strip backticks/newlines/spaces, then wrap in brackets."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


def decode_prompt(
    text: str, fmt: ReturnFormat = ReturnFormat.PYTHON, tool_call_tag: bool = False
) -> list[Call]:
    """Decode a prompt-mode reply into calls; raises DecodeError like the official decoder."""
    if not isinstance(text, str):
        raise DecodeError(f"'{type(text).__name__}' object has no attribute 'strip'")
    check_raw(text)
    body = bracketed(text)
    try:
        if fmt is ReturnFormat.PYTHON and not tool_call_tag:
            fast = fast_python_calls(body)  # its output always has the call shape
            if fast is not None:
                return [Call(name, args) for item in fast for name, args in item.items()]
            decoded = python_calls_ast(body)
        else:
            decoded = _decode(body, fmt, tool_call_tag)
    except DecodeError:
        raise
    except (Exception, RecursionError) as exc:  # every parser failure is a decode failure
        raise DecodeError(str(exc)) from None  # checkers add the official prefix
    return calls_from_decoded(decoded)


def _decode(text: str, fmt: ReturnFormat, tool_call_tag: bool) -> Any:
    if tool_call_tag:
        text = tool_call_body(text).strip()
    if fmt is ReturnFormat.PYTHON:
        return python_calls(text)
    if fmt is ReturnFormat.JSON:
        return _json_calls(text)
    span = spans.tagged(text, *_FUNCTIONS_TAGS)
    if span is None:
        raise DecodeError(
            f"No XML function call found in input string: {text}. Missing <functions> tag."
        )
    opening, closing = _FUNCTIONS_TAGS
    root = ET.fromstring(text[span[0] - len(opening) : span[1] + len(closing)])
    if fmt is ReturnFormat.VERBOSE_XML:
        return _verbose_xml_calls(root)
    return _concise_xml_calls(root)


def tool_call_body(text: str) -> str:
    """The body of the first `<TOOLCALL>...</TOOLCALL>` (the official `re.search` of
    `<TOOLCALL>(.*?)</TOOLCALL>`, found in linear time)."""
    span = spans.tagged(text, *TOOLCALL_TAGS)
    if span is None:
        raise DecodeError(f"No tool call tag found in input string: {text}")
    return text[span[0] : span[1]]


# --- Python call syntax -------------------------------------------------------------------


def python_calls(text: str) -> list[dict[Any, Any]]:
    """`[f(a=1), g(b=2)]` (or a single call) -> `[{"f": {"a": 1}}, {"g": {"b": 2}}]`."""
    fast = fast_python_calls(text)  # the common literal-only subset, without compile()
    return fast if fast is not None else python_calls_ast(text)


def python_calls_ast(text: str) -> list[dict[Any, Any]]:
    """`python_calls` by `ast.parse`: the reference for every input (the fast path's oracle)."""
    body = ast.parse(text.strip().strip("'"), mode="eval").body
    budget = Budget()  # one for the whole answer
    if isinstance(body, ast.Call):
        return [_call(body, budget)]
    if not isinstance(body, (ast.List, ast.Tuple, ast.Set)):
        # upstream reads `.elts` of whatever it parsed
        raise DecodeError(f"'{type(body).__name__}' object has no attribute 'elts'")
    calls = []
    for element in body.elts:
        if not isinstance(element, ast.Call):
            raise DecodeError("")  # upstream's bare `assert`: an empty message
        calls.append(_call(element, budget))
    return calls


def dotted_name(func: ast.expr) -> str:
    """`a.b.c` for attribute chains; a non-name base contributes nothing (official rule)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def resolve_call(node: ast.Call, budget: Budget) -> dict[Any, Any]:
    """`{dotted.name: {kw: value}}` of one parsed call (for decoders that find calls in
    statements rather than in one bracketed expression; `budget` is the answer's)."""
    return _call(node, budget)


def _call(node: ast.Call, budget: Budget) -> dict[Any, Any]:
    """Keyword arguments only: the official decoder silently drops positional ones."""
    args: dict[Any, Any] = {}
    for keyword in node.keywords:
        args[keyword.arg] = _value(keyword.value, budget)
    return {dotted_name(node.func): args}


def _value(node: ast.expr, budget: Budget) -> Any:
    """An argument's value, by the official decoder's rules for each kind of expression."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        return _unary(node)
    if isinstance(node, ast.List):
        return [_value(e, budget) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _dict_key(k, budget): _value(v, budget)
            for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.BinOp):
        return arithmetic.evaluate(node, budget)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _call(node, budget) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Tuple):
        return tuple(_value(e, budget) for e in node.elts)
    if isinstance(node, ast.Lambda):
        # upstream evaluates `node.body[0]`, which fails before anything runs
        raise DecodeError(f"'{type(node.body).__name__}' object is not subscriptable")
    if isinstance(node, ast.Subscript):
        return f"{ast.unparse(node.value)}[{ast.unparse(node.slice)}]"
    raise DecodeError(f"Unsupported AST type: {type(node)}")


def _unary(node: ast.UnaryOp) -> Any:
    """[quirk] Any unary operator negates its operand's literal value (`+5` -> -5)."""
    operand = node.operand
    if not isinstance(operand, ast.Constant):
        raise DecodeError(f"unary operator on {type(operand).__name__}")
    value: Any = operand.value
    return -value


def _dict_key(node: ast.expr | None, budget: Budget) -> Any:
    if node is None:
        raise DecodeError("Unsupported AST type: <class 'NoneType'>")
    return _value(node, budget)


# --- JSON and XML return formats -----------------------------------------------------------


def _json_calls(text: str) -> list[dict[Any, Any]]:
    """`[{"function": name, "parameters": {...}}, ...]`; unparsable JSON decodes to []."""
    for find in (spans.outer_brackets, spans.json_call_list):  # the official two regexes
        span = find(text)
        if span is not None:
            text = text[span[0] : span[1]]
    try:
        items = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [{item["function"]: item["parameters"]} for item in items if isinstance(item, dict)]


def _verbose_xml_calls(root: ET.Element) -> list[dict[Any, Any]]:
    """`<function name=f><params><param name=a value=1 type=integer/></params></function>`."""
    calls = []
    for func in root.findall("function"):
        container = func.find("params")
        params = (container if container is not None else func).findall("param")
        args = {
            p.attrib.get("name"): _xml_value(p.attrib.get("value", ""), p.attrib.get("type"))
            for p in params
        }
        calls.append({func.attrib["name"]: args})
    return calls


def _concise_xml_calls(root: ET.Element) -> list[dict[Any, Any]]:
    """`<function name=f><param name=a type=integer>1</param></function>`."""
    calls = []
    for func in root.findall("function"):
        args = {
            p.attrib["name"]: _xml_value((p.text or "").strip(), p.attrib.get("type"))
            for p in func.findall("param")
        }
        calls.append({func.attrib["name"]: args})
    return calls


def _xml_value(raw: str, type_name: str | None) -> Any:
    """Convert an XML parameter's text by its `type` attribute (missing type = string)."""
    if type_name is None or type_name == "string":
        return raw
    if type_name == "integer":
        return int(raw)
    if type_name == "float":
        return float(raw)
    if type_name == "boolean":
        return raw.lower() == "true"
    if type_name == "null":
        return None
    if type_name in ("array", "tuple", "object", "dict"):
        return ast.literal_eval(raw)  # a parser for literals: never runs code
    return raw
