"""The language hints the official tool adds to function docs before a model sees them.

Spec §2.5 point 3: every description gets a sentence naming the docs' language; for Java and
JavaScript every parameter is retyped `string` and its description says what it really is.
These sentences live inside a function of the official tool (not in its constants), so they
are the one piece of wording fcbench states itself (`HINTS`). They belong to the data layer
because the official loader applies them when it loads entries for generation, and the
format-sensitivity entries are assembled from entries loaded that way (see
`dataset/format_sensitivity.py`).
"""

from __future__ import annotations

import json
import marshal
from typing import Any

from fcbench.core.categories import Language

HINTS: dict[Language, str] = {
    Language.PYTHON: " Note that the provided function is in Python 3 syntax.",
    Language.JAVA: " Note that the provided function is in Java 8 SDK syntax.",
    Language.JAVASCRIPT: " Note that the provided function is in JavaScript syntax.",
}
_LANG_NAME = {Language.JAVA: "Java", Language.JAVASCRIPT: "JavaScript"}


def with_language_hints(
    functions: list[dict[str, Any]], language: Language
) -> list[dict[str, Any]]:
    """Copies of the docs with the generation-time language hints (spec §2.5 point 3)."""
    docs: list[dict[str, Any]] = marshal.loads(marshal.dumps(functions))  # a deep copy
    for doc in docs:
        doc["description"] = str(doc.get("description", "")) + HINTS[language]
        if language is not Language.PYTHON:
            properties = (doc.get("parameters") or {}).get("properties") or {}
            for schema in properties.values():
                if isinstance(schema, dict):
                    _stringify_param(schema, language)
    return docs


def _stringify_param(schema: dict[str, Any], language: Language) -> None:
    """Java/JS parameters are sent as strings; the description says what they really are."""
    lang = _LANG_NAME[language]
    kind = schema.get("type")
    note = str(schema.get("description", ""))
    if kind == "any":
        note += f" This parameter can be of any type of {lang} object in string representation."
    else:
        note += f" This is {lang} {kind} type parameter in string representation."
    array_types = ("ArrayList", "Array") if language is Language.JAVA else ("array",)
    if kind in array_types:
        element = (schema.get("items") or {}).get("type")
        note += f" The list elements are of type {element}; they are not in string representation."
        schema.pop("items", None)
    if language is Language.JAVASCRIPT and kind == "dict" and "properties" in schema:
        note += (
            " The dictionary entries have the following schema; they are not in string "
            f"representation. {json.dumps(schema['properties'])}"
        )
        del schema["properties"]
    schema["description"] = note
    schema["type"] = "string"
