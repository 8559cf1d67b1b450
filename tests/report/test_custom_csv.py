"""`data_custom.csv`: written only when custom categories were scored."""

from __future__ import annotations

from pathlib import Path

from fcbench.core.categories import ALL_SCORING
from fcbench.report.csv_files import ModelEntry, unknown_model, write_csvs
from fcbench.report.custom_csv import custom_lines
from fcbench.score.aggregate import CategoryScore, with_missing


def entry(model: str, **scores: tuple[int, int]) -> ModelEntry:
    """A model's scores, the official categories it lacks counted missing (as loaded)."""
    given = {n: CategoryScore(n, c, t, t) for n, (c, t) in scores.items()}
    complete = with_missing(given, ALL_SCORING, dict.fromkeys(ALL_SCORING, 10))
    return ModelEntry(model, unknown_model(model), complete)


def test_rows_ranked_by_custom_overall() -> None:
    lines = custom_lines([entry("a", zz_one=(1, 4), simple_python=(3, 3)),
                          entry("b", zz_one=(3, 4), zz_two=(1, 1))])
    assert lines == [
        "Rank,Model,Custom Overall,unregistered (custom),zz_one,zz_two",
        "1,b,80.00%,80.00%,75.00%,100.00%",
        "2,a,20.00%,20.00%,25.00%,N/A",  # zz_two not run: 0 over its size
    ]


def test_not_written_for_official_categories_only(tmp_path: Path) -> None:
    written = write_csvs([entry("a", simple_python=(1, 2))], tmp_path)
    assert not (tmp_path / "data_custom.csv").exists() and len(written) == 7
    written = write_csvs([entry("a", simple_python=(1, 2), zz_one=(1, 1))], tmp_path)
    assert written[-1] == tmp_path / "data_custom.csv" and len(written) == 8
