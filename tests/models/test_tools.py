"""FC tool conversion (spec §4.3): type table, float note, nesting, dotted names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset.prompt_texts import PromptTexts, load_texts
from fcbench.models.tools import FLOAT_NOTE, convert_tools, fc_name


@pytest.fixture
def texts(fetched_home: Path) -> PromptTexts:
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    return load_texts(DEFAULT_RELEASE)


def doc(properties: dict[str, Any], name: str = "math.factorial") -> dict[str, Any]:
    return {
        "name": name,
        "description": "d",
        "parameters": {"type": "dict", "properties": properties, "required": []},
    }


def test_names_types_and_top_level_object(texts: PromptTexts) -> None:
    original = doc({"n": {"type": "integer", "description": "x"}, "s": {"type": "String"}})
    [tool] = convert_tools([original], texts.type_map)
    assert tool["type"] == "function"
    fn = tool["function"]
    assert fn["name"] == "math_factorial"
    assert fn["parameters"]["type"] == "object"
    assert fn["parameters"]["properties"]["n"]["type"] == "integer"
    assert fn["parameters"]["properties"]["s"]["type"] == "string"
    assert original["name"] == "math.factorial"  # the input is not modified
    assert original["parameters"]["type"] == "dict"


def test_float_gets_format_and_note(texts: PromptTexts) -> None:
    [tool] = convert_tools([doc({"x": {"type": "float", "description": "A."}})], texts.type_map)
    schema = tool["function"]["parameters"]["properties"]["x"]
    assert schema == {"type": "number", "format": "float", "description": "A." + FLOAT_NOTE}


def test_nesting_and_unknown_types(texts: PromptTexts) -> None:
    props = {
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "float"}}},
        "rows": {
            "type": "array",
            "items": {"type": "dict", "properties": {"k": {"type": "tuple"}}},
        },
        "obj": {"type": "dict", "properties": {"inner": {"type": "float", "description": ""}}},
        "odd": {"type": "Weird"},
        "untyped": {"description": "no type"},
    }
    [tool] = convert_tools([doc(props)], texts.type_map)
    out = tool["function"]["parameters"]["properties"]
    assert out["grid"]["items"] == {"type": "array", "items": {"type": "number"}}
    assert out["rows"]["items"]["type"] == "object"
    assert out["rows"]["items"]["properties"]["k"]["type"] == "array"
    assert out["obj"]["type"] == "object"
    assert out["obj"]["properties"]["inner"]["format"] == "float"
    assert out["odd"]["type"] == "string"
    assert out["untyped"]["type"] == "string"


def test_fc_name() -> None:
    assert fc_name("a.b.c") == "a_b_c"
    assert fc_name("plain") == "plain"
