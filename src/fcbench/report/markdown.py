"""A Markdown summary of a report, short enough for a pull-request comment.

Every text that comes from the inputs (model names, categories, error types) passes through
`text` or `code`: a model name is a folder name and may hold `|`, `<script>` or a newline,
and Markdown renderers pass raw HTML through.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from fcbench.report.table import INCOMPLETE_MARK, NOTHING_RUN, SHOWN, incomplete_note_lines

HEADLINE = ("Overall", "Non-Live", "Live", "Irrelevance Detection", "Multi-Turn", "Agentic",
            "v1 Overall (2024)")


_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<!\w)_|_(?!\w))")
"""What can start Markdown inline syntax mid-line (an underscore only at a word's edge: GFM
never reads `simple_python`'s as emphasis)."""
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def text(value: object) -> str:
    """`value` as literal Markdown text on one line, also inside a table cell: HTML's
    three characters as entities, Markdown's punctuation backslash-escaped."""
    flat = " ".join(str(value).split())
    escaped = _SPECIAL.sub(r"\\\1", flat)
    return re.sub("[&<>]", lambda m: _ENTITIES[m.group(0)], escaped)


def code(value: object) -> str:
    """`value` as an inline code span (shown verbatim, HTML included): fenced by more
    backticks than it holds in a row, on one line, never containing a table's `|`."""
    flat = " ".join(str(value).split()).replace("|", "\u2758")
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _pct(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:.2f}"


def summary_markdown(document: Mapping[str, Any], top_errors: int = 3) -> str:
    """Summaries per model, per-category accuracy with its interval, and the top errors."""
    models = document["models"]
    lines = ["## fcbench scores", ""]
    labels = [label for label in HEADLINE
              if any(label in _summaries(m) for m in models)]
    lines.append("| model | " + " | ".join(SHOWN.get(x, x) for x in labels) + " |")
    lines.append("|---|" + "---:|" * len(labels))
    for model in models:
        values = _summaries(model)
        row = " | ".join(_summary_cell(*values.get(x, (None, 0, False, ""))) for x in labels)
        lines.append(f"| {text(model['name'])} | {row} |")
    gaps = {m["name"]: {row[0]: row[4] for row in m["summaries"]
                        if len(row) > 4 and row[4] is not None} for m in models}
    notes = incomplete_note_lines(gaps, labels)
    if notes:
        lines += ["", *(text(note) for note in notes)]
    names = " | ".join(text(m["name"]) for m in models)
    lines += ["", f"<details><summary>Per category (accuracy %, {document['meta']['interval']})"
              "</summary>", "", f"| category | {names} |", "|---|" + "---:|" * len(models)]
    for category in document["categories"]:
        cells = [_category_cell(m["scores"].get(category)) for m in models]
        lines.append(f"| {text(category)} | " + " | ".join(cells) + " |")
    lines += ["", "</details>", ""]
    if _any_partial(document):
        lines += [PARTIAL_NOTE, ""]
    if document.get("skipped"):
        lines += [f"{SKIPPED_MARK} skipped, not judged (in neither correct nor total):", "",
                  *(f"- {text(note)}" for note in document["skipped"]), ""]
    errors = _top_errors(document, top_errors)
    if errors:
        lines += ["**Top error types** (all models):", "", *errors, ""]
    return "\n".join(lines)


PARTIAL_NOTE = ("\\* partial: accuracy over the cases present, fewer than the category holds "
                "(a `--limit` or `--partial-eval` run); a summary with \\* is made of such "
                "categories.")
"""Under the tables whenever a `*` is shown (the console's and the HTML report's mark)."""


def _top_errors(document: Mapping[str, Any], top: int) -> list[str]:
    """One list line per category with errors, commonest first over every model (none: no
    heading either, rather than an empty one)."""
    lines = []
    for category in document["categories"]:
        counts: Counter[str] = Counter()
        for model in document["models"]:
            counts.update(model["errors"].get(category, {}))
        if counts:
            listed = ", ".join(f"{code(k)} {n}" for k, n in counts.most_common(top))
            lines.append(f"- {text(category)}: {listed}")
    return lines


def _any_partial(document: Mapping[str, Any]) -> bool:
    return any(partial for model in document["models"]
               for _, _, partial, _ in _summaries(model).values()) or any(
        _category_partial(score) for model in document["models"]
        for score in model.get("scores", {}).values())


SKIPPED_MARK = "†"


def _summaries(model: Mapping[str, Any]) -> dict[str, tuple[float | None, int, bool, str]]:
    """label -> (value, cases skipped under it, partial, the cell's text) of a model's
    summaries: the text is the console's (`table.summary_cell`: `*` partial, `‡` incomplete,
    `—` nothing run), which the report's collector gives every summary."""
    return {row[0]: (row[1], row[3] if len(row) > 3 else 0,
                     len(row) > 2 and "*" in str(row[2]), str(row[2]) if len(row) > 2 else "")
            for row in model["summaries"]}


def _summary_cell(value: float | None, skipped: int, partial: bool, shown: str) -> str:
    if shown == NOTHING_RUN:
        return NOTHING_RUN
    mark = "\\*" if partial and value is not None else ""
    mark += INCOMPLETE_MARK if INCOMPLETE_MARK in shown else ""
    return _pct(value) + mark + (f" {SKIPPED_MARK}{skipped} skipped" if skipped else "")


def _category_partial(score: Mapping[str, Any] | None) -> bool:
    """Fewer cases judged or skipped than the category holds (the HTML report's rule)."""
    if not score or score.get("accuracy") is None or "size" not in score:
        return False
    return int(score.get("total", 0)) + int(score.get("skipped") or 0) < int(score["size"])


def _category_cell(score: Mapping[str, Any] | None) -> str:
    if score is None:
        return "N/A"
    skipped = score.get("skipped") or 0
    if score["accuracy"] is None:
        return f"N/A ({skipped} skipped)"
    ci = score.get("ci")
    interval = f" [{_pct(ci[0])}–{_pct(ci[1])}]" if ci else ""
    mark = "\\*" if _category_partial(score) else ""
    return _pct(score["accuracy"]) + mark + interval + (f" {SKIPPED_MARK}{skipped} skipped"
                                                 if skipped else "")
