"""Recognising a release's file naming and mapping it to today's categories."""

from __future__ import annotations

from fcbench.core import categories
from fcbench.dataset.naming import CURRENT, detect


def test_todays_naming() -> None:
    layout = detect(["BFCL_v4_simple_python.json", "possible_answer/BFCL_v4_simple_python.json"])
    assert layout == CURRENT
    simple = categories.get("simple_python")
    assert layout.question_file(simple) == "BFCL_v4_simple_python.json"
    assert layout.answer_file(simple) == "possible_answer/BFCL_v4_simple_python.json"
    assert layout.today_id(simple, "simple_python_3") == "simple_python_3"


def test_v3_layout_names_three_categories_the_2024_way() -> None:
    layout = detect(["README.md", "BFCL_v3_simple.json", "BFCL_v3_live_simple.json"])
    assert layout.prefix == "BFCL_v3"
    java, live = categories.get("simple_java"), categories.get("live_simple")
    assert layout.question_file(java) == "BFCL_v3_java.json"
    assert layout.answer_file(java) == "possible_answer/BFCL_v3_java.json"
    assert layout.today_id(java, "java_12") == "simple_java_12"
    assert layout.question_file(live) == "BFCL_v3_live_simple.json"
    assert layout.today_id(live, "live_simple_0-0-0") == "live_simple_0-0-0"
    retired = categories.get("exec_simple")
    assert layout.question_file(retired) == "unused_datasets/question/BFCL_v3_exec_simple.json"


def test_an_id_of_another_shape_is_kept() -> None:
    layout = detect(["BFCL_v3_simple.json"])
    simple = categories.get("simple_python")
    assert layout.today_id(simple, "simple_python_3") == "simple_python_3"
    assert layout.today_id(simple, "simplex_3") == "simplex_3"


def test_the_newest_prefix_wins_and_nested_files_do_not_count() -> None:
    assert detect(["BFCL_v3_simple.json", "BFCL_v4_simple_python.json"]) == CURRENT
    assert detect(["unused_datasets/question/BFCL_v3_sql.json"]) == CURRENT
    future = detect(["BFCL_v5_simple_python.json"])
    assert future.prefix == "BFCL_v5" and not future.renamed


def test_a_folder_without_benchmark_files_reads_as_today() -> None:
    assert detect([]) == CURRENT
    assert detect(["notes.txt", "mine.json"]) == CURRENT
