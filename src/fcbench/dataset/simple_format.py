"""The simple authoring format: one JSON object a line, converted on load to BFCL entries.

Writing BFCL files by hand means two files kept in step, Gorilla types and the possible-answer
layout; most teams already have their tools as OpenAI-style JSON schemas and their tests as
conversations. So a custom category may be a `.jsonl` file of lines like

    {"id": "weather_0",
     "tools": [{"type": "function", "function": {"name": "get_weather", "description": "...",
                "parameters": {"type": "object", "properties": {...}, "required": [...]}}}],
     "messages": [{"role": "user", "content": "Weather in Paris, in Celsius?"}],
     "expected": [{"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["celsius", ""]}}]}

* `id` (optional): default `<category>_<n>`, n counting cases from 0;
* `messages` (a list of messages) or `question` (a string: one user message);
* `tools`: OpenAI tool schemas (`{"type": "function", "function": {...}}` or the bare
  function object); JSON-schema types become Gorilla types (object -> dict, number -> float,
  the others by name), nested `properties` and `items` likewise;
* `expected`: the calls, each `{function: {param: acceptable values}}` or
  `{"name": function, "arguments": {...}}`, with the possible answers' convention: each
  parameter lists its acceptable values and `""` among them means it may be left out; a value
  that is not a list stands for the one-element list of it (so a list-typed parameter is
  written `[[1, 2]]`); nested dicts follow the same rule inside. Irrelevance cases expect
  nothing (`[]` or no field), relevance cases are not given answers. Executable cases list
  call strings (`"f(a=1)"`) or `{function: {param: value}}` objects, plus an optional
  `execution_result_type` (default `exact_match` for each call);
* multi-turn cases: `turns` (each a string, a message, or a list of messages),
  `involved_classes`, `initial_config`, optionally `missed_function` (`{"1": [names]}`),
  and `expected`: per turn, the ground-truth call strings (or call objects). Their tools come
  from the classes, as in the official data;
* `metadata` (anything) is kept with the case; any other field is an error (a misspelt
  `expected` must not silently become "no answer").

Conversion keeps line numbers: the N-th line of the converted question (and answer) text is
the N-th line of the JSONL file, blank where that line was blank or broken, so what validating
or loading the converted text finds is reported at the JSONL file's own lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from fcbench.core.categories import Checker
from fcbench.dataset.source import json_lines

__all__ = ["Converted", "Family", "convert_jsonl", "converted_lines", "family_of", "gorilla_doc"]

Family = str
"""How a category's lines are read: "single", "exec" or "multi_turn"."""

_JSON_TO_GORILLA = {"object": "dict", "number": "float", "integer": "integer",
                    "string": "string", "boolean": "boolean", "array": "array"}
_COMMON = frozenset({"id", "metadata", "expected"})
_FIELDS: dict[Family, frozenset[str]] = {
    "single": _COMMON | {"messages", "question", "tools"},
    "exec": _COMMON | {"messages", "question", "tools", "execution_result_type"},
    "multi_turn": _COMMON | {"turns", "involved_classes", "initial_config", "missed_function"},
}


class FormatError(ValueError):
    """One line that cannot be converted (the message says what is wrong)."""


@dataclass
class Converted:
    """A JSONL file as BFCL question and answer texts, line-aligned, and what went wrong."""

    questions: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    problems: list[tuple[int, str | None, str]] = field(default_factory=list)
    """(line, case id if known, message)."""
    cases: int = 0
    max_functions: int = 0
    max_calls: int = 0

    def question_text(self) -> bytes:
        return "\n".join(self.questions).encode("utf-8", "surrogatepass")

    def answer_text(self) -> bytes:
        return "\n".join(self.answers).encode("utf-8", "surrogatepass")


def file_lines(handle: BinaryIO) -> Iterator[str]:
    """A binary file's lines as `text.split("\n")` gives them (the last one, after a final
    newline, empty), decoded one at a time: UnicodeDecodeError for text that is not UTF-8."""
    line = b""
    for line in handle:
        yield line.removesuffix(b"\n").decode("utf-8")
    if not line or line.endswith(b"\n"):
        yield ""


def family_of(checker: str) -> Family:
    if checker == Checker.MULTI_TURN:
        return "multi_turn"
    if checker.startswith("exec"):
        return "exec"
    return "single"


def convert_jsonl(
    text: str | Iterable[str], category: str, checker: str, keep: bool = True
) -> Converted:
    """Every line of a JSONL file converted (checker may be `ast`/`exec`: decided later).
    `text` is the file's text, or its lines split at `\n` (`file_lines`: a large file is
    read a line at a time). `keep=False` keeps only the problems and shapes, not the texts
    (a file of a million cases is re-converted as it is read: `converted_lines`)."""
    out = Converted()
    for question, answer in converted_lines(text, category, checker, out):
        if keep:
            out.questions.append(question)
            out.answers.append(answer)
    return out


def converted_lines(
    text: str | Iterable[str],
    category: str,
    checker: str,
    out: Converted | None = None,
    broken: frozenset[int] | None = None,
) -> Iterator[tuple[str, str]]:
    """(question line, answer line) for each line of a JSONL file, one at a time (blank
    where the line is blank or broken); its problems and shapes are added to `out`.
    `broken`: the problem lines a first conversion of the same file found, for converting it
    again without keeping every id (a million of them) to find the duplicates anew."""
    family = family_of(checker)
    out = Converted() if out is None else out
    seen: dict[str, int] = {}
    lines = text.split("\n") if isinstance(text, str) else text
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            yield "", ""
            continue
        case_id = f"{category}_{out.cases}"
        out.cases += 1
        if broken is not None and number in broken:
            yield "", ""
            continue
        try:
            obj = _parse(line)
            case_id = _case_id(obj, case_id)
            if broken is None and case_id in seen:
                raise FormatError(f"the id is used already on line {seen[case_id]}")
            if broken is None:
                seen[case_id] = number
            question, answer = _CONVERTERS[family](obj, checker)
        except FormatError as exc:
            out.problems.append((number, case_id, str(exc)))
            yield "", ""
            continue
        if "metadata" in obj:
            question["metadata"] = obj["metadata"]
        out.max_functions = max(out.max_functions, len(question.get("function") or []))
        truth = (answer or {}).get("ground_truth")
        out.max_calls = max(out.max_calls, len(truth) if isinstance(truth, list) else 0)
        yield (json.dumps({"id": case_id, **question}, ensure_ascii=False),
               json.dumps({"id": case_id, **answer}, ensure_ascii=False) if answer else "")


def _parse(line: str) -> dict[str, Any]:
    for _, value, error in json_lines(line):
        if error is not None:
            raise FormatError(error)
        if not isinstance(value, dict):
            raise FormatError("not a JSON object")
        return value
    raise FormatError("empty line")  # pragma: no cover - blank lines are skipped before


def _case_id(obj: dict[str, Any], default: str) -> str:
    case_id = obj.get("id", default)
    if not isinstance(case_id, str) or not case_id.strip():
        raise FormatError("`id` must be a non-empty string")
    return case_id


def _check_fields(obj: dict[str, Any], family: Family) -> None:
    unknown = sorted(set(obj) - _FIELDS[family])
    if unknown:
        allowed = ", ".join(sorted(_FIELDS[family]))
        raise FormatError(f"unknown field(s) {', '.join(unknown)} (this category reads: "
                          f"{allowed})")


# --------------------------------------------------------------------------- single-turn


def _single(obj: dict[str, Any], checker: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    _check_fields(obj, "single")
    question = {"question": [_messages(obj)], "function": _tools(obj.get("tools"))}
    expected = obj.get("expected")
    if checker == Checker.RELEVANCE:
        return question, None  # relevance has no possible answers (any call passes)
    if checker == Checker.IRRELEVANCE:
        if expected not in (None, []):
            raise FormatError("an irrelevance case expects no call (`expected`: [] or absent)")
        return question, None
    if not isinstance(expected, list) or not expected:
        raise FormatError("`expected` must be a non-empty list of calls")
    truth = [{name: _acceptable_args(args, name)} for name, args in map(_call, expected)]
    return question, {"ground_truth": truth}


def _exec(obj: dict[str, Any], checker: str) -> tuple[dict[str, Any], dict[str, Any]]:
    _check_fields(obj, "exec")
    question: dict[str, Any] = {"question": [_messages(obj)], "function": _tools(obj.get("tools"))}
    expected = obj.get("expected")
    if not isinstance(expected, list) or not expected:
        raise FormatError("`expected` must be a non-empty list of calls")
    truth = [_call_string(item) for item in expected]
    kinds = obj.get("execution_result_type", ["exact_match"] * len(truth))
    if not isinstance(kinds, list) or len(kinds) != len(truth):
        raise FormatError("`execution_result_type` must list one match kind per expected call")
    return question, {"ground_truth": truth, "execution_result_type": kinds}


def _messages(obj: dict[str, Any]) -> list[Any]:
    if "messages" in obj and "question" in obj:
        raise FormatError("give `messages` or `question`, not both")
    if isinstance(obj.get("question"), str):
        return [{"role": "user", "content": obj["question"]}]
    messages = obj.get("messages")
    if not isinstance(messages, list) or not messages:
        raise FormatError("`messages` must be a non-empty list of {role, content} messages "
                          "(or `question`: a string)")
    return messages


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise FormatError("`tools` must be a list of tool schemas")
    return [gorilla_doc(tool, i) for i, tool in enumerate(tools)]


def gorilla_doc(tool: Any, index: int = 0) -> dict[str, Any]:
    """A BFCL function doc from an OpenAI tool schema (or a bare function object)."""
    if isinstance(tool, dict) and tool.get("type") == "function" and "function" in tool:
        tool = tool["function"]
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
        raise FormatError(f"tool {index} has no name")
    where = f"tool {tool['name']!r}"
    params = tool.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(params, dict) or params.get("type", "object") != "object":
        raise FormatError(f"{where}: `parameters` must be a JSON schema of type object")
    doc = {k: v for k, v in tool.items() if k not in ("parameters", "strict")}
    doc.setdefault("description", "")
    doc["parameters"] = _schema({**params, "type": "object"}, where)
    doc["parameters"].setdefault("properties", {})
    return doc


def _schema(schema: Any, where: str) -> dict[str, Any]:
    """A JSON schema with Gorilla types, nested `properties` and `items` converted too."""
    if not isinstance(schema, dict):
        raise FormatError(f"{where}: a schema is not an object")
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: a nullable value of one type
        named = [k for k in kind if k != "null"]
        kind = named[0] if len(named) == 1 else None
    if kind not in _JSON_TO_GORILLA:
        raise FormatError(f"{where}: type {schema.get('type')!r} is not one of "
                          f"{', '.join(_JSON_TO_GORILLA)} (unions are not supported)")
    out = {k: v for k, v in schema.items() if k not in ("properties", "items")}
    out["type"] = _JSON_TO_GORILLA[kind]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {name: _schema(p, f"{where}, {name}") for name, p in properties.items()}
    if isinstance(schema.get("items"), dict):
        out["items"] = _schema(schema["items"], f"{where}, items")
    return out


def _call(item: Any) -> tuple[str, Any]:
    """(name, arguments) of an expected call in either accepted form."""
    if isinstance(item, dict) and set(item) == {"name", "arguments"} and isinstance(
        item["name"], str
    ):
        return item["name"], item["arguments"]
    if isinstance(item, dict) and len(item) == 1:
        name, args = next(iter(item.items()))
        return name, args
    raise FormatError(f"an expected call is neither {{function: {{...}}}} nor "
                      f"{{name, arguments}}: {json.dumps(item)[:120]}")


def _acceptable_args(args: Any, name: str) -> dict[str, list[Any]]:
    if not isinstance(args, dict):
        raise FormatError(f"the arguments of the expected call {name} are not an object")
    return {param: _acceptable(value) for param, value in args.items()}


def _acceptable(value: Any) -> list[Any]:
    """A parameter's acceptable values: lists as they are, anything else as [value]; the
    values inside dicts follow the same rule (the possible answers' nesting)."""
    values = value if isinstance(value, list) else [value]
    return [_nested(v) for v in values]


def _nested(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _acceptable(v) for k, v in value.items()}
    return value


def _call_string(item: Any) -> str:
    """An executable ground-truth call: as written, or built from `{name: {param: value}}`."""
    if isinstance(item, str) and item.strip():
        return item
    name, args = _call(item)
    if not isinstance(args, dict):
        raise FormatError(f"the arguments of the expected call {name} are not an object")
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


# --------------------------------------------------------------------------- with environments


def _multi_turn(obj: dict[str, Any], checker: str) -> tuple[dict[str, Any], dict[str, Any]]:
    _check_fields(obj, "multi_turn")
    turns = _turns(obj.get("turns"))
    expected = obj.get("expected")
    if not isinstance(expected, list) or not all(isinstance(t, list) for t in expected):
        raise FormatError("`expected` must list, per turn, the ground-truth calls")
    question = {"question": turns, **_environments(obj)}
    if "missed_function" in obj:
        question["missed_function"] = obj["missed_function"]
    truth = [[_call_string(call) for call in turn] for turn in expected]
    return question, {"ground_truth": truth}


def _turns(turns: Any) -> list[list[Any]]:
    if not isinstance(turns, list) or not turns:
        raise FormatError("`turns` must be a non-empty list (each a string, a message or a "
                          "list of messages)")
    out: list[list[Any]] = []
    for turn in turns:
        if isinstance(turn, str):
            out.append([{"role": "user", "content": turn}])
        elif isinstance(turn, dict):
            out.append([turn])
        elif isinstance(turn, list):
            out.append(turn)
        else:
            raise FormatError("a turn is neither a string, a message nor a list of messages")
    return out


def _environments(obj: dict[str, Any]) -> dict[str, Any]:
    classes = obj.get("involved_classes")
    if not isinstance(classes, list) or not classes or not all(isinstance(c, str) for c in
                                                               classes):
        raise FormatError("`involved_classes` must be a non-empty list of class names")
    config = obj.get("initial_config", {})
    if not isinstance(config, dict):
        raise FormatError("`initial_config` must be an object (class -> state)")
    return {"initial_config": config, "involved_classes": classes}


_CONVERTERS: dict[Family, Callable[[dict[str, Any], str], tuple[dict[str, Any],
                                                                dict[str, Any] | None]]] = {
    "single": _single, "exec": _exec, "multi_turn": _multi_turn,
}
