"""Per-turn accuracy (fcbench metric): the share of multi-turn turns whose state and
execution results match the ground truth's (`check.turns` says what a turn is), beside the
official all-or-nothing verdict and never inside any official score, summary or Overall.

Why a module of its own: the same counts feed the terminal, the fcbench CSV, the exports and
the report, each from the per-case outcomes a judged category records (`results.per_turn`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["METRIC", "PerTurn", "from_json", "per_turn_json", "pooled", "summarise"]

METRIC = "Per-turn accuracy (fcbench metric)"
"""The metric's name wherever it is shown: fcbench's own, not bfcl-eval's."""

Outcomes = Sequence[bool | None]


@dataclass(frozen=True)
class PerTurn:
    """One category's per-turn counts, and each case's outcomes (None: a turn with nothing
    expected, not counted)."""

    category: str
    right: int
    turns: int
    cases: Mapping[str, Outcomes] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return self.right / self.turns if self.turns else 0.0

    def as_json(self) -> dict[str, Any]:
        """The sidecar file's document (and the exports' per-category block, cases aside)."""
        return {"metric": METRIC, "category": self.category, "accuracy": self.accuracy,
                "turns_right": self.right, "turns": self.turns,
                "cases": [{"id": case_id, "turns": list(outcomes)}
                          for case_id, outcomes in self.cases.items()]}


def summarise(category: str, judged: Iterable[tuple[str, Outcomes]]) -> PerTurn | None:
    """The category's counts from (case id, outcomes) in case order; None when no case has
    outcomes (not a multi-turn category)."""
    cases = {case_id: list(outcomes) for case_id, outcomes in judged}
    if not cases:
        return None
    outcomes = [o for listed in cases.values() for o in listed if o is not None]
    return PerTurn(category, sum(1 for o in outcomes if o), len(outcomes), cases)


def from_json(doc: Mapping[str, Any]) -> PerTurn:
    """A sidecar document read back; the counts are recomputed from the cases (a hand-edited
    total cannot disagree with them). Raises ValueError on a malformed one."""
    listed = doc.get("cases")
    if not isinstance(listed, list) or not isinstance(doc.get("category"), str):
        raise ValueError("not a per-turn document (no category or cases)")
    judged = []
    for case in listed:
        turns = case.get("turns") if isinstance(case, Mapping) else None
        if not isinstance(turns, list) or not all(t is None or type(t) is bool for t in turns):
            raise ValueError(f"malformed per-turn case: {case!r}"[:200])
        judged.append((str(case.get("id")), turns))
    found = summarise(doc["category"], judged)
    return found if found is not None else PerTurn(doc["category"], 0, 0)


def pooled(scores: Iterable[PerTurn]) -> PerTurn | None:
    """Every turn of several categories together (turn-weighted; no official formula has
    such a summary, so none is imitated); None for none."""
    listed = list(scores)
    if not listed:
        return None
    return PerTurn("multi_turn", sum(s.right for s in listed), sum(s.turns for s in listed))


def per_turn_json(found: Mapping[str, PerTurn]) -> dict[str, Any]:
    """`per_turn_accuracy` for leaderboard.json and the fcbench export, when a multi-turn
    category was judged; nothing otherwise (a document without one is unchanged)."""
    everything = pooled(found.values())
    if everything is None:
        return {}
    return {"per_turn_accuracy": {
        "metric": METRIC,
        "categories": {name: {"accuracy": s.accuracy, "turns_right": s.right,
                              "turns": s.turns, "cases": len(s.cases)}
                       for name, s in sorted(found.items())},
        "all_turns": {"accuracy": everything.accuracy, "turns_right": everything.right,
                      "turns": everything.turns},
    }}
