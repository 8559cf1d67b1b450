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
    from rich.table import Table

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
    whenever there are any. A few models are shown as columns (categories down the side);
    many models as rows."""
    names = [c.name for c in categories.CATEGORIES if any(c.name in s for s in per_model.values())]
    include_v1 = any(n in categories.V1 for n in names)
    labels = list(SUMMARIES) + (["v1 Overall (2024)"] if include_v1 else [])
    summaries = {model: _summaries(complete[model], include_v1) for model in per_model}
    show_skipped = bool(skipped and any(skipped.values()))
    if len(per_model) <= MODELS_AS_COLUMNS:
        table = _by_category(per_model, names, labels, summaries, skipped if show_skipped else None)
    else:
        table = _by_model(per_model, names, labels, summaries, skipped if show_skipped else None)
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


MODELS_AS_COLUMNS = 4


def _summaries(scores: Mapping[str, CategoryScore], include_v1: bool) -> dict[str, float | None]:
    values = dict(summary_rows(scores))
    if include_v1:
        values.update(v1_rows(scores))
    return values


def _by_category(
    per_model: Mapping[str, Mapping[str, CategoryScore]],
    names: list[str],
    labels: list[str],
    summaries: Mapping[str, Mapping[str, float | None]],
    skipped: Mapping[str, int] | None,
) -> Table:
    """A column per model: categories, then summaries, down the side."""
    from rich.table import Table

    table = Table(title="fcbench scores (accuracy %)", title_justify="left")
    table.add_column("category / summary", style="bold", no_wrap=True)
    for model in per_model:
        table.add_column(model, justify="right")
    for name in names:
        table.add_row(name, *(_cell(per_model[m].get(name)) for m in per_model))
    table.add_section()
    for label in labels:
        table.add_row(label, *(_percent(summaries[m].get(label)) for m in per_model), style="cyan")
    if skipped is not None:
        table.add_row("skipped cases", *(str(skipped.get(m, 0)) for m in per_model), style="yellow")
    return table


def _by_model(
    per_model: Mapping[str, Mapping[str, CategoryScore]],
    names: list[str],
    labels: list[str],
    summaries: Mapping[str, Mapping[str, float | None]],
    skipped: Mapping[str, int] | None,
) -> Table:
    """A row per model: categories, then summaries, across."""
    from rich.table import Table

    table = Table(title="fcbench scores (accuracy %)", title_justify="left")
    table.add_column("model", style="bold", no_wrap=True)
    for name in names:
        table.add_column(name.replace("_", " "), justify="right", min_width=5)
    for label in labels:
        table.add_column(SHORT.get(label, label), justify="right", style="cyan", min_width=5)
    if skipped is not None:
        table.add_column("skipped", justify="right", style="yellow")
    for model, scores in per_model.items():
        table.add_row(
            model,
            *(_cell(scores.get(n)) for n in names),
            *(_percent(summaries[model].get(label)) for label in labels),
            *([str(skipped.get(model, 0))] if skipped is not None else []),
        )
    return table


def _cell(score: CategoryScore | None) -> str:
    if score is None:
        return "-"
    return _percent(score.accuracy) + ("*" if score.partial else "")


def _percent(value: float | None) -> str:
    return format_percent(value).rstrip("%")
