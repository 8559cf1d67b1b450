"""FC mode: the function docs of a case -> the `tools` of an OpenAI-style request (spec §4.3).

The official tool converts Gorilla types to JSON-schema types with a fixed table (read from the
fetched constants, `type_mappings.GORILLA_TO_OPENAPI`), marks floats (`format: float` plus a
sentence in the description), recurses one or two levels into `properties`/`items`, forces the
top-level schema type to `object`, and replaces the dots in function names with underscores
(OpenAI names must match `^[a-zA-Z0-9_-]{1,64}$`). The decoder maps the names back through the
`fc_names: underscore` setting of model.json, so results keep the underscored names.

Where the official code would crash on a malformed doc (a parameter without a description, an
element type outside the table), fcbench is lenient: unknown types become `string`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fcbench.models.base import plain_copy

FLOAT_NOTE = " This is a float type value."
"""Appended to a float parameter's description (the official wording)."""


def fc_name(name: str) -> str:
    """The name a function is sent under: dots become underscores."""
    return name.replace(".", "_")


def convert_tools(
    functions: list[dict[str, Any]], type_map: Mapping[str, str], *, in_place: bool = False
) -> list[dict[str, Any]]:
    """OpenAI Chat Completions `tools` for a case's (already language-hinted) function docs.

    `in_place` edits the given docs instead of a copy (for callers that own a fresh copy).
    """
    tools: list[dict[str, Any]] = []
    for doc in functions if in_place else plain_copy(functions):
        doc["name"] = fc_name(str(doc.get("name", "")))
        params = doc.setdefault("parameters", {})
        params["type"] = "object"
        params["properties"] = _cast(params.get("properties") or {}, type_map)
        tools.append({"type": "function", "function": doc})
    return tools


def _cast(properties: dict[str, Any], type_map: Mapping[str, str]) -> dict[str, Any]:
    """Map each property's Gorilla type, recursing the way the official converter does."""
    for schema in properties.values():
        if not isinstance(schema, dict):
            continue
        gorilla = schema.get("type")
        if gorilla is None:
            schema["type"] = "string"
        else:
            if gorilla == "float":
                schema["format"] = "float"
                schema["description"] = str(schema.get("description", "")) + FLOAT_NOTE
            schema["type"] = _mapped(gorilla, type_map)
        if schema["type"] in ("array", "object"):
            _cast_nested(schema, type_map)
    return properties


def _cast_nested(schema: dict[str, Any], type_map: Mapping[str, str]) -> None:
    """Containers: nested properties recurse; list items get one or two levels mapped."""
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = _cast(schema["properties"], type_map)
        return
    items = schema.get("items")
    if not isinstance(items, dict):
        return
    items["type"] = _mapped(items.get("type"), type_map)
    inner = items.get("items")
    if items["type"] == "array" and isinstance(inner, dict):
        inner["type"] = _mapped(inner.get("type"), type_map)
    elif items["type"] == "object" and isinstance(items.get("properties"), dict):
        items["properties"] = _cast(items["properties"], type_map)


def _mapped(gorilla: Any, type_map: Mapping[str, str]) -> str:
    return type_map.get(gorilla, "string") if isinstance(gorilla, str) else "string"
