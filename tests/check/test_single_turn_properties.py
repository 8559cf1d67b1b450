"""Property tests: whatever a model writes, judging a case returns a Verdict, never raises.

Random and mutated outputs are thrown at every decoder (prompt Python/JSON/XML, FC with both
argument encodings, Java, JavaScript) through every single-turn checker kind; each must end
as a valid verdict or a failure carrying an official-style error type.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.check.single_turn import CheckMemo, judge
from fcbench.dataset import categories
from fcbench.dataset.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.decode.python_calls import ReturnFormat

DOC = {
    "name": "geo.area",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict"},
            "when": {"type": "String"},
            "count": {"type": "long"},
            "flags": {"type": "ArrayList", "items": {"type": "Boolean"}},
        },
        "required": ["base"],
    },
}
ANSWER = [
    {
        "geo.area": {
            "base": [10],
            "tags": [["a"], ""],
            "opts": [{"k": [1]}, ""],
            "when": ["now", ""],
            "count": [5, ""],
            "flags": [[True], ""],
        }
    }
]
CASE = TestCase("case_0", "x", [[{"role": "user", "content": "?"}]], [DOC], ANSWER)

CATEGORY_NAMES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "irrelevance",
    "live_relevance",
)
ENCODINGS = (
    Encoding("prompt"),
    Encoding("prompt", return_format=ReturnFormat.JSON),
    Encoding("prompt", return_format=ReturnFormat.VERBOSE_XML),
    Encoding("prompt", return_format=ReturnFormat.CONCISE_XML, tool_call_tag=True),
    Encoding("fc", "underscore", "json_string"),
    Encoding("fc", "dot", "object"),
)

FRAGMENTS = [
    "[",
    "]",
    "(",
    ")",
    "geo.area",
    "geo_area",
    "base=",
    "10",
    "-",
    "'",
    '"',
    ",",
    "tags=['a']",
    "opts={'k': 1}",
    'when="now"',
    "count=5L",
    "new ArrayList<>()",
    "{{ add(true); }}",
    "<functions>",
    "</functions>",
    '<function name="f">',
    "<TOOLCALL>",
    "</TOOLCALL>",
    "```",
    "\n",
    "**",
    "lambda",
    "__import__",
    "10**10**10",
    "{",
    "}",
    "=",
    "`",
    ":",
    "null",
    "true",
    "...",
    "\\",
    "\x00",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
mutated_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), max_size=14).map("".join)
fc_results = st.lists(
    st.dictionaries(
        st.sampled_from(["geo_area", "geo.area", "x", ""]),
        json_values | json_values.map(json.dumps),
        max_size=2,
    ),
    max_size=3,
)
raw_outputs = mutated_text | st.text(max_size=40) | json_values | fc_results


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=raw_outputs, category=st.sampled_from(CATEGORY_NAMES), encoding=st.sampled_from(ENCODINGS)
)
def test_no_output_makes_judging_raise(raw: Any, category: str, encoding: Encoding) -> None:
    verdict = judge(CASE, categories.get(category), raw, encoding)
    if verdict.valid:
        assert verdict.error_type is None
    else:
        assert isinstance(verdict.error_type, str) and ":" in verdict.error_type
        assert verdict.errors, "a failure must say why"


SHARED_MEMO = CheckMemo()  # shared across examples on purpose: entries must never leak


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=raw_outputs, category=st.sampled_from(CATEGORY_NAMES), encoding=st.sampled_from(ENCODINGS)
)
def test_memoised_judging_equals_fresh_judging(raw: Any, category: str, encoding: Encoding) -> None:
    fresh = judge(CASE, categories.get(category), raw, encoding)
    memoised = judge(CASE, categories.get(category), raw, encoding, SHARED_MEMO)
    again = judge(CASE, categories.get(category), raw, encoding, SHARED_MEMO)
    for verdict in (memoised, again):
        assert (verdict.valid, verdict.error_type, verdict.errors, verdict.extras) == (
            fresh.valid,
            fresh.error_type,
            fresh.errors,
            fresh.extras,
        )


def test_same_calls_in_other_words_are_checked_once() -> None:
    memo = CheckMemo()
    category = categories.get("simple_python")
    texts = ["[geo.area(base=10, tags=['A'])]", '[geo.area(base=10, tags=["A"])]']
    first, second = (judge(CASE, category, text, Encoding("prompt"), memo) for text in texts)
    assert first is second and first.valid
    int_vs_float = judge(CASE, category, "[geo.area(base=10.0)]", Encoding("prompt"), memo)
    assert int_vs_float.error_type == "type_error:simple"  # 10.0 is not 10: a separate entry
    assert len(memo.verdicts) == 2 and len(memo.checkers) == 1
