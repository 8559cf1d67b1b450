"""Reading result files in today's and the older official layouts."""

from __future__ import annotations

import json
from pathlib import Path

from fcbench.results.read import (
    ResultFile,
    find_model_dirs,
    find_result_files,
    read_result_file,
    result_file_category,
)


def test_file_names_of_every_layout() -> None:
    assert result_file_category(Path("BFCL_v4_live_simple_result.json")) == (
        "live_simple",
        "live_simple",
    )
    assert result_file_category(Path("BFCL_v3_simple_result.json")) == ("simple_python", "simple")
    assert result_file_category(Path("gorilla_openfunctions_v1_test_relevance_result.json")) == (
        "irrelevance",
        "relevance",
    )
    assert result_file_category(Path("BFCL_v3_executable_parallel_function_result.json")) == (
        "exec_parallel",
        "executable_parallel_function",
    )
    assert result_file_category(Path("BFCL_v4_unknown_thing_result.json")) is None
    assert result_file_category(Path("notes.json")) is None


def test_old_ids_are_renamed_and_integer_ids_supported(tmp_path: Path) -> None:
    model = tmp_path / "old-model"
    model.mkdir()
    (model / "BFCL_v3_java_result.json").write_text(
        json.dumps({"id": "java_3", "result": "x"}) + "\n"
    )
    (model / "gorilla_openfunctions_v1_test_simple_result.json").write_text(
        json.dumps({"idx": 7, "result": "y"}) + "\n"
    )
    files = {f.category: f for f in find_result_files(model)}
    assert set(files) == {"simple_java", "simple_python"}
    assert list(read_result_file(files["simple_java"]).entries) == ["simple_java_3"]
    assert list(read_result_file(files["simple_python"]).entries) == ["simple_python_7"]


def test_model_folders_and_a_single_model_folder(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "live").mkdir(parents=True)
        (tmp_path / name / "live" / "BFCL_v4_live_simple_result.json").write_text("")
    (tmp_path / "empty").mkdir()
    assert list(find_model_dirs(tmp_path)) == ["a", "b"]
    single = tmp_path / "solo"
    single.mkdir()
    (single / "BFCL_v4_multiple_result.json").write_text("")
    assert list(find_model_dirs(single)) == ["solo"]


def write_lines(path: Path, lines: list[str]) -> ResultFile:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = result_file_category(path)
    assert found is not None
    return ResultFile(path, *found)


def test_every_kind_of_bad_line_is_a_numbered_problem(tmp_path: Path) -> None:
    good = [json.dumps({"id": f"simple_python_{i}", "result": str(i)}) for i in range(3)]
    file = write_lines(tmp_path / "BFCL_v4_simple_python_result.json", [
        good[0],
        "",
        "{broken",
        good[1],
        json.dumps({"id": "simple_python_0", "result": "again"}),
        json.dumps([1, 2]),
        json.dumps({"id": None, "result": "x"}),
        "   ",
        json.dumps({"id": "simple_python_9"}),
        good[2],
    ])
    found = read_result_file(file)
    assert list(found.entries) == ["simple_python_0", "simple_python_1", "simple_python_2"]
    assert found.entries["simple_python_0"]["result"] == "0"
    assert [problem.split(": ", 1)[0].rsplit(":", 1)[1] for problem in found.problems] == [
        "3", "5", "6", "7", "9"
    ]
    assert "duplicate id 'simple_python_0'" in found.problems[1]


def test_blank_lines_keep_the_line_numbers_of_the_others(tmp_path: Path) -> None:
    """No damaged line, so the whole file is parsed at once; numbers still count blanks."""
    file = write_lines(tmp_path / "BFCL_v4_simple_python_result.json", [
        "",
        json.dumps({"id": "simple_python_0", "result": "a"}),
        "",
        json.dumps({"id": "simple_python_0", "result": "b"}),
        json.dumps({"result": "no id"}),
    ])
    found = read_result_file(file)
    assert found.entries == {"simple_python_0": {"id": "simple_python_0", "result": "a"}}
    assert [problem.split(": ", 1)[0].rsplit(":", 1)[1] for problem in found.problems] == [
        "4", "5"
    ]


def test_old_layout_duplicates_are_found_after_renaming(tmp_path: Path) -> None:
    file = write_lines(tmp_path / "BFCL_v3_simple_result.json", [
        json.dumps({"id": "simple_0", "result": "a"}),
        json.dumps({"idx": 0, "result": "b"}),
        json.dumps({"idx": 1, "result": "c"}),
    ])
    found = read_result_file(file)
    assert list(found.entries) == ["simple_python_0", "simple_python_1"]
    assert found.entries["simple_python_0"]["result"] == "a"
    assert len(found.problems) == 1 and "duplicate id 'simple_python_0'" in found.problems[0]


def test_lines_break_only_where_the_official_reader_breaks_them(tmp_path: Path) -> None:
    """U+2028, U+0085 and form feeds are text inside a JSON string, not line breaks."""
    odd = "a\u2028b\u0085c\x0cd"
    file = write_lines(tmp_path / "BFCL_v4_simple_python_result.json", [
        json.dumps({"id": "simple_python_0", "result": odd}, ensure_ascii=False),
        json.dumps({"id": "simple_python_1", "result": "x"}) + "\r",
    ])
    found = read_result_file(file)
    assert found.problems == []
    assert found.entries["simple_python_0"]["result"] == odd
    assert list(found.entries) == ["simple_python_0", "simple_python_1"]


def test_values_spread_over_lines_are_damage_even_if_the_counts_add_up(tmp_path: Path) -> None:
    """Three lines that hold three values only when read as one text: each line is damaged."""
    file = write_lines(tmp_path / "BFCL_v4_simple_python_result.json", [
        '{"id": "simple_python_0", "result": [{"x": 1}',
        '{"y": 2}]}',
        '{"id": "simple_python_1", "result": "a"}, {"id": "simple_python_2", "result": "b"}',
    ])
    found = read_result_file(file)
    assert found.entries == {}
    assert len(found.problems) == 3 and all("malformed JSON" in p for p in found.problems)


def test_a_model_folder_with_group_folders_or_a_manifest_is_one_model(tmp_path: Path) -> None:
    model = tmp_path / "m-FC"
    (model / "non_live").mkdir(parents=True)
    (model / "non_live" / "BFCL_v4_simple_python_result.json").write_text("")
    assert find_model_dirs(model) == {"m-FC": model}
    bare = tmp_path / "fresh"  # a manifest but no results yet: still one model, not none
    bare.mkdir()
    (bare / "model.json").write_text("{}")
    (bare / "notes").mkdir()
    assert find_model_dirs(bare) == {"fresh": bare}
    assert list(find_model_dirs(tmp_path)) == ["m-FC"]


def test_integers_past_pythons_limit_are_read_and_a_runaway_one_is_a_problem(
    tmp_path: Path,
) -> None:
    """A 5,000-digit integer in any field is read (Python's default stops at 4,300 digits:
    the whole evaluation used to stop); one past `MAX_INT_DIGITS` costs its line, as damage
    does, and the rest of the file is read."""
    from fcbench._json import MAX_INT_DIGITS, int_digits

    digits = "1" * 5000
    lines = [
        '{"id": "simple_python_0", "result": "[f()]", "latency": ' + digits + "}",
        '{"id": "simple_python_1", "result": [{"f": {"a": -' + digits + "}}]}",
        '{"id": "simple_python_2", "result": "[f()]", "x": ' + "9" * (MAX_INT_DIGITS + 1) + "}",
        json.dumps({"id": "simple_python_3", "result": "[f()]", "latency": 1.5}),
    ]
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = read_result_file(ResultFile(path, "simple_python", "simple_python"))
    with int_digits():
        big = int(digits)
    assert list(found.entries) == ["simple_python_0", "simple_python_1", "simple_python_3"]
    assert found.entries["simple_python_0"]["latency"] == big
    assert found.entries["simple_python_1"]["result"] == [{"f": {"a": -big}}]
    assert found.problems == [
        f"{path}:3: JSON line holds an integer of more than {MAX_INT_DIGITS:,} digits; skipped"
    ]
