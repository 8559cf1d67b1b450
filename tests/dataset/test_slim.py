"""Slim categories: the derived cache gives exactly what a fresh load builds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fcbench.check.records import prompt_of
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.fetch import DEFAULT_RELEASE, clear_caches
from fcbench.dataset.slim import SlimCategory, load_slim, load_slim_cached


@pytest.mark.parametrize(
    "name", ["simple_python", "simple_java", "parallel_multiple", "irrelevance", "live_relevance"]
)
def test_slim_cases_from_the_derived_cache_equal_freshly_built_ones(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(fetched_home / "releases", home / "releases")
    monkeypatch.setenv("FCBENCH_HOME", str(home))
    clear_caches()
    category = categories.get(name)
    fresh = load_slim(category, DEFAULT_RELEASE, None, prompt_of)
    for _ in ("cold", "warm"):
        cached = load_slim_cached(category, DEFAULT_RELEASE, None, prompt_of)
        assert cached.cases == fresh.cases and cached.prompts == fresh.prompts
        assert all(type(p) is type(fresh.prompts[i]) for i, p in cached.prompts.items())
        assert cached.rank == fresh.rank
    assert (home / "releases" / DEFAULT_RELEASE / "derived" / f"slim-{name}.marshal").is_file()


def test_answer_text_is_the_json_of_the_possible_answer_or_none() -> None:
    good = TestCase("a_1", "a", [], [], [{"f": {"x": ["é"]}}])
    odd = TestCase("a_2", "a", [], [], [{"f": {"x": {1}}}])
    data = SlimCategory({"a_1": good, "a_2": odd}, {})
    assert data.answer_text(good) == '[{"f": {"x": ["é"]}}]'
    assert data.answer_text(odd) is None
    assert list(data.rank) == ["a_1", "a_2"]
