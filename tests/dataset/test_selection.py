"""Smoke-run selections: first N, a seeded sample, explicit ids, and what they refuse."""

from __future__ import annotations

import pytest

from fcbench.core.model import TestCase
from fcbench.dataset.selection import Selection, SelectionError, category_of

IDS = [f"simple_python_{i}" for i in range(50)]


def test_limit_takes_the_first_in_id_order_whatever_the_input_order() -> None:
    chosen = Selection.of(limit=3).choose("simple_python", reversed(IDS))
    assert chosen == {"simple_python_0", "simple_python_1", "simple_python_2"}


def test_sample_is_reproducible_and_seed_dependent() -> None:
    a = Selection.of(sample=5, seed=1).choose("simple_python", IDS)
    b = Selection.of(sample=5, seed=1).choose("simple_python", list(reversed(IDS)))
    c = Selection.of(sample=5, seed=2).choose("simple_python", IDS)
    assert a == b and len(a) == 5 and a != c
    assert Selection.of(sample=500).choose("simple_python", IDS) == set(IDS)
    other = Selection.of(sample=5, seed=1).choose("multiple", [f"multiple_{i}" for i in range(50)])
    assert {i.rsplit("_", 1)[1] for i in other} != {i.rsplit("_", 1)[1] for i in a}


def test_ids_and_their_categories() -> None:
    selection = Selection.of(ids="simple_python_3, live_simple_10-2-0,multiple_4")
    assert selection.choose("simple_python", IDS) == {"simple_python_3"}
    assert [c.name for c in selection.categories()] == ["simple_python", "multiple",
                                                        "live_simple"]
    assert category_of("parallel_multiple_7").name == "parallel_multiple"
    assert category_of("multi_turn_long_context_3").name == "multi_turn_long_context"
    assert category_of("simple_7").name == "simple_python"  # a 2024 id
    with pytest.raises(SelectionError, match="not the id of a known category"):
        category_of("nothing_here_1")


def test_nothing_set_keeps_everything() -> None:
    selection = Selection.of()
    assert not selection.active and selection.choose("simple_python", IDS) == set(IDS)
    assert selection.describe() == "every case"


@pytest.mark.parametrize("kwargs, message", [
    ({"limit": 2, "sample": 2}, "cannot be combined"),
    ({"limit": 2, "ids": "a_1"}, "cannot be combined"),
    ({"limit": 0}, "at least 1"),
    ({"seed": 3}, "--seed applies to --sample"),
    ({"ids": " , "}, "--ids is empty"),
])
def test_refusals(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SelectionError, match=message):
        Selection.of(**kwargs)  # type: ignore[arg-type]


def test_dependencies_come_along() -> None:
    cases = [TestCase(f"memory_kv_prereq_{i}-s-{i}", "memory_kv", [[]], [], None,
                      extras={"depends_on": [f"memory_kv_prereq_{i - 1}-s-{i - 1}"]
                              if i else []})
             for i in range(3)]
    question = TestCase("memory_kv_0-s-0", "memory_kv", [[]], [], None,
                        extras={"depends_on": [c.id for c in cases]})
    everything = [*cases, question]
    chosen = Selection.of(ids="memory_kv_0-s-0").cases("memory_kv", everything)
    assert [c.id for c in chosen] == [c.id for c in everything]
    first = Selection.of(ids="memory_kv_prereq_1-s-1").cases("memory_kv", everything)
    assert [c.id for c in first] == ["memory_kv_prereq_0-s-0", "memory_kv_prereq_1-s-1"]


def test_a_run_keeps_the_prerequisites_its_chosen_questions_need() -> None:
    from fcbench.core import categories
    from fcbench.dataset.selection import select_run

    prereq, questions = categories.get("memory_kv_prereq"), categories.get("memory_kv")
    before = [TestCase(f"memory_kv_prereq_{i}-s{i // 2}-{i % 2}", prereq.name, [[]], [], None)
              for i in range(6)]
    asked = [TestCase(f"memory_kv_{i}-s{i}-0", questions.name, [[]], [], None,
                      extras={"depends_on": [b.id for b in before[4 - 2 * i:6 - 2 * i]]})
             for i in range(3)]
    other = [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None) for i in range(5)]
    loaded = [(prereq, before), (categories.get("simple_python"), other), (questions, asked)]
    first = select_run(loaded, Selection.of(limit=1))
    picked = {c.name: [x.id for x in cases] for c, cases in first}
    assert picked == {"memory_kv_prereq": [before[4].id, before[5].id],
                      "simple_python": ["simple_python_0"], "memory_kv": [asked[0].id]}
    only = select_run(loaded, Selection.of(ids="simple_python_2"))
    assert [(c.name, [x.id for x in cases]) for c, cases in only] == [
        ("simple_python", ["simple_python_2"])]
    with pytest.raises(SelectionError, match="memory_kv_9"):
        select_run(loaded, Selection.of(ids="memory_kv_9-s9-0"))
