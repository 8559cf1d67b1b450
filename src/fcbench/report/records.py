"""Per-case failure records in the official score-file shape (spec §8.3)."""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from fcbench.dataset.categories import Category, Checker
from fcbench.dataset.model import TestCase, Verdict
from fcbench.report.score_files import Encode, RawJSON, new_encoder

_RELEVANCE_CHECKERS = (Checker.IRRELEVANCE, Checker.RELEVANCE)


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
    if category.checker in _RELEVANCE_CHECKERS:
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


class FailureLines:
    """The single-turn failure records of one score file, each built straight as its line.

    Why: a run writes thousands of failure records; building each as a dict and encoding it
    whole cost more than joining pre-encoded pieces. The line is byte for byte
    `score_files._dumps(failure_record(...))` with the possible answer as JSON text (tests
    hold the two together): the same keys in the same order, model_name / test_category /
    valid encoded once per file, and only the per-case values encoded, by one C encoder.
    When a value is odd enough for the encoder to reject it, or a piece is missing, `line`
    gives None and the caller writes the dict record, whose general path handles anything.
    Multi-turn records (another shape, few and large) are not built here: see `supports`.
    """

    def __init__(
        self, model: str, category: Category, answer_text: Callable[[TestCase], str | None]
    ) -> None:
        """`answer_text` gives a case's possible answer as JSON text, or None if it has none
        the plain encoder accepts."""
        self._text = _json_text(new_encoder())
        self._answer_text = answer_text
        self._relevance = category.checker in _RELEVANCE_CHECKERS
        self._after_id = (
            f', "model_name": {self._text(model)}, '
            f'"test_category": {self._text(category.name)}, "valid": false, "error": '
        )

    @staticmethod
    def supports(category: Category) -> bool:
        return category.checker is not Checker.MULTI_TURN

    def line(self, case: TestCase, raw: Any, verdict: Verdict, prompt: Any) -> str | None:
        """`failure_record(model, category, case, raw, verdict, prompt)` as its JSON line, or
        None: the caller then builds the record (also when the prompt is not `RawJSON`)."""
        if not isinstance(prompt, RawJSON):
            return None
        text = self._text
        try:
            head = (
                f'{{"id": {text(case.id)}{self._after_id}{text(verdict.errors)}, '
                f'"error_type": {text(verdict.error_type)}, "prompt": {prompt}'
            )
            if self._relevance:
                decoded = text(verdict.extras.get("decoded"))
                return f'{head}, "model_result": {text(raw)}, "decoded_result": {decoded}}}'
            tail = self._result_and_answer(case, raw, verdict)
        except (TypeError, ValueError):
            return None
        return None if tail is None else head + tail

    def _result_and_answer(self, case: TestCase, raw: Any, verdict: Verdict) -> str | None:
        """The AST / executable tail: raw result, the decoded result and executed output when
        the verdict has them, the possible answer (None if it has no JSON text)."""
        answer = self._answer_text(case)
        if answer is None:
            return None
        text = self._text
        extras = verdict.extras
        tail = f', "model_result_raw": {text(raw)}'
        if "decoded" in extras:
            tail += f', "model_result_decoded": {text(extras["decoded"])}'
        if "model_executed_output" in extras:
            tail += f', "model_executed_output": {text(extras["model_executed_output"])}'
        return f'{tail}, "possible_answer": {answer}}}'


def _json_text(encode: Encode) -> Callable[[Any], str]:
    """One value's JSON text as the whole-record encoding writes it: `RawJSON` as is, strings
    and one-message lists (most error lists) by the C string encoder directly, as a call of the
    whole encoder costs about a microsecond more."""

    def text(value: Any) -> str:
        if type(value) is str:
            return encode_basestring(value)
        if type(value) is list and len(value) == 1 and type(value[0]) is str:
            return f"[{encode_basestring(value[0])}]"
        if isinstance(value, RawJSON):
            return value
        return encode(value)

    return text
