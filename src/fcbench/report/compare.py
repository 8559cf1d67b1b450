"""`fcbench compare A B`: what changed between two scored runs, and whether it is more than
chance.

Per category: both accuracies and their delta over the cases both runs judged (a case one
run skipped or did not answer is left out of both sides, and the count of shared cases is
shown beside; each run's own score stays in the JSON), the cases that flipped each way with
their error types, and the exact McNemar p-value on the same shared cases
(`score.intervals.mcnemar_exact`: only flips carry information when the same cases are
answered twice). The leaderboard summaries are compared as deltas; they mix categories with
fixed weights, so the pooled McNemar test over every paired case is given beside them as the
overall evidence. Cases whose ground truth is disputed upstream are marked, and each
category's delta is also shown without them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.core import categories as reg
from fcbench.layout import REPORT_NAME
from fcbench.report.corrections import (
    compare_line,
    profile_of,
    upstream_of_headers,
    upstream_scores,
)
from fcbench.report.table import (
    INCOMPLETE_MARK,
    NOTHING_RUN,
    SHOWN,
    displayed_summaries,
    incomplete_note_lines,
    summary_marks,
)
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.completeness import Completeness, shows_v1
from fcbench.score.disputed import Disputed, accuracy_without
from fcbench.score.formulas import summary_rows, v1_rows
from fcbench.score.intervals import mcnemar_exact
from fcbench.score.runs import CategoryRun, ModelRun

if TYPE_CHECKING:
    from rich.console import Console

TEST_NAME = "McNemar exact (two-sided, binomial on the flipped cases)"


@dataclass(frozen=True)
class Flip:
    id: str
    error_type: str | None
    """The failing side's error type (A's for a gain, B's for a loss)."""
    disputed: bool = False


@dataclass
class CategoryDelta:
    category: str
    a: CategoryScore
    b: CategoryScore
    paired: int
    """The cases both runs judged: every figure of the comparison is over these."""
    gained: list[Flip] = field(default_factory=list)
    lost: list[Flip] = field(default_factory=list)
    undisputed_delta: float | None = None
    a_paired_correct: int = 0
    b_paired_correct: int = 0
    a_skipped: int = 0
    """Cases a run did not judge (not in `a.total`), e.g. a web service out of reach."""
    b_skipped: int = 0

    @property
    def a_accuracy(self) -> float | None:
        """A's accuracy over the shared cases (None: no shared case)."""
        return self.a_paired_correct / self.paired if self.paired else None

    @property
    def b_accuracy(self) -> float | None:
        return self.b_paired_correct / self.paired if self.paired else None

    @property
    def delta(self) -> float | None:
        """B − A over the shared cases: the same denominator on both sides."""
        if self.a_accuracy is None or self.b_accuracy is None:
            return None
        return self.b_accuracy - self.a_accuracy

    @property
    def unshared(self) -> bool:
        """Either run judged cases the other did not (skipped, or a partial run)."""
        return self.paired != self.a.total or self.paired != self.b.total

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.gained), len(self.lost))


@dataclass
class Comparison:
    a: str
    b: str
    categories: list[CategoryDelta]
    summaries: list[tuple[str, float | None, float | None]]
    only_a: list[str]
    only_b: list[str]
    names: tuple[str, str] = ("A", "B")
    """Short names for column headers (`short_names`); `a` and `b` are the full labels."""
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    """summary -> approximate 95% interval of its delta (`summary_intervals`)."""
    reports: tuple[dict[str, str] | None, dict[str, str] | None] = (None, None)
    """Each run's HTML report, if its score folder has one (`report_link`): where a flipped
    case links to, on the failing side."""
    corrections: tuple[str, str] = ("none", "none")
    """Each side's corrections profile (`report.corrections.profile_of`)."""
    upstream_summaries: list[tuple[str, float | None, float | None]] = field(
        default_factory=list)
    gaps: tuple[dict[str, Completeness], dict[str, Completeness]] = ({}, {})
    """Each side's incomplete summaries (`table.summary_marks`, the rule every view follows):
    marked `‡` with what they miss, `—` when nothing under one was run."""
    """The summaries with each side's categories as upstream scores them, when a side's
    corrections profile changed a category's score ([] otherwise)."""

    @property
    def holm_p_values(self) -> list[float]:
        """Each category's p-value adjusted for testing every category (`holm`)."""
        return holm([c.p_value for c in self.categories])

    @property
    def pooled_gained(self) -> int:
        return sum(len(c.gained) for c in self.categories)

    @property
    def pooled_lost(self) -> int:
        return sum(len(c.lost) for c in self.categories)

    @property
    def pooled_p_value(self) -> float:
        return mcnemar_exact(self.pooled_gained, self.pooled_lost)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the input's order: with many categories tested,
    some small raw p-values are expected by chance; the adjusted ones keep the chance of any
    false "significant" below the level read off them."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def compare(
    a: ModelRun, b: ModelRun, dataset_sizes: Mapping[str, int], disputed: Disputed | None = None
) -> Comparison:
    """Compare two runs category by category (categories in registry order)."""
    shared = [c.name for c in reg.all_categories()
              if c.name in a.categories and c.name in b.categories]
    deltas = [_category_delta(name, a.categories[name], b.categories[name], disputed)
              for name in shared]
    summaries = _summaries(a, b, dataset_sizes)
    return Comparison(
        label(a), label(b), deltas, summaries,
        sorted(set(a.categories) - set(b.categories)),
        sorted(set(b.categories) - set(a.categories)),
        short_names(a, b),
        summary_intervals(summaries, deltas, _weights(a, dataset_sizes),
                          _weights(b, dataset_sizes)),
        (report_link(a), report_link(b)),
        (profile_of(a.score_dir, a.model), profile_of(b.score_dir, b.model)),
        _upstream_summaries(a, b, dataset_sizes),
        (_gaps(a, summaries), _gaps(b, summaries)),
    )


def _gaps(run: ModelRun, summaries: Sequence[tuple[str, Any, Any]]) -> dict[str, Completeness]:
    return summary_marks({n: c.score for n, c in run.categories.items()},
                         [name for name, _, _ in summaries])


def label(run: ModelRun) -> str:
    return f"{run.score_dir}:{run.model}"


def report_link(run: ModelRun) -> dict[str, str] | None:
    """The run's report (the `report.html` that `evaluate` leaves in its score folder) as a
    file URI and the model's name in it: the compare page links a flipped case to
    `uri#case=<model>/<id>`, which the report opens. None: no report there."""
    page = run.score_dir / REPORT_NAME
    if not page.is_file():
        return None
    return {"uri": page.resolve().as_uri(), "model": run.model}


def relative_link(report: Mapping[str, str], page: Path) -> dict[str, str]:
    """`report_link`'s record with its address relative to the folder of `page` (the compare
    page): an absolute `file:///...` link broke once the folders were shared or moved
    together. Where no relative path exists (another drive) the absolute URI stays."""
    import os
    from urllib.parse import quote, unquote, urlparse

    target = Path(unquote(urlparse(report["uri"]).path))
    try:
        relative = os.path.relpath(target, Path(page).resolve().parent)
    except ValueError:
        return dict(report)
    return {**report, "uri": quote(Path(relative).as_posix())}


def short_names(a: ModelRun, b: ModelRun) -> tuple[str, str]:
    """What the columns are headed by: the model names; for two runs of one model, their
    score folders' names; A and B only when those are the same too (a reader should not
    have to look up which letter is which model)."""
    for pair in ((a.model, b.model), (a.score_dir.name, b.score_dir.name)):
        if pair[0] != pair[1]:
            return pair
    return ("A", "B")


def _category_delta(
    name: str, a: CategoryRun, b: CategoryRun, disputed: Disputed | None
) -> CategoryDelta:
    in_b = set(b.ids)
    paired = [i for i in a.ids if i in in_b]
    delta = CategoryDelta(name, a.score, b.score, len(paired), a_skipped=len(a.skipped),
                          b_skipped=len(b.skipped))
    for case_id in paired:
        was, now = a.valid(case_id), b.valid(case_id)
        delta.a_paired_correct += was
        delta.b_paired_correct += now
        contested = disputed is not None and disputed.contains(case_id)
        if now and not was:
            delta.gained.append(Flip(case_id, a.error_type(case_id), contested))
        elif was and not now:
            delta.lost.append(Flip(case_id, b.error_type(case_id), contested))
    if disputed is not None and delta.paired:  # no shared case: no delta to show
        both = set(paired)
        delta.undisputed_delta = (_accuracy_without(b, disputed, both)
                                  - _accuracy_without(a, disputed, both))
    return delta


def _accuracy_without(run: CategoryRun, disputed: Disputed, shared: set[str]) -> float:
    judged = ((i, run.valid(i)) for i in run.ids if i in shared)
    correct, total = accuracy_without(judged, disputed)
    return correct / total if total else 0.0


def _summary_values(
    scores: Mapping[str, CategoryScore], sizes: Mapping[str, int], v1: bool | None = None,
) -> dict[str, float | None]:
    """The summaries as `evaluate` shows them: the 2024 ones when `v1`
    (`completeness.shows_v1` of both sides, as `evaluate` and the report decide), None where
    nothing under one was run or judged."""
    complete = with_missing(scores, reg.ALL_SCORING, sizes)
    labels = [label for label, _ in summary_rows(complete)]
    if shows_v1([scores]) if v1 is None else v1:
        labels += [label for label, _ in v1_rows(complete)]
    values = displayed_summaries(scores, complete, labels)
    empty = {label for label, gap in summary_marks(scores, labels).items() if gap.nothing_run}
    return {label: None if label in empty else values.get(label) for label in labels}


def _summaries(
    a: ModelRun, b: ModelRun, sizes: Mapping[str, int]
) -> list[tuple[str, float | None, float | None]]:
    sa = {n: c.score for n, c in a.categories.items()}
    sb = {n: c.score for n, c in b.categories.items()}
    v1 = shows_v1([sa, sb])
    ra, rb = _summary_values(sa, sizes, v1), _summary_values(sb, sizes, v1)
    return [(name, ra.get(name), rb.get(name)) for name in dict.fromkeys([*ra, *rb])]


def _upstream_summaries(
    a: ModelRun, b: ModelRun, sizes: Mapping[str, int]
) -> list[tuple[str, float | None, float | None]]:
    """`_summaries` with each side's corrected categories at their upstream score (score
    headers' `corrections_upstream`); [] when neither side has one."""
    sides = [upstream_of_headers({n: c.header for n, c in run.categories.items()})
             for run in (a, b)]
    if not any(sides):
        return []
    v1 = shows_v1([{n: c.score for n, c in run.categories.items()} for run in (a, b)])
    ra, rb = (_summary_values(upstream_scores({n: c.score for n, c in run.categories.items()},
                                              side), sizes, v1)
              for run, side in zip((a, b), sides, strict=True))
    return [(name, ra.get(name), rb.get(name)) for name in dict.fromkeys([*ra, *rb])]


Weights = dict[str, dict[str, float]]
"""summary -> category -> how much the summary moves per unit of the category's accuracy."""

Z_95 = 1.959963984540054


def _weights(run: ModelRun, sizes: Mapping[str, int]) -> Weights:
    """Each category's weight in each summary, read off the formulas themselves: every
    summary is a fixed linear mix of category accuracies, so raising one category's
    accuracy by 1 moves a summary by exactly that category's weight in it (one formula, not
    a second copy of the weights to keep in step)."""
    scores = {n: c.score for n, c in run.categories.items()}
    base = _summary_values(scores, sizes)
    weights: Weights = {label: {} for label in base}
    for name, score in scores.items():
        if score.total == 0:
            continue
        bumped = {**scores, name: replace(score, correct=score.correct + score.total)}
        for label, value in _summary_values(bumped, sizes).items():
            before = base.get(label)
            if value is not None and before is not None and value != before:
                weights[label][name] = value - before
    return weights


def summary_intervals(
    summaries: Sequence[tuple[str, float | None, float | None]],
    deltas: Sequence[CategoryDelta], weights_a: Weights, weights_b: Weights,
) -> dict[str, tuple[float, float]]:
    """An approximate 95% interval for each summary delta: the summary's weights (the two
    runs' mean) applied to each category's paired delta, whose variance comes from its flips
    ((g + l)/n − d²)/n, categories independent, normal approximation. Summaries mix
    categories, so no exact test applies; the pooled McNemar test is the exact evidence."""
    found: dict[str, tuple[float, float]] = {}
    for name, va, vb in summaries:
        if va is None or vb is None:
            continue
        variance = 0.0
        for c in deltas:
            weight = (weights_a.get(name, {}).get(c.category, 0.0)
                      + weights_b.get(name, {}).get(c.category, 0.0)) / 2
            if weight and c.paired:
                n, flips = c.paired, len(c.gained) + len(c.lost)
                d = (len(c.gained) - len(c.lost)) / n
                variance += weight * weight * max(0.0, flips / n - d * d) / n
        half = Z_95 * math.sqrt(variance)
        found[name] = (vb - va - half, vb - va + half)
    return found


# -- Output -----------------------------------------------------------------------------------


def as_json(comparison: Comparison, page: Path | None = None) -> dict[str, Any]:
    """Everything `compare` found, for scripts (`fcbench compare --json`); `corrections`
    only when a side was scored under a profile; `page`: the compare page the data goes
    into, whose report links are then relative to it (`relative_link`)."""
    profiles = ({"corrections": {"a": comparison.corrections[0], "b": comparison.corrections[1]}}
                if compare_line(*comparison.corrections) is not None else {})
    return {
        "a": comparison.a,
        "b": comparison.b,
        "names": list(comparison.names),
        "reports": [report if report is None or page is None else relative_link(report, page)
                    for report in comparison.reports],
        **profiles,
        "test": TEST_NAME,
        "categories": [
            {
                "category": c.category,
                "a": {"correct": c.a.correct, "total": c.a.total, "accuracy": _judged(c.a),
                      "skipped": c.a_skipped, "shared_correct": c.a_paired_correct,
                      "shared_accuracy": c.a_accuracy},
                "b": {"correct": c.b.correct, "total": c.b.total, "accuracy": _judged(c.b),
                      "skipped": c.b_skipped, "shared_correct": c.b_paired_correct,
                      "shared_accuracy": c.b_accuracy},
                "delta": c.delta,
                "delta_without_disputed": c.undisputed_delta,
                "paired_cases": c.paired,
                "p_value": c.p_value if c.paired else None,
                "p_holm": p_holm if c.paired else None,
                "gained": [_flip_json(f) for f in c.gained],
                "lost": [_flip_json(f) for f in c.lost],
            }
            for c, p_holm in zip(comparison.categories, comparison.holm_p_values, strict=True)
        ],
        "summaries": [
            {"summary": name, "label": SHOWN.get(name, name), "a": va, "b": vb,
             "delta": None if va is None or vb is None else vb - va,
             "interval": comparison.intervals.get(name),
             "text": [summary_text(va, side.get(name)) for side in comparison.gaps],
             "incomplete": [_described(side.get(name)) for side in comparison.gaps]}
            for name, va, vb in comparison.summaries
        ],
        "incomplete_notes": compare_notes(comparison),
        **_upstream_json(comparison),
        "pooled": {"gained": comparison.pooled_gained, "lost": comparison.pooled_lost,
                   "p_value": comparison.pooled_p_value},
        "only_in_a": comparison.only_a,
        "only_in_b": comparison.only_b,
    }


def _judged(score: CategoryScore) -> float | None:
    """A side's own accuracy; None when it judged no case (all skipped), never 0.00."""
    return score.accuracy if score.total else None


def summary_text(value: float | None, gap: Completeness | None) -> str:
    """A summary as compare shows it: `—` nothing run, else the number (N/A) and `‡` when
    incomplete (`score.completeness`)."""
    if gap is not None and gap.nothing_run:
        return NOTHING_RUN
    return _pct(value) + (INCOMPLETE_MARK if gap is not None else "")


def _described(gap: Completeness | None) -> str | None:
    return None if gap is None or gap.nothing_run else gap.describe()


def _upstream_json(comparison: Comparison) -> dict[str, Any]:
    """`upstream_summaries`, only when a side's profile changed a score."""
    if not comparison.upstream_summaries:
        return {}
    return {"upstream_summaries": [
        {"summary": name, "a": va, "b": vb,
         "delta": None if va is None or vb is None else vb - va}
        for name, va, vb in comparison.upstream_summaries]}


def _flip_json(flip: Flip) -> dict[str, Any]:
    return {"id": flip.id, "error_type": flip.error_type, "disputed": flip.disputed}


def print_comparison(comparison: Comparison, console: Console, flips_shown: int = 5) -> None:
    """The terminal form: a category table, the summaries, then the flipped cases."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    name_a, name_b = comparison.names
    console.print(f"A: {name_a} = {comparison.a}\nB: {name_b} = {comparison.b}",
                  highlight=False, markup=False)
    profiles = compare_line(*comparison.corrections)
    if profiles is not None:
        console.print(profiles, highlight=False, markup=False)
    table = Table(box=box.SIMPLE_HEAD, title="per category (accuracy %)", title_justify="left")
    table.add_column("category", no_wrap=True)
    for header in (name_a, name_b):  # long names fold in the header: the numbers never do
        table.add_column(escape(header), justify="right", overflow="fold", min_width=6)
    for header in ("Δ", "+", "−", "p", "p (Holm)", "shared"):
        table.add_column(header, justify="right", no_wrap=True)
    for c, p_holm in zip(comparison.categories, comparison.holm_p_values, strict=True):
        table.add_row(escape(c.category) + (SHARED_MARK if c.unshared else ""),
                      _pct(c.a_accuracy), _pct(c.b_accuracy), _signed(c.delta),
                      str(len(c.gained)), str(len(c.lost)),
                      _p(c.p_value) if c.paired else "N/A", _p(p_holm) if c.paired else "N/A",
                      str(c.paired))
    console.print(table)
    console.print(legend(comparison.names), highlight=False, markup=False)
    _print_unshared(comparison.categories, console)
    _print_disputed(comparison.categories, console)
    summary = Table(box=box.SIMPLE_HEAD, title="summaries (accuracy %)", title_justify="left")
    for header in ("summary", name_a, name_b, "Δ", "Δ ≈95% interval"):
        summary.add_column(escape(header), justify="left" if header == "summary" else "right",
                           overflow="fold")
    gap_a, gap_b = comparison.gaps
    for name, va, vb in comparison.summaries:
        delta = None if va is None or vb is None else vb - va
        summary.add_row(escape(SHOWN.get(name, name)), summary_text(va, gap_a.get(name)),
                        summary_text(vb, gap_b.get(name)), _signed(delta),
                        _interval(comparison.intervals.get(name)))
    console.print(summary)
    for line in compare_notes(comparison):
        console.print(line, highlight=False, markup=False)
    _print_upstream(comparison, console)
    console.print(INTERVAL_NOTE, highlight=False, markup=False)
    console.print(
        f"all paired cases: +{comparison.pooled_gained} −{comparison.pooled_lost}, "
        f"p = {_p(comparison.pooled_p_value)} ({TEST_NAME})", highlight=False)
    _print_flips(comparison.categories, console, flips_shown)
    for side, names in (("A", comparison.only_a), ("B", comparison.only_b)):
        if names:
            console.print(f"only in {side} (not compared): {', '.join(names)}", highlight=False,
                          markup=False)


def _print_upstream(comparison: Comparison, console: Console) -> None:
    """The summaries again as upstream scores them, when a side's corrections profile
    changed a category's score (both ways, as the leaderboard files show them)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    if not comparison.upstream_summaries:
        return
    table = Table(box=box.SIMPLE_HEAD, title_justify="left",
                  title="summaries as upstream scores them, without the corrections (accuracy %)")
    for header in ("summary", *comparison.names, "Δ"):
        table.add_column(escape(header), justify="left" if header == "summary" else "right",
                         overflow="fold")
    for name, va, vb in comparison.upstream_summaries:
        delta = None if va is None or vb is None else vb - va
        table.add_row(escape(name), _pct(va), _pct(vb), _signed(delta))
    console.print(table)


def compare_notes(comparison: Comparison) -> list[str]:
    """The `‡ incomplete:` lines (`table.incomplete_note_lines`) of both sides, by name."""
    gaps = {name: {label: text for label, gap in side.items()
                   if (text := _described(gap)) is not None}
            for name, side in zip(comparison.names, comparison.gaps, strict=True)}
    return incomplete_note_lines(gaps, [name for name, _, _ in comparison.summaries])


def legend(names: tuple[str, str]) -> str:
    """What +, −, Δ and the p columns mean, with the runs' names."""
    a, b = names
    return (f"Δ: {b} − {a}; +: cases {b} passed and {a} failed; −: cases {a} passed and {b} "
            "failed; p: McNemar exact on them; p (Holm): adjusted for testing every category "
            "at once.")
INTERVAL_NOTE = ("Δ ≈95% interval: the summary's category weights applied to each category's "
                 "paired delta over the shared cases (normal approximation).")


def _interval(interval: tuple[float, float] | None) -> str:
    return "N/A" if interval is None else f"[{_signed(interval[0])}, {_signed(interval[1])}]"


SHARED_MARK = " §"
"""Marks a category whose runs judged different cases (its figures are over the shared ones)."""


def _print_unshared(deltas: Sequence[CategoryDelta], console: Console) -> None:
    """Say where A, B and Δ are not the runs' own scores, and why."""
    for c in deltas:
        if not c.unshared:
            continue
        sides = "; ".join(
            f"{side} {score.correct}/{score.total} = {_pct(_judged(score))}"
            + (f", {skipped} skipped" if skipped else "")
            for side, score, skipped in (("A", c.a, c.a_skipped), ("B", c.b, c.b_skipped)))
        console.print(f"§ {c.category}: A, B, Δ and p over the {c.paired} cases both runs "
                      f"judged (own scores: {sides})", highlight=False, markup=False)


def _print_disputed(deltas: Sequence[CategoryDelta], console: Console) -> None:
    """Where disputed cases flipped, the delta without them (the official one stays above)."""
    for c in deltas:
        contested = [f.id for f in (*c.gained, *c.lost) if f.disputed]
        if contested and c.undisputed_delta is not None:
            console.print(
                f"{c.category}: Δ {_signed(c.undisputed_delta)} without disputed ground truth "
                f"(flipped there: {', '.join(contested)}; see docs/report.md)", highlight=False,
                markup=False)


def _print_flips(deltas: Sequence[CategoryDelta], console: Console, shown: int) -> None:
    for c in deltas:
        for sign, flips in (("+", c.gained), ("−", c.lost)):
            if not flips:
                continue
            listed = ", ".join(
                f"{f.id} ({f.error_type}{', disputed' if f.disputed else ''})"
                for f in flips[:shown]
            )
            more = f", … {len(flips) - shown} more (--json lists all)" if len(flips) > shown else ""
            console.print(f"{sign} {c.category}: {listed}{more}", highlight=False,
                          soft_wrap=True, markup=False)


def _pct(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:.2f}"


def _signed(value: float | None) -> str:
    return "N/A" if value is None else f"{value * 100:+.2f}"


def _p(value: float) -> str:
    return f"{value:.3g}" if value >= 1e-4 else f"{value:.1e}"
