"""The every_eval_ever export: valid against that project's own schema (vendored in
tests/export/every_eval_ever, see its README), and the same numbers its BFCL adapter reads
from the data_overall.csv fcbench writes for the same score folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator

from export_fixtures import FOLDER, MODEL, SCORES, Scored, build_document, write_scores
from fcbench.export import ExportError, exporter

SCHEMA = Path(__file__).parent / "every_eval_ever" / "eval.schema.json"
TEXT_COLUMNS = {"Rank", "Model", "Model Link", "Organization", "License"}


def validate(log: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return [f"{list(e.absolute_path)}: {e.message}"
            for e in Draft7Validator(schema).iter_errors(log)]


def adapter_value(cell: str) -> float | None:
    """every_eval_ever's BFCL adapter's reading of a CSV cell (`parse_value`)."""
    cell = cell.strip()
    if cell in ("", "N/A"):
        return None
    return float(cell.rstrip("%").replace(",", ""))


def export(document: dict[str, Any], model: str | None = None) -> dict[str, Any]:
    return exporter("every-eval-ever").export(document, model)


def test_the_log_is_valid_against_every_eval_evers_schema(scored: Scored) -> None:
    log = export(build_document(scored))
    assert validate(log) == []
    assert log["schema_version"] == json.loads(SCHEMA.read_text())["version"]
    assert log["model_info"]["id"] == MODEL
    assert log["source_metadata"]["source_type"] == "evaluation_run"


def test_the_schema_catches_a_broken_log(scored: Scored) -> None:
    log = export(build_document(scored))
    del log["model_info"]["additional_details"]["deployment_type"]
    log["evaluation_results"][0]["score_details"]["score"] = "high"
    assert len(validate(log)) == 2


def test_the_numbers_are_the_csvs_as_its_bfcl_adapter_reads_them(scored: Scored) -> None:
    log = export(build_document(scored))
    (row,) = scored.csv()
    expected = {column: value for column, cell in row.items()
                if column not in TEXT_COLUMNS and (value := adapter_value(cell)) is not None}
    found = {r["metric_config"]["additional_details"]["raw_metric_field"]:
             r["score_details"]["score"] for r in log["evaluation_results"]}
    assert set(found) == set(expected)
    for column, value in expected.items():
        assert found[column] == pytest.approx(value, abs=0.005), column
    names = {r["evaluation_name"] for r in log["evaluation_results"]}
    assert {"bfcl.overall.overall_accuracy", "bfcl.live.live_simple_ast_accuracy"} <= names
    assert "bfcl.memory.accuracy" not in names  # N/A in the CSV: no result


def test_the_configuration_and_marks_travel_as_strings(scored: Scored) -> None:
    details = export(build_document(scored))["model_info"]["additional_details"]
    assert json.loads(details["configuration"])["sampling"]["seed"] == 7
    assert details["partial_categories"] == "live_simple"  # exec_simple's 1 is skipped
    assert details["skipped_cases"] == "1"


def test_one_model_per_log(scored: Scored) -> None:
    write_scores(scored.score_dir, "other", {"simple_python": (1, 400)}, scored.sizes)
    document = build_document(scored)
    with pytest.raises(ExportError, match="pass --model"):
        export(document)
    assert export(document, FOLDER)["model_info"]["id"] == MODEL
    assert export(document, "other")["model_info"]["id"] == "other"


def test_a_corrected_score_carries_its_upstream_side(scored: Scored, tmp_path: Path) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.export.results import build

    extra: dict[str, dict[str, Any]] = {n: {"corrections": "community-2026"} for n in SCORES}
    extra["live_simple"]["corrections_upstream"] = {
        "correct_count": 90, "total_count": 200, "accuracy": 0.45, "cases": []}
    write_scores(tmp_path / "corrected", FOLDER, SCORES, scored.sizes, extra)
    log = export(build([tmp_path / "corrected"], scored.sizes, release=DEFAULT_RELEASE))
    assert validate(log) == []
    by_name = {r["evaluation_name"]: r["score_details"] for r in log["evaluation_results"]}
    live_simple = by_name["bfcl.live.live_simple_ast_accuracy"]
    assert live_simple["score"] == 50.0
    assert live_simple["details"] == {"upstream_score": "45.0",
                                      "corrections_profile": "community-2026"}
    assert "details" not in by_name["bfcl.non_live.multiple_ast_accuracy"]
    assert "details" in by_name["bfcl.overall.overall_accuracy"]
    assert log["eval_library"]["additional_details"]["corrections_profile"] == "community-2026"


def test_a_category_with_every_case_skipped_has_no_result(scored: Scored) -> None:
    """Skipped is never 0.00: a category none of whose cases was judged is N/A (no result)."""
    document = build_document(scored)
    names = {r["evaluation_name"] for r in export(document)["evaluation_results"]}
    (record,) = document["models"]
    record["categories"]["multiple"].update(correct=0, total=0, accuracy=0.0, skipped=200)
    after = {r["evaluation_name"] for r in export(document)["evaluation_results"]}
    assert names - after == {"bfcl.non_live.multiple_ast_accuracy"}
