"""The agentic checker (spec §7.1): web search and memory answers.

An agentic case is one turn of several steps. Steps that are calls (searches, page fetches,
memory operations) are not judged; what counts is the model's final message, the **last**
step that does not decode to calls (it fails `decode_execute`, or decodes to nothing). That
message passes when one of the acceptable answers, normalised, occurs in it, normalised, as a
regex match between word boundaries. The normalisation deletes `, . / - _ * ^ ( )`,
lowercases, and turns `'` into `"`; spaces and newlines are kept.

Rules reproduced from upstream because they decide verdicts:

* the result must be a list of exactly one turn (`agentic:inference_error`);
* the last non-call step is taken by Python truth: when it is empty (`""`, `[]`) the case
  has no final message even if an earlier step was text (`agentic:no_last_message`);
* a list message is judged by its first element, anything else not a string by `str()`
  (a dict message reads as its Python repr);
* [quirk] an answer that begins or ends with a non-word character (`$222 million`) matches
  only where a word character stands right before or after it, so in the benchmark's own
  answer format (`{'answer': '$222 million', ...}`) it never matches.

A turn that cannot be iterated, or answers that are not strings, crash the official
evaluator; here they are a recorded failure, `fcbench:checker_crash`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from fcbench._json import RawJSON
from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute, is_empty_execution

__all__ = [
    "ANSWER_NOT_FOUND",
    "CHECKER_CRASH",
    "INFERENCE_ERROR",
    "NO_LAST_MESSAGE",
    "answer_message",
    "failure_record",
    "final_message",
    "ground_truth_message",
    "judge_agentic",
    "standardize",
]

INFERENCE_ERROR = "agentic:inference_error"
NO_LAST_MESSAGE = "agentic:no_last_message"
ANSWER_NOT_FOUND = "agentic:answer_not_found"
CHECKER_CRASH = "fcbench:checker_crash"

_NOT_A_TURN = "Error during inference phase. Model did not output a list of model responses."
_NO_MESSAGE = "Cannot find the last chat message that is not a function call."
_NOT_FOUND = "None of the expected answers were found in the model response."

_IGNORED = re.compile(r"[,./\-_*^()]")


def standardize(text: str) -> str:
    """The official normalisation of a message or an answer (spaces are kept)."""
    return _IGNORED.sub("", text).lower().replace("'", '"')


@functools.lru_cache(maxsize=4096)
def _patterns(answers: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Each normalised answer as a word-bounded pattern (compiled once per case)."""
    return tuple(re.compile(rf"\b{re.escape(standardize(answer))}\b") for answer in answers)


def judge_agentic(case: TestCase, raw: Any, encoding: Encoding) -> Verdict:
    """The verdict on one agentic answer (web search or memory); never raises.

    Failures carry the official `error` dict in `extras["error"]`; `extras["decoded"]` holds
    the steps that decoded to calls and `extras["last_message"]` the final message, for the
    score-file record (`failure_record`).
    """
    try:
        return _judge(case, raw, encoding)
    except Exception as exc:  # a turn that is no sequence, answers that are no strings
        return _fail(
            CHECKER_CRASH,
            [f"The checker could not judge this case ({type(exc).__name__}: {exc}); the "
             "official evaluator stops on such a case."],
        )


def _judge(case: TestCase, raw: Any, encoding: Encoding) -> Verdict:
    if type(raw) is not list or len(raw) != 1:
        return _fail(INFERENCE_ERROR, [_NOT_A_TURN])
    decoded, last = final_message(raw[0], encoding)
    if not last:
        return _fail(NO_LAST_MESSAGE, [_NO_MESSAGE], decoded=decoded)
    answers = case.possible_answer
    patterns = _patterns(tuple(answers))
    message = _as_text(last)
    normalised = standardize(message)
    if any(pattern.search(normalised) for pattern in patterns):
        return Verdict.ok()
    error = {
        "error_message": _NOT_FOUND,
        "error_type": ANSWER_NOT_FOUND,
        "details": {
            "model_response": message,
            "possible_answers": answers,
            "standardized_model_response": normalised,
            "standardized_possible_answers": [standardize(a) for a in answers],
        },
    }
    return Verdict.fail(ANSWER_NOT_FOUND, _NOT_FOUND, error=error, last_message=last)


def final_message(turn: Any, encoding: Encoding) -> tuple[list[list[str]], Any]:
    """The steps that decode to calls, and the last step that does not (None if none).

    Steps are what iterating the turn yields, as upstream (a string turn yields characters);
    a turn that cannot be iterated raises TypeError.
    """
    decoded: list[list[str]] = []
    last: Any = None
    for step in turn:
        try:
            calls = decode_execute(step, encoding)
        except DecodeError:
            last = step
            continue
        if is_empty_execution(calls):
            last = step
        else:
            decoded.append(calls)
    return decoded, last


def _as_text(message: Any) -> str:
    """A list message by its first element; anything not a string by `str()`."""
    if type(message) is list:
        message = message[0]
    return message if type(message) is str else str(message)


def _fail(error_type: str, messages: list[str], **extras: Any) -> Verdict:
    error = {"error_message": messages, "error_type": error_type}
    return Verdict.fail(error_type, *messages, error=error, **extras)


# ------------------------------------------------------------------------ score files


def failure_record(
    model: str,
    case: TestCase,
    raw: Any,
    verdict: Verdict,
    prompt: Mapping[str, Any] | RawJSON,
    inference_log: Any = "",
) -> dict[str, Any]:
    """A failed case's score-file line, in the official shape for its error type.

    `prompt` is the entry as the official evaluator loads it (`dataset.agentic.eval_prompt`),
    as a dict or as its JSON text (`RawJSON`, written as is): not-found records show only its
    `question`, the others the whole entry. Key order and values are the official ones, so
    `results.score_files` writes the same bytes.
    """
    record: dict[str, Any] = {
        "id": case.id,
        "model_name": model,
        "test_category": case.category,
        "valid": False,
        "error": verdict.extras.get("error", {"error_message": verdict.errors,
                                              "error_type": verdict.error_type}),
    }
    if verdict.error_type == ANSWER_NOT_FOUND:
        entry = json.loads(prompt) if isinstance(prompt, str) else prompt
        record["prompt"] = entry["question"]
        record["model_result_raw"] = raw
        record["last_non_fc_message"] = verdict.extras.get("last_message")
    else:
        record["prompt"] = prompt
        record["model_result"] = raw
        if verdict.error_type == NO_LAST_MESSAGE:
            record["model_result_decoded"] = verdict.extras.get("decoded", [])
    record["possible_answer"] = case.possible_answer
    record["inference_log"] = inference_log
    return record


# ------------------------------------------------------------------------ the ground truth


def answer_message(answer: str, context: str) -> str:
    """A final message in the benchmark's answer format (the agentic system message's
    `{'answer': ..., 'context': ...}`), written as the Python dict it shows."""
    return str({"answer": answer, "context": context})


GROUND_TRUTH_CONTEXT = "From the benchmark's ground truth."


def ground_truth_message(case: TestCase, context: str = GROUND_TRUTH_CONTEXT) -> str:
    """The ground-truth model's final message: the first acceptable answer that passes this
    checker when given in the answer format.

    Usually the first answer; not when it begins or ends with a non-word character (the
    word-boundary quirk), e.g. web_search_51 `$222 million` -> `222 million`. When no answer
    passes, the first one is used (the case then fails: a dataset finding).
    """
    answers = [a for a in case.possible_answer or [] if isinstance(a, str)]
    for answer in answers:
        message = answer_message(answer, context)
        normalised = standardize(message)
        if any(p.search(normalised) for p in _patterns((answer,))):
            return message
    return answer_message(answers[0] if answers else "", context)
