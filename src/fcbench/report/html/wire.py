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

import itertools
import operator
from collections.abc import Mapping, Sequence
from typing import Any

ROWS = "rows"
WIRE_ROWS = "rows_wire"
ERRORS = "error_texts"


def encode(document: Mapping[str, Any]) -> dict[str, Any]:
    """`document` with its rows and its details' error texts encoded (a copy; a document
    without rows, or with rows of another shape, is returned as it is)."""
    rows = document.get(ROWS)
    wired = encode_rows(rows) if isinstance(rows, list) else None
    if wired is None:
        return dict(document)
    encoded = {k: v for k, v in document.items() if k != ROWS}
    encoded[WIRE_ROWS] = wired
    details = document.get("details")
    if isinstance(details, list):
        encoded["details"], encoded[ERRORS] = encode_errors(details)
    return encoded


_DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def encode_rows(rows: Sequence[Any]) -> dict[str, Any] | None:
    """The rows as columns (see the module docstring), or None when they are not all
    `[model index, case id, 0/1, error type or None, detail index or None]`. Column at a
    time (comprehensions and C loops): a row at a time was 0.3 s of a 57-model page."""
    if not all(isinstance(r, list) and len(r) == 5 for r in rows):
        return None
    models, ids, valid, kinds, details = ([r[k] for r in rows] for k in range(5))
    if not (all(isinstance(m, int) for m in models) and set(valid) <= {0, 1}
            and all(k is None or isinstance(k, str) for k in kinds)):
        return None
    runs = [[model, len(list(run))] for model, run in itertools.groupby(models)]
    id_table: dict[Any, int] = {}
    index = [id_table.setdefault(i, len(id_table)) for i in ids]
    kind_table: dict[str, int] = {}
    kind = [-1 if k is None else kind_table.setdefault(k, len(kind_table)) for k in kinds]
    failed = list(itertools.compress(details, [not v for v in valid]))
    in_order = (failed == list(range(len(failed)))
                and not any(itertools.compress(details, valid)))
    return {"models": runs, "ids": list(id_table),
            "steps": list(map(operator.sub, index, [-1, *index[:-1]])),
            "valid": bytes(valid).translate(_DIGITS).decode("ascii"),
            "kinds": list(kind_table), "kind": kind,
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
