"""When fcbench itself fails on one case: that case's recorded failure, never the run's end.

Why a module of its own: decoding and checking, the failure record, the report's case detail
and the score file are each guarded per case (`jobs`), and every guard must say the same
thing the same way: the case's id, the stage, the exception in one line (a warning the CLI
prints), and, where there is no verdict, a failure under `INTERNAL_ERROR`, a type no official
checker has, so that it shows only where fcbench failed (docs/conformance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fcbench._json import safe_str
from fcbench.core.model import Verdict

__all__ = [
    "INTERNAL_ERROR", "guarded", "internal_record", "internal_verdict", "reason",
    "unshown_detail",
]

INTERNAL_ERROR = "fcbench:internal_error"
"""The error type of a case fcbench could not judge because of a fault of its own."""

T = TypeVar("T")
_REASON_LIMIT = 300


def reason(exc: BaseException) -> str:
    """The exception as one short line (its type and message)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    line = " ".join(text.split())
    if len(line) > _REASON_LIMIT:
        line = line[:_REASON_LIMIT] + "…"
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


def guarded(work: Callable[[], T], fallback: Callable[[BaseException], T],
            note: Callable[[str], None], what: str) -> T:
    """`work()`, or, when it raises, `fallback(exc)` with one line given to `note`:
    `what` names the case and the stage ("m: multi_turn_base_3: the failure record")."""
    try:
        return work()
    except Exception as exc:  # any fault of one case stays that case's
        note(f"{what} failed ({reason(exc)}); the other cases are not affected")
        return fallback(exc)


def internal_verdict(exc: BaseException) -> Verdict:
    """The failure of a case fcbench could not judge (decoding or checking raised)."""
    message = f"fcbench could not judge this case ({reason(exc)})."
    return Verdict.fail(INTERNAL_ERROR, message,
                        error={"error_message": [message], "error_type": INTERNAL_ERROR})


def unshown_detail(exc: BaseException) -> dict[str, Any]:
    """What the report shows in place of a failed case's detail that could not be made."""
    return {"raw": None, "decoded": None,
            "error": f"fcbench could not show this case ({reason(exc)})."}


def internal_record(case_id: str, model: str, category: str, verdict: Verdict,
                    exc: BaseException) -> dict[str, Any]:
    """A failed case's score-file record when its own could not be built: the verdict's
    error type and messages, and why the full record is missing."""
    error_type = verdict.error_type or INTERNAL_ERROR
    return {
        "id": case_id,
        "model_name": model,
        "test_category": category,
        "valid": False,
        "error": {"error_message": [safe_str(m) for m in verdict.errors], "error_type": error_type},
        "error_type": error_type,
        "fcbench_note": f"fcbench could not build this case's failure record ({reason(exc)}).",
    }
