"""Function docs in the prompt's three doc formats: the layouts, spelled out on small docs,
and the official builder's output on hand-made docs with every feature the renderers read
(nested properties, enums, defaults with commas, element types, additionalProperties, no
`required` list). The real data's 5,200 prompts are compared in test_official_requests.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.models.doc_formats import python_docs, render_docs, xml_docs
from official_bfcl import official_modules

DOC = {
    "name": "math.gcd",
    "description": "Greatest common divisor.",
    "parameters": {
        "type": "dict",
        "properties": {
            "a": {"type": "integer", "description": "First."},
            "mode": {"type": "string", "description": "How.", "enum": ["x", "y"],
                     "default": "x"},
        },
        "required": ["a"],
    },
}

TRICKY = [
    DOC,
    {"name": "no_params", "description": "Nothing.", "parameters": {"type": "dict",
                                                                   "properties": {}}},
    {"name": "a,b", "parameters": {"type": "dict", "properties": {
        "xs": {"type": "array", "items": {"type": "float"}, "description": "Xs.",
               "default": [1, 2]},
        "tup": {"type": "tuple", "items": {"description": "no type"}},
        "ls": {"type": "list"},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "m2": {"type": "dict", "additionalProperties": {}},
        "opt": {"type": "any", "description": "Any, really.", "default": None},
        "nested": {"type": "dict", "description": "N.", "required": ["inner"], "properties": {
            "inner": {"type": "boolean", "description": "I."},
            "deeper": {"type": "dict", "properties": {"leaf": {"type": "number"}}},
        }},
        "untyped": {"description": "no type at all"},
    }}},
]


def test_python_layout() -> None:
    assert python_docs([DOC]) == (
        "# Function: math.gcd\n"
        '    """\n'
        "    Greatest common divisor.\n"
        "\n"
        "    Args:\n"
        "        a (int): First.\n"
        "        mode (str, default='x'): How. Enum values: ['x', 'y'].\n"
        '    """\n'
        "\n\n\n"
    )
    two = python_docs([DOC, DOC])
    assert '    """\n' + "\n" * 5 + "# Function: math.gcd" in two  # block, then 5 newlines


def test_xml_layout() -> None:
    assert xml_docs([DOC]) == (
        '<function name="math.gcd">\n'
        "  <desc>Greatest common divisor.</desc>\n"
        "  <params>\n"
        '    <param name="a" type="integer" required="true">\n'
        "      <desc>First.</desc>\n"
        "    </param>\n"
        '    <param name="mode" type="string" required="false" default="\'x\'">\n'
        "      <desc>How. Enum values: ['x', 'y'].</desc>\n"
        "    </param>\n"
        "  </params>\n"
        "</function>\n"
    )
    assert xml_docs([DOC, DOC]).count("</function>\n\n<function") == 1


def test_xml_drops_every_comma_of_the_attributes() -> None:
    """[quirk] upstream joins the attributes with commas, then deletes all commas."""
    text = xml_docs(TRICKY[2:])
    assert '<function name="a,b">' in text  # the function's own name keeps it
    assert '<param name="xs" type="array[float]" required="true" default="[1 2]">' in text


def test_json_is_the_docs_indented() -> None:
    assert render_docs([DOC], "json") == json.dumps([DOC], indent=4)
    with pytest.raises(ValueError, match="unknown function doc format"):
        render_docs([DOC], "yaml")


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("bfcl_official")
    with official_modules(bfcl_wheel, folder, "bfcl_eval.model_handler.utils") as (utils,):
        yield utils


@pytest.mark.parametrize("doc_format", ["python", "xml", "json"])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_equal_to_the_official_builder(official: Any, doc_format: str, count: int) -> None:
    docs = json.loads(json.dumps(TRICKY[:count]))
    want = official.format_function_doc(json.loads(json.dumps(docs)), doc_format)
    assert render_docs(docs, doc_format) == want
    assert docs == TRICKY[:count]  # rendering leaves the docs alone
