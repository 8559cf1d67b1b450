"""The score table `fcbench evaluate` prints: a row per model, a column per category scored,
then the leaderboard summaries (V4 Overall and its parts; the 2024 Overall when v1
categories were scored)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from fcbench.dataset import categories
from fcbench.score.aggregate import CategoryScore
from fcbench.score.formulas import format_percent, summary_rows, v1_rows

if TYPE_CHECKING:
    from rich.console import Console

SUMMARIES = ("Overall", "Non-Live", "Live", "Irrelevance Detection", "Multi-Turn", "Agentic")
SHORT = {"Irrelevance Detection": "Irrelevance", "v1 Overall (2024)": "v1 Overall"}


def print_scores(
    console: Console,
    per_model: Mapping[str, Mapping[str, CategoryScore]],
    complete: Mapping[str, Mapping[str, CategoryScore]],
    skipped: Mapping[str, int] | None = None,
) -> None:
    """`per_model`: what was evaluated; `complete`: the same with missing categories filled in
    (0 over the dataset size, as the official summaries count them); `skipped`: cases per
    model that could not be judged (executable cases needing an unreachable service), shown
    in their own column whenever there are any."""
    from rich.table import Table

    names = [c.name for c in categories.CATEGORIES if any(c.name in s for s in per_model.values())]
    include_v1 = any(n in categories.V1 for n in names)
    table = Table(title="fcbench scores (accuracy %)", title_justify="left")
    table.add_column("model", style="bold", no_wrap=True)
    for name in names:
        table.add_column(name.replace("_", " "), justify="right", min_width=5)
    summary_labels = list(SUMMARIES) + (["v1 Overall (2024)"] if include_v1 else [])
    for label in summary_labels:
        table.add_column(SHORT.get(label, label), justify="right", style="cyan", min_width=5)
    show_skipped = bool(skipped and any(skipped.values()))
    if show_skipped:
        table.add_column("skipped", justify="right", style="yellow")
    for model, scores in per_model.items():
        summaries = dict(summary_rows(complete[model]))
        if include_v1:
            summaries.update(v1_rows(complete[model]))
        table.add_row(
            model,
            *(_cell(scores.get(n)) for n in names),
            *(_percent(summaries.get(label)) for label in summary_labels),
            *([str((skipped or {}).get(model, 0))] if show_skipped else []),
        )
    console.print(table)
    partial = sorted({f"{m}/{n}" for m, s in per_model.items() for n, v in s.items() if v.partial})
    if partial:
        shown = ", ".join(partial) if len(partial) <= 6 else f"{len(partial)} model/category pairs"
        console.print(
            f"[yellow]* partial:[/] {shown}: accuracy over the cases present "
            "(as the official --partial-eval computes it)."
        )
    if show_skipped:
        console.print(
            "[yellow]skipped:[/] cases not judged (a web service the exec backend cannot "
            "reach); they count in neither correct nor total."
        )
    console.print(
        "Summaries follow the official V4 formulas: a category without results counts as 0."
    )


def _cell(score: CategoryScore | None) -> str:
    if score is None:
        return "-"
    return _percent(score.accuracy) + ("*" if score.partial else "")


def _percent(value: float | None) -> str:
    return format_percent(value).rstrip("%")
