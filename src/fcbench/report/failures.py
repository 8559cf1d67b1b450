"""`fcbench failures`: a model's failed cases in the terminal, one block each.

Why: the run ends with the three commonest error types, and the rest was JSON lines or the
HTML report. A block gives what a reader checks first: the question, the expected answer,
the decoded calls, the error; filterable by category, error type and id. The text is plain
(no colour, no markup) unless the output is a terminal, so that it can be piped to grep or
less; every text from the inputs is printed as it is, never as markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench.results.score_files import error_type_of
from fcbench.score.runs import ModelRun

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Control characters (a terminal escape sequence starts with one) are shown as `\\xNN`."""
CLIP = 400
"""Characters of one field shown; longer ones end with a count of what was cut."""


@dataclass(frozen=True)
class FailedCase:
    category: str
    id: str
    error_type: str
    question: str
    expected: str
    decoded: str
    error: str


def _text(value: Any, limit: int = CLIP) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else fast_json.dumps(value, ensure_ascii=False)
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", " ".join(text.split()))
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit:,} more]"


def failed_cases(
    run: ModelRun,
    cases_of: Callable[[str], dict[str, Any]],
    *,
    categories: Sequence[str] = (),
    error_type: str | None = None,
    id_part: str | None = None,
) -> Iterator[FailedCase]:
    """The run's failed cases in data-set order. `cases_of(category)` gives id -> test case
    (question, expected answer); `error_type` matches a prefix (`value_error` matches
    `value_error:string`)."""
    for category, cat in run.categories.items():
        if categories and category not in categories:
            continue
        cases: dict[str, Any] | None = None
        for case_id in cat.ids:
            record = cat.failures.get(case_id)
            if record is None:
                continue
            kind = error_type_of(record)
            if error_type and not kind.startswith(error_type):
                continue
            if id_part and id_part not in case_id:
                continue
            if cases is None:
                cases = cases_of(category)
            case = cases.get(case_id)
            decoded = record.get("model_result_decoded", record.get("decoded_result"))
            if decoded is None:
                decoded = record.get("model_result_raw", record.get("model_result"))
            yield FailedCase(
                category, case_id, kind,
                _text(getattr(case, "question", None)),
                _text(getattr(case, "possible_answer", None)),
                _text(decoded), _text(record.get("error")))


def dataset_cases(release: str, data_root: Path | None) -> Callable[[str], dict[str, Any]]:
    """category -> id -> test case, loaded on first use."""
    from fcbench.dataset.load import load_category

    loaded: dict[str, dict[str, Any]] = {}

    def cases_of(category: str) -> dict[str, Any]:
        if category not in loaded:
            loaded[category] = {c.id: c for c in load_category(category, release, data_root)}
        return loaded[category]

    return cases_of


def render(case: FailedCase, colour: bool) -> str:
    """One block: the id line, then the four fields indented."""
    import click

    head = f"{case.id}  {case.category}  {case.error_type}"
    lines = [click.style(head, bold=True, fg="red") if colour else head]
    for name, value in (("question", case.question), ("expected", case.expected),
                        ("decoded", case.decoded), ("error", case.error)):
        label = f"  {name + ':':<10}"
        lines.append((click.style(label, fg="cyan") if colour else label) + value)
    return "\n".join(lines)
