"""Every output format decodes as its official handler decodes (oracle: the shared wheel).

Outputs are written in each family's format from the ground truth of single-turn cases:
correct, mutated (a value changed, a call renamed, an argument dropped, text around the
calls) and malformed (truncated, unbalanced, empty, prose, the wrong type). Each goes
through the family's `parse` (what the handler stores: for Phi-FC, Granite 3, Arch and
Mistral-FC the calls it read) and then `decode_ast` (for the case's language) and
`decode_execute`; fcbench's and the handler's answers must be the same value (compared by
`repr`, so `1` and `1.0` and `True` differ) or both fail. For `decode_ast` the comparison is
what the checker gets: the calls, or the error type (`decoder_failed` with the handler's
message, which goes into the score files; `decoder_wrong_output_format` with what the
handler returned).

Each decoder is held to a stripe of the cases (`stripe`): `STRIPES` deterministic stripes,
decoder number i (in `NAMES`) checks stripe i % STRIPES, so the union covers every case and
every stripe holds cases of every category (so of every language) and of ground truths with
and without the characters some handlers split or escape on; a kind of case too rare to share
out is in every stripe. Every output written from a case goes to that case's decoders.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "models" / "families"))
from family_handlers import (
    DECODER_FAILED,
    PR_FAMILIES,
    FakeCompletion,
    make_handler,
    official_decoder,
    official_handlers,
    ours_ast,
    theirs_ast,
    writer,
)
from make_pr_golden import PR_DECODERS

from fcbench.core.categories import Language
from fcbench.core.model import TestCase
from fcbench.decode import families as decoders
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.models import families
from fcbench.models.families.base import plain_text

CATEGORIES = ["simple_python", "simple_java", "simple_javascript", "parallel",
              "parallel_multiple", "live_parallel_multiple"]
Calls = list[tuple[str, dict[str, Any]]]
_FCBENCH_MESSAGES = {decoders.DECODERS["default"], decoders.DECODERS["phi"]}


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with official_handlers(bfcl_wheel, tmp_path_factory.mktemp("official")) as found:
        from bfcl_eval.constants.enums import ReturnFormat

        found.formats = {Language.PYTHON: ReturnFormat.PYTHON, Language.JAVA: ReturnFormat.JAVA,
                         Language.JAVASCRIPT: ReturnFormat.JAVASCRIPT}
        yield found


@pytest.fixture(scope="module")
def cases(fetched_home: Path) -> list[tuple[TestCase, Language]]:
    from fcbench.core import categories
    from fcbench.dataset.load import load_category

    return [(case, categories.get(name).language)
            for name in CATEGORIES for case in load_category(name)]


STRIPES = 2
SPECIAL = ";'\"\\\n{}[]<>"
"""Characters the handlers split, quote or escape on (xLAM and Llama 3.1 split on `;`,
ThinkAgent turns `'` into `"`, ...): whether a ground truth holds any is part of its kind."""


def _texts(value: Any) -> Iterator[str]:
    """The strings inside a value (dict keys too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def kind(case: TestCase) -> tuple[Any, ...]:
    """What a stripe must hold one of: the category, and whether the ground truth's strings
    hold non-ASCII text or any of `SPECIAL`."""
    text = "".join(_texts([args for _, args in ground_truth(case)]))
    return (case.category, any(ord(ch) > 127 for ch in text), any(ch in SPECIAL for ch in text))


def stripe(name: str, cases: list[tuple[TestCase, Language]]) -> list[tuple[TestCase, Language]]:
    """The cases decoder `name` checks: the cases of each `kind` dealt out in order, one
    stripe after the other (a kind with fewer cases than stripes in every stripe)."""
    number = NAMES.index(name) % STRIPES
    kinds: dict[tuple[Any, ...], list[str]] = {}
    for case, _ in cases:
        kinds.setdefault(kind(case), []).append(case.id)
    keep = {case_id for members in kinds.values() for rank, case_id in enumerate(members)
            if len(members) < STRIPES or rank % STRIPES == number}
    return [(case, language) for case, language in cases if case.id in keep]


def ground_truth(case: TestCase) -> Calls:
    """The first acceptable value of every parameter the answer requires."""
    calls = []
    for item in case.possible_answer or []:
        for name, params in item.items():
            args = {k: v[0] for k, v in params.items() if v and v[0] != ""}
            calls.append((name, args))
    return calls


def mutations(calls: Calls) -> list[Calls]:
    """Wrong in one way each: a value, a name, a missing argument, no call, a repeated call."""
    if not calls:
        return []
    name, args = calls[0]
    changed = {k: (v + 1 if type(v) is int else f"{v}x" if isinstance(v, str) else v)
               for k, v in args.items()}
    dropped = dict(list(args.items())[1:])
    return [[(name, changed), *calls[1:]], [(name + "_v2", args), *calls[1:]],
            [(name, dropped), *calls[1:]], [], calls + calls[:1]]


def outputs(family: str, calls: Calls) -> list[Any]:
    write = writer(family)
    correct = write(calls)
    texts: list[Any] = [correct, *(write(m) for m in mutations(calls))]
    texts += [
        "Sure, here you go: " + correct, correct + "\nLet me know if you need more.",
        correct[: len(correct) // 2], correct.replace('"', "", 1), correct.replace("}", "", 1),
        "", "   ", "I cannot help with that.", "[]", "{}", "null", '{"tool_calls": []}',
        "<tool_call>\n{broken\n</tool_call>", "<think>only thinking", "f(a=1); g(b=2)",
        "<|tool_call|>['{\"name\": \"f\", \"arguments\": {\"a\": 1}}']",
    ]
    return texts


def _outcome(function: Any, *args: Any) -> tuple[str, str]:
    try:
        return "ok", repr(function(*args))
    except (Exception, RecursionError) as exc:
        return "error", str(exc)


def official_result(handler: Any, text: str) -> tuple[str, Any]:
    try:
        parsed = handler._parse_query_response_prompting(FakeCompletion(text))
        return "ok", parsed["model_responses"]
    except Exception as exc:
        return "error", str(exc)


def our_result(name: str, text: str) -> tuple[str, Any]:
    if name not in families.FAMILIES:
        return "ok", text
    try:
        return "ok", families.get(name).parse(text).result
    except (Exception, RecursionError) as exc:
        return "error", str(exc)


def _ours_execute(result: Any, encoding: Encoding) -> Any:
    try:
        return decode_execute(result, encoding)
    except DecodeError as exc:
        raise RuntimeError("execute failed") from exc


def _theirs_execute(handler: Any, result: Any) -> Any:
    try:
        return handler.decode_execute(result, has_tool_call_tag=False)
    except Exception as exc:
        raise RuntimeError("execute failed") from exc


def compare(name: str, handler: Any, official: Any, text: Any, language: Language) -> None:
    theirs = official_result(handler, text) if name in families.FAMILIES else ("ok", text)
    ours = our_result(name, text)
    assert (ours[0], repr(ours[1])) == (theirs[0], repr(theirs[1])), (name, text)
    if ours[0] == "error":
        return
    result = ours[1]
    decoder = families.get(name).decoder_name if name in families.FAMILIES else name
    encoding = Encoding("prompt", "dot", None, family=decoder)
    got = ours_ast(result, encoding, language)
    want = theirs_ast(handler, result, official.formats[language])
    if decoders.DECODERS[decoder] in _FCBENCH_MESSAGES and got[0] == want[0] == DECODER_FAILED:
        pass  # the default decoders' messages are fcbench's own (tests/decode cover them)
    else:
        assert got == want, (name, "decode_ast", text)
    assert (_outcome(_ours_execute, result, encoding)
            == _outcome(_theirs_execute, handler, result)), (name, "decode_execute", text)


def _distinct_names() -> list[str]:
    """One name per distinct (parse, decoders) pair: families that only differ in their
    prompt decode alike (Llama, Gemma, MiniCPM and Bielik are `default`)."""
    seen: dict[tuple[Any, str], str] = {}
    for name in ["default", "falcon-fc", *families.names()]:
        if name in PR_FAMILIES:
            continue  # no handler in the wheel: test_pr_prompts.py checks their decoding
        family = families.get(name) if name in families.FAMILIES else None
        parse = family.parse if family else plain_text  # decoder-only names read the text
        decoder = family.decoder_name if family else name
        seen.setdefault((parse, decoders.DECODERS[decoder]), name)
    return sorted(seen.values())


NAMES = _distinct_names()


def test_every_decoder_is_checked() -> None:
    tested = {families.get(n).decoder_name if n in families.FAMILIES else n for n in NAMES}
    targets = {decoders.DECODERS[n] for n in tested}
    checked_elsewhere = {decoders.DECODERS[n] for n in PR_DECODERS}  # test_pr_prompts.py
    checked_elsewhere |= {decoders.DECODERS[families.get(n).decoder_name] for n in PR_FAMILIES}
    assert targets | checked_elsewhere == set(decoders.DECODERS.values())


def test_the_stripes_cover_every_case_and_every_kind(
    cases: list[tuple[TestCase, Language]],
) -> None:
    """Together the decoders check every case; each checks cases of every kind."""
    kinds = {kind(case) for case, _ in cases}
    covered: set[str] = set()
    for name in NAMES:
        chosen = stripe(name, cases)
        assert {kind(case) for case, _ in chosen} == kinds, name
        covered |= {case.id for case, _ in chosen}
    assert covered == {case.id for case, _ in cases}


@pytest.mark.parametrize("name", NAMES)
def test_decoding_equals_the_official(
    cases: list[tuple[TestCase, Language]], official: Any, name: str
) -> None:
    handler = (make_handler(official, name) if name in families.FAMILIES
               else official_decoder(official, name))
    checked = 0
    for case, language in stripe(name, cases):
        for text in outputs(name, ground_truth(case)):
            compare(name, handler, official, text, language)
            checked += 1
    assert checked > 15000 // STRIPES
