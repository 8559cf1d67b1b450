"""Whether each summary is complete: the one rule every view of a score asks.

Why: the official formulas count a category that was not run as 0 over its dataset size, so a
run of one category printed `V4 Overall 0.83` as if it were a score. A summary is *complete*
when every category it is made of was run and judged at least one case; otherwise it is
*incomplete* and every view (terminal table, leaderboard.json, report, compare) marks it and
says what is missing, and one with nothing under it run shows no number at all. This is
distinct from *partial* (`CategoryScore.partial`: a category run on fewer cases than it holds,
`--limit`/`--sample`/`--ids`), which the views keep marking on their own.

A category that was run but had every case skipped (offline exec) judged nothing: it counts
as missing here, so "skipped" never reads as 0.00.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from fcbench.core import categories as reg
from fcbench.score.aggregate import CategoryScore
from fcbench.score.formulas import V1_DATASET_SIZES, V1_GROUPS, V1_GROUPS_AST, V1_GROUPS_EXEC

Group = tuple[str, tuple[str, ...]]
"""(shown name, the categories it is made of)."""

_NON_LIVE = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
             "parallel_multiple")
_LIVE = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
_IRRELEVANCE = ("irrelevance", "live_irrelevance")

_V4_GROUPS: tuple[Group, ...] = (
    ("Non-Live", _NON_LIVE),
    ("Live", _LIVE),
    ("Irrelevance Detection", _IRRELEVANCE),
    ("Multi-Turn", reg.MULTI_TURN),
    ("Agentic", (*reg.WEB_SEARCH, *reg.MEMORY)),
)
"""The five terms of V4 Overall (`formulas.OVERALL_WEIGHTS`); relevance is not one."""


def _flat(names: Sequence[str]) -> tuple[Group, ...]:
    return tuple((name, (name,)) for name in names)


def _v1_groups(keys: Sequence[str]) -> tuple[Group, ...]:
    return tuple((label, names) for key, label, names in V1_GROUPS if key in keys)


SUMMARY_PARTS: dict[str, tuple[Group, ...]] = {
    "Overall": _V4_GROUPS,
    "Non-Live": _flat(_NON_LIVE),
    "Live": _flat(_LIVE),
    "Irrelevance Detection": _flat(_IRRELEVANCE),
    "Multi-Turn": _flat(reg.MULTI_TURN),
    "Agentic": (("Web Search", reg.WEB_SEARCH), ("Memory", reg.MEMORY)),
    "Web Search": _flat(reg.WEB_SEARCH),
    "Memory": _flat(reg.MEMORY),
    "Relevance Detection": (("Relevance Detection", ("live_relevance",)),),
    "v1 Overall (2024)": tuple((label, names) for _, label, names in V1_GROUPS),
    "v1 AST Summary (2024)": _v1_groups(V1_GROUPS_AST),
    "v1 Exec Summary (2024)": _v1_groups(V1_GROUPS_EXEC),
    "v1 Relevance (2024)": (("Relevance Detection", ("irrelevance",)),),
}
"""Each summary (keyed by the label `formulas.summary_rows`/`v1_rows` give it) as the groups
it averages; a plain average of categories has one group per category."""

SHOWN = {"Overall": "V4 Overall"}
"""Display names where the key does not say its formula."""


@dataclass(frozen=True)
class Completeness:
    """What one summary of one model is made of, and what of that was not run."""

    summary: str
    groups: tuple[Group, ...]
    missing: tuple[str, ...]
    """Categories not run, or run with no case judged (every one skipped), in formula order."""

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(name for _, names in self.groups for name in names)

    @property
    def groups_run(self) -> tuple[str, ...]:
        """The groups with at least one category run."""
        return tuple(g for g, names in self.groups if any(n not in self.missing for n in names))

    @property
    def nothing_run(self) -> bool:
        """No category under this summary was run: it has no number to show."""
        return not self.groups_run

    def describe(self, limit: int | None = 4) -> str:
        """What is missing, e.g. `1 of 5 groups run; not run: Live, Multi-Turn; missing from
        the rest: simple_java, multiple and 2 more` (a summary of categories: `missing 3 of 4
        categories: ...`); `limit` caps the categories named (None: every one)."""
        grouped = any(len(names) > 1 for _, names in self.groups)
        if not grouped:
            return (f"missing {len(self.missing)} of {len(self.categories)} categories: "
                    f"{_listed(self.missing, limit)}")
        run = set(self.groups_run)
        not_run = [g for g, _ in self.groups if g not in run]
        gaps = [n for g, names in self.groups if g in run for n in names if n in self.missing]
        parts = [f"{len(run)} of {len(self.groups)} groups run"]
        if not_run:
            parts.append(f"not run: {', '.join(not_run)}")
        if gaps:
            parts.append(f"missing from the rest: {_listed(gaps, limit)}")
        return "; ".join(parts)

    def as_json(self) -> dict[str, object]:
        """The record leaderboard.json keeps for an incomplete summary."""
        return {"summary": self.summary, "label": SHOWN.get(self.summary, self.summary),
                "groups_run": len(self.groups_run), "groups": len(self.groups),
                "missing": list(self.missing), "nothing_run": self.nothing_run}


def _listed(names: Sequence[str], limit: int | None) -> str:
    shown = names if limit is None else names[:limit]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def judged(score: CategoryScore | None) -> bool:
    """The category was run and at least one of its cases judged."""
    return score is not None and score.evaluated and score.total > 0


def is_partial(score: CategoryScore | None, skipped: int = 0) -> bool:
    """The category was run on fewer cases than it holds (`--limit`, `--sample`, `--ids`):
    the cases judged and the `skipped` ones together fall short of its size. Why skipped
    count: a case skipped because the exec backend cannot reach a service was run and is
    marked on its own (`†k`); an offline exec category is not a smaller run, so it carries no
    `*` (the terminal marked it, the report did not: issue 32)."""
    return (score is not None and score.evaluated
            and score.total + skipped < score.dataset_size)


def partial_summaries(
    scores: Mapping[str, CategoryScore], skipped: Mapping[str, int] | None = None,
) -> set[str]:
    """The summaries (`SUMMARY_PARTS` keys) made in part of partial categories (`is_partial`;
    `skipped`: category -> cases skipped): every view marks them `*` like those categories."""
    found = {name for name, score in scores.items()
             if is_partial(score, (skipped or {}).get(name, 0))}
    return {summary for summary, groups in SUMMARY_PARTS.items()
            if any(n in found for _, names in groups for n in names)}


def completeness(scores: Mapping[str, CategoryScore], summary: str) -> Completeness:
    """The completeness of `summary` (a `SUMMARY_PARTS` key) for a model's `scores` (absent
    or not-evaluated categories alike are missing)."""
    groups = SUMMARY_PARTS[summary]
    missing = tuple(n for _, names in groups for n in names if not judged(scores.get(n)))
    return Completeness(summary, groups, missing)


def summaries_completeness(scores: Mapping[str, CategoryScore]) -> dict[str, Completeness]:
    """Every summary's completeness, in `SUMMARY_PARTS` order."""
    return {summary: completeness(scores, summary) for summary in SUMMARY_PARTS}


def incomplete(scores: Mapping[str, CategoryScore]) -> list[Completeness]:
    """The incomplete summaries of a model, in `SUMMARY_PARTS` order."""
    return [c for c in summaries_completeness(scores).values() if not c.complete]


V4_OVERALL = "Overall"
V1_OVERALL = "v1 Overall (2024)"


def only_2024(scores: Mapping[str, CategoryScore]) -> bool:
    """Every category judged belongs to the 2024 benchmark (and at least one was judged)."""
    run = [name for name, score in scores.items() if judged(score)]
    return bool(run) and all(name in V1_DATASET_SIZES for name in run)


def ranking_summary(boards: Iterable[Mapping[str, CategoryScore]]) -> str:
    """The summary (a `SUMMARY_PARTS` key) that ranks and charts a board of models.

    Why: V4 Overall counts Live, Multi-Turn and Agentic as 0 for a run of the 2024 categories,
    so ranking such a board by it puts every model near 12% in an arbitrary order, while the
    v1 Overall they were made for is meaningful. A board whose models all ran 2024 categories
    only is ranked by v1 Overall; any other board (one model with a V4-only category is enough)
    by V4 Overall. An empty board ranks by V4 Overall.
    """
    boards = list(boards)
    if boards and all(only_2024(scores) for scores in boards):
        return V1_OVERALL
    return V4_OVERALL


V1_ONLY = tuple(n for n in V1_DATASET_SIZES if n not in reg.ALL_SCORING)
"""The 2024-only categories (executable, REST)."""


def shows_v1(boards: Iterable[Mapping[str, CategoryScore]], asked: bool | None = None) -> bool:
    """Whether a view of these models shows the 2024 summaries (`asked`: the user's choice).

    Why: for a run of V4 categories the 2024 Overall only repeats a subset and reads as a
    second score, so it is hidden; it is shown when a 2024-only category (executable, REST)
    was run, and whenever it ranks the board (`ranking_summary`), since a board must show
    the number it is ranked by.
    """
    if asked is not None:
        return asked
    boards = list(boards)
    ran_v1_only = any(n in scores and scores[n].evaluated for scores in boards for n in V1_ONLY)
    return ran_v1_only or ranking_summary(boards) == V1_OVERALL
