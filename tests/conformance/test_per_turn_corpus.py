"""Per-turn accuracy (fcbench metric) over ../shared/corpus's multi-turn cases (2 models,
1,200 cases): beside the official verdicts, never changing them or their score files.

Checked: every case the official evaluator passed has every counted turn right and every
case it failed (with all its turns answered) has a wrong one; the official score files keep
only the official header fields (the metric lives in its own files beside them); those files,
the fcbench CSV, leaderboard.json and the fcbench export all carry the same counts, and the
export is valid against the shipped schema. About 4 s warm.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from fcbench.api import dataset_sizes, print_evaluation
from fcbench.check.turns import TURNS
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.evaluation import evaluate
from fcbench.export.results import SCHEMA_FILE, build
from fcbench.report.csv_files import load_entries
from fcbench.report.leaderboard import write_board
from fcbench.report.per_turn_csv import read_per_turn
from fcbench.score.per_turn import METRIC
from shared_corpus import V4_RUN, needs_corpus

pytestmark = needs_corpus


def official(model_dir: Path) -> dict[str, bool]:
    lines = (model_dir / "verdicts.jsonl").read_text("utf-8").splitlines()
    return {v["id"]: v["valid"] for v in map(json.loads, lines)}


def answered_turns(model_dir: Path, category: str) -> dict[str, int]:
    path = model_dir / f"BFCL_v4_{category}_result.json"
    return {e["id"]: len(e["result"]) if isinstance(e["result"], list) else -1
            for e in map(json.loads, path.read_text("utf-8").splitlines())}


def test_per_turn_accuracy_beside_the_official_verdicts(
        fetched_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    score_dir = tmp_path / "score"
    report = evaluate(V4_RUN, category_names=["multi_turn"], score_dir=score_dir, workers=1)
    shown: list[str] = []
    for model, scored in report.models.items():
        verdicts = official(V4_RUN / model)
        assert set(scored.categories) == {"multi_turn_base", "multi_turn_miss_func",
                                          "multi_turn_miss_param"}
        for category, evaluation in scored.categories.items():
            lengths = answered_turns(V4_RUN / model, category)
            for case in evaluation.cases:
                turns = case.verdict.extras[TURNS]
                counted = [t for t in turns if t is not None]
                assert case.verdict.valid == verdicts[case.id]  # the official verdict kept
                if lengths[case.id] == len(turns):
                    assert all(counted) == verdicts[case.id], (model, case.id, turns)
            per_turn = evaluation.per_turn
            assert per_turn is not None and per_turn.turns > evaluation.total
            assert per_turn.accuracy >= evaluation.accuracy  # passing cases: all turns right
            back = read_per_turn(score_dir / model)[category]
            assert (back.right, back.turns, dict(back.cases)) == (
                per_turn.right, per_turn.turns, dict(per_turn.cases))
            (score_file,) = (score_dir / model).rglob(f"BFCL_v4_{category}_score.json")
            header, *records = score_file.read_text("utf-8").splitlines()
            assert set(json.loads(header)) == {"accuracy", "correct_count", "total_count"}
            assert not any(TURNS in json.loads(record) for record in records)
            shown.append(f"  {model} {category}: official {100 * evaluation.accuracy:.2f}% "
                         f"({evaluation.correct}/{evaluation.total} cases), per-turn "
                         f"{100 * per_turn.accuracy:.2f}% ({per_turn.right}/{per_turn.turns})")
    print_evaluation(report, DEFAULT_RELEASE, None, None)
    terminal = capsys.readouterr().out
    small = report.models["openai_gpt-oss-20b"].categories["multi_turn_base"].per_turn
    assert small is not None
    assert (f"  openai_gpt-oss-20b {METRIC}, in no Overall: multi_turn_base "
            f"{100 * small.accuracy:.2f}% ({small.right}/{small.turns} turns);") in terminal
    with capsys.disabled():
        print("\n" + METRIC + ":", *shown, sep="\n")
    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    entries = load_entries(score_dir, sizes)
    write_board(entries, tmp_path / "board")
    csv = (tmp_path / "board" / "data_per_turn.csv").read_text("utf-8").splitlines()
    assert csv[0].startswith(f"Rank,Model,{METRIC},Base,Miss Func,Miss Param,Long Context")
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text("utf-8"))
    document = build([score_dir], sizes, release=DEFAULT_RELEASE)
    schema = json.loads(SCHEMA_FILE.read_text("utf-8"))
    assert [e.message for e in Draft202012Validator(schema).iter_errors(document)] == []
    for record in document["models"]:
        model, block = record["model"], record["per_turn_accuracy"]
        categories = report.models[model].categories
        right = sum(c.per_turn.right for c in categories.values() if c.per_turn)
        turns = sum(c.per_turn.turns for c in categories.values() if c.per_turn)
        assert (block["all_turns"]["turns_right"], block["all_turns"]["turns"]) == (right, turns)
        base = categories["multi_turn_base"].per_turn
        assert base is not None
        assert block["categories"]["multi_turn_base"]["accuracy"] == base.accuracy
        row = next(line.split(",") for line in csv[1:] if line.split(",")[1] == model)
        assert row[2] == f"{100 * right / turns:.2f}%" and row[-1] == str(turns)
        assert row[3] == f"{100 * base.accuracy:.2f}%" and row[6] == "N/A"  # no long context
        on_board: dict[str, Any] = next(m for m in board["models"] if m["model"] == model)
        assert on_board["per_turn_accuracy"] == block
        # never inside an official summary: the Multi-Turn summary is the cases' share
        assert record["summaries"]["multi_turn"]["accuracy"] != block["all_turns"]["accuracy"]
    # the report's hook: the same block in the data the page is fed, with each case's turns
    from fcbench.report.html.collect import collect
    from fcbench.score.disputed import load_disputed

    page = collect([score_dir], [], DEFAULT_RELEASE, None, sizes, load_disputed())
    fed = {m["name"]: m["per_turn"] for m in page["models"]}
    for record in document["models"]:
        block = fed[record["model"]]
        cases = {c: block["categories"][c].pop("case_turns") for c in block["categories"]}
        assert block == record["per_turn_accuracy"]
        base = report.models[record["model"]].categories["multi_turn_base"].per_turn
        assert base is not None and cases["multi_turn_base"] == dict(base.cases)
