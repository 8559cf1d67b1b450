"""fcbench's results document (`export.results`): valid against the shipped schema, the
leaderboard's numbers, the configuration and the corrections profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from export_fixtures import FOLDER, MODEL, SCORES, SKIPPED, Scored, build_document, write_scores
from fcbench.export.results import SCHEMA_FILE, SCHEMA_VERSION


def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_the_document_is_valid_against_the_shipped_schema(scored: Scored) -> None:
    document = build_document(scored)
    errors = [e.message for e in validator().iter_errors(document)]
    assert errors == []
    assert document["schema_version"] == SCHEMA_VERSION


def test_the_schema_refuses_what_it_does_not_describe(scored: Scored) -> None:
    document = build_document(scored)
    document["models"][0]["surprise"] = 1
    del document["models"][0]["summaries"]["agentic"]
    messages = " ".join(e.message for e in validator().iter_errors(document))
    assert "surprise" in messages and "agentic" in messages


def test_the_schema_ships_in_the_package() -> None:
    import tomllib

    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["fcbench"]
    relative = SCHEMA_FILE.relative_to(SCHEMA_FILE.parents[2])
    assert any(relative.match(p) for p in patterns)


def test_categories_with_their_marks(scored: Scored) -> None:
    (model,) = build_document(scored)["models"]
    categories = model["categories"]
    for name, (correct, total) in SCORES.items():
        assert (categories[name]["correct"], categories[name]["total"]) == (correct, total)
    assert categories["live_simple"]["partial"] and not categories["multiple"]["partial"]
    assert categories["exec_simple"]["skipped"] == 1
    assert model["skipped"] == [{"category": "exec_simple", **SKIPPED[0]}]
    assert not categories["memory_kv"]["evaluated"]
    # exec_simple: 99 judged + 1 skipped = all it holds, a whole run (skipped is marked on
    # its own), not a partial one (issue 32)
    assert set(model["partial_categories"]) == {"live_simple"}
    assert not categories["exec_simple"]["partial"]
    assert model["summaries"]["live"]["partial"] and not model["summaries"]["memory"]["partial"]


def _percent(cell: str) -> float | None:
    return None if cell == "N/A" else float(cell.rstrip("%")) / 100


def test_summaries_are_the_leaderboards_numbers(scored: Scored) -> None:
    (model,) = build_document(scored)["models"]
    (row,) = scored.csv()
    columns = {"overall": "Overall Acc", "non_live": "Non-Live AST Acc",
               "simple_ast_nonlive": "Non-Live Simple AST", "live": "Live Acc",
               "multi_turn": "Multi Turn Acc", "web_search": "Web Search Acc",
               "memory": "Memory Acc", "relevance": "Relevance Detection",
               "irrelevance": "Irrelevance Detection"}
    for key, column in columns.items():
        shown, expected = model["summaries"][key]["leaderboard_value"], _percent(row[column])
        assert (shown is None) == (expected is None), key
        if shown is not None:
            assert shown == pytest.approx(expected, abs=5e-5), key
    (v1_row,) = scored.csv("data_v1.csv")
    assert model["v1"]["overall"]["leaderboard_value"] == pytest.approx(
        _percent(v1_row["Overall Acc"]), abs=5e-5)
    board = json.loads((scored.score_dir / "leaderboard.json").read_text())["models"][0]
    assert {k: s["accuracy"] for k, s in model["summaries"].items()} == {
        k: s["accuracy"] for k, s in board["summaries"].items()}


def test_configuration_from_model_json_without_endpoints(scored: Scored) -> None:
    (model,) = build_document(scored)["models"]
    assert model["name"] == MODEL and model["model"] == FOLDER
    configuration = model["configuration"]
    assert configuration["sampling"] == {"temperature": 0.001, "seed": 7}
    assert configuration["backend"] == "openai" and configuration["mode"] == "fc"
    assert "base_url" not in configuration and "runs" not in configuration
    assert model["latency"]["mean"] == 2.5
    assert model["corrections"] == {"profile": "none"}


def test_no_result_folder_no_configuration(scored: Scored) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.export.results import build

    (model,) = build([scored.score_dir], scored.sizes, release=DEFAULT_RELEASE)["models"]
    assert model["configuration"] is None and model["cost"] is None
    assert validator().is_valid(build([scored.score_dir], scored.sizes,
                                      release=DEFAULT_RELEASE))


def test_a_corrections_profile_with_its_upstream_side(scored: Scored, tmp_path: Path) -> None:
    upstream = {"correct_count": 90, "total_count": 200, "accuracy": 0.45, "cases": [
        {"id": "live_simple_141-94-0", "fix": "ground-truth-enum-units",
         "upstream": [1329, 1314], "valid": True, "upstream_valid": False}]}
    extra: dict[str, dict[str, Any]] = {name: {"corrections": "community-2026"}
                                        for name in SCORES}
    extra["live_simple"]["corrections_upstream"] = upstream
    score_dir = tmp_path / "corrected"
    write_scores(score_dir, FOLDER, SCORES, scored.sizes, extra)
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.export.results import build

    document = build([score_dir], scored.sizes, release=DEFAULT_RELEASE)
    assert validator().is_valid(document)
    block = document["models"][0]["corrections"]
    assert block["profile"] == "community-2026"
    assert block["categories"]["live_simple"]["upstream_accuracy"] == 0.45
    assert block["categories"]["live_simple"]["cases"][0]["upstream"] == [1329, 1314]
    corrected = document["models"][0]["summaries"]["live"]["accuracy"]
    assert block["upstream_summaries"]["live"]["accuracy"] < corrected


def test_incomplete_summaries_as_leaderboard_json_lists_them(scored: Scored) -> None:
    """Issue 32: the export names each incomplete summary and what it misses, as
    leaderboard.json does (one rule: score.completeness); partial stays its own mark."""
    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report.leaderboard import entry_json, merge_entries

    (model,) = build_document(scored)["models"]
    found = {c["summary"]: c for c in model["incomplete"]}
    assert found["Overall"]["groups_run"] == 4 and found["Overall"]["groups"] == 5
    assert "parallel" in found["Overall"]["missing"] and found["Agentic"]["nothing_run"]
    assert "Irrelevance Detection" in found  # live_irrelevance was not run
    (entry,) = merge_entries([scored.score_dir], dataset_sizes(DEFAULT_RELEASE, None))
    assert model["incomplete"] == entry_json(entry)["incomplete"]
