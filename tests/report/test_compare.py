"""`compare` on two models of the 2024 corpus, checked against the official per-case verdicts
(corpus verdicts.jsonl) counted by hand, and the exact McNemar p-value from its formula."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.api import dataset_sizes
from fcbench.cli import main
from fcbench.report.compare import compare
from fcbench.score.disputed import Disputed, DisputedCase
from fcbench.score.runs import RunError, dataset_ids, read_run
from shared_corpus import V1

CORPUS_V1 = V1

A, B = "gpt-4o-2024-08-06-FC", "claude-3-opus-20240229"


def official_verdicts(model: str) -> dict[str, dict[str, bool]]:
    found: dict[str, dict[str, bool]] = defaultdict(dict)
    with (CORPUS_V1 / model / "verdicts.jsonl").open() as f:
        for line in f:
            v = json.loads(line)
            found[v["category"]][v["id"]] = v["valid"]
    return found


def official_errors(model: str) -> dict[str, str]:
    with (CORPUS_V1 / model / "verdicts.jsonl").open() as f:
        return {v["id"]: v["error_type"] for v in map(json.loads, f) if not v["valid"]}


def hand_p_value(gained: int, lost: int) -> float:
    n, k = gained + lost, min(gained, lost)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def test_compare_matches_the_official_verdicts_by_hand(v1_scores: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["compare", f"{v1_scores}:{A}", f"{v1_scores}:{B}", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    by_category = {c["category"]: c for c in data["categories"]}
    va, vb = official_verdicts(A), official_verdicts(B)
    pooled_gained = pooled_lost = 0
    for category, a_valid in va.items():
        b_valid = vb[category]
        gained = sorted(i for i in a_valid if b_valid[i] and not a_valid[i])
        lost = sorted(i for i in a_valid if a_valid[i] and not b_valid[i])
        got = by_category[category]
        assert sorted(f["id"] for f in got["gained"]) == gained, category
        assert sorted(f["id"] for f in got["lost"]) == lost, category
        delta = sum(b_valid.values()) / len(b_valid) - sum(a_valid.values()) / len(a_valid)
        assert got["delta"] == pytest.approx(delta), category
        assert got["p_value"] == pytest.approx(hand_p_value(len(gained), len(lost))), category
        pooled_gained += len(gained)
        pooled_lost += len(lost)
    # A flip carries the failing side's error type as the official verdict file records it.
    errors_a, errors_b = official_errors(A), official_errors(B)
    checked = 0
    for c in data["categories"]:
        for side, errors in (("lost", errors_b), ("gained", errors_a)):
            for flip in c[side]:
                if flip["id"] in errors:
                    assert flip["error_type"] == errors[flip["id"]], (side, flip)
                    checked += 1
    assert checked == pooled_gained + pooled_lost
    exec_gained = sum(len(c["gained"]) for c in data["categories"] if c["category"] not in va)
    exec_lost = sum(len(c["lost"]) for c in data["categories"] if c["category"] not in va)
    assert data["pooled"]["gained"] == pooled_gained + exec_gained
    assert data["pooled"]["lost"] == pooled_lost + exec_lost
    assert data["test"].startswith("McNemar exact")
    overall = next(s for s in data["summaries"] if s["summary"] == "v1 Overall (2024)")
    assert overall["delta"] == pytest.approx(overall["b"] - overall["a"])


def test_terminal_output_lists_deltas_and_flips(v1_scores: Path) -> None:
    result = CliRunner().invoke(main, ["compare", f"{v1_scores}:{A}", f"{v1_scores}:{B}"])
    assert result.exit_code == 0, result.output
    assert "simple_python" in result.stdout and "McNemar exact" in result.stdout
    assert "+ parallel:" in result.stdout and "− parallel:" in result.stdout
    lines = result.stdout.splitlines()
    end = next(i for i, line in enumerate(lines) if "shared" in line)
    header = "\n".join(lines[end - 3:end + 1])  # the model names fold over a few lines
    assert A[:9] in header and B[:9] in header and " A " not in header  # names head columns
    assert f"+: cases {B} passed and {A} failed" in " ".join(result.stdout.split())
    data = json.loads(CliRunner().invoke(
        main, ["compare", f"{v1_scores}:{A}", f"{v1_scores}:{B}", "--json"]).stdout)
    assert data["names"] == [A, B]


def test_columns_are_named_by_model_then_folder_then_letter(tmp_path: Path) -> None:
    from fcbench.report.compare import short_names
    from fcbench.score.runs import ModelRun

    assert short_names(ModelRun("m1", tmp_path / "x"), ModelRun("m2", tmp_path / "x")) == (
        "m1", "m2")
    assert short_names(ModelRun("m", tmp_path / "old"), ModelRun("m", tmp_path / "new")) == (
        "old", "new")
    assert short_names(ModelRun("m", tmp_path / "s"), ModelRun("m", tmp_path / "t" / "s")) == (
        "A", "B")


def test_disputed_cases_are_marked_and_left_out_of_the_second_delta(
    v1_scores: Path, fetched_home: Path
) -> None:
    ids = dataset_ids("2026.3.23")
    a, b = read_run(v1_scores, A, ids), read_run(v1_scores, B, ids)
    va, vb = official_verdicts(A)["parallel"], official_verdicts(B)["parallel"]
    flipped = next(i for i in va if va[i] != vb[i])
    disputed = Disputed((DisputedCase(flipped, "https://example.invalid/1", "test"),))
    result = compare(a, b, dataset_sizes("2026.3.23", None), disputed)
    parallel = next(c for c in result.categories if c.category == "parallel")
    marked = [f.id for f in (*parallel.gained, *parallel.lost) if f.disputed]
    assert marked == [flipped]
    kept = [i for i in va if i != flipped]
    expected = (sum(vb[i] for i in kept) - sum(va[i] for i in kept)) / len(kept)
    assert parallel.undisputed_delta == pytest.approx(expected)


def test_bad_targets_give_one_line_errors(v1_scores: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["compare", str(v1_scores), f"{v1_scores}:{B}"])
    assert result.exit_code == 2 and "holds 14 models" in result.stderr
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["compare", f"{v1_scores}:nobody", f"{v1_scores}:{B}"])
    assert result.exit_code == 2 and "no score files for model 'nobody'" in result.stderr
    result = runner.invoke(main, ["compare", str(tmp_path / "none"), f"{v1_scores}:{B}"])
    assert result.exit_code == 2 and "no such score folder" in result.stderr
    with pytest.raises(RunError):
        read_run(tmp_path, "x", lambda c: [])


def test_runs_that_skipped_different_cases_are_compared_on_the_shared_ones(
    tmp_path: Path,
) -> None:
    """A judged 4 (exec_simple_4 skipped), B judged 3 (exec_simple_0 and _1 skipped): the
    figures are over the 2 cases both judged, and the output says so."""
    import io

    from rich.console import Console

    from fcbench.report.compare import as_json, print_comparison
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    ids = [f"exec_simple_{i}" for i in range(5)]

    def skipped(*numbers: int) -> dict[str, object]:
        return {"skipped": [{"id": f"exec_simple_{n}", "reason": "offline"} for n in numbers]}

    # A: fails _2 and _3 of its 4; B: fails _2 of its 3 (_2, _3, _4).
    write_category_score(tmp_path / "a", "m", CategoryScore("exec_simple", 2, 4, 5),
                         [{"id": "exec_simple_2"}, {"id": "exec_simple_3"}], skipped(4))
    write_category_score(tmp_path / "b", "m", CategoryScore("exec_simple", 2, 3, 5),
                         [{"id": "exec_simple_2"}], skipped(0, 1))
    runs = [read_run(tmp_path / side, "m", lambda _: ids) for side in "ab"]
    result = compare(runs[0], runs[1], defaultdict(lambda: 5))
    (delta,) = result.categories
    assert delta.paired == 2 and delta.unshared
    assert (delta.a_accuracy, delta.b_accuracy) == (0.0, 0.5)  # own scores: 0.5 and 0.667
    assert delta.delta == pytest.approx(0.5)
    data = as_json(result)["categories"][0]
    assert data["a"]["skipped"] == 1 and data["b"]["skipped"] == 2
    assert data["a"]["accuracy"] == 0.5 and data["a"]["shared_accuracy"] == 0.0
    out = io.StringIO()
    print_comparison(result, Console(file=out, width=160))
    text = out.getvalue()
    assert "exec_simple §" in text and "p (Holm)" in text
    assert "+: cases b passed and a failed; −: cases a passed and b failed" in text  # folders
    assert ("§ exec_simple: A, B, Δ and p over the 2 cases both runs judged (own scores: "
            "A 2/4 = 50.00, 1 skipped; B 2/3 = 66.67, 2 skipped)") in text


def test_holm_adjusts_for_every_category_tested() -> None:
    from fcbench.report.compare import holm

    # sorted 0.01, 0.02, 0.04, 0.5 -> 4x, 3x, 2x, 1x, each at least the one before, capped.
    assert holm([0.04, 0.01, 0.5, 0.02]) == pytest.approx([0.08, 0.04, 0.5, 0.06])
    assert holm([0.3, 0.3]) == pytest.approx([0.6, 0.6])
    assert holm([0.9, 0.8]) == [1.0, 1.0] and holm([]) == []


def test_summary_deltas_get_an_interval_from_their_categories_flips(tmp_path: Path) -> None:
    """One category differs (A fails 0-5, B fails 4-6 of 10: +4 −1): a summary's delta is its
    weight w times the category's, so its interval's half-width is |w| times the category's
    normal half-width 1.96·sqrt(((g + l)/n − d²)/n), d = (g − l)/n."""
    import io

    from rich.console import Console

    from fcbench.report.compare import as_json, print_comparison
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    ids = [f"simple_python_{i}" for i in range(10)]
    for side, failed in (("a", range(6)), ("b", range(4, 7))):
        write_category_score(tmp_path / side, "m", CategoryScore(
            "simple_python", 10 - len(failed), 10, 10), [{"id": ids[i]} for i in failed])
    runs = [read_run(tmp_path / side, "m", lambda _: ids) for side in "ab"]
    result = compare(runs[0], runs[1], defaultdict(lambda: 10))
    (category,) = result.categories
    assert (len(category.gained), len(category.lost)) == (4, 1)
    n, d = 10, 0.3
    category_half = 1.959964 * math.sqrt((5 / n - d * d) / n)
    checked = 0
    for name, va, vb in result.summaries:
        if va is None or vb is None or vb == va:
            continue
        weight = (vb - va) / d
        low, high = result.intervals[name]
        assert (low + high) / 2 == pytest.approx(vb - va), name
        assert (high - low) / 2 == pytest.approx(abs(weight) * category_half, rel=1e-5), name
        checked += 1
    # V4 Overall and v1 Overall (Non-Live is N/A, the rest not run; 2024 categories only:
    # v1 Overall ranks such runs, so every view shows it, `completeness.shows_v1`).
    assert checked == 2
    assert "v1 Overall (2024)" in [name for name, _, _ in result.summaries]
    first = as_json(result)["summaries"][0]
    assert first["interval"] == result.intervals[first["summary"]]
    out = io.StringIO()
    print_comparison(result, Console(file=out, width=200))
    assert "Δ ≈95% interval" in out.getvalue()


def test_partial_runs_are_compared_through_their_result_files(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Two `--limit` runs: their score files name only the failures, so the cases that passed
    come from the result files: the sibling `result` folder found by itself, another folder
    through `--result-dir`."""
    runner = CliRunner()
    for name, limit in (("a", 3), ("b", 5)):
        result = runner.invoke(main, [
            "run", "--model", "ground-truth", "--categories", "simple_python,multiple",
            "--limit", str(limit), "--no-report", "--quiet",
            "--result-dir", str(tmp_path / name / "result"),
            "--score-dir", str(tmp_path / name / "score")])
        assert result.exit_code == 0, result.output
    a, b = tmp_path / "a" / "score", tmp_path / "b" / "score"
    result = runner.invoke(main, ["compare", str(a), str(b), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["categories"]
    shared = {row["category"]: row["paired_cases"] for row in rows}
    assert shared == {"simple_python": 3, "multiple": 3}
    moved = tmp_path / "elsewhere"
    (tmp_path / "b" / "result").rename(moved)
    result = runner.invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code == 2 and "--result-dir" in result.stderr
    result = runner.invoke(main, ["compare", str(a), str(b), "--json",
                                  "--result-dir", str(tmp_path / "a" / "result"),
                                  "--result-dir", str(moved)])
    assert result.exit_code == 0, result.output


def test_summaries_say_v4_overall_mark_incomplete_and_zero_judged_is_na(tmp_path: Path) -> None:
    """Issue 32: the summary reads "V4 Overall", an incomplete one carries ‡ and the same
    `‡ incomplete:` line as `evaluate`'s table (score.completeness), a summary with nothing
    run is —, and a category whose cases B all skipped is N/A (no p over 0 cases), not 0.00."""
    import io

    from rich.console import Console

    from fcbench.report.compare import as_json, print_comparison
    from fcbench.report.table import incomplete_notes, summary_marks
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    ids = {"simple_python": [f"simple_python_{i}" for i in range(4)],
           "multiple": [f"multiple_{i}" for i in range(4)]}
    for side in "ab":
        write_category_score(tmp_path / side, "m", CategoryScore("simple_python", 3, 4, 4),
                             [{"id": "simple_python_0"}])
    write_category_score(tmp_path / "a", "m", CategoryScore("multiple", 2, 4, 4),
                         [{"id": "multiple_0"}, {"id": "multiple_1"}])
    write_category_score(tmp_path / "b", "m", CategoryScore("multiple", 0, 0, 4), [],
                         {"skipped": [{"id": i, "reason": "offline"} for i in ids["multiple"]]})
    runs = [read_run(tmp_path / side, "m", lambda name: ids[name]) for side in "ab"]
    from fcbench.score.disputed import load_disputed

    result = compare(runs[0], runs[1], defaultdict(lambda: 4), load_disputed())
    data = as_json(result)
    summaries = {s["label"]: s for s in data["summaries"]}
    assert "Overall" not in summaries
    assert summaries["v1 Overall (2024)"]["text"][0].endswith("‡")  # 2024 only: shown, marked
    assert summaries["V4 Overall"]["text"][0].endswith("‡")
    assert summaries["Live"]["text"] == ["—", "—"] and summaries["Live"]["a"] is None
    multiple = next(c for c in data["categories"] if c["category"] == "multiple")
    assert multiple["b"]["accuracy"] is None and multiple["p_value"] is None
    assert multiple["delta"] is None and multiple["delta_without_disputed"] is None
    # The same lines evaluate's table prints for these scores, each side by its name.
    scores = [{n: c.score for n, c in run.categories.items()} for run in runs]
    labels = [s["summary"] for s in data["summaries"]]
    expected = incomplete_notes({name: summary_marks(s, labels)
                                 for name, s in zip(result.names, scores, strict=True)}, labels)
    assert data["incomplete_notes"] == expected and expected
    out = io.StringIO()
    print_comparison(result, Console(file=out, width=300))
    text = out.getvalue()
    assert "V4 Overall" in text and all(line in text for line in expected)
    row = next(line for line in text.splitlines() if line.strip().startswith("multiple"))
    assert "0.00" not in row and row.split().count("N/A") >= 4, row


def test_report_links_are_relative_to_the_compare_page(tmp_path: Path) -> None:
    """compare.html's links were absolute `file:///.../report.html` and broke once shared."""
    from fcbench.report.compare import relative_link

    report = (tmp_path / "runs a" / "score" / "report.html").resolve()
    link = {"uri": report.as_uri(), "model": "m"}
    assert relative_link(link, tmp_path / "out" / "compare.html") == {
        "uri": "../runs%20a/score/report.html", "model": "m"}
    assert relative_link(link, tmp_path / "compare.html")["uri"] == "runs%20a/score/report.html"
