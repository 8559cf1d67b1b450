"""Stripes of a data set: the share of the cases an oracle test runs in one mode or
configuration, the stripes of all its modes together covering every case once, and every
category present in each stripe (so each mode still meets every kind of case)."""

from __future__ import annotations

from collections.abc import Iterable


def stripe(categories: Iterable[str], part: int, parts: int = 2) -> list[str]:
    """The ids of every `parts`-th case of each category (data-set order), from position
    `part` on."""
    from fcbench.dataset.load import load_category

    return [case.id for name in categories for case in load_category(name)[part::parts]]
