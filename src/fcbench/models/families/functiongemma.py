"""FunctionGemma 270M (`functiongemma.py FunctionGemmaHandler`): a `developer` turn with each
doc as `<start_function_declaration>declaration:NAME{...}<end_function_declaration>`, strings
wrapped in `<escape>` tokens, keys sorted, types upper-cased; assistant calls rendered back as
`<start_function_call>call:NAME{...}`, tool results as `<start_function_response>`."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

ESCAPE = "<escape>"
SYSTEM_PROMPT = "You are a model that can do function calling with the following functions"
_SKIPPED = {"description", "type", "properties", "required", "nullable"}


def esc(value: Any) -> str:
    return f"{ESCAPE}{value}{ESCAPE}"


def value_text(value: Any, escape_keys: bool = True) -> str:
    """A value in FunctionGemma's notation (null/true/false, escaped strings, sorted keys)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return esc(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(value_text(v, escape_keys) for v in value) + "]"
    if isinstance(value, dict):
        parts = [f"{esc(k) if escape_keys else k}:{value_text(v, escape_keys)}"
                 for k, v in sorted(value.items())]
        return "{" + ",".join(parts) + "}"
    return str(value)


def _property(key: str, schema: dict[str, Any]) -> str:
    kind = schema.get("type", "").upper()
    out = f"{key}:{{description:{esc(schema.get('description', ''))}"
    if kind == "STRING" and "enum" in schema:
        out += f",enum:{value_text(schema['enum'])}"
    elif kind == "OBJECT":
        out += ",properties:{" + _properties(schema.get("properties", {})) + "}"
        if schema.get("required", []):
            out += ",required:[" + ",".join(esc(r) for r in schema["required"]) + "]"
    elif kind == "ARRAY":
        out += _items(schema)
    return out + f",type:{esc(kind)}}}"


def _items(schema: dict[str, Any]) -> str:
    items = schema.get("items", {})
    if not items:
        return ""
    parts = []
    for key, value in sorted(items.items()):
        if value is None:
            continue
        if key == "properties" and isinstance(value, dict):
            parts.append("properties:{" + _properties(value) + "}")
        elif key == "required":
            parts.append("required:[" + ",".join(esc(r) for r in value) + "]")
        elif key == "type":
            kind = value.upper() if isinstance(value, str) else [t.upper() for t in value]
            parts.append(f"type:{value_text(kind)}")
        else:
            parts.append(f"{key}:{value_text(value)}")
    return ",items:{" + ",".join(parts) + "}"


def _properties(properties: dict[str, Any]) -> str:
    if not properties:
        return ""
    return ",".join(_property(k, v) for k, v in sorted(properties.items()) if k not in _SKIPPED)


def declaration(doc: Doc) -> str:
    function = doc["function"] if isinstance(doc.get("function"), dict) else doc
    description = esc(function.get("description", ""))
    out = f"declaration:{function.get('name', '')}{{description:{description}"
    params = function.get("parameters", {})
    if params:
        if params.get("properties", {}):
            out += ",properties:{" + _properties(params["properties"]) + "}"
        if params.get("required", []):
            out += ",required:[" + ",".join(esc(r) for r in params["required"]) + "]"
        if "type" in params:
            out += f",type:{esc(params['type'].upper())}"
    return out + "}"


def _system(messages: list[Message], functions: list[Doc]) -> str:
    system = SYSTEM_PROMPT
    if messages and messages[0]["role"] == "system":
        system = messages[0]["content"]
    if not functions and not system:
        return ""
    out = "<start_of_turn>developer\n" + (f"{system.strip()}\n" if system else "")
    for doc in functions or []:
        out += f"<start_function_declaration>{declaration(doc)}<end_function_declaration>"
    return out + "<end_of_turn>\n"


def _model_turn(message: Message) -> str:
    content = message.get("content", "")
    out = "<start_of_turn>model\n" + (content.strip() if content else "")
    for call in message.get("tool_calls", []):
        function = call.get("function", {})
        args = function.get("arguments")
        if isinstance(args, str):
            with contextlib.suppress(json.JSONDecodeError):
                args = json.loads(args)
        out += f"<start_function_call>call:{function.get('name')}"
        out += value_text(args, False) if isinstance(args, dict) else f"{{value:{esc(args)}}}"
        out += "<end_function_call>"
    return out + "<end_of_turn>\n"


def _tool_turn(message: Message) -> str:
    content = message.get("content", "")
    try:
        data = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        data = content
    body = value_text(data, False) if isinstance(data, dict) else f"{{value:{esc(str(content))}}}"
    name = message.get("name", "unknown_tool")
    return f"<start_function_response>response:{name}{body}<end_function_response>"


def render(messages: list[Message], functions: list[Doc]) -> str:
    out = _system(messages, functions)
    rest = messages[1:] if messages and messages[0]["role"] == "system" else messages
    for message in rest:
        role = message["role"]
        if role == "user":
            out += f"<start_of_turn>user\n{message.get('content', '').strip()}<end_of_turn>\n"
        elif role == "assistant":
            out += _model_turn(message)
        elif role == "tool":
            out += _tool_turn(message)
    return out + "<start_of_turn>model\n"


FAMILY = Family("functiongemma", "functiongemma.py FunctionGemmaHandler", render,
                own_system_prompt, fc=True)
