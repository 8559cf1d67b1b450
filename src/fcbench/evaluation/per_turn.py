"""A judged category's per-turn accuracy (fcbench metric) from its verdicts: the outcomes
the multi-turn kind leaves on each verdict (`check.turns`), counted (`score.per_turn`).
Skipped cases are left out, as from the official counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fcbench.check.turns import TURNS
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.score.per_turn import PerTurn, summarise


def per_turn_of(category: Category,
                judged: Sequence[tuple[TestCase, dict[str, Any], Verdict]]) -> PerTurn | None:
    """None when no verdict carries outcomes (every category but multi-turn)."""
    return summarise(category.name, [
        (case.id, verdict.extras[TURNS]) for case, _, verdict in judged
        if TURNS in verdict.extras and "skipped" not in verdict.extras])
