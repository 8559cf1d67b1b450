"""`fcbench data validate`: deliberately broken copies of official files, each defect found
at its file, line and case id; the official release itself checked end to end."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli.data import data
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.validate.findings import Report
from fcbench.validate.official import validate
from release_copies import V3_NAMES

SMALL = {
    "simple_python": 12,
    "multiple": 8,
    "simple_java": 6,
    "live_multiple": 8,
    "multi_turn_base": 4,
    "multi_turn_miss_func": 4,
}
"""Categories of the small copies, and how many clean cases of each they hold."""

Entry = dict[str, Any]


@pytest.fixture(scope="module")
def official(fetched_home: Path) -> Report:
    return validate()


@pytest.fixture(scope="module")
def clean_ids(official: Report) -> set[str]:
    """Ids of cases the official validation finds no error in (the small copies use them)."""
    flawed = {f.place.case_id for f in official.errors}
    data = _release_data()
    ids: set[str] = set()
    for name, count in SMALL.items():
        entries = _lines(data / f"BFCL_v4_{name}.json")
        ids.update([e["id"] for e in entries if e["id"] not in flawed][:count])
    return ids


def _release_data() -> Path:
    from fcbench.dataset.fetch import release_dir

    return release_dir(DEFAULT_RELEASE) / "data"


def _lines(path: Path) -> list[Entry]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, entries: list[Entry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


@pytest.fixture
def small(clean_ids: set[str], tmp_path: Path) -> Path:
    """A folder laid out like data/ with a few clean cases of each SMALL category."""
    data, target = _release_data(), tmp_path / "data"
    for name in SMALL:
        for rel in (f"BFCL_v4_{name}.json", f"possible_answer/BFCL_v4_{name}.json"):
            _write(target / rel, [e for e in _lines(data / rel) if e["id"] in clean_ids])
    for doc in (data / "multi_turn_func_doc").iterdir():
        if not doc.name.startswith(("memory_", "web_search")):
            (target / "multi_turn_func_doc").mkdir(exist_ok=True)
            (target / "multi_turn_func_doc" / doc.name).write_bytes(doc.read_bytes())
    return target


def _edit(root: Path, rel: str, index: int, change: Callable[[Entry], Any]) -> tuple[int, str]:
    """Apply `change` to the entry on line `index + 1`; returns (line number, its id)."""
    entries = _lines(root / rel)
    case_id = entries[index]["id"]
    change(entries[index])
    _write(root / rel, entries)
    return index + 1, case_id


def _new_errors(root: Path) -> set[tuple[str, str, int | None, str | None]]:
    """(kind, file, line, id) of every error in the folder."""
    found = validate(None, root).errors
    return {(f.kind, f.place.file, f.place.line, f.place.case_id) for f in found}


def _answer(entry: Entry) -> dict[str, Any]:
    """The parameters of the first expected call of a single-turn answer."""
    params: dict[str, Any] = next(iter(entry["ground_truth"][0].values()))
    return params


# --------------------------------------------------------------------------- clean copy


def test_the_small_copy_is_clean(small: Path) -> None:
    report = validate(None, small)
    assert report.errors == []
    assert report.cases == sum(SMALL.values())
    result = CliRunner().invoke(data, ["validate", str(small)])
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- file and line level


SIMPLE_Q = "BFCL_v4_simple_python.json"
SIMPLE_A = "possible_answer/BFCL_v4_simple_python.json"


def test_a_line_that_is_not_json(small: Path) -> None:
    lines = (small / SIMPLE_Q).read_text().splitlines()
    lines[2] = lines[2][:40]
    (small / SIMPLE_Q).write_text("\n".join(lines) + "\n")
    assert _new_errors(small) == {("json", SIMPLE_Q, 3, None)}


def test_a_repeated_id(small: Path) -> None:
    first = _lines(small / SIMPLE_Q)[1]["id"]
    line, _ = _edit(small, SIMPLE_Q, 4, lambda e: e.update(id=first))
    assert _new_errors(small) == {("duplicate-id", SIMPLE_Q, line, first)}


def test_a_missing_answer_line(small: Path) -> None:
    answers = _lines(small / SIMPLE_A)
    gone = answers.pop(6)
    _write(small / SIMPLE_A, answers)
    line = [e["id"] for e in _lines(small / SIMPLE_Q)].index(gone["id"]) + 1
    assert _new_errors(small) == {("missing-answer", SIMPLE_Q, line, gone["id"])}


def test_a_missing_answer_file(small: Path) -> None:
    (small / SIMPLE_A).unlink()
    assert _new_errors(small) == {("missing-file", SIMPLE_A, None, None)}


def test_a_question_that_is_not_a_list_of_turns(small: Path) -> None:
    line, case_id = _edit(small, SIMPLE_Q, 3, lambda e: e.update(question="hello"))
    assert _new_errors(small) == {("schema", SIMPLE_Q, line, case_id)}


# --------------------------------------------------------------------------- docs and answers


def test_an_answer_calling_an_undocumented_function(small: Path) -> None:
    def rename(entry: Entry) -> None:
        entry["ground_truth"] = [{"no_such_function": _answer(entry)}]

    line, case_id = _edit(small, SIMPLE_A, 2, rename)
    assert _new_errors(small) == {("unknown-function", SIMPLE_A, line, case_id)}


def test_an_answer_giving_an_undocumented_parameter(small: Path) -> None:
    line, case_id = _edit(small, SIMPLE_A, 5, lambda e: _answer(e).update(bogus=[1]))
    assert _new_errors(small) == {("unknown-param", SIMPLE_A, line, case_id)}


Pick = Callable[[Entry, Entry], "str | None"]


def _first_with(root: Path, name: str, wanted: Pick) -> tuple[int, str]:
    """(answer line index, parameter) of the first case `wanted(question, answer)` picks."""
    questions = {q["id"]: q for q in _lines(root / f"BFCL_v4_{name}.json")}
    answers = _lines(root / f"possible_answer/BFCL_v4_{name}.json")
    for index, answer in enumerate(answers):
        param = wanted(questions[answer["id"]], answer)
        if param is not None:
            return index, param
    raise AssertionError(f"no suitable case in {name}")


def _params(question: Entry) -> dict[str, Any]:
    props: dict[str, Any] = question["function"][0]["parameters"]["properties"]
    return props


def test_a_required_parameter_missing_from_the_answer(small: Path) -> None:
    def required(question: Entry, answer: Entry) -> str | None:
        names = question["function"][0]["parameters"]["required"]
        return names[0] if names else None

    index, param = _first_with(small, "simple_python", required)
    line, case_id = _edit(small, SIMPLE_A, index, lambda e: _answer(e).pop(param))
    assert _new_errors(small) == {("missing-required", SIMPLE_A, line, case_id)}


def _integer(question: Entry, answer: Entry) -> str | None:
    """An integer parameter the answer gives."""
    found = [p for p, d in _params(question).items()
             if d["type"] == "integer" and p in _answer(answer)]
    return found[0] if found else None


def test_a_value_whose_type_contradicts_the_doc(small: Path) -> None:
    index, param = _first_with(small, "simple_python", _integer)
    line, case_id = _edit(small, SIMPLE_A, index, lambda e: _answer(e).update({param: [[1, 2]]}))
    assert _new_errors(small) == {("type-mismatch", SIMPLE_A, line, case_id)}


def test_a_string_literal_for_a_number_beside_an_omission_is_only_a_warning(small: Path) -> None:
    index, param = _first_with(small, "simple_python", _integer)
    _, case_id = _edit(small, SIMPLE_A, index, lambda e: _answer(e).update({param: ["", "5"]}))
    report = validate(None, small)
    assert report.errors == []
    assert [(f.kind, f.place.case_id) for f in report.warnings if f.kind == "string-literal"] == [
        ("string-literal", case_id)
    ]


def test_an_enum_violation(small: Path) -> None:
    def string(question: Entry, answer: Entry) -> str | None:
        given = _answer(answer)
        found = [p for p, d in _params(question).items()
                 if d["type"] == "string" and "enum" not in d and "" not in given.get(p, [""])]
        return found[0] if found else None

    index, param = _first_with(small, "simple_python", string)
    questions = _lines(small / SIMPLE_Q)
    case_id = _lines(small / SIMPLE_A)[index]["id"]
    q_index = [q["id"] for q in questions].index(case_id)
    _edit(small, SIMPLE_Q, q_index, lambda e: _params(e)[param].update(enum=["aa", "bb"]))
    assert _new_errors(small) == {("enum-violation", SIMPLE_A, index + 1, case_id)}


def test_an_acceptable_value_list_that_is_empty(small: Path) -> None:
    def given(question: Entry, answer: Entry) -> str | None:
        return next(iter(_answer(answer)), None)

    index, param = _first_with(small, "simple_python", given)
    line, case_id = _edit(small, SIMPLE_A, index, lambda e: _answer(e).update({param: []}))
    assert _new_errors(small) == {("no-acceptable-value", SIMPLE_A, line, case_id)}


def test_a_doc_type_unknown_to_the_type_table(small: Path) -> None:
    rel = "BFCL_v4_simple_java.json"

    def retype(entry: Entry) -> None:
        next(iter(_params(entry).values()))["type"] = "integr"

    line, case_id = _edit(small, rel, 1, retype)
    assert _new_errors(small) == {("unknown-type", rel, line, case_id)}


def test_an_array_without_items(small: Path) -> None:
    for name in SMALL:
        rel = f"BFCL_v4_{name}.json"
        for index, question in enumerate(_lines(small / rel)):
            for d, doc in enumerate(question.get("function", [])):
                for param, prop in doc["parameters"]["properties"].items():
                    if prop["type"] in ("array", "Array", "ArrayList"):
                        def damage(e: Entry, d: int = d, p: str = param) -> None:
                            e["function"][d]["parameters"]["properties"][p].pop("items")

                        line, case_id = _edit(small, rel, index, damage)
                        assert _new_errors(small) == {("missing-items", rel, line, case_id)}
                        return
    raise AssertionError("no array parameter among the small copy's cases")


# --------------------------------------------------------------------------- multi-turn


BASE_Q = "BFCL_v4_multi_turn_base.json"
BASE_A = "possible_answer/BFCL_v4_multi_turn_base.json"


def test_an_initial_config_that_does_not_load(small: Path) -> None:
    def index_of(entries: list[Entry]) -> int:
        return next(i for i, e in enumerate(entries) if "GorillaFileSystem" in e["initial_config"])

    index = index_of(_lines(small / BASE_Q))

    def damage(entry: Entry) -> None:
        entry["initial_config"]["GorillaFileSystem"] = {"root": {"home": {"type": "directory"}}}

    line, case_id = _edit(small, BASE_Q, index, damage)
    found = validate(None, small).errors
    assert {(f.kind, f.place.file, f.place.line, f.place.case_id) for f in found} == {
        ("config-load", BASE_Q, line, case_id)
    }
    assert "GorillaFileSystem" in found[0].message and "KeyError" in found[0].message


def test_an_unknown_class(small: Path) -> None:
    line, case_id = _edit(small, BASE_Q, 1, lambda e: e["involved_classes"].append("NoSuchAPI"))
    assert _new_errors(small) == {("unknown-class", BASE_Q, line, case_id)}


def test_a_ground_truth_call_that_does_not_parse(small: Path) -> None:
    def damage(entry: Entry) -> None:
        turn = next(t for t in entry["ground_truth"] if t)
        turn[0] = turn[0][:-1]  # drop the closing parenthesis

    line, case_id = _edit(small, BASE_A, 2, damage)
    assert _new_errors(small) == {("call-syntax", BASE_A, line, case_id)}


def test_a_ground_truth_with_a_turn_too_few(small: Path) -> None:
    line, case_id = _edit(small, BASE_A, 0, lambda e: e["ground_truth"].pop())
    assert _new_errors(small) == {("turn-count", BASE_A, line, case_id)}


def test_a_held_out_function_called_before_its_release(small: Path) -> None:
    rel_q = "BFCL_v4_multi_turn_miss_func.json"
    rel_a = f"possible_answer/{rel_q}"
    question = _lines(small / rel_q)[0]
    ((turn, names),) = question["missed_function"].items()
    held = names[0]
    later = next(c for t in _lines(small / rel_a)[0]["ground_truth"][int(turn):] for c in t
                 if c.startswith(held + "("))
    line, case_id = _edit(small, rel_a, 0, lambda e: e["ground_truth"][0].append(later))
    assert _new_errors(small) == {("held-out-function", rel_a, line, case_id)}


# --------------------------------------------------------------------------- the command


def test_the_command_reports_each_finding_and_exits_1(small: Path) -> None:
    line, case_id = _edit(small, SIMPLE_A, 5, lambda e: _answer(e).update(bogus=[1]))
    result = CliRunner().invoke(data, ["validate", str(small)])
    assert result.exit_code == 1
    assert f"error: {SIMPLE_A}:{line}: {case_id}: [unknown-param]" in result.stdout
    assert "1 error(s)" in result.stderr
    as_json = CliRunner().invoke(data, ["validate", str(small), "--json"])
    payload = json.loads(as_json.stdout)
    assert as_json.exit_code == 1 and payload["errors"] == 1
    assert payload["findings"][0] | {"message": ""} == {
        "severity": "error", "kind": "unknown-param", "file": SIMPLE_A, "line": line,
        "id": case_id, "message": "",
    }


def test_bad_arguments_are_one_line_errors(home: Path, tmp_path: Path) -> None:
    both = CliRunner().invoke(data, ["validate", str(tmp_path), "--release", DEFAULT_RELEASE])
    assert both.exit_code == 2
    absent = CliRunner().invoke(data, ["validate", "--release", "1999.1.1"])
    assert absent.exit_code == 1 and absent.output.startswith("Error: ")
    assert absent.output.count("\n") == 1
    assert "fcbench data fetch --release 1999.1.1" in absent.output


# --------------------------------------------------------------------------- the official data


def test_the_official_release_finishes_fast_and_names_real_places(home: Path) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(data, ["validate", "--summary"])
    elapsed = time.perf_counter() - started
    assert elapsed < 20, f"validation took {elapsed:.1f} s"
    assert result.exit_code == 1  # the official data has errors (docs/dataset-findings.md)
    assert f"bfcl-eval {DEFAULT_RELEASE}: 64 file(s)" in result.stdout
    report = validate()
    data_dir = _release_data()
    for finding in report.findings:
        path = data_dir / finding.place.file
        assert path.is_file(), finding.format()
        if finding.place.line is not None and finding.place.case_id is not None:
            line = path.read_text(encoding="utf-8").splitlines()[finding.place.line - 1]
            assert json.loads(line).get("id") == finding.place.case_id, finding.format()


def test_the_official_release_defects_the_spec_names_are_found(official: Report) -> None:
    """§2.2 of the spec lists unpassable entries; validation must find each of them."""
    errors = {(f.kind, f.place.case_id) for f in official.errors}
    assert ("no-acceptable-value", "live_simple_106-63-0") in errors
    assert ("no-acceptable-value", "live_simple_112-68-0") in errors
    assert ("schema", "simple_java_64") in errors


def test_an_older_layout_gives_the_same_findings(official: Report, v3_data: Path) -> None:
    """The v3 copy holds the same cases under 2024 names: the same defects, renamed."""
    older = validate(None, v3_data)
    assert older.naming == "BFCL_v3"

    def key(finding: Any, renamed: dict[str, str]) -> tuple[str, str, str | None, str]:
        case_id = finding.place.case_id or ""
        for new, old in renamed.items():
            if case_id.startswith(old + "_"):
                case_id = new + case_id[len(old):]
        return (finding.severity, finding.kind, finding.place.line, case_id)

    agentic = ("web_search", "memory", "format_sensitivity")
    today = sorted(key(f, {}) for f in official.findings
                   if not any(a in f.place.file for a in agentic))
    assert sorted(key(f, V3_NAMES) for f in older.findings) == today


def test_every_case_the_ground_truth_fails_is_found(official: Report, tmp_path: Path) -> None:
    """The ground-truth self-check answers each case with its first acceptable values and
    lists the cases that still fail: validation, which never asks a model, must have found
    each of them (as an error, or as a warning when the first acceptable value is dead but
    an omission passes; it may find more)."""
    from fcbench.cli import main

    result = CliRunner().invoke(main, [
        "run", "--model", "ground-truth", "--categories", "single_turn",
        "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
    ])
    assert result.exit_code == 0, result.output
    listed = result.output.split("Self-check", 1)[1].splitlines()[1:]
    failing = {line.split()[1] for line in listed if line.startswith("  ")}
    assert failing, "the self-check listed no failing case"
    flagged = {f.place.case_id for f in official.findings if f.kind != "null-value"}
    assert failing <= flagged, f"not found by validate: {sorted(failing - flagged)}"
