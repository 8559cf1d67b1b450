"""leaderboard.json under a corrections profile: each corrected category both ways with its
corrected cases, and every V4 summary and the 2024 Overall as upstream scores them; no
block for the default."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench import corrections
from fcbench.api import dataset_sizes
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.evaluation import evaluate
from fcbench.report.leaderboard import write_leaderboard


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    yield
    corrections.use_profile(None)


def board(root: Path, profile: str | None) -> dict[str, Any]:
    corrections.use_profile(profile)
    score_dir = root / f"score-{profile}"
    evaluate(root / "result", score_dir=score_dir)
    write_leaderboard(score_dir, dataset_sizes(DEFAULT_RELEASE, None))
    (model,) = json.loads((score_dir / "leaderboard.json").read_text())["models"]
    found: dict[str, Any] = model
    return found


def test_leaderboard_json_shows_both_ways(fetched_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    (folder / "BFCL_v4_live_simple_result.json").write_text(json.dumps({
        "id": "live_simple_141-94-0",
        "result": "[cmd_controller.execute(command='docker --version', unit='seconds')]"}))
    upstream = board(tmp_path, None)
    assert "corrections" not in upstream
    corrected = board(tmp_path, "community-2026")
    block = corrected["corrections"]
    assert block["profile"] == "community-2026"
    assert block["categories"]["live_simple"]["accuracy"] == 1.0
    assert block["categories"]["live_simple"]["upstream_accuracy"] == 0.0
    assert block["categories"]["live_simple"]["cases"][0]["upstream"] == [1329, 1314]
    # the upstream side's aggregates are the default run's, the corrected side's its own
    assert block["upstream_summaries"] == upstream["summaries"]
    assert block["upstream_v1_overall"] == upstream["v1"]["overall"]
    assert corrected["summaries"]["overall"] != upstream["summaries"]["overall"]


def test_compare_names_each_sides_profile(fetched_home: Path, tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from fcbench.report.compare import Comparison, as_json, print_comparison
    from fcbench.report.corrections import profile_of

    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    (folder / "BFCL_v4_live_simple_result.json").write_text(json.dumps({
        "id": "live_simple_141-94-0",
        "result": "[cmd_controller.execute(command='docker --version', unit='seconds')]"}))
    board(tmp_path, None)
    board(tmp_path, "community-2026")
    profiles = (profile_of(tmp_path / "score-None", "m"),
                profile_of(tmp_path / "score-community-2026", "m"))
    assert profiles == ("none", "community-2026")
    mixed = Comparison("a", "b", [], [], [], [], corrections=profiles)
    out = StringIO()
    print_comparison(mixed, Console(file=out, width=200))
    assert ("corrections: A = none, B = community-2026 (different profiles: the delta "
            "includes the fixes)") in out.getvalue()
    assert as_json(mixed)["corrections"] == {"a": "none", "b": "community-2026"}
    same = Comparison("a", "b", [], [], [], [], corrections=("none", "none"))
    assert "corrections" not in as_json(same)  # the default's JSON is unchanged


def _one_corrected_case(root: Path) -> None:
    """live_simple answered in full: every case wrong ([]) but the one whose answer #1329
    corrects, answered as the correction accepts it."""
    from fcbench.score.runs import dataset_ids

    folder = root / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    fixed = "[cmd_controller.execute(command='docker --version', unit='seconds')]"
    lines = [json.dumps({"id": i, "result": fixed if i == "live_simple_141-94-0" else "[]"})
             for i in dataset_ids(DEFAULT_RELEASE, None)("live_simple")]
    (folder / "BFCL_v4_live_simple_result.json").write_text("\n".join(lines) + "\n")


def test_the_console_shows_the_summaries_both_ways(
    fetched_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fcbench.api import print_evaluation

    _one_corrected_case(tmp_path)
    corrections.use_profile("community-2026")
    print_evaluation(evaluate(tmp_path / "result"), DEFAULT_RELEASE, None, None)
    shown = capsys.readouterr().out
    upstream = board(tmp_path, None)["summaries"]
    corrected = board(tmp_path, "community-2026")["summaries"]
    line = next(row for row in shown.splitlines() if "m summaries:" in row)

    def pct(side: dict[str, Any], key: str) -> str:
        return f"{100 * side[key]['accuracy']:.2f}%"

    assert f"Live {pct(corrected, 'live')} corrected, {pct(upstream, 'live')} upstream" in line
    assert (f"V4 Overall {pct(corrected, 'overall')} corrected, "
            f"{pct(upstream, 'overall')} upstream") in line
    assert corrected["live"]["accuracy"] > upstream["live"]["accuracy"]
    assert "Non-Live" not in line  # unchanged summaries are not repeated


def test_compare_shows_the_upstream_side(fetched_home: Path, tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from fcbench.report.compare import as_json, compare, print_comparison
    from fcbench.score.runs import dataset_ids, read_run

    _one_corrected_case(tmp_path)
    upstream = board(tmp_path, None)["summaries"]
    board(tmp_path, "community-2026")
    ids = dataset_ids(DEFAULT_RELEASE, None)
    runs = [read_run(tmp_path / f"score-{p}", "m", ids) for p in ("None", "community-2026")]
    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    result = compare(runs[0], runs[1], sizes)
    both = {name: (a, b) for name, a, b in result.upstream_summaries}
    live = upstream["live"]["accuracy"]
    assert both["Live"] == (live, live)  # B as upstream scores it: no difference left
    assert both["Overall"] == (upstream["overall"]["accuracy"],) * 2
    assert dict((n, b) for n, _, b in result.summaries)["Live"] > live
    rows = as_json(result)["upstream_summaries"]
    assert {"summary": "Live", "a": live, "b": live, "delta": 0.0} in rows
    out = StringIO()
    print_comparison(result, Console(file=out, width=200))
    assert "summaries as upstream scores them" in out.getvalue()
    plain = compare(runs[0], runs[0], sizes)
    assert plain.upstream_summaries == [] and "upstream_summaries" not in as_json(plain)


def test_folders_merged_keep_each_ones_corrections(tmp_path: Path) -> None:
    """One model scored in two folders, one under a profile: the merged board keeps the
    profile and the corrected category's upstream side, whichever folder comes first."""
    from fcbench.core.categories import ALL_SCORING
    from fcbench.report.leaderboard import merge_entries
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    upstream = {"correct_count": 389, "total_count": 400, "accuracy": 389 / 400,
                "cases": [{"id": "simple_python_3", "fix": "ground-truth-enum-units"}]}
    header = {"corrections": "community-2026", "corrections_upstream": upstream}
    write_category_score(tmp_path / "fixed", "m", CategoryScore("simple_python", 390, 400, 400),
                         [], header)
    write_category_score(tmp_path / "plain", "m", CategoryScore("multiple", 180, 200, 200), [])
    sizes = {**dict.fromkeys(ALL_SCORING, 100), "simple_python": 400, "multiple": 200}
    for order in (["fixed", "plain"], ["plain", "fixed"]):
        (entry,) = merge_entries([tmp_path / name for name in order], sizes)
        assert entry.corrections == {"profile": "community-2026",
                                     "upstream": {"simple_python": upstream}}, order
        assert (entry.scores["simple_python"].correct, entry.scores["multiple"].correct) == (
            390, 180)


def test_merged_corrections_name_every_profile_and_keep_every_upstream_side() -> None:
    from fcbench.report.corrections import merge_corrections

    a = {"profile": "community-2026", "upstream": {"simple_python": {"correct_count": 1}}}
    b = {"profile": "local, community-2026", "upstream": {"live_simple": {"correct_count": 2}}}
    assert merge_corrections(a, b) == {
        "profile": "community-2026, local",
        "upstream": {"simple_python": {"correct_count": 1}, "live_simple": {"correct_count": 2}}}
    assert merge_corrections({}, a) == a and merge_corrections(a, {}) == a
    assert merge_corrections({}, {}) == {}
