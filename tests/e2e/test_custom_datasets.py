"""Custom datasets end to end: the two hand-written datasets of `tests/data/` (BFCL files,
and the simple JSONL format), a dozen-odd cases each over every checker kind that applies,
generated against a scripted model over HTTP and scored, in both modes.

The scripted model answers every case right except a few chosen wrong answers, so each
category's accuracy and each failure's official error type are known in advance; the score
table, `data_custom.csv`, `leaderboard.json`, `fcbench data list --data-dir`, `compare` and
the Python API must all show them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from scripted_model import ScriptedModel

from fake_openai import FakeOpenAI, _tool_call
from fcbench.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
ACME, SHOP = DATA / "custom_acme", DATA / "custom_shop"


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"content": None, "tool_calls": [_tool_call(name, json.dumps(args), 0)]}


WRONG_FC: dict[str, dict[str, Any]] = {
    # case id: (what the model sends instead)
    "acme_simple_1": call("book_table", restaurant="Chez Panisse", party_size="4", time="19:30"),
    "acme_parallel_1": call("send_email", to="alice@example.com", body="Standup at 10"),
    "acme_irrelevance_0": call("get_weather", city="Kyoto"),
    "acme_exec_simple_0": call("calculate_triangle_area", base=10, height=6),
    "shop_search_1": call("track_order", order_id="A-1000"),
    "shop_relevance_0": {"content": "Yes, we do sell garden hoses."},
    "shop_exec_parallel_0": call("math_factorial", n=4),
}
EXPECTED_FAILURES = {
    "acme_simple_1": "type_error:simple",
    "acme_parallel_1": "parallel_function_checker_no_order:wrong_count",
    "acme_irrelevance_0": "irrelevance_error:decoder_success",
    "acme_exec_simple_0": "executable_checker:wrong_result",
    "shop_search_1": "value_error:string",
    "shop_relevance_0": "relevance_error:decoder_failed",
    "shop_exec_parallel_0": "value_error:exec_result_count",
}
SIZES = {
    "acme_simple": 2, "acme_multiple": 2, "acme_parallel": 2, "acme_irrelevance": 1,
    "acme_relevance": 1, "acme_exec_simple": 1, "acme_exec_multiple": 1,
    "acme_exec_parallel": 1, "acme_multi_turn": 2, "acme_java": 1,
    "shop_search": 2, "shop_assistant": 2, "shop_parallel": 2, "shop_irrelevance": 1,
    "shop_relevance": 1, "shop_exec": 1, "shop_exec_multiple": 1, "shop_exec_parallel": 1,
    "shop_multi_turn": 2,
}
KINDS = {"ast_simple", "ast_multiple", "ast_parallel", "irrelevance", "relevance",
         "exec_simple", "exec_multiple", "exec_parallel", "multi_turn"}


def all_cases() -> list[Any]:
    import fcbench
    from fcbench.core import categories

    cases = []
    for name in SIZES:
        cases += fcbench.load_dataset(name, data_dir=[ACME, SHOP])
    assert {categories.get(n).checker for n in SIZES} == KINDS  # every kind, in each format
    for prefix in ("acme_", "shop_"):
        shown = {categories.get(n).checker for n in SIZES if n.startswith(prefix)}
        assert shown == KINDS, prefix
        assert sum(1 for c in cases if c.id.startswith(prefix)) >= 12
    return cases


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def expected_accuracy(category: str) -> float:
    failed = sum(1 for case_id in EXPECTED_FAILURES if case_id.rsplit("_", 1)[0] == category)
    return (SIZES[category] - failed) / SIZES[category]


def failures(score_dir: Path, model: str) -> dict[str, str]:
    found = {}
    for path in (score_dir / model).rglob("BFCL_v4_*_score.json"):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            record = json.loads(line)
            error = record.get("error_type") or record["error"].get("error_type")
            found[record["id"]] = error
    return found


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_run_scores_both_formats(fetched_home: Path, tmp_path: Path, mode: str) -> None:
    cases = all_cases()
    wrong = WRONG_FC if mode == "fc" else {}
    model = ScriptedModel(cases, wrong)
    with FakeOpenAI(model) as server:
        result = cli("run", "--model", "scripted", "--mode", mode, "--base-url",
                     server.base_url, "--data-dir", str(ACME), "--data-dir", str(SHOP),
                     "--result-dir", str(tmp_path / "result"), "--score-dir",
                     str(tmp_path / "score"), "--quiet")
    assert result.exit_code == 0, result.output
    folder = "scripted-FC" if mode == "fc" else "scripted"
    assert set(model.asked) == {c.id for c in cases}  # every case was asked over HTTP
    expected = EXPECTED_FAILURES if mode == "fc" else {}
    assert failures(tmp_path / "score", folder) == expected
    board = json.loads((tmp_path / "score" / "leaderboard.json").read_text())["models"][0]
    for name, size in SIZES.items():
        score = board["categories"][name]
        assert (score["total"], score["dataset_size"]) == (size, size)
        assert score["accuracy"] == pytest.approx(
            expected_accuracy(name) if mode == "fc" else 1.0)
    # the official summaries leave custom categories out; each group has its own
    assert board["summaries"]["overall"]["accuracy"] == 0.0
    groups = board["custom_summaries"]
    acme = [n for n in SIZES if n.startswith("acme_") and n != "acme_multi_turn"]
    passed = sum(SIZES[n] * (expected_accuracy(n) if mode == "fc" else 1) for n in acme)
    assert groups["acme (custom)"] == pytest.approx(passed / sum(SIZES[n] for n in acme))
    assert groups["acme_multi_turn (custom)"] == 1.0
    assert "acme (custom)" in result.output and "not part of the official" in result.output
    csv = (tmp_path / "score" / "data_custom.csv").read_text().splitlines()
    header, row = csv[0].split(","), csv[1].split(",")
    assert header[:3] == ["Rank", "Model", "Custom Overall"] and row[1] == folder
    shown = dict(zip(header, row, strict=True))
    assert shown["acme_simple"] == ("50.00%" if mode == "fc" else "100.00%")
    assert shown["shop_multi_turn"] == "100.00%"
    results = tmp_path / "result" / folder
    assert (results / "acme_multi_turn" / "BFCL_v4_acme_multi_turn_result.json").is_file()
    assert (results / "shop" / "BFCL_v4_shop_search_result.json").is_file()
    dataset = json.loads((results / "model.json").read_text())["dataset"]
    assert sorted(d["name"] for d in dataset["custom"]) == ["acme", "shop"]


def test_evaluate_compare_and_list(fetched_home: Path, tmp_path: Path) -> None:
    """Generated once by the scripted model and once by the ground truth; `evaluate` scores
    them again, `compare` pairs them case by case, `data list` lists the categories."""
    cases = all_cases()
    with FakeOpenAI(ScriptedModel(cases, WRONG_FC)) as server:
        assert cli("generate", "--model", "scripted", "--base-url", server.base_url,
                   "--data-dir", str(ACME), "--data-dir", str(SHOP), "--result-dir",
                   str(tmp_path / "result"), "--quiet").exit_code == 0
    assert cli("generate", "--model", "ground-truth", "--data-dir", str(ACME), "--data-dir",
               str(SHOP), "--result-dir", str(tmp_path / "result"), "--quiet").exit_code == 0
    score = tmp_path / "score"
    evaluated = cli("evaluate", "--result-dir", str(tmp_path / "result"), "--score-dir",
                    str(score), "--data-dir", str(ACME), "--data-dir", str(SHOP))
    assert evaluated.exit_code == 0 and "shop_multi_turn" in evaluated.output
    assert failures(score, "ground-truth-FC") == {}
    assert failures(score, "scripted-FC") == EXPECTED_FAILURES
    compared = cli("compare", f"{score}:ground-truth-FC", f"{score}:scripted-FC", "--json",
                   "--data-dir", str(ACME), "--data-dir", str(SHOP))
    assert compared.exit_code == 0, compared.output
    deltas = {c["category"]: c for c in json.loads(compared.output)["categories"]}
    assert set(deltas) == set(SIZES)
    lost = {flip["id"] for c in deltas.values() for flip in c["lost"]}
    assert lost == set(EXPECTED_FAILURES)
    listed = cli("data", "list", "--data-dir", str(ACME), "--data-dir", str(SHOP))
    assert listed.exit_code == 0
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in listed.output.splitlines() if line.startswith("│")]
    custom = {row[0]: row for row in rows if row and row[0] in SIZES}
    assert {name: int(row[1]) for name, row in custom.items()} == SIZES
    assert custom["shop_assistant"][2:5] == ["shop", "shop", "ast_multiple"]  # from "ast"
    assert custom["acme_java"][4:6] == ["ast_simple", "java"]


def test_python_api_runs_a_custom_dataset(fetched_home: Path, tmp_path: Path) -> None:
    import fcbench

    cases = [c for c in all_cases() if c.id.startswith("shop_")]
    with FakeOpenAI(ScriptedModel(cases, WRONG_FC)) as server:
        report = fcbench.run("scripted", base_url=server.base_url, data_dir=SHOP,
                            result_dir=tmp_path / "r", score_dir=tmp_path / "s")
    model = report.models["scripted"]
    shop = [n for n in SIZES if n.startswith("shop_")]
    assert list(model.categories) == shop  # the dataset's categories by default, in order
    for name in shop:
        assert model.categories[name].score.accuracy == pytest.approx(expected_accuracy(name))
