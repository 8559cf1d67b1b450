"""`fcbench data diff`: the shared wheel's data against a hand-modified copy lists exactly the
cases changed, with the parts that changed; a release against its own older-layout copy
lists none."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli.data import data
from fcbench.core import categories
from fcbench.dataset.diff import DatasetDiff, DataSpec, diff_datasets
from fcbench.dataset.fetch import DEFAULT_RELEASE, release_dir

Entry = dict[str, Any]
Expected = dict[str, dict[str, tuple[str, ...]]]
"""category -> changed id -> changed parts."""


def _edit_line(path: Path, case_id: str | None, change: Callable[[Entry], Any]) -> Entry:
    """Change the entry with that id (None: the first) in a JSON-lines file; returns it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        entry = json.loads(line)
        if case_id is None or entry.get("id") == case_id:
            change(entry)
            lines[index] = json.dumps(entry, ensure_ascii=False)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return entry
    raise AssertionError(f"{case_id} not in {path}")


def _drop_line(path: Path, case_id: str) -> None:
    kept = [line for line in path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["id"] != case_id]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")


def _append(path: Path, entry: Entry) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\n" + json.dumps(entry) + "\n", encoding="utf-8")


def _tickets(copy: Path) -> dict[str, list[str]]:
    """Multi-turn category -> ids of its cases that involve TicketAPI (computed from files)."""
    found: dict[str, list[str]] = {}
    for cat in categories.CATEGORIES:
        if cat.checker is categories.Checker.MULTI_TURN:
            rel = ("unused_datasets/question/" if cat.retired else "") + f"BFCL_v4_{cat.name}.json"
            entries = [json.loads(line) for line in (copy / rel).read_text().splitlines()]
            found[cat.name] = [e["id"] for e in entries if "TicketAPI" in e["involved_classes"]]
    return found


@pytest.fixture(scope="module")
def modified(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Expected]:
    """A copy of the release's data with hand-made changes, and the changes expected."""
    copy = tmp_path_factory.mktemp("modified") / "data"
    shutil.copytree(fetched_home / "releases" / DEFAULT_RELEASE / "data", copy)
    expected: Expected = {}

    def changed(category: str, case_id: str, *parts: str) -> None:
        old = expected.setdefault(category, {}).get(case_id, ())
        expected[category][case_id] = tuple(sorted({*old, *parts}))

    def ask_again(entry: Entry) -> None:
        entry["question"][0][-1]["content"] += " Please."

    _edit_line(copy / "BFCL_v4_simple_python.json", "simple_python_5", ask_again)
    changed("simple_python", "simple_python_5", "question")

    def another_answer(entry: Entry) -> None:
        params = next(iter(entry["ground_truth"][0].values()))
        next(iter(params.values())).append("another acceptable value")

    _edit_line(copy / "possible_answer/BFCL_v4_multiple.json", "multiple_3", another_answer)
    changed("multiple", "multiple_3", "answer")

    for rel in ("BFCL_v4_parallel.json", "possible_answer/BFCL_v4_parallel.json"):
        _drop_line(copy / rel, "parallel_7")
    new_case = json.loads((copy / "BFCL_v4_irrelevance.json").read_text().splitlines()[0])
    _append(copy / "BFCL_v4_irrelevance.json", new_case | {"id": "irrelevance_9999"})

    def redocument(entry: Entry) -> None:
        entry["function"][0]["description"] += " (revised)"

    live = _edit_line(copy / "BFCL_v4_live_simple.json", None, redocument)
    changed("live_simple", live["id"], "functions")

    _edit_line(copy / "BFCL_v4_live_multiple.json", "live_multiple_10-4-2", ask_again)
    _edit_line(copy / "possible_answer/BFCL_v4_live_multiple.json", "live_multiple_10-4-2",
               another_answer)
    changed("live_multiple", "live_multiple_10-4-2", "question", "answer")

    def reconfigure(entry: Entry) -> None:
        cls = entry["involved_classes"][0]
        entry["initial_config"].setdefault(cls, {})["extra"] = 1

    _edit_line(copy / "BFCL_v4_multi_turn_base.json", "multi_turn_base_2", reconfigure)
    changed("multi_turn_base", "multi_turn_base_2", "initial_config")

    doc_file = copy / "multi_turn_func_doc/ticket_api.json"
    _edit_line(doc_file, None, lambda d: d.update(description=d["description"] + " (revised)"))
    for category, ids in _tickets(copy).items():
        for case_id in ids:
            changed(category, case_id, "functions")
    return copy, expected


def _as_expected(found: DatasetDiff) -> Expected:
    return {c.category: {ch.case_id: tuple(sorted(ch.parts)) for ch in c.changed}
            for c in found.categories if c.changed}


def test_exactly_the_changed_cases_are_listed(modified: tuple[Path, Expected], home: Path) -> None:
    copy, expected = modified
    found = diff_datasets(DataSpec(DEFAULT_RELEASE), DataSpec(DEFAULT_RELEASE, copy))
    assert _as_expected(found) == expected
    by_name = {c.category: c for c in found.categories}
    assert by_name["parallel"].removed == ["parallel_7"]
    assert by_name["irrelevance"].added == ["irrelevance_9999"]
    assert sum(len(c.added) + len(c.removed) for c in found.categories) == 2
    assert len(expected["multi_turn_base"]) > 1  # the doc change reached every TicketAPI case
    totals = found.totals()
    assert totals["unchanged"] + totals["changed"] + totals["removed"] == _case_count()


def _case_count() -> int:
    """Every case of the release (format_sensitivity: its selected ids), counted here."""
    from fcbench.dataset.load import dataset_size, has_category

    count = sum(dataset_size(c) for c in categories.CATEGORIES
                if c.name != "format_sensitivity" and has_category(c))
    selected = json.loads((release_dir() / "data/BFCL_v4_format_sensitivity.json").read_text())
    return count + sum(len(ids) for ids in selected.values())


def test_a_release_against_itself_and_its_older_naming(home: Path, v3_data: Path) -> None:
    unpacked = DataSpec(DEFAULT_RELEASE, release_dir() / "data")
    same = diff_datasets(DataSpec(DEFAULT_RELEASE), unpacked)
    assert same.totals()["changed"] == same.totals()["added"] == same.totals()["removed"] == 0
    older = diff_datasets(DataSpec(DEFAULT_RELEASE), DataSpec(DEFAULT_RELEASE, v3_data))
    assert older.totals()["changed"] == 0 and older.totals()["added"] == 0
    only_today = {c.category for c in older.categories if not c.in_b}
    prerequisites = {f"{name}_prereq" for name in categories.MEMORY}
    assert only_today == {*categories.AGENTIC, *prerequisites, "format_sensitivity"}


def test_the_command(modified: tuple[Path, Expected], home: Path) -> None:
    copy, _ = modified
    result = CliRunner().invoke(data, ["diff", DEFAULT_RELEASE, str(copy), "--categories",
                                       "non_live"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  changed  simple_python_5  question" in lines
    assert "  changed  multiple_3  answer" in lines
    assert "  removed  parallel_7" in lines and "  added    irrelevance_9999" in lines
    assert not any("live_" in line for line in lines)
    assert lines[-1].startswith(f"{DEFAULT_RELEASE} -> {copy}: 2 changed, 1 added, 1 removed")
    # reversed and as JSON, over the same categories (every category: the test above)
    as_json = json.loads(CliRunner().invoke(data, ["diff", str(copy), DEFAULT_RELEASE,
                                                   "--categories", "non_live",
                                                   "--json"]).output)
    assert as_json["totals"]["added"] == 1 and as_json["totals"]["removed"] == 1
    parallel = next(c for c in as_json["categories"] if c["category"] == "parallel")
    assert parallel["added"] == ["parallel_7"]


def test_errors_are_one_line(home: Path, offline_pip: None) -> None:
    unknown = CliRunner().invoke(data, ["diff", DEFAULT_RELEASE, DEFAULT_RELEASE,
                                        "--categories", "nonsense"])
    assert unknown.exit_code == 1 and unknown.output.startswith("Error: unknown category")
    absent = CliRunner().invoke(data, ["diff", DEFAULT_RELEASE, "1999.1.1"])
    assert absent.exit_code == 1
    assert absent.stderr.splitlines()[-1].startswith("Error: could not download")
