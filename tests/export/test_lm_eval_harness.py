"""The lm-eval export: valid for lm-evaluation-harness's own results type
(`lm_eval.result_schema.EvalResults`, checked strictly by pydantic), printed by its own table
writer (`lm_eval.utils.make_table`, what `lm_eval` prints after a run), each task's standard
error the harness's own `mean_stderr`."""

from __future__ import annotations

from typing import Any

import pytest
from lm_eval.result_schema import EvalResults

from export_fixtures import MODEL, SCORES, Scored, build_document
from fcbench.export import exporter


def export(scored: Scored) -> dict[str, Any]:
    return exporter("lm-eval").export(build_document(scored), None)


def test_valid_for_the_harness_results_type(scored: Scored) -> None:
    from pydantic import TypeAdapter

    results = export(scored)
    TypeAdapter(EvalResults).validate_python(results, strict=True)
    assert results["model_name"] == MODEL


def test_the_results_type_catches_a_broken_document(scored: Scored) -> None:
    from pydantic import TypeAdapter, ValidationError

    results = export(scored)
    results["results"]["bfcl_simple_python"]["acc,none"] = "75%"
    with pytest.raises(ValidationError):
        TypeAdapter(EvalResults).validate_python(results, strict=True)


def test_tasks_are_the_evaluated_categories(scored: Scored) -> None:
    results = export(scored)
    tasks = {name for name in results["results"] if name not in results["groups"]}
    assert tasks == {f"bfcl_{name}" for name in SCORES}
    live = results["results"]["bfcl_live_simple"]
    assert live["acc,none"] == 0.5 and live["sample_len"] == 200
    assert results["n-samples"]["bfcl_live_simple"]["effective"] == 200
    assert results["n-samples"]["bfcl_live_simple"]["original"] == scored.sizes["live_simple"]


def test_groups_are_the_summaries_the_leaderboard_shows(scored: Scored) -> None:
    document = build_document(scored)
    (model,) = document["models"]
    results = exporter("lm-eval").export(document, None)
    groups = results["groups"]
    assert groups["bfcl"]["acc,none"] == model["summaries"]["overall"]["leaderboard_value"]
    assert groups["bfcl_live"]["acc,none"] == model["summaries"]["live"]["accuracy"]
    assert "bfcl_memory" not in groups  # N/A on the leaderboard (nothing run)
    assert "bfcl_non_live" not in groups  # N/A: parallel and parallel_multiple missing
    assert "bfcl_v1" in groups  # exec_simple is a 2024-only category
    assert results["group_subtasks"]["bfcl_live"] == ["bfcl_live_simple"]
    assert "bfcl_non_live" not in results["group_subtasks"]["bfcl"]


def test_the_stderr_is_the_harness_mean_stderr(scored: Scored) -> None:
    from lm_eval.api.metrics import mean_stderr

    results = export(scored)["results"]
    for name, (correct, total) in SCORES.items():
        scores = [1] * correct + [0] * (total - correct)
        assert results[f"bfcl_{name}"]["acc_stderr,none"] == pytest.approx(
            mean_stderr(scores), rel=1e-9), name


def test_the_harness_prints_it(scored: Scored) -> None:
    from lm_eval.utils import make_table

    results = export(scored)
    table = make_table(results)
    assert "bfcl_live_simple" in table or "live_simple" in table
    assert "0.5000" in table  # live_simple's acc, as the harness formats it
    groups = make_table(results, "groups")
    assert f"{results['groups']['bfcl']['acc,none']:.4f}" in groups


def test_a_category_with_every_case_skipped_is_no_task(scored: Scored) -> None:
    """Skipped is never 0.00: a category none of whose cases was judged has no accuracy."""
    document = build_document(scored)
    (record,) = document["models"]
    record["categories"]["multiple"].update(correct=0, total=0, accuracy=0.0, skipped=200)
    results = exporter("lm-eval").export(document, None)
    assert "bfcl_multiple" not in results["results"]
    assert "bfcl_multiple" not in results["n-samples"]
    assert "bfcl_simple_python" in results["results"]
