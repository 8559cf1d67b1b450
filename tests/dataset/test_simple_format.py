"""The simple JSONL authoring format, converted to BFCL question and answer lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset.simple_format import FormatError, convert_jsonl, gorilla_doc

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather.", "strict": True,
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City."},
        "days": {"type": "integer"},
        "ratio": {"type": ["number", "null"]},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
        "tags": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}}}},
    }, "required": ["city"]}}}


def convert(lines: list[Any], checker: str = "ast_simple", category: str = "cat") -> Any:
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    return convert_jsonl(text, category, checker)


def rows(texts: list[str]) -> list[Any]:
    return [json.loads(t) if t else None for t in texts]


def test_tool_schemas_become_gorilla_docs() -> None:
    doc = gorilla_doc(WEATHER)
    assert doc == {"name": "get_weather", "description": "Weather.", "parameters": {
        "type": "dict", "required": ["city"], "properties": {
            "city": {"type": "string", "description": "City."},
            "days": {"type": "integer"},
            "ratio": {"type": "float"},
            "where": {"type": "dict", "properties": {"lat": {"type": "float"}}},
            "tags": {"type": "array", "items": {"type": "dict", "properties": {
                "name": {"type": "string"}}}}}}}
    bare = gorilla_doc({"name": "ping"})
    assert bare == {"name": "ping", "description": "",
                    "parameters": {"type": "dict", "properties": {}}}


def test_docs_go_back_to_the_same_tools(fetched_home: Path) -> None:
    """Gorilla docs made from OpenAI tools are sent as those tools again (numbers get the
    official float note), so the model sees what the author wrote."""
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.tools import FLOAT_NOTE, convert_tools

    tool = {"type": "function", "function": {
        "name": "book", "description": "Book.", "parameters": {"type": "object", "properties": {
            "seats": {"type": "integer", "description": "How many."},
            "names": {"type": "array", "items": {"type": "string"}, "description": "Who."},
            "vip": {"type": "boolean", "description": "VIP?", "enum": [True, False]},
            "price": {"type": "number", "description": "Max."}}, "required": ["seats"]}}}
    sent = convert_tools([gorilla_doc(tool)], load_texts("2026.3.23").type_map)[0]
    expected = json.loads(json.dumps(tool))
    expected["function"]["parameters"]["properties"]["price"].update(
        {"format": "float", "description": "Max." + FLOAT_NOTE})
    assert sent == expected


@pytest.mark.parametrize("schema, message", [
    ({"type": ["string", "integer"]}, "unions are not supported"),
    ({"description": "no type"}, "type None"),
    ({"type": "date"}, "type 'date'"),
])
def test_unsupported_schemas(schema: dict[str, Any], message: str) -> None:
    tool = {"name": "f", "parameters": {"type": "object", "properties": {"x": schema}}}
    with pytest.raises(FormatError, match=message):
        gorilla_doc(tool)


def test_single_turn_lines() -> None:
    out = convert([
        {"id": "w1", "tools": [WEATHER], "messages": [{"role": "user", "content": "Paris?"}],
         "expected": [{"get_weather": {"city": ["Paris", "paris"], "days": 3,
                                       "where": {"lat": 48.8}, "tags": [[{"name": "x"}]]}}],
         "metadata": {"source": "ticket 12"}},
        {"tools": [WEATHER], "question": "Lima?",
         "expected": [{"name": "get_weather", "arguments": {"city": "Lima", "days": ["", 1]}}]},
    ])
    assert out.problems == [] and out.cases == 2 and (out.max_functions, out.max_calls) == (1, 1)
    q0, q1 = rows(out.questions)
    a0, a1 = rows(out.answers)
    assert q0["id"] == "w1" and q0["question"] == [[{"role": "user", "content": "Paris?"}]]
    assert q0["function"] == [gorilla_doc(WEATHER)] and q0["metadata"] == {"source": "ticket 12"}
    assert a0 == {"id": "w1", "ground_truth": [{"get_weather": {
        "city": ["Paris", "paris"], "days": [3], "where": [{"lat": [48.8]}],
        "tags": [[{"name": "x"}]]}}]}
    assert q1["id"] == "cat_1" and q1["question"] == [[{"role": "user", "content": "Lima?"}]]
    assert a1["ground_truth"] == [{"get_weather": {"city": ["Lima"], "days": ["", 1]}}]


def test_lines_stay_where_they_were_and_problems_name_them() -> None:
    out = convert([
        {"tools": [WEATHER], "question": "a", "expected": [{"get_weather": {"city": "a"}}]},
        "",
        "{not json",
        {"tools": [WEATHER], "question": "b", "expect": []},
        {"id": "cat_0", "tools": [WEATHER], "question": "c", "expected": [{"f": {}}]},
        {"tools": [WEATHER], "messages": [], "expected": [{"f": {}}]},
        {"tools": [WEATHER], "question": "e", "expected": [{"f": {}, "g": {}}]},
        ["a list"],
        {"tools": [WEATHER], "question": "g", "expected": [{"f": {}}]},
    ])
    assert [bool(q) for q in out.questions] == [True, False, False, False, False, False, False,
                                                False, True]
    problems = {line: (case_id, message) for line, case_id, message in out.problems}
    assert sorted(problems) == [3, 4, 5, 6, 7, 8]
    assert problems[3][1].startswith("not valid JSON")
    assert problems[4] == ("cat_2", problems[4][1]) and "unknown field(s) expect" in problems[4][1]
    assert problems[5] == ("cat_0", "the id is used already on line 1")
    assert "`messages` must be a non-empty list" in problems[6][1]
    assert "neither {function: {...}} nor {name, arguments}" in problems[7][1]
    assert problems[8][1] == "not a JSON object"
    assert rows(out.questions)[8]["id"] == "cat_7"  # ids count cases, broken ones included


def test_irrelevance_relevance_and_exec() -> None:
    irrelevant = convert([{"tools": [WEATHER], "question": "hi", "expected": []},
                          {"tools": [WEATHER], "question": "hi"},
                          {"tools": [WEATHER], "question": "hi", "expected": [{"f": {}}]}],
                         "irrelevance")
    assert [p[0] for p in irrelevant.problems] == [3] and irrelevant.answers[:2] == ["", ""]
    relevant = convert([{"tools": [WEATHER], "question": "hi"}], "relevance")
    assert relevant.problems == [] and relevant.answers == [""]
    exe = convert([
        {"tools": [], "question": "x", "expected": ["math_gcd(a=1, b=2)",
                                                    {"math_lcm": {"a": 4, "b": "six"}}]},
        {"tools": [], "question": "y", "expected": ["f()"], "execution_result_type": []},
    ], "exec")
    assert rows(exe.answers)[0] == {"id": "cat_0", "ground_truth": [
        "math_gcd(a=1, b=2)", "math_lcm(a=4, b='six')"],
        "execution_result_type": ["exact_match", "exact_match"]}
    assert exe.max_calls == 2 and "one match kind per expected call" in exe.problems[0][2]


def test_multi_turn_and_agentic() -> None:
    out = convert([
        {"involved_classes": ["MathAPI"], "turns": ["one", {"role": "user", "content": "two"},
                                                    [{"role": "user", "content": "three"}], []],
         "expected": [["add(a=1, b=2)"], [{"multiply": {"a": 2, "b": 3}}], [], []],
         "missed_function": {"1": ["multiply"]}},
        {"turns": ["x"], "expected": [[]]},
        {"involved_classes": ["MathAPI"], "turns": ["x"], "tools": [], "expected": [[]]},
    ], "multi_turn")
    question, answer = rows(out.questions)[0], rows(out.answers)[0]
    assert question["question"] == [[{"role": "user", "content": "one"}],
                                    [{"role": "user", "content": "two"}],
                                    [{"role": "user", "content": "three"}], []]
    assert question["initial_config"] == {} and question["missed_function"] == {"1": ["multiply"]}
    assert answer["ground_truth"] == [["add(a=1, b=2)"], ["multiply(a=2, b=3)"], [], []]
    assert "involved_classes" in out.problems[0][2] and "unknown field(s) tools" in \
        out.problems[1][2]


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "a\r\nb\n\n", "\n", "é\n\rx"])
def test_a_file_is_read_a_line_at_a_time_as_split_gives_it(text: str) -> None:
    """Large custom files are converted line by line (`file_lines`); the lines, and so the
    line numbers of problems and the converted texts, are those of `text.split("\\n")`."""
    import io

    from fcbench.dataset.simple_format import file_lines

    assert list(file_lines(io.BytesIO(text.encode()))) == text.split("\n")
