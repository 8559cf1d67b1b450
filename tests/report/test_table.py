"""The printed score table: summaries, partial marks and the skipped column."""

from __future__ import annotations

from rich.console import Console

from fcbench.dataset import categories
from fcbench.report.table import print_scores
from fcbench.score.aggregate import CategoryScore, with_missing

SIZES = {name: 100 for name in (*categories.ALL_SCORING, *categories.V1)}


def render(skipped: dict[str, int] | None) -> str:
    scores = {
        "m": {
            "simple_python": CategoryScore("simple_python", 30, 40, 400),
            "exec_simple": CategoryScore("exec_simple", 5, 10, 100),
        }
    }
    complete = {"m": with_missing(scores["m"], categories.ALL_SCORING, SIZES)}
    console = Console(record=True, width=250)
    print_scores(console, scores, complete, skipped)
    return console.export_text()


def test_table_shows_scores_partial_marks_and_skipped_counts() -> None:
    text = render({"m": 90})
    assert "75.00*" in text and "50.00*" in text  # 30/40 and 5/10, both partial
    assert "skipped" in text and " 90 " in text
    assert "v1 Overall" in text  # v1 categories were scored


def test_no_skipped_column_without_skipped_cases() -> None:
    assert "skipped" not in render({"m": 0}).split("Summaries")[0].split("partial")[0]


def test_many_models_are_rows_and_few_are_columns() -> None:
    scores = {f"model{i}": {"multiple": CategoryScore("multiple", i, 10, 10)} for i in range(6)}
    complete = {m: with_missing(s, categories.ALL_SCORING, SIZES) for m, s in scores.items()}
    console = Console(record=True, width=250)
    print_scores(console, scores, complete)
    rows = console.export_text().splitlines()
    assert sum(line.lstrip("│ ").startswith("model") for line in rows) == 6
    few = {m: scores[m] for m in ("model1", "model2")}
    console = Console(record=True, width=250)
    print_scores(console, few, {m: complete[m] for m in few})
    text = console.export_text()
    assert any(line.lstrip("│ ").startswith("multiple") for line in text.splitlines())
