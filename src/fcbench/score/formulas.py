"""The leaderboard formulas: how category accuracies become group and overall scores.

Everything here mirrors bfcl-eval 2026.3.23 (spec §1.4), plus the 2024 v1 overall (§1.5).

A `Summary` carries an accuracy, the number of cases behind it and an `na` flag that says some
contributing category was not evaluated. The official tool computes every aggregate in one of
two flavours that differ only in display: the "summary" flavour shows "N/A" when any input is
N/A, the "overall" flavour always shows the number (missing categories count as 0). The number
is the same in both, so one `Summary` serves both flavours and `Summary.value(flavour)` picks the
display. For aggregates of aggregates (Overall, Agentic, ...) the summary flavour here is N/A as
soon as any category underneath is missing; the official tool only ever displays those in the
overall flavour, so this choice never changes an official column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum

from fcbench.core import categories as reg
from fcbench.score.aggregate import CategoryScore


class Flavour(str, Enum):
    """How an aggregate is displayed when some category under it is missing."""

    SUMMARY = "summary"  # "N/A"
    OVERALL = "overall"  # the number, missing categories counted as 0


@dataclass(frozen=True)
class Summary:
    """An aggregate accuracy, the case count behind it, and whether some input was missing."""

    accuracy: float
    total: int
    na: bool = False

    @classmethod
    def of(cls, score: CategoryScore) -> Summary:
        """A category score as a formula input (a missing one is 0 over its dataset size)."""
        return cls(score.accuracy, score.total, not score.evaluated)

    def value(self, flavour: Flavour) -> float | None:
        """The displayed value: None stands for "N/A"."""
        return None if self.na and flavour is Flavour.SUMMARY else self.accuracy


def format_percent(value: float | None) -> str:
    """The leaderboard's accuracy format: `NN.NN%`, or `N/A`."""
    return "N/A" if value is None else f"{value * 100:.2f}%"


# -- The three averaging primitives ---------------------------------------------------------


def weighted(parts: Sequence[Summary]) -> Summary:
    """Micro-average: Σ accuracy·count / Σ count (0 when nothing was counted)."""
    total = 0
    weighted_sum = 0.0
    for part in parts:
        total += part.total
        weighted_sum += part.accuracy * part.total
    accuracy = weighted_sum / total if total else 0.0
    return Summary(accuracy, total, any(p.na for p in parts))


def unweighted(parts: Sequence[Summary]) -> Summary:
    """Macro-average: the plain mean of the accuracies, counts ignored."""
    if not parts:
        raise ValueError("cannot average no accuracies")
    accuracy_sum = 0.0
    for part in parts:
        accuracy_sum += part.accuracy
    return Summary(accuracy_sum / len(parts), sum(p.total for p in parts), any(p.na for p in parts))


def percentage_weighted(parts: Sequence[Summary], weights: Sequence[float]) -> Summary:
    """Σ accuracy·wᵢ with fixed weights, normalised to sum to 1 first (as the official does)."""
    if len(parts) != len(weights):
        raise ValueError("one weight per accuracy is needed")
    weight_sum = sum(weights)
    if weight_sum <= 0:
        raise ValueError("weights must sum to more than 0")
    accuracy = 0.0
    for part, weight in zip(parts, [w / weight_sum for w in weights], strict=True):
        accuracy += part.accuracy * weight
    return Summary(accuracy, sum(p.total for p in parts), any(p.na for p in parts))


# -- V4 (current) ---------------------------------------------------------------------------

OVERALL_WEIGHTS: tuple[tuple[str, float], ...] = (
    ("non_live", 10),
    ("live", 10),
    ("irrelevance", 10),
    ("multi_turn", 30),
    ("agentic", 40),
)
"""The V4 Overall weights (CHANGELOG: Non-Live 10, Live 10, Irrelevance 10, Multi-Turn 30,
Agentic 40); relevance and format sensitivity are not part of Overall."""


@dataclass(frozen=True)
class V4Summary:
    """Every V4 aggregate of one model (spec §1.4)."""

    simple_ast_nonlive: Summary
    non_live: Summary
    live: Summary
    irrelevance: Summary
    relevance: Summary
    multi_turn: Summary
    web_search: Summary
    memory: Summary
    agentic: Summary
    overall: Summary

    def as_dict(self) -> dict[str, Summary]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def v4_summary(scores: Mapping[str, CategoryScore]) -> V4Summary:
    """All V4 aggregates from a score for every scoring category (see `with_missing`)."""
    s = _inputs(scores, reg.ALL_SCORING)
    simple = unweighted([s["simple_python"], s["simple_java"], s["simple_javascript"]])
    # Irrelevance left Non-Live and Live in V4; it has its own Overall term.
    non_live = unweighted([simple, s["multiple"], s["parallel"], s["parallel_multiple"]])
    live = weighted(
        [s["live_simple"], s["live_multiple"], s["live_parallel"], s["live_parallel_multiple"]]
    )
    irrelevance = unweighted([s["irrelevance"], s["live_irrelevance"]])
    multi_turn = unweighted([s[name] for name in reg.MULTI_TURN])
    web_search = unweighted([s[name] for name in reg.WEB_SEARCH])
    memory = unweighted([s[name] for name in reg.MEMORY])
    agentic = unweighted([web_search, memory])
    groups = {"non_live": non_live, "live": live, "irrelevance": irrelevance,
              "multi_turn": multi_turn, "agentic": agentic}
    overall = percentage_weighted(
        [groups[name] for name, _ in OVERALL_WEIGHTS], [w for _, w in OVERALL_WEIGHTS]
    )
    return V4Summary(simple, non_live, live, irrelevance, s["live_relevance"], multi_turn,
                     web_search, memory, agentic, overall)


def _inputs(scores: Mapping[str, CategoryScore], names: Sequence[str]) -> dict[str, Summary]:
    absent = [name for name in names if name not in scores]
    if absent:
        raise ValueError(
            f"no score for {', '.join(absent)}; complete the scores with with_missing() so "
            "missing categories count as 0 over their dataset size"
        )
    return {name: Summary.of(scores[name]) for name in names}


# -- v1 (2024) ------------------------------------------------------------------------------

V1_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("simple_ast", "Simple AST", ("simple_python", "simple_java", "simple_javascript")),
    ("multiple_ast", "Multiple AST", ("multiple",)),
    ("parallel_ast", "Parallel AST", ("parallel",)),
    ("parallel_multiple_ast", "Parallel Multiple AST", ("parallel_multiple",)),
    ("simple_exec", "Simple Exec", ("exec_simple", "rest")),
    ("multiple_exec", "Multiple Exec", ("exec_multiple",)),
    ("parallel_exec", "Parallel Exec", ("exec_parallel",)),
    ("parallel_multiple_exec", "Parallel Multiple Exec", ("exec_parallel_multiple",)),
    # The 2024 "relevance" category is today's irrelevance (success = no call).
    ("relevance", "Relevance Detection", ("irrelevance",)),
)
"""The nine groups of the original benchmark: (key, 2024 label, today's category names)."""


V1_GROUPS_AST = ("simple_ast", "multiple_ast", "parallel_ast", "parallel_multiple_ast")
V1_GROUPS_EXEC = ("simple_exec", "multiple_exec", "parallel_exec", "parallel_multiple_exec")


V1_DATASET_SIZES: dict[str, int] = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200,
    "parallel": 200, "parallel_multiple": 200, "exec_simple": 100, "rest": 70,
    "exec_multiple": 50, "exec_parallel": 50, "exec_parallel_multiple": 40, "irrelevance": 240,
}
"""The entry counts of the original benchmark's scored categories (spec §1.5; 1,700 in all).
A category without a score counts as 0 over this many, whatever data set is installed: the
2024 benchmark is frozen, so its weights are too."""


@dataclass(frozen=True)
class V1Summary:
    """The 2024 aggregation (Apr–Aug 2024, spec §1.5): nine groups, two summaries, Overall."""

    groups: dict[str, Summary]
    ast_summary: Summary
    exec_summary: Summary
    overall: Summary
    evaluated: tuple[str, ...] = ()
    """The v1 categories that were evaluated (none: every number above is a made-up 0)."""

    @property
    def scored(self) -> bool:
        return bool(self.evaluated)


def v1_overall(scores: Mapping[str, CategoryScore]) -> V1Summary:
    """The 2024 Overall: an entry-weighted average over the nine groups.

    A category that was not evaluated counts as 0 over its entry count, as the 2024 table's
    footnote says and as today's formulas count a missing category (the in-repo script of
    2024 let it drop out instead, which let a model that ran only the easy categories rank
    first). An evaluated category weighs by the cases judged (fewer in a partial run, or when
    executable cases were skipped). The AST and Exec summaries are plain means of four groups.
    """
    groups = {
        key: weighted([_v1_input(scores, name) for name in names])
        for key, _, names in V1_GROUPS
    }
    ast = unweighted([groups[k] for k in V1_GROUPS_AST])
    exe = unweighted([groups[k] for k in V1_GROUPS_EXEC])
    evaluated = tuple(
        name for name in V1_DATASET_SIZES if name in scores and scores[name].evaluated
    )
    return V1Summary(groups, ast, exe, weighted(list(groups.values())), evaluated)


def _v1_input(scores: Mapping[str, CategoryScore], name: str) -> Summary:
    score = scores.get(name)
    if score is None or not score.evaluated:
        size = score.dataset_size if score is not None else V1_DATASET_SIZES[name]
        return Summary(0.0, size, na=True)
    return Summary.of(score)


# -- What fcbench prints --------------------------------------------------------------------


def summary_rows(
    scores: Mapping[str, CategoryScore], *, include_v1: bool = False
) -> list[tuple[str, float | None]]:
    """The (label, value) rows of fcbench's score summary; None means "N/A".

    Each row uses the flavour of the matching `data_overall.csv` column, so the printed
    summary and the CSV agree.
    """
    v4 = v4_summary(scores)
    rows: list[tuple[str, float | None]] = [
        ("Overall", v4.overall.value(Flavour.OVERALL)),
        ("Non-Live", v4.non_live.value(Flavour.SUMMARY)),
        ("Live", v4.live.value(Flavour.OVERALL)),
        ("Irrelevance Detection", v4.irrelevance.value(Flavour.SUMMARY)),
        ("Relevance Detection", v4.relevance.value(Flavour.SUMMARY)),
        ("Multi-Turn", v4.multi_turn.value(Flavour.OVERALL)),
        ("Agentic", v4.agentic.value(Flavour.OVERALL)),
        ("Web Search", v4.web_search.value(Flavour.SUMMARY)),
        ("Memory", v4.memory.value(Flavour.SUMMARY)),
    ]
    if include_v1:
        rows.extend(v1_rows(scores))
    return rows


def v1_rows(scores: Mapping[str, CategoryScore]) -> list[tuple[str, float | None]]:
    """The 2024 Overall and summaries; Overall is N/A only when no v1 category was scored."""
    v1 = v1_overall(scores)
    return [
        ("v1 Overall (2024)", v1.overall.accuracy if v1.scored else None),
        ("v1 AST Summary (2024)", v1.ast_summary.value(Flavour.SUMMARY)),
        ("v1 Exec Summary (2024)", v1.exec_summary.value(Flavour.SUMMARY)),
    ]
