"""The leaderboard formulas (spec §1.4, §1.5) on hand-checked numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.core import categories as reg
from fcbench.core.model import Verdict
from fcbench.score.aggregate import CategoryScore, score_verdicts, with_missing
from fcbench.score.formulas import (
    Flavour,
    Summary,
    format_percent,
    percentage_weighted,
    summary_rows,
    unweighted,
    v1_overall,
    v1_rows,
    v4_summary,
    weighted,
)

# Spec §1.1 entry counts of every scoring category.
SIZES = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200,
    "parallel": 200, "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258,
    "live_multiple": 1053, "live_parallel": 16, "live_parallel_multiple": 24,
    "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
    "multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200,
    "web_search_base": 100, "web_search_no_snippet": 100, "memory_kv": 155,
    "memory_vector": 155, "memory_rec_sum": 155,
}

# (correct, total) of openai/gpt-oss-120b in the corpus run 2025-11-12-main (from its
# verdicts); the official tool printed Overall 29.84%, Non-Live 37.56%, Live 73.72%.
GPT_OSS_120B = {
    "simple_python": (347, 400), "simple_java": (56, 100), "simple_javascript": (25, 50),
    "multiple": (172, 200), "parallel": (0, 200), "parallel_multiple": (0, 200),
    "irrelevance": (209, 240), "live_simple": (207, 258), "live_multiple": (789, 1053),
    "live_parallel": (0, 16), "live_parallel_multiple": (0, 24), "live_irrelevance": (721, 884),
    "live_relevance": (12, 16), "multi_turn_base": (100, 200), "multi_turn_miss_func": (91, 200),
    "multi_turn_miss_param": (83, 200),
}


def scores_of(counts: dict[str, tuple[int, int]]) -> dict[str, CategoryScore]:
    given_scores = {
        name: CategoryScore(name, correct, total, SIZES[name])
        for name, (correct, total) in counts.items()
    }
    return with_missing(given_scores, reg.ALL_SCORING, SIZES)


def full(accuracy_by_name: dict[str, float]) -> dict[str, CategoryScore]:
    """Every scoring category evaluated on its full dataset, at the given (or 0) accuracy."""
    return {
        name: CategoryScore(name, round(accuracy_by_name.get(name, 0.0) * size), size, size)
        for name, size in SIZES.items()
    }


# -- CategoryScore ---------------------------------------------------------------------------


def test_category_score_accuracy_and_partial() -> None:
    score = CategoryScore("multiple", 150, 160, 200)
    assert score.accuracy == 150 / 160
    assert score.partial
    assert not CategoryScore("multiple", 150, 200, 200).partial
    assert CategoryScore("multiple", 0, 0, 200).accuracy == 0


def test_missing_category_counts_zero_over_dataset_size() -> None:
    missing = CategoryScore.missing("memory_kv", 155)
    assert (missing.correct, missing.total, missing.dataset_size) == (0, 155, 155)
    assert not missing.evaluated and not missing.partial
    assert Summary.of(missing) == Summary(0.0, 155, na=True)


def test_score_verdicts_counts_valid_cases() -> None:
    score = score_verdicts("parallel", [Verdict.ok(), Verdict.fail("x"), True, False], 200)
    assert (score.correct, score.total, score.dataset_size) == (2, 4, 200)


def test_with_missing_needs_a_dataset_size() -> None:
    with pytest.raises(ValueError, match="memory_kv"):
        with_missing({}, ["memory_kv"], {})


def test_from_header_reads_counts() -> None:
    header = {"accuracy": 0.5, "correct_count": 3, "total_count": 6}
    assert CategoryScore.from_header("live_parallel", header, 16) == CategoryScore(
        "live_parallel", 3, 6, 16
    )


# -- Primitives ------------------------------------------------------------------------------


def test_weighted_is_a_micro_average() -> None:
    result = weighted([Summary(0.5, 10), Summary(1.0, 30)])
    assert result == Summary(0.875, 40, na=False)


def test_weighted_of_nothing_counted_is_zero() -> None:
    assert weighted([Summary(0.0, 0, na=True)]) == Summary(0.0, 0, na=True)


def test_unweighted_ignores_counts() -> None:
    assert unweighted([Summary(0.5, 10), Summary(1.0, 30)]).accuracy == 0.75
    with pytest.raises(ValueError):
        unweighted([])


def test_percentage_weighted_normalises_weights() -> None:
    result = percentage_weighted([Summary(1.0, 1), Summary(0.0, 1)], [10, 30])
    assert result.accuracy == 0.25
    with pytest.raises(ValueError):
        percentage_weighted([Summary(1.0, 1)], [1, 2])
    with pytest.raises(ValueError):
        percentage_weighted([Summary(1.0, 1)], [0])


def test_na_propagates_and_flavour_decides_display() -> None:
    result = unweighted([Summary(1.0, 10), Summary(0.0, 10, na=True)])
    assert result.na
    assert result.value(Flavour.SUMMARY) is None
    assert result.value(Flavour.OVERALL) == 0.5


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 50)), min_size=1, max_size=8))
def test_weighted_equals_pooled_accuracy(parts: list[tuple[int, int]]) -> None:
    pairs = [(min(c, t), t) for c, t in parts]
    result = weighted([Summary(c / t, t) for c, t in pairs])
    pooled = sum(c for c, _ in pairs) / sum(t for _, t in pairs)
    assert result.accuracy == pytest.approx(pooled)


def test_format_percent() -> None:
    assert format_percent(0.29836) == "29.84%"
    assert format_percent(None) == "N/A"
    assert format_percent(1) == "100.00%"


# -- V4 --------------------------------------------------------------------------------------


def test_v4_reproduces_the_official_numbers_of_a_real_run() -> None:
    v4 = v4_summary(scores_of(GPT_OSS_120B))
    assert format_percent(v4.overall.value(Flavour.OVERALL)) == "29.84%"
    assert format_percent(v4.non_live.value(Flavour.SUMMARY)) == "37.56%"
    assert format_percent(v4.simple_ast_nonlive.value(Flavour.SUMMARY)) == "64.25%"
    assert format_percent(v4.live.value(Flavour.OVERALL)) == "73.72%"
    assert format_percent(v4.irrelevance.value(Flavour.SUMMARY)) == "84.32%"
    assert format_percent(v4.relevance.value(Flavour.SUMMARY)) == "75.00%"
    assert format_percent(v4.multi_turn.value(Flavour.OVERALL)) == "34.25%"
    assert v4.multi_turn.value(Flavour.SUMMARY) is None  # long_context missing
    assert format_percent(v4.agentic.value(Flavour.OVERALL)) == "0.00%"
    assert v4.web_search.value(Flavour.SUMMARY) is None


def test_v4_overall_weights() -> None:
    # Non-Live 1, Live 0, Irrelevance 0, Multi-Turn 0, Agentic 0 → 10%.
    non_live_only = full({n: 1.0 for n in ("simple_python", "simple_java", "simple_javascript",
                                           "multiple", "parallel", "parallel_multiple")})
    assert v4_summary(non_live_only).overall.accuracy == pytest.approx(0.10)
    multi_turn_only = full({n: 1.0 for n in reg.MULTI_TURN})
    assert v4_summary(multi_turn_only).overall.accuracy == pytest.approx(0.30)
    agentic_only = full({n: 1.0 for n in reg.AGENTIC})
    assert v4_summary(agentic_only).overall.accuracy == pytest.approx(0.40)
    # Relevance is displayed but not part of Overall; irrelevance is.
    assert v4_summary(full({"live_relevance": 1.0})).overall.accuracy == 0
    assert v4_summary(full({"irrelevance": 1.0})).overall.accuracy == pytest.approx(0.05)


def test_v4_non_live_excludes_irrelevance_and_averages_simple_languages() -> None:
    v4 = v4_summary(full({"simple_python": 1.0, "irrelevance": 1.0}))
    assert v4.simple_ast_nonlive.accuracy == pytest.approx(1 / 3)
    assert v4.non_live.accuracy == pytest.approx(1 / 12)


def test_v4_live_is_weighted_by_counts() -> None:
    v4 = v4_summary(full({"live_parallel": 1.0}))
    assert v4.live.accuracy == pytest.approx(16 / 1351)
    assert v4.live.total == 1351


def test_v4_agentic_is_mean_of_web_search_and_memory() -> None:
    v4 = v4_summary(full({"web_search_base": 1.0, "memory_kv": 1.0}))
    assert v4.web_search.accuracy == pytest.approx(0.5)
    assert v4.memory.accuracy == pytest.approx(1 / 3)
    assert v4.agentic.accuracy == pytest.approx((0.5 + 1 / 3) / 2)


def test_v4_needs_every_category() -> None:
    with pytest.raises(ValueError, match="with_missing"):
        v4_summary({})


def test_v4_all_missing_is_zero_and_na() -> None:
    v4 = v4_summary(with_missing({}, reg.ALL_SCORING, SIZES))
    for summary in v4.as_dict().values():
        assert summary.accuracy == 0 and summary.na


def test_partial_category_weights_by_evaluated_count() -> None:
    scores = full({})
    scores["live_simple"] = CategoryScore("live_simple", 10, 10, 258)  # partial run
    v4 = v4_summary(scores)
    assert v4.live.accuracy == pytest.approx(10 / (10 + 1053 + 16 + 24))


# -- v1 (2024) -------------------------------------------------------------------------------


def test_v1_overall_is_entry_weighted_over_nine_groups() -> None:
    counts = {
        "simple_python": (400, 400), "simple_java": (0, 100), "simple_javascript": (50, 50),
        "multiple": (100, 200), "parallel": (200, 200), "parallel_multiple": (0, 200),
        "irrelevance": (120, 240), "exec_simple": (100, 100), "rest": (0, 70),
        "exec_multiple": (50, 50), "exec_parallel": (25, 50), "exec_parallel_multiple": (40, 40),
    }
    scores = {n: CategoryScore(n, c, t, t) for n, (c, t) in counts.items()}
    v1 = v1_overall(scores)
    assert v1.groups["simple_ast"].accuracy == pytest.approx(450 / 550)
    assert v1.groups["simple_exec"].accuracy == pytest.approx(100 / 170)
    assert v1.overall.total == 1700
    assert v1.overall.accuracy == pytest.approx(sum(c for c, _ in counts.values()) / 1700)
    assert v1.ast_summary.accuracy == pytest.approx((450 / 550 + 0.5 + 1 + 0) / 4)
    assert v1.exec_summary.accuracy == pytest.approx((100 / 170 + 1 + 0.5 + 1) / 4)
    assert not v1.overall.na


def test_v1_missing_categories_count_zero_over_their_entries() -> None:
    scores = {
        "simple_python": CategoryScore("simple_python", 300, 400, 400),
        "multiple": CategoryScore("multiple", 100, 200, 200),
        "memory_kv": CategoryScore.missing("memory_kv", 155),
        "exec_simple": CategoryScore.missing("exec_simple", 100),
    }
    v1 = v1_overall(scores)
    # 400 correct over the whole 1,700-entry benchmark: nothing drops out.
    assert v1.overall.accuracy == pytest.approx(400 / 1700)
    assert v1.overall.total == 1700 and v1.overall.na
    assert v1.groups["simple_exec"] == Summary(0.0, 170, na=True)
    assert v1.groups["simple_ast"].accuracy == pytest.approx(300 / 550)
    # The 2024 summaries were plain means of four groups: a group with nothing is 0.
    assert v1.ast_summary.accuracy == pytest.approx((300 / 550 + 0.5) / 4)
    assert v1.evaluated == ("simple_python", "multiple") and v1.scored


def test_v1_partial_and_skipped_cases_weigh_by_cases_judged() -> None:
    scores = {"exec_simple": CategoryScore("exec_simple", 30, 60, 100)}  # 40 skipped
    v1 = v1_overall(scores)
    assert v1.groups["simple_exec"].accuracy == pytest.approx(30 / (60 + 70))
    assert v1.overall.total == 1700 - 40


def test_v1_of_nothing() -> None:
    v1 = v1_overall({})
    assert v1.overall == Summary(0.0, 1700, na=True)
    assert not v1.scored
    assert dict(v1_rows({}))["v1 Overall (2024)"] is None


# -- Printed rows ----------------------------------------------------------------------------


def test_summary_rows_follow_the_csv_flavours() -> None:
    rows = dict(summary_rows(scores_of(GPT_OSS_120B)))
    assert list(rows) == [
        "Overall", "Non-Live", "Live", "Irrelevance Detection", "Relevance Detection",
        "Multi-Turn", "Agentic", "Web Search", "Memory",
    ]
    assert format_percent(rows["Overall"]) == "29.84%"
    assert rows["Multi-Turn"] == pytest.approx(0.3425)
    assert rows["Web Search"] is None and rows["Memory"] is None
    assert rows["Agentic"] == 0


def test_summary_rows_with_v1() -> None:
    rows = dict(summary_rows(scores_of(GPT_OSS_120B), include_v1=True))
    # The exec categories were not run: 0 over their 310 entries.
    expected = (347 + 56 + 25 + 172 + 209) / 1700
    assert rows["v1 Overall (2024)"] == pytest.approx(expected)
    assert rows["v1 Exec Summary (2024)"] is None
    assert rows["v1 AST Summary (2024)"] == pytest.approx((428 / 550 + 0.86) / 4)
