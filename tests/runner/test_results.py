"""Reading result files in today's and the older official layouts."""

from __future__ import annotations

import json
from pathlib import Path

from fcbench.runner.results import (
    category_of_file,
    find_model_dirs,
    find_result_files,
    read_result_file,
)


def test_file_names_of_every_layout() -> None:
    assert category_of_file(Path("BFCL_v4_live_simple_result.json")) == (
        "live_simple",
        "live_simple",
    )
    assert category_of_file(Path("BFCL_v3_simple_result.json")) == ("simple_python", "simple")
    assert category_of_file(Path("gorilla_openfunctions_v1_test_relevance_result.json")) == (
        "irrelevance",
        "relevance",
    )
    assert category_of_file(Path("BFCL_v3_executable_parallel_function_result.json")) == (
        "exec_parallel",
        "executable_parallel_function",
    )
    assert category_of_file(Path("BFCL_v4_unknown_thing_result.json")) is None
    assert category_of_file(Path("notes.json")) is None


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
