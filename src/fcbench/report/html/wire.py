"""The report document as it travels inside the page: compact encodings the page expands.

Why: at 57 models the per-case rows (`[model, id, valid, error type, detail]`, 79,000 of
them) were 400 kB of the compressed page and the failures' error texts (a few hundred
distinct messages repeated 34,000 times) 340 kB. The collected document keeps its plain,
testable form (`collect`); only the page's copy is encoded here, and `report.js`
(`unwire`) rebuilds the same rows and details before anything reads them.

Rows become columns: models as runs, each case id as the step from the previous row's id
in a table of ids (mostly 1: rows follow the data set's order), verdicts as one string of
0/1, error types as indices into a table (-1: none), detail indices only when they are not
simply the failures' order. A detail's `error` text becomes an index into a table of texts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

ROWS = "rows"
WIRE_ROWS = "rows_wire"
ERRORS = "error_texts"


def encode(document: Mapping[str, Any]) -> dict[str, Any]:
    """`document` with its rows and its details' error texts encoded (a copy; a document
    without rows, or with rows of another shape, is returned as it is)."""
    rows = document.get(ROWS)
    if not isinstance(rows, list) or not all(_plain_row(r) for r in rows):
        return dict(document)
    encoded = {k: v for k, v in document.items() if k != ROWS}
    encoded[WIRE_ROWS] = encode_rows(rows)
    details = document.get("details")
    if isinstance(details, list):
        encoded["details"], encoded[ERRORS] = encode_errors(details)
    return encoded


def _plain_row(row: Any) -> bool:
    return (isinstance(row, list) and len(row) == 5 and isinstance(row[0], int)
            and isinstance(row[1], str) and row[2] in (0, 1)
            and (row[3] is None or isinstance(row[3], str))
            and (row[4] is None or isinstance(row[4], int)))


def encode_rows(rows: Sequence[list[Any]]) -> dict[str, Any]:
    ids: dict[str, int] = {}
    kinds: dict[str, int] = {}
    runs: list[list[int]] = []
    steps: list[int] = []
    kind_of: list[int] = []
    details: list[int | None] = []
    previous = -1
    for model, case_id, _valid, kind, detail in rows:
        if runs and runs[-1][0] == model:
            runs[-1][1] += 1
        else:
            runs.append([model, 1])
        index = ids.setdefault(case_id, len(ids))
        steps.append(index - previous)
        previous = index
        kind_of.append(-1 if kind is None else kinds.setdefault(kind, len(kinds)))
        details.append(detail)
    failed = [d for r, d in zip(rows, details, strict=True) if not r[2]]
    in_order = (all(r[4] is None for r in rows if r[2])
                and failed == list(range(len(failed))))
    return {"models": runs, "ids": list(ids), "steps": steps,
            "valid": "".join("1" if r[2] else "0" for r in rows),
            "kinds": list(kinds), "kind": kind_of,
            "detail": None if in_order else details}


def encode_errors(details: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """The details with each string `error` replaced by its index in the returned table."""
    table: dict[str, int] = {}
    out = []
    for detail in details:
        error = detail.get("error") if isinstance(detail, dict) else None
        if isinstance(error, str):
            detail = {**detail, "error": table.setdefault(error, len(table))}
        out.append(detail)
    return out, list(table)
