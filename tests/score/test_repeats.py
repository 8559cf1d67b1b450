"""Statistics across repeats (`score.repeats`): properties that must hold whatever the
verdicts (Hypothesis), and the estimators against a brute-force enumeration of every
k-subset of repeats (the definition the closed forms stand for)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.score.repeats import (
    category_repeats,
    consistency,
    mean_pass_at_k,
    mean_pass_hat_k,
    pass_at_k,
    pass_hat_k,
    sample_std,
    spread,
    t_interval,
    t_quantile_95,
)

verdict_rows = st.lists(st.booleans(), min_size=1, max_size=12)
"""One case's verdicts over up to 12 repeats."""


@st.composite
def cases_over_repeats(draw: st.DrawFn) -> tuple[int, list[list[bool]]]:
    """(repeats, each case's verdict per repeat): 1..10 repeats, 1..40 cases."""
    repeats = draw(st.integers(1, 10))
    rows = draw(st.lists(st.lists(st.booleans(), min_size=repeats, max_size=repeats),
                         min_size=1, max_size=40))
    return repeats, rows


def counts_of(rows: list[list[bool]]) -> list[tuple[int, int]]:
    return [(len(row), sum(row)) for row in rows]


@settings(max_examples=150, deadline=None)
@given(cases_over_repeats(), st.data())
def test_pass_hat_never_above_pass_at(drawn: tuple[int, list[list[bool]]],
                                       data: st.DataObject) -> None:
    repeats, rows = drawn
    k = data.draw(st.integers(1, repeats))
    hat, at = mean_pass_hat_k(counts_of(rows), k), mean_pass_at_k(counts_of(rows), k)
    assert hat is not None and at is not None
    assert 0 <= hat <= at <= 1


@settings(max_examples=150, deadline=None)
@given(cases_over_repeats())
def test_k_one_is_the_mean_accuracy(drawn: tuple[int, list[list[bool]]]) -> None:
    repeats, rows = drawn
    right = sum(sum(row) for row in rows)
    mean = Fraction(right, repeats * len(rows))  # every case judged in every repeat
    assert mean_pass_hat_k(counts_of(rows), 1) == float(mean)
    assert mean_pass_at_k(counts_of(rows), 1) == float(mean)
    per_repeat = [sum(row[r] for row in rows) / len(rows) for r in range(repeats)]
    assert spread(per_repeat).mean == pytest.approx(float(mean), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(cases_over_repeats(), st.data())
def test_monotone_in_k(drawn: tuple[int, list[list[bool]]], data: st.DataObject) -> None:
    """More draws: all-right gets no likelier, at-least-one-right no less likely."""
    repeats, rows = drawn
    if repeats < 2:
        return
    k = data.draw(st.integers(1, repeats - 1))
    counts = counts_of(rows)
    assert mean_pass_hat_k(counts, k + 1) <= mean_pass_hat_k(counts, k)  # type: ignore[operator]
    assert mean_pass_at_k(counts, k + 1) >= mean_pass_at_k(counts, k)  # type: ignore[operator]


@settings(max_examples=200, deadline=None)
@given(verdict_rows, st.data())
def test_estimators_are_the_average_over_every_k_subset(row: list[bool],
                                                        data: st.DataObject) -> None:
    """C(c,k)/C(n,k) and 1-C(n-c,k)/C(n,k) are the shares of k-subsets of the repeats that
    are all right / hold one right: enumerated here, never with the closed forms."""
    n, c = len(row), sum(row)
    k = data.draw(st.integers(1, n))
    subsets = list(itertools.combinations(row, k))
    assert pass_hat_k(n, c, k) == Fraction(sum(all(s) for s in subsets), len(subsets))
    assert pass_at_k(n, c, k) == Fraction(sum(any(s) for s in subsets), len(subsets))


finite_scores = st.floats(0, 1, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite_scores, min_size=2, max_size=30))
def test_interval_contains_the_mean(values: list[float]) -> None:
    interval, mean = t_interval(values), math.fsum(values) / len(values)
    assert interval is not None
    assert 0 <= interval.low <= mean <= interval.high <= 1


@settings(max_examples=100, deadline=None)
@given(st.lists(finite_scores, min_size=2, max_size=8).filter(lambda v: max(v) - min(v) > 1e-6),
       st.integers(2, 6))
def test_width_shrinks_as_repeats_grow_for_a_fixed_spread(values: list[float],
                                                          times: int) -> None:
    """The same scores seen `times` times over: the spread (std) barely moves, the interval
    narrows (t falls and √n grows). Unclipped width: centred on 0.5 so [0, 1] never cuts."""
    centred = [0.5 + (v - 0.5) / 4 for v in values]
    few, many = t_interval(centred), t_interval(centred * times)
    assert few is not None and many is not None
    assert many.high - many.low < few.high - few.low


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 20), st.sampled_from([0.0, 0.25, 1.0, 0.1 + 0.2]))
def test_all_consistent_means_no_spread(repeats: int, value: float) -> None:
    found = spread([value] * repeats)
    assert found.std == (None if repeats == 1 else 0.0)
    if repeats > 1:
        assert found.interval is not None
        assert found.interval.low == found.interval.high == found.mean


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=1, max_size=20))
def test_consistent_cases_give_std_zero(rows: list[list[bool]]) -> None:
    """Every case consistent (all right or all wrong in every repeat): each repeat scores
    the same, std 0, and no case is flaky."""
    rows = [[row[0]] * 3 for row in rows]
    accuracies = [sum(row[r] for row in rows) / len(rows) for r in range(3)]
    stats = category_repeats("c", accuracies, {str(i): row for i, row in enumerate(rows)})
    assert stats.accuracy.std == 0.0
    assert stats.counts()["flaky"] == 0
    assert stats.pass_hat[3] == stats.pass_at[3] == stats.pass_hat[1]


def test_consistency_kinds() -> None:
    assert consistency([True, True]) == "consistent-pass"
    assert consistency([False]) == "consistent-fail"
    assert consistency([False, True, False]) == "flaky"
    with pytest.raises(ValueError):
        consistency([])


def test_unjudged_repeats_leave_a_case_out_of_pass_k() -> None:
    stats = category_repeats("c", [1.0, 0.5], {"a": [True, True], "b": [None, False]})
    assert stats.unpaired == ("b",)
    assert stats.consistency == {"a": "consistent-pass", "b": "consistent-fail"}
    assert stats.pass_hat == {1: 1.0, 2: 1.0}


def test_sample_std_by_hand() -> None:
    # 0.5, 0.7, 0.6: mean 0.6, squares 0.01 + 0.01 + 0, / 2 -> 0.01, std 0.1
    assert sample_std([0.5, 0.7, 0.6]) == pytest.approx(0.1)
    assert sample_std([0.3]) is None


def _t_cdf(t: float, df: int, steps: int = 20000) -> float:
    """P(T <= t) by Simpson's rule on the density (independent of the table)."""
    norm = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    h = t / steps
    total = sum((1 if i in (0, steps) else 4 if i % 2 else 2)
                * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2) for i in range(steps + 1))
    return 0.5 + norm * total * h / 3


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 17, 30, 31, 45, 120])
def test_t_quantile_holds_97_5_percent_below(df: int) -> None:
    assert _t_cdf(t_quantile_95(df), df) == pytest.approx(0.975, abs=2e-7)


def test_t_interval_by_hand() -> None:
    # 0.5, 0.7, 0.6: mean 0.6, s 0.1, t(0.975, 2) = 4.3027: half-width 0.43027 / √3 = 0.24842
    interval = t_interval([0.5, 0.7, 0.6])
    assert interval is not None
    assert (interval.low, interval.high) == (pytest.approx(0.35158, abs=1e-5),
                                             pytest.approx(0.84842, abs=1e-5))
    assert t_interval([0.4]) is None
