"""`FailureLines`: a failure record's line built directly is the line the general path writes
(`_dumps` of the `failure_record` dict), for every single-turn record shape and odd values."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.check.records import FailureLines, failure_record
from fcbench.core import categories
from fcbench.core.model import TestCase, Verdict
from fcbench.results.score_files import RawJSON, _dumps

SINGLE_TURN = ["simple_python", "multiple", "parallel_multiple", "irrelevance",
               "live_relevance", "exec_simple", "rest"]
"""One category per single-turn checker (AST, relevance, executable)."""


def is_relevance(category: str) -> bool:
    checker = categories.get(category).checker
    return checker in (categories.Checker.IRRELEVANCE, categories.Checker.RELEVANCE)


def huge_int() -> int:
    """More digits than int -> str allows: encoding it raises ValueError."""
    return 10**5000


class Odd:
    def __str__(self) -> str:
        return "odd \x00 é"


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(),  # NaN and infinities included
    st.builds(huge_int),
    st.text(alphabet=st.sampled_from(["\x00", '"', "\\", "a", "é", "\ud800", "\n", " "]),
            max_size=4),
    st.builds(RawJSON, st.sampled_from(["[1, 2]", '{"a": null}', '"\\u0000"'])),
    st.builds(Odd), st.just({1}), st.just(ValueError("bad")),
)
_KEYS = st.one_of(st.text(max_size=2), st.integers(), st.none(), st.booleans(), st.floats(),
                  st.just(("tuple", "key")))  # json refuses tuple keys: TypeError
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner)
    | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=6,
)
_PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def answer_text(case: TestCase) -> str | None:
    """What evaluation._answer_text gives (without its cache)."""
    if isinstance(case.possible_answer, RawJSON):
        return case.possible_answer
    try:
        return RawJSON(json.dumps(case.possible_answer, ensure_ascii=False))
    except (TypeError, ValueError):
        return None


def outcome(build: Callable[[], str]) -> str | type[BaseException]:
    try:
        return build()
    except (TypeError, ValueError) as error:
        return type(error)


def general_line(category: str, case: TestCase, raw: Any, verdict: Verdict, prompt: Any) -> str:
    """The line as written before FailureLines: dict record, answer as text, `_dumps`."""
    record = failure_record("org/model", categories.get(category), case, raw, verdict, prompt,
                            relevance=is_relevance(category))
    if "possible_answer" in record and (text := answer_text(case)) is not None:
        record["possible_answer"] = text
    return _dumps(record)


def check_same_line(
    category: str, case: TestCase, raw: Any, verdict: Verdict, prompt: Any
) -> str | None:
    """Assert that the direct line, when there is one, is the general path's; return it."""
    line = FailureLines("org/model", categories.get(category), answer_text,
                        relevance=is_relevance(category)).line(
        case, raw, verdict, prompt
    )
    if line is not None:
        assert line == outcome(lambda: general_line(category, case, raw, verdict, prompt))
    return line


def make_verdict(error_type: Any, errors: Any, extras: dict[str, Any]) -> Verdict:
    return Verdict(False, error_type, errors, extras)


@settings(max_examples=300, deadline=None)
@given(
    category=st.sampled_from(SINGLE_TURN),
    case_id=st.one_of(st.text(max_size=4), _VALUES),
    errors=_VALUES, error_type=_VALUES, raw=_VALUES, answer=_VALUES,
    decoded=st.one_of(st.just(None), _VALUES), executed=st.one_of(st.just(None), _VALUES),
    prompt=st.one_of(st.just(None), st.just(RawJSON('{"id": "x", "question": []}')), _VALUES),
)
def test_direct_line_equals_the_general_path(
    category: str, case_id: Any, errors: Any, error_type: Any, raw: Any, answer: Any,
    decoded: Any, executed: Any, prompt: Any,
) -> None:
    extras = {} if decoded is None else {"decoded": decoded}
    if executed is not None:
        extras["model_executed_output"] = executed
    case = TestCase(case_id, category, [], [], answer)
    check_same_line(category, case, raw, make_verdict(error_type, errors, extras), prompt)


@settings(max_examples=200, deadline=None)
@given(
    category=st.sampled_from(SINGLE_TURN),
    errors=st.lists(st.text(max_size=5), max_size=3), raw=_PLAIN, answer=_PLAIN,
    decoded=st.one_of(st.just(None), _PLAIN),
)
def test_plain_values_take_the_direct_path(
    category: str, errors: list[str], raw: Any, answer: Any, decoded: Any
) -> None:
    """With JSON values and a prompt as text (every record of a normal run), a line is built."""
    extras = {} if decoded is None else {"decoded": decoded}
    case = TestCase("simple_python_7", category, [], [], answer)
    prompt = RawJSON('{"id": "simple_python_7", "question": [[{"content": "café"}]]}')
    verdict = make_verdict("value_error:string", errors, extras)
    assert check_same_line(category, case, raw, verdict, prompt) is not None


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_official_key_order(category: str) -> None:
    case = TestCase("id_1", category, [], [], [{"f": {"x": [1]}}])
    verdict = make_verdict("e:t", ["msg"], {"decoded": [{"f": {"x": 2}}]})
    line = check_same_line(category, case, "[f(x=2)]", verdict, RawJSON("{}"))
    assert line is not None
    keys = list(json.loads(line))
    head = ["id", "model_name", "test_category", "valid", "error", "error_type", "prompt"]
    if is_relevance(category):
        assert keys == [*head[:4], "prompt", "model_result", "decoded_result", "error",
                        "error_type"]
    else:
        assert keys == [*head, "model_result_raw", "model_result_decoded", "possible_answer"]


def test_unusable_pieces_are_left_to_the_general_path() -> None:
    lines = FailureLines("m", categories.get("simple_python"), answer_text)
    case = TestCase("simple_python_1", "simple_python", [], [], [{"f": {1}}])
    verdict = make_verdict("e", ["msg"], {})
    assert lines.line(case, "x", verdict, RawJSON("{}")) is None  # answer has no JSON text
    case = TestCase("simple_python_1", "simple_python", [], [], [])
    assert lines.line(case, "x", verdict, None) is None  # prompt not serialised
    assert lines.line(case, {("k",): 1}, verdict, RawJSON("{}")) is None  # json refuses it
