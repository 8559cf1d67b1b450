"""Score folders read back case by case; partial runs refused or left out with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcbench.results.score_files import write_category_score
from fcbench.score.aggregate import CategoryScore
from fcbench.score.runs import RunError, parse_target, read_run

IDS = {"multiple": [f"multiple_{i}" for i in range(4)],
       "exec_simple": [f"exec_simple_{i}" for i in range(3)]}


def ids_of(category: str) -> list[str]:
    return IDS[category]


def test_passing_cases_are_the_data_set_minus_failures_and_skipped(tmp_path: Path) -> None:
    write_category_score(tmp_path, "m", CategoryScore("multiple", 3, 4, 4),
                         [{"id": "multiple_2", "error_type": "value_error:string"}])
    write_category_score(tmp_path, "m", CategoryScore("exec_simple", 2, 2, 3), [],
                         {"skipped": [{"id": "exec_simple_1", "reason": "offline"}]})
    run = read_run(tmp_path, "m", ids_of)
    multiple = run.categories["multiple"]
    assert [multiple.valid(i) for i in IDS["multiple"]] == [True, True, False, True]
    assert multiple.error_type("multiple_2") == "value_error:string"
    assert run.categories["exec_simple"].ids == ["exec_simple_0", "exec_simple_2"]


def test_partial_runs_raise_or_are_left_out_with_a_reason(tmp_path: Path) -> None:
    write_category_score(tmp_path, "m", CategoryScore("multiple", 1, 2, 4), [])
    with pytest.raises(RunError, match="2 cases judged but the data set has 4"):
        read_run(tmp_path, "m", ids_of)
    problems: list[str] = []
    with pytest.raises(RunError, match="no score files"):
        read_run(tmp_path, "m", ids_of, problems)  # its only category was left out
    assert problems and problems[0].startswith("m: multiple left out")


def test_targets() -> None:
    assert parse_target("score") == (Path("score"), None)
    assert parse_target("score:gpt-4o") == (Path("score"), "gpt-4o")


def test_a_smoke_run_is_read_with_its_result_file(tmp_path: Path) -> None:
    """A partial run whose result file holds exactly the judged cases (a smoke run)."""
    write_category_score(tmp_path, "m", CategoryScore("multiple", 1, 2, 4),
                         [{"id": "multiple_3", "error_type": "x"}])
    answered = {"multiple_0", "multiple_3"}
    run = read_run(tmp_path, "m", ids_of, answered=lambda model, category: answered)
    multiple = run.categories["multiple"]
    assert multiple.ids == ["multiple_0", "multiple_3"] and multiple.score.partial
    assert multiple.valid("multiple_0") and not multiple.valid("multiple_3")
    more = {"multiple_0", "multiple_1", "multiple_3"}  # the file holds more than was judged
    with pytest.raises(RunError, match="2 cases judged"):
        read_run(tmp_path, "m", ids_of, answered=lambda model, category: more)


def test_model_names_with_colons_and_missing_folders(tmp_path: Path) -> None:
    write_category_score(tmp_path / "score", "org:model:v2", CategoryScore("multiple", 4, 4, 4),
                         [])
    target = f"{tmp_path / 'score'}:org:model:v2"
    assert parse_target(target) == (tmp_path / "score", "org:model:v2")
    assert read_run(*parse_target(target), ids_of).model == "org:model:v2"
    assert parse_target("nowhere:m") == (Path("nowhere"), "m")
    with pytest.raises(RunError, match="nowhere: no such score folder"):
        read_run(tmp_path / "nowhere", "m", ids_of)
