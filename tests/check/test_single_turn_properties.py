"""Property tests: whatever a model writes, judging a case returns a Verdict, never raises,
and never crashes inside fcbench.

Random and mutated outputs are thrown at every decoder (prompt Python/JSON/XML, FC with both
argument encodings, Java, JavaScript) through every single-turn checker kind; each must end
as a valid verdict or a failure carrying an official-style error type. A crash inside the
checker or the decoder would also end as a failure (`fcbench:checker_crash`, or a decode
failure holding the exception's repr) rather than an exception, so the tests assert that
neither happens: the cases are well-formed (each language's own type names, answers matching
the docs), so nothing a model writes may crash on them. Well-formed calls with random
arguments are generated too, so that most examples get past decoding into the checker; the
test asserts that they do.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.check.single_turn import CHECKER_CRASH, CheckMemo, judge
from fcbench.core import categories
from fcbench.core.categories import Checker, Language
from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.decode.python_calls import ReturnFormat


def case(name: str, properties: dict[str, Any], answer: dict[str, list[Any]]) -> TestCase:
    """A one-function case `geo.area` (a dotted name, as FC underscore encodings rename)."""
    doc = {
        "name": "geo.area",
        "description": "An area.",
        "parameters": {"type": "dict", "properties": properties, "required": ["base"]},
    }
    question = [[{"role": "user", "content": "?"}]]
    return TestCase(name, "x", question, [doc], [{"geo.area": answer}])


#: One well-formed case per language: each uses only that language's type names.
CASES = {
    Language.PYTHON: case(
        "case_python",
        {
            "base": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict"},
            "when": {"type": "string"},
            "ratio": {"type": "float"},
            "flag": {"type": "boolean"},
            "pair": {"type": "tuple", "items": {"type": "integer"}},
        },
        {"base": [10], "tags": [["a"], ""], "opts": [{"k": [1]}, ""], "when": ["now", ""],
         "ratio": [0.5, ""], "flag": [True, ""], "pair": [[1, 2], ""]},
    ),
    Language.JAVA: case(
        "case_java",
        {
            "base": {"type": "integer"},
            "count": {"type": "long"},
            "when": {"type": "String"},
            "flags": {"type": "ArrayList", "items": {"type": "boolean"}},
            "opts": {"type": "HashMap"},
            "ratio": {"type": "double"},
            "on": {"type": "boolean"},
        },
        {"base": [10], "count": [5, ""], "when": ["now", ""], "flags": [[True], ""],
         "opts": [{"k": ["v"]}, ""], "ratio": [0.5, ""], "on": [True, ""]},
    ),
    Language.JAVASCRIPT: case(
        "case_javascript",
        {
            "base": {"type": "integer"},
            "when": {"type": "String"},
            "tags": {"type": "array", "items": {"type": "String"}},
            "opts": {"type": "dict"},
            "on": {"type": "Boolean"},
            "ratio": {"type": "float"},
        },
        {"base": [10], "when": ["now", ""], "tags": [["a"], ""], "opts": [{"k": [1]}, ""],
         "on": [True, ""], "ratio": [0.5, ""]},
    ),
}
CASE = CASES[Language.PYTHON]


def case_for(category: str) -> TestCase:
    return CASES[categories.get(category).language]


def crashed(verdict: Verdict) -> bool:
    """A crash inside fcbench recorded as a failure: the checker's, or the decoder's (its
    catch-all reports the exception's repr instead of a decoding error)."""
    if verdict.error_type == CHECKER_CRASH:
        return True
    message = str(verdict.errors[0]) if verdict.errors else ""
    return verdict.error_type == "ast_decoder:decoder_failed" and not message.startswith(
        "Invalid syntax. Failed to decode AST."
    )


def assert_well_judged(verdict: Verdict) -> None:
    assert not crashed(verdict), f"fcbench crashed on a well-formed case: {verdict.errors}"
    if verdict.valid:
        assert verdict.error_type is None
    else:
        assert isinstance(verdict.error_type, str) and ":" in verdict.error_type
        assert verdict.errors, "a failure must say why"


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
    assert_well_judged(judge(case_for(category), categories.get(category), raw, encoding))


# -- Well-formed calls with random arguments: past the decoder, into the checker ----------

plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(-5, 5, width=16)
    | st.text("ab now", max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("kv"), inner,
                                                                max_size=2),
    max_leaves=6,
)


@st.composite
def answers(draw: st.DrawFn, category: str) -> dict[str, Any]:
    """Arguments for `geo.area`: each parameter of the case's answer left out, given one of
    its acceptable values, or a random value; sometimes an unknown parameter."""
    expected = case_for(category).possible_answer[0]["geo.area"]
    args: dict[str, Any] = {}
    for name, acceptable in expected.items():
        choice = draw(st.integers(0, 9))
        if choice == 0:
            args[name] = draw(plain_values)
        elif choice < 5 or "" not in acceptable:
            args[name] = draw(st.sampled_from([v for v in acceptable if v != ""]))
    if draw(st.integers(0, 9)) == 0:
        args["unknown"] = draw(plain_values)
    return args


def java_value(value: Any) -> str:
    """Java source for a value (the Java decoder keeps source text; the checker converts it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return f"new ArrayList<>(Arrays.asList({', '.join(map(java_value, value))}))"
    if isinstance(value, dict):
        puts = " ".join(f"put({json.dumps(k)}, {java_value(v)});" for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return "null" if value is None else repr(value)


def javascript_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {javascript_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(javascript_value, value)) + "]"
    return json.dumps(value)


def rendered(calls: list[dict[str, Any]], category: str, encoding: Encoding) -> Any:
    """The calls as the model would have written them, in the encoding's own form."""
    if encoding.is_fc:
        name = "geo_area" if encoding.underscore_names else "geo.area"
        if encoding.fc_args == "json_string":
            return [{name: json.dumps(args)} for args in calls]
        return [{name: args} for args in calls]
    language = categories.get(category).language
    if language is Language.JAVA:
        return "[" + ", ".join(
            "geo.area(" + ", ".join(f"{k}={java_value(v)}" for k, v in args.items()) + ")"
            for args in calls
        ) + "]"
    if language is Language.JAVASCRIPT:
        [args] = calls[:1]
        return "geo.area(" + ", ".join(f"{k}={javascript_value(v)}" for k, v in args.items()) + ")"
    return "[" + ", ".join(
        "geo.area(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")" for args in calls
    ) + "]"


AST_CATEGORIES = [c for c in CATEGORY_NAMES if categories.get(c).checker not in (
    Checker.IRRELEVANCE, Checker.RELEVANCE)]
CALL_ENCODINGS = (Encoding("prompt"), Encoding("fc", "underscore", "json_string"),
                  Encoding("fc", "dot", "object"))


def test_well_formed_calls_reach_the_checker_and_never_crash_it() -> None:
    """Most of these get past decoding (asserted: a checker that crashed on everything, or
    a decoder that rejected everything, fails this test) and some are right."""
    outcomes: Counter[str] = Counter()

    @settings(max_examples=500, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(category=st.sampled_from(AST_CATEGORIES), encoding=st.sampled_from(CALL_ENCODINGS),
           data=st.data())
    def judge_calls(category: str, encoding: Encoding, data: st.DataObject) -> None:
        count = 2 if data.draw(st.integers(0, 4)) == 0 else 1
        calls = [data.draw(answers(category)) for _ in range(count)]
        raw = rendered(calls, category, encoding)
        verdict = judge(case_for(category), categories.get(category), raw, encoding)
        assert_well_judged(verdict)
        outcomes["all"] += 1
        outcomes["checked"] += not str(verdict.error_type).startswith("ast_decoder:")
        outcomes["valid"] += verdict.valid

    judge_calls()
    print(f"\nwell-formed calls: {dict(outcomes)}")
    assert outcomes["checked"] >= 0.8 * outcomes["all"]
    assert outcomes["valid"] >= 0.05 * outcomes["all"]


SHARED_MEMO = CheckMemo()  # shared across examples on purpose: entries must never leak


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=raw_outputs, category=st.sampled_from(CATEGORY_NAMES), encoding=st.sampled_from(ENCODINGS)
)
def test_memoised_judging_equals_fresh_judging(raw: Any, category: str, encoding: Encoding) -> None:
    case = case_for(category)
    fresh = judge(case, categories.get(category), raw, encoding)
    memoised = judge(case, categories.get(category), raw, encoding, SHARED_MEMO)
    again = judge(case, categories.get(category), raw, encoding, SHARED_MEMO)
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
