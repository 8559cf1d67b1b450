"""Per-case failure records in the official score-file shape (spec §8.3).

The shapes of the single-turn checkers live here (AST and executable, relevance); checker
kinds with other shapes (multi-turn, agentic) build theirs next to their checker.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from fcbench._json import RawJSON
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory
from fcbench.results.score_files import Encode, new_encoder


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
    *,
    relevance: bool = False,
) -> dict[str, Any]:
    """One failed single-turn case with the fields the official evaluator writes: the AST and
    executable shape, or with `relevance` the (ir)relevance one.

    `prompt` may carry the case's prompt already serialised (`RawJSON`); by default it is
    built from the case.
    """
    head: dict[str, Any] = {
        "id": case.id,
        "model_name": model,
        "test_category": category.name,
        "valid": False,
    }
    prompt = prompt if prompt is not None else prompt_of(case)
    if relevance:  # upstream's order: the error last
        return {**head, "prompt": prompt, "model_result": raw,
                "decoded_result": verdict.extras.get("decoded"),
                "error": verdict.errors, "error_type": verdict.error_type}
    record = {**head, "error": verdict.errors, "error_type": verdict.error_type,
              "prompt": prompt}
    record["model_result_raw"] = raw
    if "decoded" in verdict.extras:
        record["model_result_decoded"] = verdict.extras["decoded"]
    if "model_executed_output" in verdict.extras:  # executable categories
        record["model_executed_output"] = verdict.extras["model_executed_output"]
    record["possible_answer"] = case.possible_answer
    return record


def single_turn_records(
    model: str, category: Category, cases: SlimCategory, *, relevance: bool = False
) -> Callable[[TestCase, dict[str, Any], Verdict, RawJSON | None], str | dict[str, Any]]:
    """The failure records of one single-turn score file: each built straight as its JSON
    line (`FailureLines`), or as a dict (possible answer as JSON text where it has one) when
    a value is too odd for the direct path."""
    lines = FailureLines(model, category, cases.answer_text, relevance=relevance)

    def record(
        case: TestCase, entry: dict[str, Any], verdict: Verdict, prompt: RawJSON | None
    ) -> str | dict[str, Any]:
        line = lines.line(case, entry["result"], verdict, prompt)
        if line is not None:
            return line
        built = failure_record(
            model, category, case, entry["result"], verdict, prompt, relevance=relevance
        )
        text = cases.answer_text(case)
        if "possible_answer" in built and text is not None:
            built["possible_answer"] = text
        return built

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
    Multi-turn records (another shape, few and large) are built by their checker kind.
    """

    def __init__(
        self,
        model: str,
        category: Category,
        answer_text: Callable[[TestCase], str | None],
        *,
        relevance: bool = False,
    ) -> None:
        """`answer_text` gives a case's possible answer as JSON text, or None if it has none
        the plain encoder accepts; `relevance` picks the (ir)relevance record shape."""
        self._text = _json_text(new_encoder())
        self._answer_text = answer_text
        self._relevance = relevance
        self._after_id = (
            f', "model_name": {self._text(model)}, '
            f'"test_category": {self._text(category.name)}, "valid": false, '
            + ('"prompt": ' if relevance else '"error": ')
        )

    def line(self, case: TestCase, raw: Any, verdict: Verdict, prompt: Any) -> str | None:
        """`failure_record(model, category, case, raw, verdict, prompt)` as its JSON line, or
        None: the caller then builds the record (also when the prompt is not `RawJSON`)."""
        if not isinstance(prompt, RawJSON):
            return None
        text = self._text
        try:
            if self._relevance:  # upstream's order: the error last
                decoded = text(verdict.extras.get("decoded"))
                return (
                    f'{{"id": {text(case.id)}{self._after_id}{prompt}, '
                    f'"model_result": {text(raw)}, "decoded_result": {decoded}, '
                    f'"error": {text(verdict.errors)}, "error_type": {text(verdict.error_type)}}}'
                )
            head = (
                f'{{"id": {text(case.id)}{self._after_id}{text(verdict.errors)}, '
                f'"error_type": {text(verdict.error_type)}, "prompt": {prompt}'
            )
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
