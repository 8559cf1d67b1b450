"""Per-case failure records in the official score-file shape (spec §8.3)."""

from __future__ import annotations

from typing import Any

from fcbench.dataset.categories import Category, Checker
from fcbench.dataset.model import TestCase, Verdict


def prompt_of(case: TestCase) -> dict[str, Any]:
    """The test entry as the official score files show it."""
    return {"id": case.id, "question": case.question, "function": case.functions}


def multi_turn_prompt_of(case: TestCase) -> dict[str, Any]:
    """A multi-turn entry as its score records show it: every field but the function docs
    (upstream deletes them "for readability"); miss_func's held-out docs stay."""
    return {"id": case.id, "question": case.question, **case.extras}


def failure_record(
    model: str,
    category: Category,
    case: TestCase,
    raw: Any,
    verdict: Verdict,
    prompt: Any = None,
    inference_log: Any = "",
) -> dict[str, Any]:
    """One failed case, with the fields the official evaluator writes for its checker.

    `prompt` may carry the case's prompt already serialised (`RawJSON`); by default it is
    built from the case. `inference_log` (the result entry's) is shown by multi-turn records.
    """
    if category.checker is Checker.MULTI_TURN:
        return _multi_turn_record(model, category, case, raw, verdict, prompt, inference_log)
    record: dict[str, Any] = {
        "id": case.id,
        "model_name": model,
        "test_category": category.name,
        "valid": False,
        "error": verdict.errors,
        "error_type": verdict.error_type,
        "prompt": prompt if prompt is not None else prompt_of(case),
    }
    if category.checker in (Checker.IRRELEVANCE, Checker.RELEVANCE):
        record["model_result"] = raw
        record["decoded_result"] = verdict.extras.get("decoded")
        return record
    record["model_result_raw"] = raw
    if "decoded" in verdict.extras:
        record["model_result_decoded"] = verdict.extras["decoded"]
    if "model_executed_output" in verdict.extras:  # executable categories
        record["model_executed_output"] = verdict.extras["model_executed_output"]
    record["possible_answer"] = case.possible_answer
    return record


def _multi_turn_record(
    model: str,
    category: Category,
    case: TestCase,
    raw: Any,
    verdict: Verdict,
    prompt: Any,
    inference_log: Any,
) -> dict[str, Any]:
    """The multi-turn shape: `error` is the checker's dict; pre-check failures (not a list,
    force-terminated) show `model_result`, the others the raw and decoded steps."""
    from fcbench.check.multi_turn import PRE_CHECK_ERRORS

    record: dict[str, Any] = {
        "id": case.id,
        "model_name": model,
        "test_category": category.name,
        "valid": False,
        "error": verdict.extras.get("error", {"error_message": verdict.errors}),
        "prompt": prompt if prompt is not None else multi_turn_prompt_of(case),
    }
    if verdict.error_type in PRE_CHECK_ERRORS:
        record["model_result"] = raw
    else:
        record["model_result_raw"] = raw
        record["model_result_decoded"] = verdict.extras.get("decoded", [])
    record["possible_answer"] = case.possible_answer
    record["inference_log"] = inference_log
    return record
