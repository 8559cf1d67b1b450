"""Wilson intervals and the exact McNemar test, against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from fcbench.score.intervals import Interval, mcnemar_exact, wilson


def test_wilson_matches_the_textbook_formula() -> None:
    # 81/100, z = 1.96: centre (0.81 + 1.9208/100) / 1.038416, half-width from the formula.
    z = 1.959963984540054
    p, n = 0.81, 100
    centre = (p + z * z / 200) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    interval = wilson(81, 100)
    assert interval == Interval(pytest.approx(centre - half), pytest.approx(centre + half))
    assert interval is not None
    assert interval.low == pytest.approx(0.7222, abs=1e-4)
    assert interval.high == pytest.approx(0.8749, abs=1e-4)


def test_wilson_at_the_edges_stays_in_range() -> None:
    zero, full = wilson(0, 50), wilson(50, 50)
    assert zero is not None and full is not None
    assert zero.low == 0 and 0 < zero.high < 0.08
    assert full.high == 1 and 0.92 < full.low < 1
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_mcnemar_exact_small_cases_by_hand() -> None:
    # 1 gained, 5 lost: n = 6, P(X <= 1) = (1 + 6) / 64, two-sided 14/64.
    assert mcnemar_exact(1, 5) == pytest.approx(14 / 64)
    assert mcnemar_exact(5, 1) == pytest.approx(14 / 64)
    # 0 vs 10: 2 / 1024.
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)
    # Balanced flips: capped at 1.
    assert mcnemar_exact(4, 4) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_mcnemar_exact_large_counts_do_not_underflow_to_nonsense() -> None:
    p = mcnemar_exact(400, 600)
    assert 0 < p < 1e-9
    assert mcnemar_exact(500, 500) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)
