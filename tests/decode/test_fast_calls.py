"""The fast path of prompt-mode decoding is exactly the `ast` path, or declines (None).

Differential tests: for every text, whenever `fast_python_calls` returns a value,
`python_calls_ast` returns an equal value with identical types throughout; whenever it raises
DecodeError, `python_calls_ast` raises DecodeError with the same message; whenever
`python_calls_ast` raises anything else, `fast_python_calls` returns None.
"""

from __future__ import annotations

import json
import keyword
import math
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.decode.errors import DecodeError
from fcbench.decode.fast_calls import fast_python_calls
from fcbench.decode.python_calls import bracketed, python_calls, python_calls_ast
from shared_corpus import V1, needs_corpus

CORPUS = V1


def same(a: Any, b: Any) -> bool:
    """Equal value and identical type, recursively (tuple vs list, -0.0 vs 0.0, NaN == NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return len(a) == len(b) and all(
            same(ka, kb) and same(a[ka], b[kb]) for ka, kb in zip(a, b, strict=True)
        )
    return bool(a == b)


def reference(text: str) -> tuple[bool, Any]:
    """(True, calls), or (False, the DecodeError message or None for other failures)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return True, python_calls_ast(text)
        except DecodeError as exc:
            return False, str(exc)
        except Exception:  # any failure of the reference is a decode failure
            return False, None


def check(text: str) -> bool:
    """Assert the differential property for `text`; True when the fast path decided it."""
    ok, slow = reference(text)
    try:
        fast = fast_python_calls(text)
    except DecodeError as exc:
        assert not ok and slow == str(exc), f"{text!r}: fast raised {exc}, ast gave {slow!r}"
        return True
    if not ok:
        assert fast is None, f"fast path accepted text the ast path rejects: {text!r}"
        return False
    if fast is None:
        return False
    assert same(fast, slow), f"{text!r}: fast {fast!r} != ast {slow!r}"
    assert same(python_calls(text), slow)
    return True


def test_same_helper() -> None:
    assert same([1, (2.0, "x")], [1, (2.0, "x")])
    assert not same([1], [1.0])
    assert not same([True], [1])
    assert not same((1,), [1])
    assert not same(-0.0, 0.0)
    assert same(float("nan"), float("nan"))
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1})


ACCEPTED = [
    "[]",
    "[f()]",
    "f()",
    "[get_weather(city='Paris', unit=\"celsius\", days=3), f(x=[1, 2.5], flag=True)]",
    "[a.b.c(x=-0.0, y=-0, z=1e5, w=1E-05, v=00.5, u=0e0)]",
    "[f(a=(1,), b=(), c=(1, 2,), d={}, e={'k': [None, False]}, g={1: 'x', 1.0: 'y'})]",
    "[f(a=1,), g(b=[1,2,],),]",
    "[\n  f(\n\ta = 'x' ,\n b=name\n )\n]",
    "'[f(a='x')]'",
    "f(a=match, b=case, c=_, d=type, e=__debug__)",
    "[f(a=1e400, b=-1e400, c=123456789012345678901234567890)]",
    "[f(a='\u00e9\u2028\U0001f600', b=\"it's\", c='say \"hi\"')]",
]

REJECTED = [
    "f (a=1)",
    "[f(a=1, a=2)]",
    "[f(1)]",
    "[f(a=1+2)]",
    "[f(a=.5)]",
    "[f(a=5.)]",
    "[f(a=1_0)]",
    "[f(a=01)]",
    "[f(a=+5)]",
    "[f(a=-x)]",
    "[f(a=(1))]",
    "[f(a={1, 2})]",
    "[f(a=g(b=1))]",
    "[f(a=x.y)]",
    "[f(a='x' 'y')]",
    "[f(a=r'x')]",
    "[f(a='\\n')]",
    "[f(a=1) # c\n]",
    "[f(a=lambda: 1)]",
    "[f(a=if)]",
    "[if(a=1)]",
    "[f.if(a=1)]",
    "[True.f(a=1)]",
    "[f(True=1)]",
    "[f(**k)]",
    "[f(a=1)]]",
    "(f(a=1),)",
    "{f(a=1)}",
    "' [f()]",
    "[f()]\n'",
    "[f(a='''x''')]",
    "[f(a=1j)]",
    "[f(a=0x10)]",
    "[f(a=...)]",
]


NOT_CALLS = [  # decided by the fast path when the list starts with a call, a dict or a list
    '[{"tool_calls": [{"name": "f", "arguments": {"a": true, "b": null}}]}]',
    "[f(a=1), [2], g()]",
    "[f(), -1]",
    "[f(), (1, 2), {}]",
    "[[1], true]",
    "[f(), true]",
    "[f(), None, x]",
]


@pytest.mark.parametrize("text", NOT_CALLS)
def test_valid_lists_of_non_calls_fail_as_in_the_ast_path(text: str) -> None:
    """Upstream asserts that each element is a call: a bare `assert`, so no message."""
    with pytest.raises(DecodeError) as failure:
        fast_python_calls(text)
    assert str(failure.value) == ""
    assert check(text)


@pytest.mark.parametrize(
    "text", ["[1]", "[true]", "[{1}]", "[{'a': 1}] x", "[{'a': f()}]", "[[1], ", "[f(), 1+1]"]
)
def test_non_calls_outside_the_subset_are_left_to_ast(text: str) -> None:
    assert fast_python_calls(text) is None
    check(text)


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_examples(text: str) -> None:
    assert check(text)


@pytest.mark.parametrize("text", REJECTED)
def test_rejected_examples(text: str) -> None:
    assert fast_python_calls(text) is None
    check(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[f(a=1, b=2, a=3)]", [{"f": {"a": 3, "b": 2}}]),
        ("f(a=1, b=[a], a=(2,))", [{"f": {"a": (2,), "b": ["a"]}}]),
    ],
)
def test_a_repeated_keyword_keeps_its_first_place_and_last_value(
    text: str, expected: list[dict[str, Any]]
) -> None:
    """`ast.parse` accepts `f(a=1, a=2)` (since Python 3.9 the repeat is a compile-time
    error), and the official `resolve_ast_call` fills a dict keyword by keyword, so the last
    value wins in the first one's place. The fast path declines repeats (outside its subset),
    so the fuzzers never compare a decoded repeat: this pins the rule on both paths."""
    assert fast_python_calls(text) is None
    assert same(python_calls_ast(text), expected)
    assert same(python_calls(text), expected)


# --- random texts in and around the subset ---------------------------------------------------

WS = st.sampled_from(["", "", "", " ", "  ", "\n", "\t", " \n ", "\r", "\x0c", "\\\n"])
NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.sampled_from(
        [*keyword.kwlist, "match", "case", "_", "type", "print", "__debug__", "é", "a.b"]
    ),
)
NUMBERS = st.one_of(
    st.integers(-(10**40), 10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.from_regex(r"[-+]?[0-9_]{0,4}\.?[0-9_]{0,3}([eEjJ][-+]?[0-9]{0,3})?", fullmatch=True),
    st.sampled_from(
        [
            "1_0",
            "01",
            "00",
            "1e",
            ".5",
            "5.",
            "-x",
            "+5",
            "-0.0",
            "-0",
            "--1",
            "- 1",
            "1e5",
            "00.5",
            "0e0",
            "1E+05",
            "1j",
            "0x10",
            "0o7",
            "0b1",
            "1e400",
            "-1e-400",
            "1.e5",
            "nan",
            "inf",
            "...",
            "1if",
            "0or",
            "1.0.0",
            "1e5.0",
            "9" * 40,
            "7" * 5000,
        ]
    ),
)
STRING_BODY = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("ab '\"\\\t\n\r\x00\x0c\x0b\x1a\x7f\x85\u2028{}#é")),
        st.characters(),
    ),
    max_size=8,
)
STRINGS = st.one_of(
    st.tuples(st.sampled_from(["'", '"', "'''", "b'", "f'", 'r"', "u'"]), STRING_BODY).map(
        lambda p: p[0] + p[1] + p[0][-1]
    ),
    STRING_BODY.map(repr),
    STRING_BODY.map(json.dumps),
)
SCALARS = st.one_of(NUMBERS, STRINGS, NAMES, st.sampled_from(["True", "False", "None"]))


def joined(items: list[str], seps: list[str], trailing: bool) -> str:
    out = ""
    for index, item in enumerate(items):
        out += (seps[index % len(seps)] if index else "") + item
    return out + ("," if trailing and items else "")


def containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    seps = st.lists(st.sampled_from([",", ", ", " ,", ",\n", ",,", " "]), min_size=1, max_size=3)
    items = st.lists(children, max_size=4)
    keyed = st.lists(st.tuples(st.one_of(STRINGS, NUMBERS, children), children), max_size=3)
    return st.one_of(
        st.tuples(items, seps, st.booleans(), WS).map(
            lambda p: "[" + p[3] + joined(p[0], p[1], p[2]) + "]"
        ),
        st.tuples(items, seps, st.booleans(), WS).map(
            lambda p: "(" + p[3] + joined(p[0], p[1], p[2]) + ")"
        ),
        st.tuples(keyed, seps, st.booleans(), st.sampled_from([":", ": ", " :", "="])).map(
            lambda p: "{" + joined([k + p[3] + v for k, v in p[0]], p[1], p[2]) + "}"
        ),
    )


VALUES = st.recursive(SCALARS, containers, max_leaves=8)
FUNC_NAMES = st.one_of(NAMES, st.lists(NAMES, min_size=1, max_size=3).map(".".join), st.just("f ("))


@st.composite
def calls(draw: st.DrawFn) -> str:
    name = draw(FUNC_NAMES)
    args = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 9))
        value = draw(VALUES)
        if kind == 0:
            args.append(value)  # positional
        elif kind == 1:
            args.append("**" + value)
        else:
            args.append(draw(NAMES) + draw(WS) + "=" + draw(WS) + value)
    sep = draw(st.sampled_from([",", ", ", ",\n ", " , "]))
    return name + "(" + draw(WS) + sep.join(args) + ("," if draw(st.booleans()) else "") + ")"


@st.composite
def texts(draw: st.DrawFn) -> str:
    items = draw(st.lists(calls(), max_size=3))
    if draw(st.integers(0, 3)) == 0 and items:
        text = items[0]
    else:
        sep = draw(st.sampled_from([",", ", ", ",\n", " ,", ",,"]))
        trailing = "," if draw(st.integers(0, 5)) == 0 else ""
        text = "[" + draw(WS) + sep.join(items) + trailing + draw(WS) + "]"
    prefix = draw(st.sampled_from(["", "", "", "'", " ", "\n", "'''", "`", "(", "{"]))
    suffix = draw(st.sampled_from(["", "", "", "'", " ", "\n", "'\n ", "#", ")", "]"]))
    return prefix + text + suffix


# Mostly inside the subset: valid literals, separators and whitespace.
GOOD_WS = st.sampled_from(["", "", "", " ", "\n", "\t", "\n  "])
GOOD_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)
)
GOOD_NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?[0-9]{1,3}(\.[0-9]{1,3})?([eE][-+]?[0-9]{1,3})?", fullmatch=True),
)
GOOD_BODY = st.text(alphabet=st.characters(exclude_categories=("Cs", "Cc")), max_size=8)
GOOD_STRINGS = st.one_of(
    GOOD_BODY.filter(lambda b: "'" not in b and "\\" not in b).map(lambda b: f"'{b}'"),
    GOOD_BODY.filter(lambda b: '"' not in b and "\\" not in b).map(lambda b: f'"{b}"'),
)
GOOD_SCALARS = st.one_of(
    GOOD_NUMBERS, GOOD_STRINGS, GOOD_NAMES, st.sampled_from(["True", "False", "None"])
)


def good_containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    seps = st.lists(st.sampled_from([",", ", ", " ,", ",\n "]), min_size=1, max_size=2)
    items = st.lists(children, max_size=4)
    keys = st.one_of(GOOD_STRINGS, GOOD_NUMBERS)
    return st.one_of(
        st.tuples(items, seps, st.booleans(), GOOD_WS).map(
            lambda p: "[" + p[3] + joined(p[0], p[1], p[2]) + p[3] + "]"
        ),
        st.tuples(items, seps, st.booleans()).map(
            lambda p: "(" + joined(p[0], p[1], p[2] or len(p[0]) == 1) + ")"
        ),
        st.tuples(st.lists(st.tuples(keys, children), max_size=3), seps, st.booleans()).map(
            lambda p: "{" + joined([k + ": " + v for k, v in p[0]], p[1], p[2]) + "}"
        ),
    )


GOOD_VALUES = st.recursive(GOOD_SCALARS, good_containers, max_leaves=8)


@st.composite
def good_texts(draw: st.DrawFn) -> str:
    items = []
    for _ in range(draw(st.integers(0, 3))):
        name = ".".join(draw(st.lists(GOOD_NAMES, min_size=1, max_size=2)))
        names = draw(st.lists(GOOD_NAMES, max_size=3, unique=True))
        args = [k + draw(GOOD_WS) + "=" + draw(GOOD_WS) + draw(GOOD_VALUES) for k in names]
        trailing = "," if args and draw(st.integers(0, 4)) == 0 else ""
        items.append(name + "(" + draw(GOOD_WS) + ", ".join(args) + trailing + ")")
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return "[" + draw(GOOD_WS) + ",".join(items) + draw(GOOD_WS) + "]"


MUTATION_CHARS = st.sampled_from(
    [*"'\"\\#[](){}=,.:-+*_0159eEjx \n\t\r\x00é\u2028", "if", "lambda", "True", "1_0"]
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.one_of(texts(), good_texts()))
    for _ in range(draw(st.integers(0, 3))):
        pos = draw(st.integers(0, len(text)))
        if draw(st.booleans()) and pos < len(text):
            text = text[:pos] + text[pos + 1 :]
        else:
            text = text[:pos] + draw(MUTATION_CHARS) + text[pos:]
    return text


FUZZ = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))


def fuzz(strategy: st.SearchStrategy[Any], texts_of: Callable[[Any], list[str]]) -> Counter[str]:
    """Check the differential property on the texts of FUZZ examples of `strategy`; count
    the texts, those the ast path decodes (`parsed`), and those the fast path decided."""
    counts: Counter[str] = Counter()

    @FUZZ
    @given(strategy)
    def run(example: Any) -> None:
        for text in texts_of(example):
            counts["texts"] += 1
            counts["parsed"] += reference(text)[0]
            counts["decided"] += check(text)

    run()
    print(f"\n{dict(counts)}")
    return counts


# The floors below are shares of the texts the ast path decodes that the fast path must
# decide itself (measured over random runs: generated 37-63%, in subset 95-98%, mutated
# 80-88%, simple calls 47-57%), so that a fast path declining everything fails.


def test_differential_generated() -> None:
    counts = fuzz(texts(), lambda text: [text])
    assert counts["decided"] >= 0.2 * counts["parsed"] > 0


def test_differential_in_subset() -> None:
    counts = fuzz(good_texts(), lambda text: [text])
    assert counts["decided"] >= 0.85 * counts["parsed"] > 0


def test_differential_mutated() -> None:
    counts = fuzz(mutated(), lambda text: [text, bracketed(text)])
    assert counts["decided"] >= 0.5 * counts["parsed"] > 0


def test_differential_simple_calls() -> None:
    """Mostly in-subset texts, so that the accepting branch is exercised heavily."""

    def text(example: tuple[list[tuple[str, str]], bool]) -> list[str]:
        args, listed = example
        call = "f(" + ", ".join(f"{k}={v}" for k, v in args) + ")"
        return ["[" + call + "]" if listed else call]

    examples = st.tuples(st.lists(st.tuples(NAMES, SCALARS), max_size=4), st.booleans())
    counts = fuzz(examples, text)
    assert counts["decided"] >= 0.3 * counts["parsed"] > 0


# --- the corpus ------------------------------------------------------------------------------


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _prompt_answers() -> list[str]:
    answers: list[str] = []
    for model_dir in sorted(CORPUS.iterdir()):
        meta = model_dir / "model.json"
        if not meta.is_file() or json.loads(meta.read_text()).get("mode") != "prompt":
            continue
        for path in sorted(model_dir.glob("BFCL_v4_*_result.json")):
            for line in path.read_text().splitlines():
                if line.strip():
                    answers.extend(_strings(json.loads(line).get("result")))
    return answers


@needs_corpus
def test_corpus_prompt_answers() -> None:
    answers = _prompt_answers()
    assert answers
    accepted = parsed = not_calls = 0
    for answer in answers:
        for text in (answer, bracketed(answer)):
            check(text)
        text = bracketed(answer)
        parsed += reference(text)[0]
        try:
            accepted += fast_python_calls(text) is not None
        except DecodeError:
            not_calls += 1
    print(
        f"\ncorpus: {len(answers)} prompt answers; bracketed form parsed by ast: {parsed}, "
        f"accepted by the fast path: {accepted} ({accepted / parsed:.1%} of parsable, "
        f"{accepted / len(answers):.1%} of all); failed by it as not calls: {not_calls}"
    )
    assert accepted > 0.9 * parsed and not_calls > 0
