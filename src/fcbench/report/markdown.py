"""A Markdown summary of a report, short enough for a pull-request comment."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

HEADLINE = ("Overall", "Non-Live", "Live", "Irrelevance Detection", "Multi-Turn", "Agentic",
            "v1 Overall (2024)")


def _pct(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:.2f}"


def summary_markdown(document: Mapping[str, Any], top_errors: int = 3) -> str:
    """Summaries per model, per-category accuracy with its interval, and the top errors."""
    models = document["models"]
    lines = ["## fcbench scores", ""]
    labels = [label for label in HEADLINE
              if any(label in dict(_pairs(m)) for m in models)]
    lines.append("| model | " + " | ".join(labels) + " |")
    lines.append("|---|" + "---:|" * len(labels))
    for model in models:
        values = dict(_pairs(model))
        lines.append(f"| {model['name']} | " + " | ".join(_pct(values.get(x)) for x in labels)
                     + " |")
    lines += ["", f"<details><summary>Per category (accuracy %, {document['meta']['interval']})"
              "</summary>", "", "| category | " + " | ".join(m["name"] for m in models) + " |",
              "|---|" + "---:|" * len(models)]
    for category in document["categories"]:
        cells = [_category_cell(m["scores"].get(category)) for m in models]
        lines.append(f"| {category} | " + " | ".join(cells) + " |")
    lines += ["", "</details>", "", "**Top error types** (all models):", ""]
    for category in document["categories"]:
        counts: Counter[str] = Counter()
        for model in models:
            counts.update(model["errors"].get(category, {}))
        if counts:
            listed = ", ".join(f"`{k}` {n}" for k, n in counts.most_common(top_errors))
            lines.append(f"- {category}: {listed}")
    lines.append("")
    return "\n".join(lines)


def _pairs(model: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    return [(label, value) for label, value, _ in model["summaries"]]


def _category_cell(score: Mapping[str, Any] | None) -> str:
    if score is None:
        return "N/A"
    ci = score.get("ci")
    interval = f" [{_pct(ci[0])}–{_pct(ci[1])}]" if ci else ""
    return _pct(score["accuracy"]) + interval
