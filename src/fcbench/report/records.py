"""Per-case failure records in the official score-file shape (spec §8.3)."""

from __future__ import annotations

from typing import Any

from fcbench.dataset.categories import Category, Checker
from fcbench.dataset.model import TestCase, Verdict


def prompt_of(case: TestCase) -> dict[str, Any]:
    """The test entry as the official score files show it."""
    return {"id": case.id, "question": case.question, "function": case.functions}


def failure_record(
    model: str,
    category: Category,
    case: TestCase,
    raw: Any,
    verdict: Verdict,
    prompt: Any = None,
) -> dict[str, Any]:
    """One failed case, with the fields the official evaluator writes for its checker.

    `prompt` may carry the case's prompt already serialised (`RawJSON`); by default it is
    built from the case.
    """
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
    record["possible_answer"] = case.possible_answer
    return record
