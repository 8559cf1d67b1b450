"""One single-turn case from raw model output to verdict: decode, then check.

This is where the decoder meets the checker for the AST, irrelevance and relevance
categories. Whatever the model wrote, the outcome is a Verdict: decoding failures carry the
official decoder error types, and an unexpected failure inside a checker (a data defect the
official tool would crash on) is recorded on the case instead of stopping the run.
"""

from __future__ import annotations

from typing import Any

from fcbench.check.ast.checker import Setting, check_calls
from fcbench.dataset.categories import Category, Checker
from fcbench.dataset.model import TestCase, Verdict
from fcbench.decode.calls import calls_as_decoded
from fcbench.decode.encoding import Encoding, contains_call, decode_ast
from fcbench.decode.errors import DecodeError

CHECKER_CRASH = "fcbench:checker_crash"


def judge(case: TestCase, category: Category, raw: Any, encoding: Encoding) -> Verdict:
    """The verdict on one single-turn answer; never raises."""
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
    decoded = calls_as_decoded(calls)
    setting = Setting(category.language, encoding.underscore_names)
    try:
        verdict = check_calls(
            category.checker, case.functions, calls, case.possible_answer, setting
        )
    except Exception as exc:
        return Verdict.fail(
            CHECKER_CRASH,
            f"The checker could not judge this case ({type(exc).__name__}: {exc}); "
            "the official evaluator stops on such a case.",
            decoded=decoded,
        )
    if verdict.valid:
        return verdict
    return Verdict(False, verdict.error_type, verdict.errors, {"decoded": decoded})


def _judge_relevance(category: Category, raw: Any, encoding: Encoding) -> Verdict:
    has_call, decode_error = contains_call(raw, encoding)
    if category.checker is Checker.IRRELEVANCE:
        if not has_call:
            return Verdict.ok()
        return Verdict.fail(
            "irrelevance_error:decoder_success",
            "Valid syntax. Successfully decode AST when it should not.",
        )
    if has_call:
        return Verdict.ok()
    return Verdict.fail(
        "relevance_error:decoder_failed",
        f"Invalid syntax. Failed to decode AST when it should have. {decode_error}",
    )
