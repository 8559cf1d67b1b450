"""Loading categories into TestCases: counts, joins, load-time rewrites, user datasets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fcbench.core import categories
from fcbench.dataset.fetch import DataError, read_data_file
from fcbench.dataset.load import (
    FUNC_DOC_FILES,
    answer_file,
    dataset_size,
    load_category,
    load_memory_prereqs,
    question_file,
)

# §1.1 and §1.2 of the spec.
COUNTS = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200,
    "parallel": 200, "parallel_multiple": 200, "irrelevance": 240,
    "live_simple": 258, "live_multiple": 1053, "live_parallel": 16,
    "live_parallel_multiple": 24, "live_irrelevance": 884, "live_relevance": 16,
    "multi_turn_base": 200, "multi_turn_miss_func": 200, "multi_turn_miss_param": 200,
    "multi_turn_long_context": 200,
    "web_search_base": 100, "web_search_no_snippet": 100,
    "memory_kv": 155, "memory_vector": 155, "memory_rec_sum": 155,
    "memory_kv_prereq": 37, "memory_vector_prereq": 37, "memory_rec_sum_prereq": 37,
    "exec_simple": 100, "exec_multiple": 50, "exec_parallel": 50, "exec_parallel_multiple": 40,
    "rest": 70, "sql": 100, "chatable": 200, "multi_turn_composite": 200,
}


def test_every_registry_category_has_a_count() -> None:
    assert set(COUNTS) | {"format_sensitivity"} == set(categories.BY_NAME)


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts(name: str, home: Path) -> None:
    cases = load_category(categories.get(name))
    assert len(cases) == COUNTS[name]
    assert dataset_size(name) == COUNTS[name]
    ids = [c.id for c in cases]
    assert len(set(ids)) == len(ids)
    assert all(i.startswith(name + "_") for i in ids)
    assert all(c.category == name for c in cases)
    assert all(isinstance(c.question, list) and c.question for c in cases)
    assert all(all(isinstance(turn, list) for turn in c.question) for c in cases)
    cat = categories.get(name)
    assert all((c.possible_answer is None) != cat.has_possible_answer for c in cases)


def test_group_totals(home: Path) -> None:
    """Totals of scoring entries from §1.1."""
    def total(names: tuple[str, ...]) -> int:
        return sum(dataset_size(n) for n in names)

    assert total(categories.NON_LIVE) == 1390
    assert total(categories.LIVE) == 2251
    assert total(categories.MULTI_TURN) == 800
    assert total(categories.AGENTIC) == 665


def test_format_sensitivity(home: Path) -> None:
    """Counted without loading, and loaded (assembled from other categories: see
    test_format_sensitivity.py) to as many cases."""
    assert dataset_size("format_sensitivity") == 5200
    assert len(load_category("format_sensitivity")) == 5200


def test_file_paths() -> None:
    assert question_file("simple_python") == "BFCL_v4_simple_python.json"
    assert answer_file("memory_kv") == "possible_answer/BFCL_v4_memory.json"
    assert question_file("sql") == "unused_datasets/question/BFCL_v4_sql.json"
    assert answer_file("rest") == "unused_datasets/possible_answer/BFCL_v4_rest.json"


def test_legacy_names_are_accepted(home: Path) -> None:
    assert len(load_category("simple")) == 400


# --------------------------------------------------------------------------- single turn


def test_ast_answers_are_joined(home: Path) -> None:
    case = load_category("simple_python")[0]
    assert case.id == "simple_python_0"
    assert case.question[0][0]["role"] == "user"
    assert case.functions[0]["name"]
    assert isinstance(case.possible_answer, list) and len(case.possible_answer) == 1
    (call,) = case.possible_answer
    assert list(call) == [case.functions[0]["name"]]
    assert case.extras == {}


def test_live_ids_and_parallel_answers(home: Path) -> None:
    cases = load_category("live_parallel")
    assert cases[0].id == "live_parallel_0-0-0"
    assert all(len(c.possible_answer) >= 2 for c in cases)


def test_irrelevance_has_no_answer(home: Path) -> None:
    assert {c.possible_answer for c in load_category("live_relevance")} == {None}


def test_sql_questions_are_wrapped_in_one_turn(home: Path) -> None:
    case = load_category("sql")[0]
    assert len(case.question) == 1 and case.question[0][0]["role"] == "user"
    assert case.possible_answer[0]["sql.execute"]["table_name"] == ["students"]


def test_chatable_gets_ids(home: Path) -> None:
    cases = load_category("chatable")
    assert [c.id for c in cases[:3]] == ["chatable_0", "chatable_1", "chatable_2"]
    assert cases[0].question == [[{"role": "user", "content": cases[0].question[0][0]["content"]}]]
    assert cases[0].functions == []


def test_exec_answers_keep_their_result_types(home: Path) -> None:
    case = load_category("exec_parallel_multiple")[1]
    assert case.possible_answer == [
        "calculate_cosine_similarity(vectorA=[1, 2, 3], vectorB=[4, 5, 6])",
        "get_stock_price_by_stock_name(stock_name='AAPL')",
    ]
    assert case.extras["execution_result_type"] == ["exact_match", "real_time_match"]


def test_rest_answer_is_a_string(home: Path) -> None:
    case = load_category("rest")[0]
    assert json.loads(case.possible_answer)["Zones"][0]["CountryAlpha2"] == "FR"


# --------------------------------------------------------------------------- multi turn


def test_multi_turn_docs_come_from_the_involved_classes(home: Path) -> None:
    def doc_names(cls: str) -> list[str]:
        raw = read_data_file(f"multi_turn_func_doc/{FUNC_DOC_FILES[cls]}").decode()
        return [json.loads(line)["name"] for line in raw.splitlines() if line.strip()]

    for case in load_category("multi_turn_base"):
        expected = [n for cls in case.extras["involved_classes"] for n in doc_names(cls)]
        assert [f["name"] for f in case.functions] == expected, case.id
    case = load_category("multi_turn_base")[0]
    assert case.possible_answer and all(isinstance(t, list) for t in case.possible_answer)
    assert {"initial_config", "involved_classes", "path"} <= set(case.extras)


def test_class_usage(home: Path) -> None:
    """§1.1: entries involving each class, in multi_turn_base."""
    usage = Counter(
        cls for c in load_category("multi_turn_base") for cls in c.extras["involved_classes"]
    )
    assert usage == {
        "GorillaFileSystem": 50, "VehicleControlAPI": 50, "TradingBot": 50, "TravelAPI": 50,
        "MessageAPI": 40, "TwitterAPI": 39, "TicketAPI": 31, "MathAPI": 25,
    }


def test_miss_func_docs_are_held_out(home: Path) -> None:
    cases = load_category("multi_turn_miss_func")
    released = Counter(sum(len(d) for d in c.extras["missed_function"].values()) for c in cases)
    assert released == {1: 182, 2: 14, 3: 4}
    for case in cases:
        names = {f["name"] for f in case.functions}
        for turn, docs in case.extras["missed_function"].items():
            assert case.question[int(turn)] == []
            assert docs and all(d["name"] not in names and "parameters" in d for d in docs)


def test_function_docs_are_not_shared(home: Path) -> None:
    cases = load_category("multi_turn_base")
    first, second = [c for c in cases if c.extras["involved_classes"][:1] == ["MathAPI"]][:2]
    assert first.functions[0] == second.functions[0]
    first.functions[0]["description"] += " edited"
    assert first.functions[0] != second.functions[0]


# --------------------------------------------------------------------------- agentic


@pytest.mark.parametrize("name", ["web_search_base", "web_search_no_snippet"])
def test_web_search(name: str, home: Path) -> None:
    cases = load_category(name)
    case = cases[0]
    assert case.id == f"{name}_0"
    assert case.possible_answer == ["Zhang Yiming"]
    assert case.extras["initial_config"] == {
        "WebSearchAPI": {"show_snippet": name == "web_search_base"}
    }
    assert [f["name"] for f in case.functions] and len(case.functions) == 2
    assert Counter(c.extras["num_hops"] for c in cases) == {2: 27, 3: 33, 4: 40}
    assert case.question[0][0]["role"] == "user"  # no agentic system message at load time


@pytest.mark.parametrize(("name", "docs"), [("memory_kv", 15), ("memory_vector", 12),
                                            ("memory_rec_sum", 5)])
def test_memory(name: str, docs: int, home: Path) -> None:
    cases = load_category(name)
    case = cases[0]
    assert case.id == f"{name}_0-customer-0"
    assert case.possible_answer == ["Michael"]
    assert case.extras["involved_classes"] == ["MemoryAPI_" + name.removeprefix("memory_")]
    assert case.extras["source"].startswith("My name is Michael")
    assert len(case.functions) == docs
    assert Counter(c.extras["scenario"] for c in cases) == {
        "student": 50, "customer": 30, "finance": 25, "healthcare": 25, "notetaker": 25,
    }


def test_memory_prereqs(home: Path) -> None:
    prereqs = load_memory_prereqs("memory_vector")
    assert len(prereqs) == 37
    assert Counter(p.extras["scenario"] for p in prereqs) == {
        "student": 10, "customer": 10, "finance": 7, "healthcare": 5, "notetaker": 5,
    }
    assert all(p.id.startswith("memory_vector_prereq_") for p in prereqs)
    assert {p.category for p in prereqs} == {"memory_vector_prereq"}
    first, second = prereqs[:2]
    assert first.extras["depends_on"] == [] and second.extras["depends_on"] == [first.id]
    assert len(first.functions) == 12
    with pytest.raises(DataError):
        load_memory_prereqs("multiple")


# --------------------------------------------------------------------------- user datasets


def _write_jsonl(path: Path, rows: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def user_root(tmp_path: Path) -> Path:
    root = tmp_path / "mydata"
    doc = {"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {}}}
    _write_jsonl(root / "BFCL_v4_simple_python.json", [
        {"id": "simple_python_0", "question": [[{"role": "user", "content": "hi"}]],
         "function": [doc]},
        {"id": "simple_python_1", "question": [[{"role": "user", "content": "ho"}]],
         "function": [doc], "note": "mine"},
    ])
    _write_jsonl(root / "possible_answer" / "BFCL_v4_simple_python.json", [
        {"id": "simple_python_1", "ground_truth": [{"f": {}}]},
        {"id": "simple_python_0", "ground_truth": [{"f": {}}], "note": "answer note"},
    ])
    return root


def test_user_dataset(user_root: Path, empty_home: Path) -> None:
    cases = load_category("simple_python", data_root=user_root)
    assert [c.id for c in cases] == ["simple_python_0", "simple_python_1"]
    assert cases[0].extras == {"note": "answer note"}
    assert cases[1].extras == {"note": "mine"}
    assert dataset_size("simple_python", data_root=user_root) == 2


def test_answer_field_clash_is_prefixed(user_root: Path, empty_home: Path) -> None:
    qfile = user_root / "BFCL_v4_simple_python.json"
    rows = [json.loads(line) for line in qfile.read_text().splitlines()]
    rows[0]["note"] = "question note"
    _write_jsonl(qfile, rows)
    case = load_category("simple_python", data_root=user_root)[0]
    assert case.extras == {"note": "question note", "answer_note": "answer note"}


def test_broken_line_names_file_and_line(user_root: Path, empty_home: Path) -> None:
    qfile = user_root / "BFCL_v4_simple_python.json"
    lines = qfile.read_text().splitlines()
    qfile.write_text(lines[0] + "\n" + lines[1][:-5] + "\n")
    with pytest.raises(DataError) as info:
        load_category("simple_python", data_root=user_root)
    assert str(qfile) in str(info.value) and "line 2" in str(info.value)


def test_missing_answer(user_root: Path, empty_home: Path) -> None:
    _write_jsonl(user_root / "possible_answer" / "BFCL_v4_simple_python.json", [
        {"id": "simple_python_0", "ground_truth": []},
    ])
    with pytest.raises(DataError, match="no possible answer for simple_python_1"):
        load_category("simple_python", data_root=user_root)


def test_missing_file(user_root: Path, empty_home: Path) -> None:
    with pytest.raises(DataError, match=r"BFCL_v4_multiple\.json does not exist"):
        load_category("multiple", data_root=user_root)


def test_unknown_class(tmp_path: Path, empty_home: Path) -> None:
    _write_jsonl(tmp_path / "BFCL_v4_multi_turn_base.json", [
        {"id": "multi_turn_base_0", "question": [[]], "involved_classes": ["NoSuchAPI"]},
    ])
    _write_jsonl(tmp_path / "possible_answer" / "BFCL_v4_multi_turn_base.json", [
        {"id": "multi_turn_base_0", "ground_truth": [[]]},
    ])
    with pytest.raises(DataError, match="line 1: unknown class 'NoSuchAPI'"):
        load_category("multi_turn_base", data_root=tmp_path)


def test_missing_data_message(empty_home: Path) -> None:
    with pytest.raises(DataError, match="fcbench data fetch"):
        load_category("multiple")


@pytest.mark.parametrize("name", ["multi_turn_miss_func", "multi_turn_base"])
def test_multi_turn_can_be_loaded_without_docs(name: str, home: Path) -> None:
    """`functions=False` (what multi-turn scoring uses) changes nothing but the docs."""
    full = load_category(name)
    slim = load_category(name, functions=False)
    assert [c.id for c in slim] == [c.id for c in full]
    for with_docs, without in zip(full, slim, strict=True):
        assert with_docs.functions and without.functions == []
        assert without.extras == with_docs.extras  # miss_func's held-out docs included
        assert without.question == with_docs.question
        assert without.possible_answer == with_docs.possible_answer
