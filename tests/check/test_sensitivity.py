"""Format-sensitivity statistics: per-configuration counts and the spreads, hand-computed."""

from __future__ import annotations

import pytest

from fcbench.check.sensitivity import count_by_config, header_fields


def test_counts_keep_the_order_configurations_first_appear_in() -> None:
    counts = count_by_config([("b", True), ("a", False), ("b", False), ("a", True), ("c", True)])
    assert list(counts) == ["b", "a", "c"]
    assert [(c.correct, c.total) for c in counts.values()] == [(1, 2), (1, 2), (1, 1)]


def test_the_spreads_in_percentage_points() -> None:
    # accuracies 0.5, 1.0, 0.25: mean 7/12; squared deviations sum to 7/24
    outcomes = [("a", i < 2) for i in range(4)] + [("b", True)] * 4 + [("c", i < 1)
                                                                       for i in range(4)]
    fields = header_fields(count_by_config(outcomes))
    assert fields["accuracy_max_delta"] == 75.0
    assert fields["accuracy_variance"] == pytest.approx(1458.33, abs=1e-9)  # 7/48 * 100^2
    assert fields["accuracy_std"] == 38.19  # sqrt(7/48) * 100
    assert fields["b"] == {"accuracy": 1.0, "correct_count": 4, "total_count": 4}
    assert list(fields)[:3] == ["accuracy_max_delta", "accuracy_variance", "accuracy_std"]


def test_one_configuration_has_no_spread() -> None:
    fields = header_fields(count_by_config([("a", True), ("a", False)]))
    assert fields == {"accuracy_max_delta": 0.0, "accuracy_variance": 0.0, "accuracy_std": 0.0,
                      "a": {"accuracy": 0.5, "correct_count": 1, "total_count": 2}}
    assert header_fields({}) == {"accuracy_max_delta": 0.0, "accuracy_variance": 0.0,
                                 "accuracy_std": 0.0}
