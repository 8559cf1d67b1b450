"""One single-turn case from raw model output to verdict: decode, then check.

This is where the decoder meets the checker for the AST, irrelevance and relevance
categories. Whatever the model wrote, the outcome is a Verdict: decoding failures carry the
official decoder error types, and an unexpected failure inside a checker (a data defect the
official tool would crash on) is recorded on the case instead of stopping the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fcbench import corrections
from fcbench._json import int_digits
from fcbench.check.ast.checker import CaseChecker, Setting
from fcbench.core.categories import Category, Checker
from fcbench.core.model import Call, TestCase, Verdict
from fcbench.decode.calls import calls_as_decoded
from fcbench.decode.encoding import Encoding, contains_call, decode_ast
from fcbench.decode.errors import DecodeError

CHECKER_CRASH = "fcbench:checker_crash"


@dataclass
class CheckMemo:
    """What the judging of one category shares across models: a prepared checker per case,
    and verdicts by decoded calls (the check is a pure function of case, setting and calls;
    models often write the same calls in different text)."""

    verdicts: dict[tuple[str, str, bool, str], Verdict] = field(default_factory=dict)
    checkers: dict[tuple[str, str, bool], CaseChecker] = field(default_factory=dict)

    def checker(self, case: TestCase, category: Category, encoding: Encoding) -> CaseChecker:
        key = (category.name, case.id, encoding.underscore_names)
        found = self.checkers.get(key)
        if found is None:
            found = self.checkers[key] = _case_checker(case, category, encoding)
        return found


def judge(
    case: TestCase,
    category: Category,
    raw: Any,
    encoding: Encoding,
    memo: CheckMemo | None = None,
) -> Verdict:
    """The verdict on one single-turn answer; never raises.

    With a `memo` (one per category, shared by every model's answers, as in `fcbench
    evaluate`), answers that decode to the same calls for the same case are checked once.
    """
    if category.checker in (Checker.IRRELEVANCE, Checker.RELEVANCE):
        return _judge_relevance(category, raw, encoding)
    try:
        calls = decode_ast(raw, encoding, category.language)
    except DecodeError as exc:
        if exc.error_type.endswith("wrong_output_format"):
            return Verdict.fail(
                exc.error_type,
                "Did not output in the specified format. Note: the model_result is wrapped in "
                "a string to ensure json serializability.",
                decoded=str(exc.decoded),
            )
        return Verdict.fail(exc.error_type, f"Invalid syntax. Failed to decode AST. {exc}")
    except Exception as exc:  # a decoder bug must not lose the run
        return Verdict.fail("ast_decoder:decoder_failed", f"Invalid syntax. {exc!r}")
    if memo is None:
        return _check(_case_checker(case, category, encoding), calls)
    key = _memo_key(category, case, calls, encoding)
    verdict = memo.verdicts.get(key) if key is not None else None
    if verdict is None:
        verdict = _check(memo.checker(case, category, encoding), calls)
        if key is not None:
            memo.verdicts[key] = verdict
    return verdict


def _case_checker(case: TestCase, category: Category, encoding: Encoding) -> CaseChecker:
    setting = Setting(category.language, encoding.underscore_names)
    answer = corrections.possible_answer(case.id, case.possible_answer)  # #1329, #1330
    return CaseChecker(category.checker, case.functions, answer, setting)


def _memo_key(
    category: Category, case: TestCase, calls: list[Call], encoding: Encoding
) -> tuple[str, str, bool, str] | None:
    """The decoded calls as exact text: `repr` of literals keeps types apart (1, 1.0, True)
    and argument order (which decides the first error reported)."""
    try:
        text = repr([(call.name, call.args) for call in calls])
    except (RecursionError, ValueError):  # absurdly deep or huge values: judge them uncached
        return None
    return (category.name, case.id, encoding.underscore_names, text)


def _check(checker: CaseChecker, calls: list[Call]) -> Verdict:
    try:
        verdict = _checked(checker, calls)
    except Exception as exc:
        return Verdict.fail(
            CHECKER_CRASH,
            f"The checker could not judge this case ({type(exc).__name__}: {exc}); "
            "the official evaluator stops on such a case.",
            decoded=calls_as_decoded(calls),
        )
    if verdict.valid:
        return verdict
    return Verdict(False, verdict.error_type, verdict.errors, {"decoded": calls_as_decoded(calls)})


def _checked(checker: CaseChecker, calls: list[Call]) -> Verdict:
    """The checker on decoded calls, under Python's limit of 4,300 digits as upstream runs;
    where that limit stops it (a message quoting `10**4400` or a 3,700-digit hex literal
    that decoding let through, upstream's crash: docs/conformance.md), again without it, so
    the integer is compared and quoted whole."""
    try:
        return checker.check(calls)
    except ValueError:
        with int_digits():
            return checker.check(calls)


def _judge_relevance(category: Category, raw: Any, encoding: Encoding) -> Verdict:
    """The records show what decoding gave (upstream's `decoded_result`)."""
    has_call, decode_error, decoded = contains_call(raw, encoding)
    if category.checker == Checker.IRRELEVANCE:
        if not has_call:
            return Verdict.ok()
        return Verdict.fail(
            "irrelevance_error:decoder_success",
            "Valid syntax. Successfully decode AST when it should not.",
            decoded=decoded,
        )
    if has_call:
        return Verdict.ok()
    return Verdict.fail(  # [quirk] "None" when decoding worked but gave no call
        "relevance_error:decoder_failed",
        f"Invalid syntax. Failed to decode AST when it should have. {decode_error}",
        decoded=decoded,
    )
