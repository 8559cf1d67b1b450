"""The formats with samples, on a real scored run (ground truth, one answer broken):
every_eval_ever's datastore files valid against the released 0.3.0 schemas (vendored in
tests/export/every_eval_ever, see its README), Inspect logs in the shape inspect_ai reads
(read back by inspect_ai itself in test_inspect_log.py, marked `inspect`). Each sample's
verdict is checked against the score file read here as plain JSON lines."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft7Validator

from export_fixtures import Scored
from fcbench.cli import main
from sample_run import CATEGORIES, FOLDER, verdicts

SCHEMAS = Path(__file__).parent / "every_eval_ever"
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
INSPECT_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\+00-00"
                          r"_bfcl-[a-z-]+_[A-Za-z0-9]{22}\.json$")
"""Inspect's log listing parses `<ISO timestamp>_<task>_<id>` (no `_` inside the task)."""


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def validator(name: str) -> Draft7Validator:
    return Draft7Validator(json.loads((SCHEMAS / name).read_text(encoding="utf-8")))


def errors(schema: Draft7Validator, document: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in schema.iter_errors(document)]


def eee_files(root: Path, out: Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    result = cli("export", "--format", "every-eval-ever", str(root / "score"), "--result-dir",
                 str(root / "result"), "--model-info", str(root / "info.json"), "-o", str(out))
    assert result.exit_code == 0, result.output
    (aggregate,) = (p for p in out.rglob("*.json"))
    samples = [json.loads(line) for p in out.rglob("*_samples.jsonl")
               for line in p.read_text(encoding="utf-8").splitlines()]
    return aggregate, json.loads(aggregate.read_text(encoding="utf-8")), samples


def test_the_datastore_files_are_valid_and_linked(sample_run: Path, tmp_path: Path) -> None:
    path, log, samples = eee_files(sample_run, tmp_path / "eee")
    assert errors(validator("eval.schema.json"), log) == []
    instance = validator("instance_level_eval.schema.json")
    for sample in samples:
        assert errors(instance, sample) == [], sample["sample_id"]
    relative = path.relative_to(tmp_path / "eee").as_posix()
    assert re.fullmatch(rf"data/bfcl/gorilla-team/ground-truth/{UUID4}\.json", relative)
    detail = log["detailed_evaluation_results"]
    assert detail["file_path"] == relative.removesuffix(".json") + "_samples.jsonl"
    text = (tmp_path / "eee" / detail["file_path"]).read_bytes()
    assert detail["checksum"] == hashlib.sha256(text).hexdigest()
    assert detail["total_rows"] == len(samples) == 9
    assert {s["evaluation_id"] for s in samples} == {log["evaluation_id"]}
    assert {s["model_id"] for s in samples} == {log["model_info"]["id"]}
    results = {r["evaluation_result_id"] for r in log["evaluation_results"]}
    linked = [s for s in samples if "evaluation_result_id" in s]
    assert linked and all(s["evaluation_result_id"] in results for s in linked)


def test_each_sample_is_the_score_files_verdict(sample_run: Path, tmp_path: Path) -> None:
    _, _, samples = eee_files(sample_run, tmp_path / "eee")
    expected = verdicts(sample_run)
    assert {s["sample_id"]: s["evaluation"]["is_correct"] for s in samples} == expected
    assert expected["simple_python_0"] is False and sum(expected.values()) == 8
    for sample in samples:
        assert sample["evaluation"]["score"] == float(sample["evaluation"]["is_correct"])
    failed = next(s for s in samples if s["sample_id"] == "simple_python_0")
    assert "no_such_function" in failed["output"]["raw"][0]
    assert failed["metadata"]["error_type"].endswith("wrong_func_name")


def test_a_multi_turn_sample_is_its_conversation(sample_run: Path, tmp_path: Path) -> None:
    _, _, samples = eee_files(sample_run, tmp_path / "eee")
    result = next((sample_run / "result").rglob("BFCL_v4_multi_turn_base_result.json"))
    answered = {(e := json.loads(line))["id"]: e["result"]
                for line in result.read_text(encoding="utf-8").splitlines()}
    for sample in (s for s in samples if s["sample_id"].startswith("multi_turn")):
        turns = len(answered[sample["sample_id"]])
        assert sample["interaction_type"] == "multi_turn" and sample["output"] is None
        assert sample["evaluation"]["num_turns"] == turns
        roles = [m["role"] for m in sample["messages"]]
        assert roles.count("assistant") == turns and roles[0] == "user"
        assert [m["turn_idx"] for m in sample["messages"]] == list(range(len(roles)))
        last = sample["answer_attribution"][0]["turn_idx"]
        assert sample["messages"][last]["role"] == "assistant" and last == len(roles) - 1


def test_the_schemas_catch_broken_files(sample_run: Path, tmp_path: Path) -> None:
    """The vendored schemas are not vacuous: a wrong samples path, a sample without its
    answer attribution or with messages in a single-turn record are errors."""
    _, log, samples = eee_files(sample_run, tmp_path / "eee")
    log["detailed_evaluation_results"]["file_path"] = "samples.jsonl"
    assert len(errors(validator("eval.schema.json"), log)) == 1
    single = next(s for s in samples if s["interaction_type"] == "single_turn")
    del single["answer_attribution"]
    single["messages"] = []
    assert len(errors(validator("instance_level_eval.schema.json"), single)) >= 2


def test_unbounded_metrics_say_infinity(scored: Scored) -> None:
    """Cost and latency have no upper bound: schema 0.3.0's string "Infinity", never the
    model's own value (the adapter's leaderboard-wide observed maximum means nothing for one
    model)."""
    from export_fixtures import build_document
    from fcbench.export import exporter

    log = exporter("every-eval-ever").export(build_document(scored), None)
    bounds = {r["metric_config"]["metric_kind"]: r["metric_config"]["max_score"]
              for r in log["evaluation_results"]}
    assert bounds["latency"] == "Infinity" and bounds["accuracy"] == 100.0
    assert errors(validator("eval.schema.json"), log) == []


def test_a_model_without_a_developer_is_one_line(sample_run: Path, tmp_path: Path) -> None:
    result = cli("export", "--format", "every-eval-ever", str(sample_run / "score"), "--result-dir",
                 str(sample_run / "result"), "-o", str(tmp_path / "eee"))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("fcbench: error:") and "names none" in line
    alone = cli("export", "--format", "every-eval-ever", str(sample_run / "score"),
                "-o", str(tmp_path / "log.json"))  # the log alone needs no developer
    assert alone.exit_code == 0, alone.output
    assert "detailed_evaluation_results" not in json.loads((tmp_path / "log.json").read_text())


def inspect_logs(root: Path, out: Path) -> dict[str, dict[str, Any]]:
    result = cli("export", "--format", "inspect", str(root / "score"), "--result-dir",
                 str(root / "result"), "-o", str(out))
    assert result.exit_code == 0, result.output
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in out.rglob("*.json")}


def test_one_inspect_log_per_category_with_the_verdicts(sample_run: Path, tmp_path: Path) -> None:
    logs = inspect_logs(sample_run, tmp_path / "inspect")
    assert sorted(log["eval"]["task"] for log in logs.values()) == sorted(
        f"bfcl_{c}" for c in CATEGORIES)
    assert all(INSPECT_NAME.match(name) for name in logs), list(logs)
    expected = verdicts(sample_run)
    scores = {s["id"]: s["scores"]["bfcl_checker"]["value"]
              for log in logs.values() for s in log["samples"]}
    assert scores == {i: "C" if ok else "I" for i, ok in expected.items()}
    python = next(log for log in logs.values() if log["eval"]["task"] == "bfcl_simple_python")
    accuracy = python["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert accuracy == pytest.approx(2 / 3)


def test_inspect_needs_a_folder(sample_run: Path) -> None:
    result = cli("export", "--format", "inspect", str(sample_run / "score"))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("fcbench: error:") and "-o DIR" in line


def test_a_category_that_cannot_be_read_case_by_case_is_said(
    scored: Scored, tmp_path: Path
) -> None:
    """The hand-made fixture's score files list no failure although their counts say some:
    no verdict can be given per case, so each category is left out with a warning and,
    nothing left, the export is one error line."""
    result = cli("export", "--format", "inspect", str(scored.score_dir), "-o",
                 str(tmp_path / "inspect"))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "can be read case by case" in line and "failed cases" in line


def test_odd_answer_text_survives_both_formats(sample_run: Path, tmp_path: Path) -> None:
    """A model's answer with a lone surrogate, a NUL, non-BMP characters and a quote: both
    formats still write JSON that reads back to the same text (no traceback, no lost case)."""
    import shutil

    root = tmp_path / "run"
    shutil.copytree(sample_run, root)
    odd = 'say "\ud800" \x00 \U0001f600 ünï'
    file = next((root / "result").rglob("BFCL_v4_irrelevance_result.json"))
    lines = file.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["result"] = odd
    file.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    _, _, samples = eee_files(root, tmp_path / "eee")
    (sample,) = (s for s in samples if s["sample_id"] == first["id"])
    assert sample["output"]["raw"] == [odd]
    logs = inspect_logs(root, tmp_path / "inspect")
    answers = {s["id"]: s["output"]["completion"] for log in logs.values()
               for s in log["samples"]}
    assert answers[first["id"]] == odd


REPEAT_VERDICTS = {1: {"simple_python_1": True}, 2: {"simple_python_1": False}}
"""What `repeated_run` changed: simple_python_1 right in repeat 1, wrong in repeat 2."""


def repeat_verdicts(root: Path, index: int) -> dict[str, bool]:
    """A repeat's verdicts from its own score and result files (plain JSON lines)."""
    found: dict[str, bool] = {}
    for category in CATEGORIES:
        folder = f"{FOLDER}.repeat-{index}"
        result = next((root / "result" / folder).rglob(f"BFCL_v4_{category}_result.json"))
        score = next((root / "score" / folder).rglob(f"BFCL_v4_{category}_score.json"))
        failed = {json.loads(line)["id"] for line in score.read_text().splitlines()[1:]}
        for line in result.read_text(encoding="utf-8").splitlines():
            found[json.loads(line)["id"]] = json.loads(line)["id"] not in failed
    return found


def test_a_repeated_run_is_one_evaluation_per_repeat(repeated_run: Path, tmp_path: Path) -> None:
    """every_eval_ever counts runs: `--model F` of a `--repeats` run writes a log and its
    samples per repeat folder, each valid and linked, the repeat named in its id."""
    result = cli("export", "--format", "every-eval-ever", str(repeated_run / "score"),
                 "--result-dir", str(repeated_run / "result"), "--model-info",
                 str(repeated_run / "info.json"), "--model", FOLDER, "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    logs = [json.loads(p.read_text()) for p in tmp_path.rglob("*.json")]
    assert sorted(log["model_info"]["additional_details"]["repeat"] for log in logs) == [
        "1", "2"]
    for log in logs:
        index = int(log["model_info"]["additional_details"]["repeat"])
        assert f"/repeat-{index}/" in log["evaluation_id"]
        assert errors(validator("eval.schema.json"), log) == []
        samples = [json.loads(line) for line in (tmp_path / log["detailed_evaluation_results"][
            "file_path"]).read_text().splitlines()]
        assert {s["evaluation_id"] for s in samples} == {log["evaluation_id"]}
        verdict = {s["sample_id"]: s["evaluation"]["is_correct"] for s in samples}
        assert verdict == repeat_verdicts(repeated_run, index)
        assert verdict["simple_python_1"] is REPEAT_VERDICTS[index]["simple_python_1"]


def test_a_repeated_run_is_one_inspect_log_per_category_with_an_epoch_per_repeat(
    repeated_run: Path, tmp_path: Path
) -> None:
    logs = inspect_logs(repeated_run, tmp_path / "inspect")
    assert len(logs) == len(CATEGORIES)
    assert {p.parent.name for p in (tmp_path / "inspect").rglob("*.json")} == {FOLDER}
    expected = {(i, epoch): ok for epoch in (1, 2)
                for i, ok in repeat_verdicts(repeated_run, epoch).items()}
    found = {(s["id"], s["epoch"]): s["scores"]["bfcl_checker"]["value"] == "C"
             for log in logs.values() for s in log["samples"]}
    assert found == expected
    assert found[("simple_python_1", 1)] and not found[("simple_python_1", 2)]
    python = next(log for log in logs.values() if log["eval"]["task"] == "bfcl_simple_python")
    assert python["eval"]["config"]["epochs"] == 2
    assert python["eval"]["dataset"]["sample_ids"] == [
        "simple_python_0", "simple_python_1", "simple_python_2"]
    accuracy = python["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert accuracy == pytest.approx(3 / 6)  # 2 of 3 right, then 1 of 3


@pytest.mark.parametrize(("folder", "expected"), [
    ("m-FC.repeat-1", ("m-FC", 1)), ("m-FC.repeat-12", ("m-FC", 12)),
    ("a.repeat-1.repeat-2", ("a.repeat-1", 2)), ("m-FC.repeat-01", None),
    ("m-FC.repeat-0", None), ("m-FC.repeat-", None), (".repeat-2", None),
    ("m-FC.repeat-\u00b2", None), ("m-FC.repeat-\u0663", None), ("m-FC", None),
])
def test_repeat_folders_are_told_by_the_repeats_layout_rule(
    folder: str, expected: tuple[str, int] | None
) -> None:
    from fcbench.layout import repeat_of

    assert repeat_of(folder) == expected


def test_an_unwritable_folder_is_one_line(sample_run: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("export", "--format", "inspect", str(sample_run / "score"), "--result-dir",
                 str(sample_run / "result"), "-o", str(blocker / "logs"))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("fcbench: error:") and "cannot write" in line
