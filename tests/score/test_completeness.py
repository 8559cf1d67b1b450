"""The completeness rule (score.completeness): what every view asks of a summary."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.core import categories as reg
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.completeness import (
    SUMMARY_PARTS,
    V1_OVERALL,
    V4_OVERALL,
    completeness,
    incomplete,
    is_partial,
    partial_summaries,
    ranking_summary,
    shows_v1,
)

SIZES = {name: 10 for name in (*reg.ALL_SCORING, *reg.V1)}


def run(*names: str, total: int = 10) -> dict[str, CategoryScore]:
    return {n: CategoryScore(n, 5, total, 10) for n in names}


def test_one_category_leaves_overall_incomplete_with_what_is_missing() -> None:
    c = completeness(with_missing(run("simple_python"), reg.ALL_SCORING, SIZES), "Overall")
    assert not c.complete and not c.nothing_run
    assert c.groups_run == ("Non-Live",)
    assert "simple_python" not in c.missing and "multi_turn_long_context" in c.missing
    assert len(c.missing) == 20  # 6 + 4 + 2 + 4 + 5 parts, one run
    assert c.describe() == ("1 of 5 groups run; not run: Live, Irrelevance Detection, "
                            "Multi-Turn, Agentic; missing from the rest: simple_java, "
                            "simple_javascript, multiple, parallel and 1 more")
    assert c.describe(limit=None).endswith("parallel, parallel_multiple")


def test_every_category_run_is_complete_and_partial_is_not_incomplete() -> None:
    scores = run(*reg.ALL_SCORING, *reg.V1, total=3)  # partial: 3 of 10 cases each
    assert all(s.partial for s in scores.values())
    assert incomplete(scores) == []


def test_all_cases_skipped_is_missing_not_a_zero() -> None:
    scores = run(*reg.V1)
    scores["rest"] = CategoryScore("rest", 0, 0, 70)  # every case skipped offline
    c = completeness(scores, "v1 Overall (2024)")
    assert c.missing == ("rest",) and c.groups_run == tuple(
        label for label, _ in SUMMARY_PARTS["v1 Overall (2024)"])


def test_summary_of_categories_has_no_groups_clause() -> None:
    c = completeness(run("live_simple"), "Live")
    assert c.describe() == ("missing 3 of 4 categories: live_multiple, live_parallel, "
                            "live_parallel_multiple")
    assert completeness({}, "Multi-Turn").nothing_run


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted({*reg.ALL_SCORING, *reg.V1})),
                       st.tuples(st.booleans(), st.integers(0, 10)), max_size=30))
def test_complete_iff_every_part_judged(picked: dict[str, tuple[bool, int]]) -> None:
    scores = {n: CategoryScore(n, min(t, 5), t, 10, evaluated=e) for n, (e, t) in picked.items()}
    for summary, groups in SUMMARY_PARTS.items():
        c = completeness(scores, summary)
        parts = [n for _, names in groups for n in names]
        judged = [n for n in parts if n in picked and picked[n][0] and picked[n][1] > 0]
        assert c.complete == (len(judged) == len(parts))
        assert set(c.missing) == set(parts) - set(judged)
        assert c.nothing_run == (not judged)


def test_a_board_of_2024_runs_ranks_by_v1_overall_any_v4_only_category_by_v4() -> None:
    v1_only = run("simple_python", "exec_simple", "irrelevance")
    assert ranking_summary([v1_only, run(*reg.V1)]) == V1_OVERALL
    with_live = run("simple_python", "live_simple")
    assert ranking_summary([v1_only, with_live]) == V4_OVERALL
    skipped_live = {**v1_only, "live_simple": CategoryScore("live_simple", 0, 0, 10)}
    assert ranking_summary([skipped_live]) == V1_OVERALL  # judged nothing: not run
    assert ranking_summary([]) == V4_OVERALL
    assert ranking_summary([{}]) == V4_OVERALL


def test_skipped_cases_are_not_a_partial_run() -> None:
    """An offline exec category (cases skipped) is a whole run: no `*` (the terminal marked
    it, the report did not); fewer judged and skipped than it holds is partial."""
    exec_simple = CategoryScore("exec_simple", 5, 7, 10)
    assert not is_partial(exec_simple, 3) and is_partial(exec_simple, 2)
    assert is_partial(exec_simple) and not is_partial(None)
    scores = {"exec_simple": exec_simple}
    assert partial_summaries(scores, {"exec_simple": 3}) == set()
    assert partial_summaries(scores) == {"v1 Overall (2024)", "v1 Exec Summary (2024)"}


def test_v4_overall_is_its_five_groups_and_the_v1_summaries_their_groups() -> None:
    """live_relevance is under no Overall (table.UNDERNEATH counted it under V4 Overall)."""
    v4 = {n for _, names in SUMMARY_PARTS["Overall"] for n in names}
    assert "live_relevance" not in v4 and v4 == set(reg.ALL_SCORING) - {"live_relevance"}
    assert partial_summaries({"live_relevance": CategoryScore("live_relevance", 1, 2, 10)}) \
        == {"Relevance Detection"}
    ast = completeness(run("simple_python", "multiple"), "v1 AST Summary (2024)")
    assert ast.describe() == ("2 of 4 groups run; not run: Parallel AST, Parallel Multiple "
                              "AST; missing from the rest: simple_java, simple_javascript")
    assert completeness(run("irrelevance"), "v1 Relevance (2024)").complete
    assert completeness(run("rest"), "v1 Exec Summary (2024)").groups_run == ("Simple Exec",)


def test_the_2024_summaries_are_shown_when_a_2024_only_category_ran_or_v1_ranks() -> None:
    assert shows_v1([run("exec_simple", "live_simple")])  # a 2024-only category
    assert shows_v1([run("simple_python"), run("multiple")])  # ranked by v1 Overall
    assert not shows_v1([run("simple_python"), run("live_simple")])  # a V4 board
    assert not shows_v1([run("exec_simple")], asked=False) and shows_v1([], asked=True)
