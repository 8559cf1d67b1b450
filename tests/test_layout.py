"""File and folder names: the official layout (spec §8.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcbench.layout import (
    category_dir,
    category_of_file,
    memory_snapshot_dir,
    result_path,
    run_folder_name,
)
from fcbench.layout import score_path as score_file_path


@pytest.mark.parametrize(
    ("category", "folder"),
    [
        ("simple_python", "non_live"),
        ("irrelevance", "non_live"),
        ("live_relevance", "live"),
        ("multi_turn_miss_param", "multi_turn"),
        ("web_search_no_snippet", "agentic"),
        ("memory_kv", "agentic/memory/kv"),
        ("memory_vector", "agentic/memory/vector"),
        ("memory_rec_sum", "agentic/memory/rec_sum"),
        ("format_sensitivity", "format_sensitivity"),
    ],
)
def test_category_dir_matches_official_layout(category: str, folder: str) -> None:
    assert category_dir(category) == Path(folder)


def test_score_file_path(tmp_path: Path) -> None:
    path = score_file_path(tmp_path, "openai/gpt-oss-20b", "memory_rec_sum")
    assert path == (
        tmp_path / "openai_gpt-oss-20b" / "agentic" / "memory" / "rec_sum"
        / "BFCL_v4_memory_rec_sum_score.json"
    )
    # 2024 names land under today's name.
    assert score_file_path(tmp_path, "m", "java").name == "BFCL_v4_simple_java_score.json"


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("BFCL_v4_simple_python_score.json", "simple_python"),
        ("BFCL_v4_live_parallel_multiple_result.json", "live_parallel_multiple"),
        ("BFCL_v4_memory_rec_sum_score.json", "memory_rec_sum"),
        ("BFCL_v4_multiple.json", "multiple"),
        ("data_overall.csv", None),
    ],
)
def test_category_of_file(name: str, category: str | None) -> None:
    assert category_of_file(Path("/x/y") / name) == category


def test_result_path_nests_memory_per_backend(tmp_path: Path) -> None:
    assert result_path(tmp_path, "memory_kv") == (
        tmp_path / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_result.json"
    )
    assert result_path(tmp_path, "simple") == tmp_path / "non_live" / (
        "BFCL_v4_simple_python_result.json"
    )
    assert memory_snapshot_dir(tmp_path, "memory_vector") == (
        tmp_path / "agentic" / "memory" / "vector" / "memory_snapshot"
    )


@pytest.mark.parametrize(
    ("model", "mode", "name", "folder"),
    [
        ("Qwen/Qwen3-8B", "fc", None, "Qwen_Qwen3-8B-FC"),
        ("Qwen/Qwen3-8B", "prompt", None, "Qwen_Qwen3-8B"),
        ("gpt-4o-FC", "fc", None, "gpt-4o-FC"),
        ("m", "fc", "my/run", "my_run"),
    ],
)
def test_run_folder_name(model: str, mode: str, name: str | None, folder: str) -> None:
    assert run_folder_name(model, mode, name) == folder
