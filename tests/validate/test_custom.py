"""`fcbench data validate DIR` on custom datasets: the hand-written ones are clean, broken
copies report each defect at its file, line and case id, and the command exits 1."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.validate.custom import validate_custom

DATA = Path(__file__).resolve().parents[1] / "data"


def copy_of(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def found(folder: Path) -> set[tuple[str, str, str, int | None, str | None]]:
    report = validate_custom(folder)
    return {(f.severity, f.kind, f.place.file, f.place.line, f.place.case_id)
            for f in report.findings}


def edit_line(path: Path, number: int, change: dict[str, object]) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[number - 1])
    entry.update(change)
    lines[number - 1] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_hand_written_datasets_are_clean(fetched_home: Path) -> None:
    for name, cases in (("custom_acme", 14), ("custom_shop", 13)):
        report = validate_custom(DATA / name)
        assert report.findings == [] and report.cases == cases, report.findings
    result = CliRunner().invoke(main, ["data", "validate", str(DATA / "custom_shop")])
    assert result.exit_code == 0 and "0 error(s), 0 warning(s)" in result.output
    # nine JSONL files, the manifest, and the release's docs of the two multi-turn classes
    assert "13 case(s)" in result.output and "12 file(s)" in result.output


def test_broken_jsonl_is_reported_at_its_lines(fetched_home: Path, tmp_path: Path) -> None:
    shop = copy_of(tmp_path, "custom_shop")
    edit_line(shop / "search.jsonl", 1, {"expected": [{"search_products": {
        "query": "shoes", "colour": "red", "max_price": True}}]})
    edit_line(shop / "assistant.jsonl", 2, {"expectd": []})
    edit_line(shop / "parallel.jsonl", 1, {"expected": [{"check_stock": {"sku": "GD-2"}}]})
    edit_line(shop / "multi_turn.jsonl", 1, {"expected": [["cd(folder='invoices')", "rm -rf"]],
                                             "involved_classes": ["GorillaFileSystem"]})
    (shop / "notes.txt").write_text("stray")
    assert found(shop) == {
        ("error", "unknown-param", "search.jsonl", 1, "shop_search_0"),
        ("error", "type-mismatch", "search.jsonl", 1, "shop_search_0"),
        ("error", "simple-format", "assistant.jsonl", 2, "shop_assistant_1"),
        ("error", "missing-required", "parallel.jsonl", 1, "shop_parallel_0"),
        ("error", "turn-count", "multi_turn.jsonl", 1, "shop_multi_turn_0"),
        ("error", "call-syntax", "multi_turn.jsonl", 1, "shop_multi_turn_0"),
        ("warning", "unknown-file", "notes.txt", None, None),
    }
    result = CliRunner().invoke(main, ["data", "validate", str(shop)])
    assert result.exit_code == 1
    assert "error: search.jsonl:1: shop_search_0: [unknown-param]" in result.output


def test_broken_bfcl_files_and_manifest(fetched_home: Path, tmp_path: Path) -> None:
    acme = copy_of(tmp_path, "custom_acme")
    answers = acme / "possible_answer" / "BFCL_v4_acme_exec_parallel.json"
    edit_line(answers, 1, {"execution_result_type": ["exact_match"]})
    edit_line(acme / "possible_answer" / "BFCL_v4_acme_simple.json", 2, {"id": "acme_simple_9"})
    (acme / "BFCL_v4_acme_java.json").unlink()
    spec = json.loads((acme / "fcbench.json").read_text())
    spec["categories"].append({"name": "acme_web", "checker": "agentic", "file": "web.jsonl"})
    spec["categories"].append({"name": "acme_odd", "checker": "astt"})
    (acme / "fcbench.json").write_text(json.dumps(spec))
    (acme / "web.jsonl").write_text("{}\n")
    kinds = {(severity, kind, file, case) for severity, kind, file, _, case in found(acme)}
    assert kinds == {
        ("error", "manifest", "fcbench.json", None),  # agentic refused; checker "astt"
        ("error", "missing-file", "BFCL_v4_acme_java.json", None),
        ("error", "schema", "possible_answer/BFCL_v4_acme_exec_parallel.json",
         "acme_exec_parallel_0"),
        ("warning", "orphan-answer", "possible_answer/BFCL_v4_acme_simple.json",
         "acme_simple_9"),
        ("error", "missing-answer", "BFCL_v4_acme_simple.json", "acme_simple_1"),
        ("warning", "unknown-file", "possible_answer/BFCL_v4_acme_java.json", None),
        ("warning", "unknown-file", "web.jsonl", None),
    }
    result = CliRunner().invoke(main, ["data", "validate", str(acme), "--json"])
    assert result.exit_code == 1 and json.loads(result.output)["errors"] == 5
    messages = [f["message"] for f in json.loads(result.output)["findings"]]
    assert any("agentic categories cannot be custom yet" in m for m in messages)


def test_an_unreadable_manifest(tmp_path: Path) -> None:
    (tmp_path / "fcbench.json").write_text("{")
    report = validate_custom(tmp_path)
    assert [(f.kind, f.place.file) for f in report.errors] == [("manifest", "fcbench.json")]


# --------------------------------------------------------------------------- streaming


def _bfcl_dataset(folder: Path, questions: list[str], answers: list[str]) -> Path:
    """A one-category BFCL-format dataset (`t_simple`) with the given lines."""
    (folder / "possible_answer").mkdir(parents=True)
    (folder / "fcbench.json").write_text(json.dumps(
        {"name": "t", "categories": [{"name": "t_simple", "checker": "ast_simple"}]}))
    (folder / "BFCL_v4_t_simple.json").write_text("\n".join(questions) + "\n")
    (folder / "possible_answer" / "BFCL_v4_t_simple.json").write_text("\n".join(answers) + "\n")
    return folder


def _question(n: int, **change: object) -> str:
    doc = {"name": "f", "description": "d", "parameters": {
        "type": "dict", "properties": {"x": {"type": "integer", "description": "x"}},
        "required": ["x"]}}
    entry = {"id": f"t_simple_{n}", "question": [[{"role": "user", "content": "?"}]],
             "function": [doc], **change}
    return json.dumps(entry)


def _answer(n: int | str, param: str = "x") -> str:
    case_id = n if isinstance(n, str) else f"t_simple_{n}"
    return json.dumps({"id": case_id, "ground_truth": [{"f": {param: [n]}}]})


def test_findings_keep_their_order_when_questions_and_answers_are_read_together(
    tmp_path: Path,
) -> None:
    """Questions and answers are read a line of each in turn, yet the findings come as if
    every question were read first: an answer before its case (checked when the case
    comes), a broken line, an orphan, a duplicate, then the unanswered cases; a question
    defect read after them still comes first."""
    questions = [_question(0), _question(1), _question(2), _question(3, question="?")]
    answers = [_answer(2, "y"), _answer(0, "z"), "{broken", _answer("t_simple_9"), _answer(0)]
    report = validate_custom(_bfcl_dataset(tmp_path / "t", questions, answers))
    answer_file = "possible_answer/BFCL_v4_t_simple.json"
    assert [(f.kind, f.place.file, f.place.line, f.place.case_id)
            for f in report.findings] == [
        ("schema", "BFCL_v4_t_simple.json", 4, "t_simple_3"),
        ("missing-required", answer_file, 1, "t_simple_2"),
        ("unknown-param", answer_file, 1, "t_simple_2"),
        ("missing-required", answer_file, 2, "t_simple_0"),
        ("unknown-param", answer_file, 2, "t_simple_0"),
        ("json", answer_file, 3, None),
        ("orphan-answer", answer_file, 4, "t_simple_9"),
        ("duplicate-id", answer_file, 5, "t_simple_0"),
        ("missing-answer", "BFCL_v4_t_simple.json", 2, "t_simple_1"),
        ("missing-answer", "BFCL_v4_t_simple.json", 4, "t_simple_3"),
    ]
    assert report.cases == 4


def test_aligned_files_are_read_in_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A case is held only until its answer comes: with line-aligned files the answer file
    is never more than a line behind the question file (a million cases, bounded memory)."""
    from fcbench.dataset import custom

    count = 40
    folder = _bfcl_dataset(tmp_path / "t", [_question(n) for n in range(count)],
                           [_answer(n) for n in range(count)])
    read: dict[str, int] = {"question": 0, "answer": 0}
    lag: list[int] = []
    plain = custom.CustomSource.stream

    def counted(self: custom.CustomSource, relpath: str) -> Iterator[str]:
        side = "answer" if relpath.startswith("possible_answer/") else "question"
        for line in plain(self, relpath):
            read[side] += 1
            if side == "answer":
                lag.append(read["question"] - read["answer"])
            yield line

    monkeypatch.setattr(custom.CustomSource, "stream", counted)
    report = validate_custom(folder)
    assert report.findings == [] and report.cases == count
    assert len(lag) == count + 1 and max(lag) <= 1, lag
