"""The report's document of a smoke run: its categories are there, marked partial."""

from __future__ import annotations

from pathlib import Path

from fcbench.api import dataset_sizes
from fcbench.pipeline import run
from fcbench.report.html.collect import collect
from fcbench.score.disputed import load_disputed


def test_a_smoke_run_shows_partial_in_the_report(fetched_home: Path, tmp_path: Path) -> None:
    run("ground-truth", categories=["simple_python", "multiple"], limit=3,
                result_dir=tmp_path / "result", score_dir=tmp_path / "score")
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    document = collect([tmp_path / "score"], [tmp_path / "result"], release, None,
                       dataset_sizes(release, None), load_disputed())
    model = document["models"][0]
    assert not document["problems"], document["problems"]
    assert set(model["scores"]) == {"simple_python", "multiple"}
    score = model["scores"]["simple_python"]
    assert (score["correct"], score["total"]) == (3, 3) and score["size"] > 3
    summaries = {label: text for label, _, text, _ in model["summaries"]}
    assert summaries["Overall"].endswith("*")
    rows = [row for row in document["rows"] if row[1].startswith("simple_python_")]
    assert [row[1] for row in rows] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    without = collect([tmp_path / "score"], [], release, None, dataset_sizes(release, None),
                      load_disputed())
    assert any("left out" in p for p in without["problems"])  # no result file: not readable
