"""Leaving categories out: `-name` entries in `--categories`, and `--exclude`, in `run`,
`generate` and `evaluate`; the web-search key error names the ways around it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.cli import main
from fcbench.core import categories
from fcbench.core.categories import UnknownCategoryError, exclusions, resolve
from fcbench.dataset.selection import Selection
from fcbench.pipeline import resolved_categories
from fcbench.run_config import SelectionConfig


def names(found: list[categories.Category]) -> list[str]:
    return [c.name for c in found]


def test_all_but_web_search() -> None:
    every = names(resolve(["all"]))
    left = names(resolve(["all,-web_search"]))
    assert left == [n for n in every if n not in categories.WEB_SEARCH]
    assert names(resolve(["-web_search", "all"])) == left  # wherever the exclusion stands
    assert names(resolve(["all", "-web_search_base", "-web_search_no_snippet"])) == left


def test_a_category_or_a_collection_is_left_out() -> None:
    assert names(resolve(["multi_turn,-multi_turn_base"])) == [
        n for n in categories.MULTI_TURN if n != "multi_turn_base"]
    assert names(resolve(["agentic,-memory"])) == list(categories.WEB_SEARCH)
    assert resolve(["memory,-memory"]) == []
    assert names(resolve(["simple_python,-multi_turn"])) == ["simple_python"]


def test_only_exclusions_leave_them_out_of_all_or_of_everything() -> None:
    assert resolve(["-web_search"]) == resolve(["all,-web_search"])
    everything = names(resolve(["-web_search"], everything=True))
    assert "exec_simple" in everything and "web_search_base" not in everything


def test_an_unknown_exclusion_is_refused_like_an_unknown_name() -> None:
    with pytest.raises(UnknownCategoryError, match="'web_serch'"):
        resolve(["all,-web_serch"])


def test_exclude_lists_become_exclusions() -> None:
    assert exclusions(None) == []
    assert exclusions("memory, web_search") == ["-memory", "-web_search"]
    assert exclusions(["a,b", "-c", ""]) == ["-a", "-b", "-c"]


NAMES = sorted(categories.COLLECTIONS) + [c.name for c in categories.all_categories()]


def members(name: str) -> set[str]:
    return set(categories.COLLECTIONS.get(name, (name,)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5),
       st.lists(st.sampled_from(NAMES), max_size=5), st.randoms(use_true_random=False),
       st.sampled_from([",", " , "]))
def test_exclusions_subtract_whatever_the_order(
    included: list[str], excluded: list[str], rng: object, separator: str
) -> None:
    entries = included + [f"-{name}" for name in excluded]
    rng.shuffle(entries)  # type: ignore[attr-defined]
    wanted = set().union(*map(members, included)) - set().union(*map(members, excluded))
    expected = [c.name for c in categories.all_categories() if c.name in wanted]
    assert names(resolve([separator.join(entries)])) == expected


def test_run_selection_excludes_from_the_named_or_the_default() -> None:
    chosen = Selection.of(None, None, None, None)
    default = names(resolved_categories(SelectionConfig(), chosen))
    assert names(resolved_categories(SelectionConfig(exclude="live"), chosen)) == [
        n for n in default if n not in categories.LIVE]
    assert names(resolved_categories(
        SelectionConfig(categories="all,-web_search"), chosen)) == names(
        resolve(["all,-web_search"]))
    assert names(resolved_categories(
        SelectionConfig(categories=["agentic"], exclude=["memory"]), chosen)) == list(
        categories.WEB_SEARCH)
    with pytest.raises(ValueError, match="every category named is left out"):
        resolved_categories(SelectionConfig(categories="memory", exclude="agentic"), chosen)


@pytest.mark.usefixtures("fetched_home")
def test_generate_and_evaluate_leave_categories_out(tmp_path: Path) -> None:
    result, score = tmp_path / "result", tmp_path / "score"
    ran = CliRunner().invoke(main, [
        "generate", "--model", "ground-truth", "--categories", "simple_python,multiple,-multiple",
        "--exclude", "parallel", "--limit", "2", "--result-dir", str(result), "--quiet"])
    assert ran.exit_code == 0, ran.output
    folder = next(result.iterdir())
    written = sorted(p.name for p in folder.rglob("*_result.json"))
    assert written == ["BFCL_v4_simple_python_result.json"]

    CliRunner().invoke(main, [
        "generate", "--model", "ground-truth", "--categories", "multiple", "--limit", "2",
        "--result-dir", str(result), "--quiet"])
    scored = CliRunner().invoke(main, [
        "evaluate", "--result-dir", str(result), "--score-dir", str(score), "--exclude",
        "multiple", "--no-report"])
    assert scored.exit_code == 0, scored.output
    files = sorted(p.name for p in score.rglob("*_score.json"))
    assert files == ["BFCL_v4_simple_python_score.json"]
    only = CliRunner().invoke(main, [
        "evaluate", "--result-dir", str(result), "--score-dir", str(tmp_path / "s2"),
        "--categories", "-simple_python", "--no-report"])
    assert only.exit_code == 0, only.output
    assert sorted(p.name for p in (tmp_path / "s2").rglob("*_score.json")) == [
        "BFCL_v4_multiple_score.json"]


@pytest.mark.usefixtures("fetched_home")
def test_the_web_search_key_error_names_the_ways_around_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SERPAPI_API_KEY", raising=False)
    ran = CliRunner().invoke(main, [
        "generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--categories",
        "web_search_base", "--limit", "1", "--result-dir", str(tmp_path), "--quiet"])
    assert ran.exit_code == 2
    line = ran.output.strip()
    assert "needs an API key: set SERPAPI_API_KEY" in line and "\n" not in line
    assert "--web-provider ddgs / replay" in line
    assert "--categories all,-web_search (--exclude web_search)" in line
