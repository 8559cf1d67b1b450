"""The report's document of a smoke run: its categories are there, marked partial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.api import dataset_sizes, evaluate
from fcbench.pipeline import run
from fcbench.report.html.collect import collect
from fcbench.score.disputed import load_disputed


def fail_first_case(result_dir: Path, category: str) -> None:
    """Make the first answer of a category's result file call a function no one offered."""
    file = next(result_dir.rglob(f"BFCL_v4_{category}_result.json"))
    lines = file.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["result"] = [{"no_such_function": "{}"}]
    file.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")


def test_only_failed_cases_get_a_detail(fetched_home: Path, tmp_path: Path) -> None:
    run("ground-truth", categories=["simple_python"], limit=3,
        result_dir=tmp_path / "result", score_dir=tmp_path / "first")
    fail_first_case(tmp_path / "result", "simple_python")
    evaluate(tmp_path / "result", score_dir=tmp_path / "score")
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    document = collect([tmp_path / "score"], [tmp_path / "result"], release, None,
                       dataset_sizes(release, None), load_disputed())
    rows = {row[1]: row for row in document["rows"]}
    assert rows["simple_python_1"][2:] == [1, None, None]  # passing: no detail
    assert rows["simple_python_2"][2:] == [1, None, None]
    failed = rows["simple_python_0"]
    assert failed[2] == 0 and failed[3] and failed[4] == 0
    assert len(document["details"]) == 1
    assert "no_such_function" in document["details"][0]["raw"]
    assert document["details"][0]["error"]
    assert document["cases"]["simple_python_1"][1]  # its question is still there, once


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
    summaries = {label: text for label, _, text, *_ in model["summaries"]}
    # Partial (3 cases each) and incomplete (2 of 21 categories run): both marks, distinct.
    assert summaries["Overall"].endswith("*‡")
    assert summaries["Live"] == "—"  # nothing under it run: no number
    assert any(line.startswith("‡ incomplete: V4 Overall: 1 of 5 groups run")
               for line in document["incomplete"])
    rows = [row for row in document["rows"] if row[1].startswith("simple_python_")]
    assert [row[1] for row in rows] == ["simple_python_0", "simple_python_1", "simple_python_2"]
    without = collect([tmp_path / "score"], [], release, None, dataset_sizes(release, None),
                      load_disputed())
    assert any("left out" in p for p in without["problems"])  # no result file: not readable


def test_the_report_after_evaluate_reads_no_score_file_back(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`evaluate(report_cases=True)` hands the report what it would read back from the score
    files (ids, error types, skipped cases, each failure's detail): the same document, with
    no score or result file read a second time."""
    import fcbench.report.html.collect as collect_module
    import fcbench.score.runs as runs_module

    run("ground-truth", categories=["simple_python", "multi_turn_base"], limit=2,
        result_dir=tmp_path / "result", score_dir=tmp_path / "first")
    fail_first_case(tmp_path / "result", "simple_python")
    broken = next((tmp_path / "result").rglob("BFCL_v4_multi_turn_base_result.json"))
    lines = broken.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["result"] = [[["no_such_function()"]], *first["result"][1:]]
    broken.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    evaluation = evaluate(tmp_path / "result", score_dir=tmp_path / "score", keep_cases=False,
                          report_cases=True)
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    sizes = dataset_sizes(release, None)
    from_files = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                         load_disputed())

    def no_second_read(*_: object, **__: object) -> None:
        raise AssertionError("read back")

    monkeypatch.setattr(runs_module, "read_score_file", no_second_read)
    monkeypatch.setattr(collect_module.Sources, "_read_entries", no_second_read)
    from_memory = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                          load_disputed(), evaluation)
    assert from_memory == from_files
    kinds = {row[1]: row[3] for row in from_memory["rows"] if not row[2]}
    assert set(kinds) == {"simple_python_0", "multi_turn_base_0"}, kinds
    assert len(from_memory["details"]) == 2


def test_case_texts_are_kept_in_the_release_cache(
    fetched_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A single-turn category's questions, function lists and expected answers as the page
    shows them are stored in the release's derived cache and read back unchanged, without
    parsing the category again."""
    import fcbench.dataset.load as load_module
    import fcbench.report.html.collect as collect_module
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release

    fresh = collect_module._build_case_texts("simple_python", release, None)
    assert collect_module._case_texts("simple_python", release, None) == fresh

    def not_again(*_: object, **__: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(load_module, "load_category", not_again)
    assert collect_module._case_texts("simple_python", release, None) == fresh
    assert fresh[0][0] == "simple_python_0" and fresh[0][2].startswith("[{")


def test_models_not_just_judged_are_read_from_their_files(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A score folder holding a model from an earlier evaluation: the report after judging
    another model takes that one from memory and reads the earlier one from its files (the
    same document as reading both back)."""
    import shutil

    import fcbench.score.runs as runs_module

    run("ground-truth", categories=["simple_python"], limit=2,
        result_dir=tmp_path / "result", score_dir=tmp_path / "first")
    (folder,) = [p for p in (tmp_path / "result").iterdir() if p.is_dir()]
    shutil.copytree(folder, tmp_path / "result" / "earlier-model")
    fail_first_case(tmp_path / "result" / "earlier-model", "simple_python")
    evaluate(tmp_path / "result", score_dir=tmp_path / "score")
    evaluation = evaluate(tmp_path / "result", models=[folder.name],
                          score_dir=tmp_path / "score", report_cases=True)
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    sizes = dataset_sizes(release, None)
    from_files = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                         load_disputed())
    read: list[str] = []
    reader = runs_module.read_score_file

    def counted(path: Path) -> object:
        read.append(Path(path).relative_to(tmp_path / "score").parts[0])
        return reader(path)

    monkeypatch.setattr(runs_module, "read_score_file", counted)
    mixed = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                    load_disputed(), evaluation)
    assert mixed == from_files
    assert read == ["earlier-model"]
    assert [m["name"] for m in mixed["models"]] == sorted(["earlier-model", folder.name])


def test_usage_counts_the_cases_judged_not_every_answer(fetched_home: Path, tmp_path: Path
                                                         ) -> None:
    """Evaluating one category of a result folder that holds two: the report's usage counts
    that category's answers (as evaluate does for the CSVs), from files and from memory."""
    run("ground-truth", categories=["simple_python", "multiple"], limit=2,
        result_dir=tmp_path / "result", score_dir=tmp_path / "first")
    for file in (tmp_path / "result").rglob("BFCL_v4_*_result.json"):  # recorded usage
        entries = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
        file.write_text("".join(json.dumps({**e, "latency": 1.5, "input_token_count": 10})
                                + "\n" for e in entries), encoding="utf-8")
    evaluation = evaluate(tmp_path / "result", categories=["simple_python"],
                          score_dir=tmp_path / "score", report_cases=True)
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    sizes = dataset_sizes(release, None)
    from_files = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                         load_disputed())
    from_memory = collect([tmp_path / "score"], [tmp_path / "result"], release, None, sizes,
                          load_disputed(), evaluation)
    assert from_memory == from_files
    usage = from_files["models"][0]["usage"]
    assert (usage["calls"], usage["input_tokens"]) == (2, 20), usage


def test_models_read_in_workers_give_the_same_document(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Score folders read back in forked workers (several models, several cores) give the
    document read in one process: failures' details, error types, usage, problems."""
    import shutil

    import fcbench.report.html.collect as collect_module

    run("ground-truth", categories=["simple_python", "multi_turn_base"], limit=2,
        result_dir=tmp_path / "result", score_dir=tmp_path / "first")
    (folder,) = [p for p in (tmp_path / "result").iterdir() if p.is_dir()]
    for name in ("second-model", "third-model"):
        shutil.copytree(folder, tmp_path / "result" / name)
        fail_first_case(tmp_path / "result" / name, "simple_python")
    evaluate(tmp_path / "result", score_dir=tmp_path / "score")
    from fcbench.dataset.fetch import DEFAULT_RELEASE as release
    sizes = dataset_sizes(release, None)

    def document(workers: int) -> dict[str, object]:
        monkeypatch.setattr(collect_module, "READ_WORKERS", workers)
        return collect([tmp_path / "score", tmp_path / "no-such-folder"], [tmp_path / "result"],
                       release, None, sizes, load_disputed())

    alone, apart = document(1), document(2)
    assert apart == alone
    assert len(alone["models"]) == 3 and len(alone["details"]) == 2
    assert any("no such score folder" in p for p in alone["problems"])
