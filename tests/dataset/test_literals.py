"""Extracting the official constants from source text, and what constants.json holds."""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.dataset.fetch import load_constants
from fcbench.dataset.literals import CONSTANT_MODULES, ELLIPSIS_JSON, extract_literals
from fcbench.dataset.load import FUNC_DOC_FILES, VERSION_PREFIX

# --------------------------------------------------------------------------- extract_literals


def test_plain_literals() -> None:
    got = extract_literals("A = 1\nB = 'x'\nC = [1, (2, 3)]\nD = {'k': None, 2: True}\nE = {3}\n")
    assert got == {
        "A": 1, "B": "x", "C": [1, [2, 3]], "D": {"k": None, "2": True}, "E": [3],
        "_unparsed": [],
    }


def test_concatenation_and_names() -> None:
    src = (
        'A = "a"\nB = (\n  "b"\n  "c"\n)\nC = "{x}\\n" + A\n'
        'D = [A] + [B]\nE = {"a": A, **{"b": B}}\n'
    )
    got = extract_literals(src)
    assert got["B"] == "bc"
    assert got["C"] == "{x}\na"
    assert got["D"] == ["a", "bc"]
    assert got["E"] == {"a": "a", "b": "bc"}


def test_fstrings_comprehensions_and_subscripts() -> None:
    src = (
        "P = 'pkg'\nN = 3\nBACKENDS = ['kv', 'vector']\n"
        "M = {'a': f'{P}.mod', 'b': f'{N:03d}-{P!r}'}\n"
        "CATS = [f'memory_{b}' for b in BACKENDS]\n"
        "FIRST = CATS[0]\nSUB = M['a']\nREP = '-' * 3\n"
        "D = {b: len for b in BACKENDS}\n"
    )
    got = extract_literals(src)
    assert got["M"] == {"a": "pkg.mod", "b": "003-'pkg'"}
    assert got["CATS"] == ["memory_kv", "memory_vector"]
    assert got["FIRST"] == "memory_kv"
    assert got["SUB"] == "pkg.mod"
    assert got["REP"] == "---"
    assert got["_unparsed"] == ["D"]  # `len` is not a constant


def test_calls_and_format_are_not_evaluated() -> None:
    src = (
        "import os\nA = 'x{y}'.format(y=1)\nB = os.getenv('X')\nC = A + 'z'\nD = 'ok'\n"
        "def f():\n    INNER = 1\nclass K:\n    ATTR = 2\n"
    )
    got = extract_literals(src)
    assert got == {"D": "ok", "_unparsed": ["A", "B", "C"]}


def test_reassignment_augmented_and_tuples() -> None:
    src = "A = 1\nA = 'two'\nB = 'x'\nB += 'y'\nC, D = 1, [2]\nE = f()\nE = 5\n"
    got = extract_literals(src)
    assert (got["A"], got["B"], got["C"], got["D"], got["E"]) == ("two", "xy", 1, [2], 5)
    assert got["_unparsed"] == []


def test_builtin_types_and_ellipsis() -> None:
    got = extract_literals("T = {'integer': int, 'Set': set}\nL = ['a', ...]\n")
    assert got["T"] == {"integer": "int", "Set": "set"}
    assert got["L"] == ["a", ELLIPSIS_JSON]
    with pytest.raises(TypeError):
        json.dumps({"x": ...})  # why the marker exists


def test_result_is_json() -> None:
    got = extract_literals("A = (1, {2: 'x'})\nB = -3.5\nC = None\n")
    assert json.loads(json.dumps(got)) == got


# --------------------------------------------------------------------------- constants.json


def _wheel_module(wheel: Path, path: str) -> str:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(path).decode("utf-8")


def _assigned_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@pytest.fixture(scope="module")
def constants(fetched_home: Path) -> dict[str, Any]:
    return load_constants()


def test_every_module_is_extracted(constants: dict[str, Any]) -> None:
    assert constants["_missing"] == []
    assert constants["_sources"] == CONSTANT_MODULES
    assert constants["_release"] == "2026.3.23"


@pytest.mark.parametrize("module", sorted(CONSTANT_MODULES))
def test_every_assignment_is_captured(
    module: str, constants: dict[str, Any], bfcl_wheel: Path
) -> None:
    source = _wheel_module(bfcl_wheel, CONSTANT_MODULES[module])
    values = constants[module]
    assert values["_unparsed"] == []
    assert set(values) - {"_unparsed"} == _assigned_names(source)


@pytest.mark.parametrize("module", sorted(CONSTANT_MODULES))
def test_literal_values_match_literal_eval(
    module: str, constants: dict[str, Any], bfcl_wheel: Path
) -> None:
    """Whatever `ast.literal_eval` accepts must come out identical (modulo JSON)."""
    source = _wheel_module(bfcl_wheel, CONSTANT_MODULES[module])
    checked = 0
    for node in ast.parse(source).body:
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            continue
        if node.targets[0].id == "WATCH_LIST_EXTENSION":
            assert value[-1] is Ellipsis
            value = [*value[:-1], ELLIPSIS_JSON]
        assert constants[module][node.targets[0].id] == json.loads(json.dumps(value))
        checked += 1
    assert checked > 0


def test_default_prompt_pieces(constants: dict[str, Any]) -> None:
    prompts = constants["default_prompts"]
    classic = prompts["PROMPT_STYLE_TEMPLATES"]["classic"]
    assert classic["persona"] == "You are an expert in composing functions."
    assert classic["task"].startswith("You are given a question and a set of possible functions.")
    assert set(prompts["PROMPT_STYLE_TEMPLATES"]) == {"classic", "experimental"}
    assert set(prompts["OUTPUT_FORMAT_MAPPING"]) == {"python", "json", "verbose_xml", "concise_xml"}
    assert prompts["DEFAULT_SYSTEM_PROMPT_FORMAT"] == (
        "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic"
    )
    assert prompts["PROMPT_TEMPLATE_MAPPING"]["plaintext"] == (
        prompts["_PLAINTEXT_SYSTEM_PROMPT_TEMPLATE"]
    )
    fc = prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC"]
    assert fc == "I have updated some more functions you can choose from. What about now?"
    assert prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING"] == "{functions}\n" + fc
    agentic = prompts["ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT"]
    assert "I do not know" in agentic and "I cannot answer this question" in agentic
    assert set(prompts["MEMORY_AGENT_SETTINGS"]) == {
        "student", "customer", "finance", "healthcare", "notetaker",
    }
    assert "{memory_content}" in prompts["MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL"]
    assert "{memory_content}" in prompts["MEMORY_BACKEND_INSTRUCTION_UNIFIED"]
    assert prompts["MAXIMUM_STEP_LIMIT"] == 20


def test_default_system_prompt_can_be_rebuilt(constants: dict[str, Any]) -> None:
    """The §4.1 structure: persona glued to the task, python format, double space, functions."""
    prompts = constants["default_prompts"]
    style = prompts["PROMPT_STYLE_TEMPLATES"]["classic"]
    tool_call = style["tool_call_no_tag"].format(
        output_format=prompts["OUTPUT_FORMAT_MAPPING"]["python"],
        param_types=prompts["PARAM_TYPE_MAPPING"]["python"],
    )
    prompt = prompts["PROMPT_TEMPLATE_MAPPING"]["plaintext"].format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=tool_call,
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=style["available_tools"].format(format="json", functions="[]"),
    )
    assert prompt.startswith("You are an expert in composing functions.You are given a question")
    assert "params_name2=params_value2...), func_name2(params)].  You SHOULD NOT" in prompt
    assert prompt.endswith("Here is a list of functions in json format that you can invoke.\n[]\n")


def test_category_constants_agree_with_the_registry(constants: dict[str, Any]) -> None:
    mapping = constants["category_mapping"]
    assert mapping["VERSION_PREFIX"] == VERSION_PREFIX
    assert mapping["MEMORY_CATEGORY"] == ["memory_kv", "memory_vector", "memory_rec_sum"]
    for name, members in mapping["TEST_COLLECTION_MAPPING"].items():
        assert set(categories.COLLECTIONS[name]) == set(members), name
    official = set(mapping["ALL_CATEGORIES"])
    assert official == {c.name for c in categories.CATEGORIES
                        if not c.retired and not c.prerequisite}


def test_backend_constants_agree_with_the_loader(constants: dict[str, Any]) -> None:
    config = constants["executable_backend_config"]
    assert config["MULTI_TURN_FUNC_DOC_FILE_MAPPING"] == FUNC_DOC_FILES
    assert config["CLASS_FILE_PATH_MAPPING"]["MathAPI"].endswith("func_source_code.math_api")


def test_type_tables(constants: dict[str, Any]) -> None:
    types = constants["type_mappings"]
    assert types["GORILLA_TO_PYTHON"]["HashMap"] == "dict"
    assert types["JAVA_TYPE_CONVERSION"]["Set"] == "set"
    assert types["JS_TYPE_CONVERSION"]["Bigint"] == "int"


def test_long_context_fillers(constants: dict[str, Any]) -> None:
    filler = constants["long_context"]
    assert len(filler["WATCH_LIST_EXTENSION"]) == 1001
    assert filler["WATCH_LIST_EXTENSION"][-1] == ELLIPSIS_JSON
    assert filler["FILE_CONTENT_EXTENSION"].startswith("The company's financials")
    assert isinstance(filler["BOOKING_RECORD_EXTENSION"], dict)
