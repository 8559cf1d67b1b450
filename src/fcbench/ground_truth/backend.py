"""The built-in `ground-truth` model: answers every case with its first acceptable answer.

It goes through the same backend interface, store and evaluator as a real model, so a run with
it is a self-check of the whole pipeline that needs no endpoint; and since each answer is the
benchmark's own, every case it fails is a dataset health finding (an unsatisfiable or
contradictory ground truth, or a checker rule no answer can pass).

How an answer is built from a possible answer `{name: {param: [acceptable values]}}`:
the first acceptable value of each parameter; a parameter whose first value is `""` (omission
allowed) or whose list is empty is left out; dict values (`{key: [acceptable]}`) and lists of
them are resolved the same way, key by key. Irrelevance cases get a refusal in text; relevance
cases (no possible answer) a call of the first function without arguments; chatting cases a
text reply. Executable and REST cases get their ground-truth calls (`executable`).

Rendering: FC mode sends `{name_with_underscores: json_args}`. Prompt mode writes the
`[f(a=1, b='x')]` text: Python values as Python literals (a string given for a non-string
parameter is the variable name the benchmark expects, written bare); a format-sensitivity case
is answered in its configuration's return format and tag (`answer_formats.py`). Java and
JavaScript values become source text that the benchmark's converters read back (e.g. `5L`,
`new int[]{1, 2}`, `new ArrayList<>(Arrays.asList("a"))`, `[1, 2]`, `{a: 1}`), sent as
strings in FC mode.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from typing import TYPE_CHECKING, Any

from fcbench.core import categories
from fcbench.core.categories import EXECUTABLE_CHECKERS, Checker, Language
from fcbench.core.model import TestCase
from fcbench.dataset.format_sensitivity import split_id
from fcbench.decode.tool_call_formats import as_tool_calls
from fcbench.ground_truth.executable import exec_answer
from fcbench.models.answer_formats import in_format
from fcbench.models.base import ChatRequest, FcArgs, Mode, PermanentError, Reply
from fcbench.models.prompts import language_of
from fcbench.models.tools import fc_name

if TYPE_CHECKING:
    from fcbench.models.registry import BackendOptions

REFUSAL = "None of the provided functions can answer this request."
CHAT_REPLY = "This question needs no function call; here is the answer in words."
"""The answer to a `chatable` case (chat only, never scored)."""
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class GroundTruthBackend:
    """A model that knows the answers (no endpoint, no tokens, no latency).

    It reads the case from the request's context: a single-turn case gets its first
    acceptable answer; a multi-turn case, at each turn, the turn's ground-truth calls in one
    step and then a step without calls, which ends the turn (an empty ground-truth turn is
    just that last step).
    """

    name = "ground-truth"
    fc_args: FcArgs = "json_string"

    def describe(self) -> dict[str, Any]:
        return {"backend": "ground-truth", "endpoints": [], "sampling": {}}

    async def step(self, request: ChatRequest) -> Reply:
        case = request.context.case
        if case is None:
            raise PermanentError("the ground-truth model needs the case in the request context")
        if case.category.removesuffix("_prereq") in categories.AGENTIC:
            return agentic_reply(case)
        if "involved_classes" in case.extras and isinstance(case.possible_answer, list):
            return turn_reply(case, request)
        return Reply(result=answer(case, request.mode), input_tokens=0, output_tokens=0)

    async def aclose(self) -> None:
        return None


PREREQUISITE_REPLY = "Noted."
"""What the ground truth says to a memory prerequisite conversation: no call, no memory."""


def agentic_reply(case: TestCase) -> Reply:
    """An agentic question's answer, in the benchmark's answer format, as one message without
    a call (so it is the final message the checker reads); a prerequisite is acknowledged."""
    from fcbench.check.agentic import ground_truth_message

    text = PREREQUISITE_REPLY if case.possible_answer is None else ground_truth_message(case)
    return Reply(result=text, input_tokens=0, output_tokens=0)


def turn_reply(case: TestCase, request: ChatRequest) -> Reply:
    """A multi-turn step: the turn's ground-truth calls at its first step, else no call."""
    context = request.context
    truth: list[list[str]] = case.possible_answer or []
    calls = truth[context.turn] if context.step == 0 and context.turn < len(truth) else []
    if not calls:
        return Reply(result="", input_tokens=0, output_tokens=0)
    methods = signatures(case.extras.get("involved_classes") or [])
    parsed = [parse_call(text, methods) for text in calls]
    if request.mode == "fc":
        stored = [{name: json.dumps(args)} for name, args in parsed]
        message, ids = as_tool_calls(stored)
        return Reply(stored, message, ids, input_tokens=0, output_tokens=0)
    text = ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in parsed)
    return Reply(f"[{text}]", input_tokens=0, output_tokens=0)


def signatures(classes: list[str]) -> dict[str, list[str]]:
    """Method name -> parameter names (the later class wins a shared name, as dispatch)."""
    from fcbench.envs.scenario import environment_class

    names: dict[str, list[str]] = {}
    for class_name in classes:
        for name, params in _class_signatures(environment_class(class_name)):
            names[name] = list(params)
    return names


_SIGNATURES: dict[type[Any], tuple[tuple[str, tuple[str, ...]], ...]] = {}
"""Per environment class, its public methods' parameter names: read once, since inspecting
a class's methods on every turn of every case cost a ground-truth multi-turn run a third of
its time."""


def _class_signatures(cls: type[Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`cls`'s public methods in `inspect.getmembers` order, each with its parameter names
    after `self`."""
    known = _SIGNATURES.get(cls)
    if known is None:
        known = _SIGNATURES[cls] = tuple(
            (name, tuple(inspect.signature(member).parameters)[1:])
            for name, member in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")
        )
    return known


def parse_call(text: str, methods: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """`name(a, k=v)` of the dataset -> (name, keyword arguments); positional arguments get
    their parameter names from the environment method's signature."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain call: {text!r}")
    name = node.func.id
    params = methods.get(name, [])
    args: dict[str, Any] = {}
    for position, arg in enumerate(node.args):
        key = params[position] if position < len(params) else f"arg{position}"
        args[key] = ast.literal_eval(arg)
    for keyword in node.keywords:
        args[str(keyword.arg)] = ast.literal_eval(keyword.value)
    return name, args


def answer(case: TestCase, mode: Mode) -> Any:
    """The stored result of the first acceptable answer, in `mode`."""
    checker = _checker(case)
    docs = {str(d.get("name")): d for d in case.functions}
    if checker == Checker.IRRELEVANCE:
        return REFUSAL
    if checker in EXECUTABLE_CHECKERS:
        return exec_answer(case, mode)
    if checker == Checker.NONE:
        return CHAT_REPLY
    if not isinstance(case.possible_answer, list):
        first = case.functions[0]["name"] if case.functions else "no_function"
        calls: list[tuple[str, dict[str, Any]]] = [(first, {})]
    elif all(isinstance(item, str) for item in case.possible_answer):
        # executable categories: the ground truth is call strings (`f(a=1)`)
        calls = [parse_call(item, {}) for item in case.possible_answer]
    else:
        calls = [_first_call(item, docs) for item in case.possible_answer if isinstance(item, dict)]
    language = language_of(case)
    if mode == "fc":
        return [
            {fc_name(name): json.dumps(_fc_args(args, docs.get(name), language))}
            for name, args in calls
        ]
    python = "[" + ", ".join(_prompt_call(n, a, docs.get(n), language) for n, a in calls) + "]"
    named = split_id(case.id)  # a format-sensitivity case says which format to answer in
    return python if named is None else in_format(calls, named[0], python)


def _checker(case: TestCase) -> str | None:
    try:
        return categories.get(case.category).checker
    except categories.UnknownCategoryError:
        return None


def _first_call(
    item: dict[str, Any], docs: dict[str, dict[str, Any]]
) -> tuple[str, dict[str, Any]]:
    """A required parameter is never omitted: its first non-empty acceptable value is used."""
    name, params = next(iter(item.items()))
    if not isinstance(params, dict):
        return str(name), {}
    required = set((docs.get(str(name), {}).get("parameters") or {}).get("required") or [])
    return str(name), _resolve(params, required)


_OMIT = object()


def _first(values: Any, required: bool = False) -> Any:
    """The first acceptable value, resolved; _OMIT when the parameter may (or must) be left out."""
    if not isinstance(values, list):
        return _nested(values)
    if required:
        values = [v for v in values if v != ""]
    if not values or values[0] == "":
        return _OMIT
    return _nested(values[0])


def _resolve(
    params: dict[str, Any], required: set[str] | frozenset[str] = frozenset()
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, values in params.items():
        value = _first(values, key in required)
        if value is not _OMIT:
            out[str(key)] = value
    return out


def _nested(value: Any) -> Any:
    """Dict values hold acceptable-value lists per key; lists may hold such dicts."""
    if isinstance(value, dict):
        return _resolve(value)
    if isinstance(value, list):
        return [_resolve(v) if isinstance(v, dict) else v for v in value]
    return value


def _param_schema(doc: dict[str, Any] | None, param: str) -> dict[str, Any]:
    props = ((doc or {}).get("parameters") or {}).get("properties") or {}
    schema = props.get(param)
    return schema if isinstance(schema, dict) else {}


# --------------------------------------------------------------------------- FC rendering


def _fc_args(args: dict[str, Any], doc: dict[str, Any] | None, language: Language) -> Any:
    if language is Language.PYTHON:
        return args
    return {k: _source(v, _param_schema(doc, k), language, quoted=False) for k, v in args.items()}


# --------------------------------------------------------------------------- prompt rendering


def _prompt_call(
    name: str, args: dict[str, Any], doc: dict[str, Any] | None, language: Language
) -> str:
    parts = []
    for key, value in args.items():
        schema = _param_schema(doc, key)
        if language is Language.PYTHON:
            text = _python_literal(value, schema)
        else:
            text = _source(value, schema, language, quoted=True)
        parts.append(f"{key}={text}")
    return f"{name}({', '.join(parts)})"


def _python_literal(value: Any, schema: dict[str, Any]) -> str:
    """A Python literal; a string for a non-string parameter is a variable name, left bare."""
    if (
        isinstance(value, str)
        and schema.get("type") not in (None, "string", "any")
        and _IDENTIFIER.match(value)
        and value not in ("True", "False", "None")
    ):
        return value
    return repr(value)


# --------------------------------------------------------------------------- Java / JavaScript


def _source(value: Any, schema: dict[str, Any], language: Language, *, quoted: bool) -> str:
    """Source text for a value of the doc's type; strings quoted only as prompt arguments."""
    kind = str(schema.get("type", "String"))
    element = str((schema.get("items") or {}).get("type", ""))
    if language is Language.JAVA:
        text = _java(value, kind, element)
    else:
        text = _javascript(value, kind, element)
    if text is None:
        text = json.dumps(value) if quoted else (value if isinstance(value, str) else str(value))
    return text


def _java(value: Any, kind: str, element: str) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long" and isinstance(value, int):
        return f"{value}L"
    if kind == "float" and isinstance(value, (int, float)):
        return f"{float(value)!r}f"
    if kind == "double" and isinstance(value, (int, float)):
        return repr(float(value))
    if isinstance(value, (int, float)):
        return repr(value)
    if kind == "Array" and isinstance(value, list):
        items = ", ".join(_java_element(v, element, bare_strings=True) for v in value)
        return f"new {element or 'Object'}[]{{{items}}}"
    if kind == "ArrayList" and isinstance(value, list):
        if not value:
            return "new ArrayList<>()"
        items = ", ".join(_java_element(v, element, bare_strings=False) for v in value)
        return f"new ArrayList<>(Arrays.asList({items}))"
    if kind == "HashMap" and isinstance(value, dict):
        puts = " ".join(
            f"put({json.dumps(str(k))}, {_java_element(v, '', False)});" for k, v in value.items()
        )
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return None


def _java_element(value: Any, element: str, bare_strings: bool) -> str:
    if isinstance(value, str):
        return value if bare_strings else json.dumps(value)
    return _java(value, element, "") or json.dumps(value)


def _javascript(value: Any, kind: str, element: str) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_js_item(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js_item(v)}" for k, v in value.items()) + "}"
    return None


def _js_item(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return _javascript(value, "", "") or json.dumps(value)


def from_options(options: BackendOptions) -> GroundTruthBackend:
    return GroundTruthBackend()
