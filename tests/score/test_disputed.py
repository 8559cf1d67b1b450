"""The shipped list of disputed ground truth: every entry real, sourced and still present."""

from __future__ import annotations

from pathlib import Path

from fcbench.core import categories
from fcbench.dataset.load import load_category
from fcbench.score.disputed import Disputed, DisputedCase, accuracy_without, load_disputed


def test_every_entry_names_an_upstream_issue_or_pull_request() -> None:
    disputed = load_disputed()
    assert len(disputed.cases) >= 5
    for case in disputed.cases:
        assert case.source.startswith("https://github.com/ShishirPatil/gorilla/"), case
        assert "/issues/" in case.source or "/pull/" in case.source
        assert case.claim


def test_every_entry_is_a_case_of_the_release_it_was_checked_against(fetched_home: Path) -> None:
    disputed = load_disputed()
    by_category: dict[str, list[str]] = {}
    for case in disputed.cases:
        category = case.id.rsplit("_", 1)[0]
        assert category in {c.name for c in categories.CATEGORIES}, case.id
        by_category.setdefault(category, []).append(case.id)
    for category, ids in by_category.items():
        known = {c.id for c in load_category(category, disputed.release, functions=False)}
        assert set(ids) <= known, (category, set(ids) - known)


def test_accuracy_without_the_disputed_cases() -> None:
    disputed = Disputed((DisputedCase("a_1", "s", "c"),))
    assert accuracy_without([("a_0", True), ("a_1", False), ("a_2", False)], disputed) == (1, 2)
    assert disputed.in_category("a") == list(disputed.cases)
