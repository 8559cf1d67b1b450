"""The score tables printed in the terminal: `evaluate`'s and `leaderboard`'s.

Why this shape: a table people read must fit their terminal (100 columns is the promise)
whatever the number of models, and must never show a cut name or number. A few models fit as
columns with every category down the side; otherwise models become rows and only the
leaderboard summaries are shown (per-category detail lives in the HTML report). Names wrap
instead of being cut, numbers never wrap. A category or summary with nothing evaluated shows
N/A, never 0.00 (the summaries still count it as 0, as the official formulas do).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fcbench.core import categories
from fcbench.score import completeness as rule
from fcbench.score.aggregate import CategoryScore
from fcbench.score.completeness import SUMMARY_PARTS, Completeness, completeness
from fcbench.score.custom_groups import NOTE as CUSTOM_NOTE
from fcbench.score.custom_groups import custom_summaries
from fcbench.score.formulas import format_percent, summary_rows, v1_rows

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

SUMMARIES = ("Overall", "Non-Live", "Live", "Irrelevance Detection", "Multi-Turn", "Agentic")
V1_LABEL = "v1 Overall (2024)"
V1_SUMMARIES = (V1_LABEL, "v1 AST Summary (2024)", "v1 Exec Summary (2024)",
                "v1 Relevance (2024)")
V1_ONLY = rule.V1_ONLY
"""The 2024-only categories (executable, REST)."""
SHOWN = {"Overall": "V4 Overall"}
"""Display names where the summary's key does not say its formula: every Overall does."""
HEADERS = {
    # Short headers for the models-as-rows table, broken where a reader expects it.
    "Overall": "V4\nOverall", "Non-Live": "Non-\nLive", "Live": "Live",
    "Irrelevance Detection": "Irrel-\nevance", "Multi-Turn": "Multi-\nTurn",
    "Agentic": "Agen-\ntic", V1_LABEL: "v1 2024\nOverall", "v1 AST Summary (2024)": "AST\nSummary",
    "v1 Exec Summary (2024)": "Exec\nSummary", "v1 Relevance (2024)": "Rele-\nvance",
}
UNDERNEATH: dict[str, tuple[str, ...]] = {
    label: tuple(name for _, names in groups for name in names)
    for label, groups in SUMMARY_PARTS.items()
}
"""The categories each summary is made of (`score.completeness`, the one rule): with none of
them judged it shows N/A (or — where it is marked); V4 Overall's are its five groups'
(live_relevance is not one of them)."""
SKIPPED_NOTE = ("skipped: cases not judged (a web service the exec backend cannot reach); "
                "they count in neither correct nor total (†k beside a category: k of its "
                "cases).")
NUMBER_WIDTH = 6
INCOMPLETE_MARK = "‡"
"""Beside a summary some category of which was not run (`score.completeness`)."""
NOTHING_RUN = "—"
"""The cell of a summary none of whose categories was run: no number, not even N/A."""
NOTE_LINES = 12
"""At most this many `‡ incomplete` lines under a table (then a count: the rest is in
leaderboard.json): more than there are summaries, so one model's gaps are always all listed
(the report shows Web Search and Memory too)."""
NOT_SCORED = "N/A (not scored)"
"""The cell of a category whose results were kept but not scored (sql, chatable)."""
FORMULA_NOTE = (
    "Summaries follow the official formulas: Non-Live, Irrelevance Detection, Relevance "
    "Detection, Web Search, Memory and the v1 AST and Exec summaries are N/A when any "
    "category under them has no results; V4 Overall, Live, Multi-Turn, Agentic and v1 "
    "Overall count such a category as 0. "
    f"{INCOMPLETE_MARK} marks a summary not every category of which was run (see above), "
    f"{NOTHING_RUN} one none of which was. Per-category detail: fcbench report."
)
"""The table's footnote: the rule the summaries apply (`score.formulas.Flavour`)."""
_ORDER = {c.name: i for i, c in enumerate(categories.CATEGORIES)}
_NEVER_SCORED = frozenset(c.name for c in categories.CATEGORIES if not c.scoring)
"""`100.00`: a number column is never narrower, so no number is ever cut."""

Scores = Mapping[str, Mapping[str, CategoryScore]]


def print_scores(
    console: Console,
    per_model: Scores,
    complete: Scores,
    skipped: Mapping[str, int] | None = None,
    not_scored: Mapping[str, Sequence[str]] | None = None,
    v1: bool | None = None,
    skipped_in: Mapping[str, Mapping[str, int]] | None = None,
) -> None:
    """`per_model`: what was evaluated; `complete`: the same with missing categories filled in
    (0 over the dataset size, as the official summaries count them); `skipped`: cases per
    model that could not be judged (executable cases needing an unreachable service), shown
    whenever there are any; `not_scored`: categories per model whose results were kept but
    not scored (sql and chatable), shown as such; `v1`: show the 2024 summaries (None: when a
    2024-only category was run); `skipped_in`: model -> category -> cases skipped, marked
    beside the category's score (`†k`: its accuracy leaves them out)."""
    unscored = {m: set(names) for m, names in (not_scored or {}).items() if names}
    names = [c.name for c in categories.all_categories()
             if any(c.name in s for s in per_model.values())
             or any(c.name in u for u in unscored.values())]
    labels = _labels(rule.shows_v1(per_model.values(), v1))
    custom = {model: custom_summaries(per_model[model]) for model in per_model}
    labels += list(dict.fromkeys(label for values in custom.values() for label in values))
    summaries = {model: {**displayed_summaries(per_model[model], complete[model], labels),
                         **custom[model]} for model in per_model}
    skipped_in = skipped_in or {}
    partial = {model: partial_summaries(per_model[model], skipped_in.get(model))
               for model in per_model}
    marks = {model: summary_marks(per_model[model], labels) for model in per_model}
    shown_skipped = skipped if skipped and any(skipped.values()) else None
    table = _by_category(per_model, names, labels, summaries, shown_skipped, unscored,
                         partial, skipped_in, marks)
    if not _too_wide(console, table):
        console.print(table)
    else:
        v4_labels = [label for label in labels if label not in V1_SUMMARIES]
        v1_labels = [label for label in labels if label in V1_SUMMARIES]
        console.print(_by_model(per_model, v4_labels, summaries,
                                None if v1_labels else shown_skipped, partial=partial,
                                marks=marks))
        if v1_labels:
            console.print(_by_model(per_model, v1_labels, summaries, shown_skipped,
                                    "the original benchmark, 2024 leaderboard (accuracy %)",
                                    partial=partial, marks=marks))
    for line in incomplete_notes(marks, labels):
        console.print(line, highlight=False, markup=False)
    _print_notes(console, per_model, shown_skipped is not None, unscored, skipped_in)
    if any(custom.values()):
        console.print(f"[yellow]custom:[/] {CUSTOM_NOTE}", highlight=False)


SORT_KEYS = {
    "v4-overall": "Overall", "overall": "Overall", "non-live": "Non-Live", "live": "Live",
    "irrelevance": "Irrelevance Detection", "multi-turn": "Multi-Turn", "agentic": "Agentic",
    "v1-overall": V1_LABEL, "name": "name",
}
"""`leaderboard --sort` names -> the summary ranked by ("name": alphabetical)."""


def ranked_table(
    complete: Scores,
    title: str = "leaderboard (accuracy %)",
    *,
    sort: str | None = None,
    skipped: Mapping[str, int] | None = None,
    v1: bool | None = None,
    skipped_in: Mapping[str, Mapping[str, int]] | None = None,
) -> Table:
    """Models ranked by a summary (`sort`, a `SORT_KEYS` value; N/A last, ties by name), one
    row each, summary columns only. By default the board ranks by
    `completeness.ranking_summary` (2024 categories only: the 2024 Overall, since the V4 one
    would count every V4-only category as 0; any other board: V4 Overall); `skipped_in`:
    model -> category -> cases skipped (not a partial run, so no `*`)."""
    order, labels, sort, summaries = _ranking(complete, sort, v1)
    partial = {m: partial_summaries(s, (skipped_in or {}).get(m)) for m, s in complete.items()}
    marks = {m: summary_marks(s, labels) for m, s in complete.items()}
    shown_skipped = skipped if skipped and any(skipped.values()) else None
    by = "name" if sort == "name" else SHOWN.get(sort, sort)
    table = _by_model({m: complete[m] for m in order}, labels, summaries, shown_skipped,
                      f"{title}, ranked by {by}", rank=True, partial=partial, marks=marks)
    caption = incomplete_notes(marks, labels) + ([SKIPPED_NOTE] if shown_skipped else [])
    if caption:
        from rich.text import Text

        table.caption = Text("\n".join(caption))  # text, not markup: `[model, ...]` stays
        table.caption_justify = "left"
    return table


def ranked_models(complete: Scores, *, sort: str | None = None,
                  v1: bool | None = None) -> list[str]:
    """The models in `ranked_table`'s row order (what other tables of the same models, such
    as the published-leaderboard placements, follow)."""
    return _ranking(complete, sort, v1)[0]


def _ranking(complete: Scores, sort: str | None, v1: bool | None,
             ) -> tuple[list[str], list[str], str, dict[str, dict[str, float | None]]]:
    """(models in rank order, summary labels shown, the summary ranked by, summaries)."""
    boards = list(complete.values())
    sort = sort or rule.ranking_summary(boards)
    shown = rule.shows_v1(boards, True if sort == V1_LABEL else v1)
    labels = [label for label in _labels(shown) if label in (*SUMMARIES, V1_LABEL)]
    summaries = {m: displayed_summaries(s, s, labels) for m, s in complete.items()}
    order = sorted(complete, key=str.casefold)
    if sort != "name":
        order.sort(key=lambda m: -1.0 if (v := summaries[m].get(sort)) is None else v,
                   reverse=True)
    return order, labels, sort, summaries


def summary_marks(
    scores: Mapping[str, CategoryScore], labels: Sequence[str]
) -> dict[str, Completeness]:
    """The incomplete summaries among `labels` (`score.completeness`, the rule every view
    follows), by label."""
    found = {label: completeness(scores, label) for label in labels if label in SUMMARY_PARTS}
    return {label: c for label, c in found.items() if not c.complete}


def incomplete_notes(
    marks: Mapping[str, Mapping[str, Completeness]], labels: Sequence[str]
) -> list[str]:
    """`‡ incomplete: V4 Overall: 1 of 5 groups run; ... [models]` lines for `marks` (model ->
    label -> completeness); a summary with nothing run (`—`) needs no line."""
    gaps = {model: {label: c.describe() for label, c in found.items() if not c.nothing_run}
            for model, found in marks.items()}
    return incomplete_note_lines(gaps, labels)


def incomplete_note_lines(
    gaps: Mapping[str, Mapping[str, str]], labels: Sequence[str]
) -> list[str]:
    """One line per distinct summary and gap (`gaps`: model -> label -> what is missing), the
    models it applies to named (or counted) when there are several; at most `NOTE_LINES`."""
    lines: dict[tuple[str, str], list[str]] = {}
    for label in labels:
        for model, found in gaps.items():
            text = found.get(label)
            if text is not None:
                lines.setdefault((label, text), []).append(model)
    shown = []
    for (label, text), models in list(lines.items())[:NOTE_LINES]:
        who = "" if len(gaps) == 1 else f" [{_models(models)}]"
        shown.append(f"{INCOMPLETE_MARK} incomplete: {SHOWN.get(label, label)}: {text}{who}")
    if len(lines) > NOTE_LINES:
        shown.append(f"{INCOMPLETE_MARK} and {len(lines) - NOTE_LINES} more incomplete summaries "
                     "(leaderboard.json lists each model's).")
    return shown


def _models(models: Sequence[str]) -> str:
    listed = ", ".join(models[:3])
    return listed + (f" and {len(models) - 3} more models" if len(models) > 3 else "")


def partial_summaries(
    evaluated: Mapping[str, CategoryScore], skipped: Mapping[str, int] | None = None,
) -> set[str]:
    """The summaries made (in part) of partial categories: shown with `*` like them
    (`completeness.partial_summaries`; `skipped`: category -> cases skipped)."""
    return rule.partial_summaries(evaluated, skipped)


def _labels(v1: bool) -> list[str]:
    """The summaries shown: V4's, and the 2024 ones when `v1` (`completeness.shows_v1`)."""
    return list(SUMMARIES) + (list(V1_SUMMARIES) if v1 else [])


def displayed_summaries(
    evaluated: Mapping[str, CategoryScore], complete: Mapping[str, CategoryScore],
    labels: Sequence[str],
) -> dict[str, float | None]:
    """The summary values people see (None = N/A): the official numbers, except that a
    summary with nothing under it evaluated is N/A rather than a made-up 0."""
    values = dict(summary_rows(complete))
    if V1_LABEL in labels:
        values.update(v1_rows(complete))
        relevance = complete.get("irrelevance")
        values["v1 Relevance (2024)"] = relevance.accuracy if relevance is not None else None
    for label, names in UNDERNEATH.items():
        if not any(rule.judged(evaluated.get(n)) for n in names):
            values[label] = None  # nothing judged under it: no number (skipped is not 0.00)
    return values


def _too_wide(console: Console, table: Table) -> bool:
    from rich.measure import Measurement

    unbounded = console.options.update(width=10_000)  # measured without the terminal's cap
    return Measurement.get(console, unbounded, table).maximum > console.width


def _by_category(
    per_model: Scores,
    names: list[str],
    labels: list[str],
    summaries: Mapping[str, Mapping[str, float | None]],
    skipped: Mapping[str, int] | None,
    unscored: Mapping[str, set[str]],
    partial: Mapping[str, set[str]],
    skipped_in: Mapping[str, Mapping[str, int]],
    marks: Mapping[str, Mapping[str, Completeness]],
) -> Table:
    """A column per model: categories, then summaries, down the side; a category with
    skipped cases is marked in its cell, so the skipped total is never read as a score."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="fcbench scores (accuracy %)", title_justify="left")
    table.add_column("category / summary", style="bold", no_wrap=True)
    for model in per_model:
        table.add_column(escape(model), justify="right", no_wrap=True)
    for name in names:
        table.add_row(escape(name), *(
            NOT_SCORED if name in unscored.get(m, ()) else
            _cell(per_model[m].get(name), skipped_in.get(m, {}).get(name, 0))
            + skip_mark(skipped_in.get(m, {}).get(name, 0))
            for m in per_model
        ))
    table.add_section()
    for label in labels:
        table.add_row(SHOWN.get(label, label),
                      *(summary_cell(summaries[m].get(label), label in partial[m],
                                      marks[m].get(label))
                        for m in per_model), style="cyan")
    if skipped is not None:
        table.add_row("skipped cases", *(str(skipped.get(m, 0)) for m in per_model), style="yellow")
    return table


def _by_model(
    per_model: Scores,
    labels: list[str],
    summaries: Mapping[str, Mapping[str, float | None]],
    skipped: Mapping[str, int] | None,
    title: str = "fcbench scores (accuracy %)",
    *,
    rank: bool = False,
    partial: Mapping[str, set[str]] | None = None,
    marks: Mapping[str, Mapping[str, Completeness]] | None = None,
) -> Table:
    """A row per model, the summaries across; long names wrap (fold), numbers never do."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    if rank:
        table.add_column("#", justify="right", no_wrap=True)
    table.add_column("model", style="bold", overflow="fold", min_width=12)
    for label in labels:
        table.add_column(HEADERS.get(label, label), justify="right", style="cyan",
                         no_wrap=True, min_width=NUMBER_WIDTH)
    if skipped is not None:
        table.add_column("skip-\nped", justify="right", style="yellow", no_wrap=True)
    for position, model in enumerate(per_model, start=1):
        table.add_row(
            *([str(position)] if rank else []),
            escape(model),  # a folder name: text, never rich markup
            *(summary_cell(summaries[model].get(label),
                            label in (partial or {}).get(model, set()),
                            (marks or {}).get(model, {}).get(label)) for label in labels),
            *([str(skipped.get(model, 0))] if skipped is not None else []),
        )
    return table


def _print_notes(
    console: Console, per_model: Scores, show_skipped: bool,
    unscored: Mapping[str, set[str]] | None = None,
    skipped_in: Mapping[str, Mapping[str, int]] | None = None,
) -> None:
    kept = sorted({n for names in (unscored or {}).values() for n in names},
                  key=lambda n: _ORDER.get(n, len(_ORDER)))
    never = [n for n in kept if n in _NEVER_SCORED]
    later = [n for n in kept if n not in _NEVER_SCORED]
    if never:
        console.print(f"[yellow]not scored:[/] {', '.join(never)}: results kept, not scored "
                      "(the official tool never scored them).")
    if later:
        console.print(f"[yellow]not scored:[/] {', '.join(later)}: results kept, not scored "
                      "by this version of fcbench.")
    partial = sorted({f"{m}/{n}" for m, s in per_model.items() for n, v in s.items()
                      if rule.is_partial(v, (skipped_in or {}).get(m, {}).get(n, 0))})
    if partial:
        shown = ", ".join(partial) if len(partial) <= 6 else f"{len(partial)} model/category pairs"
        console.print(
            f"[yellow]* partial:[/] {shown}: accuracy over the cases present "
            "(as the official --partial-eval computes it); a summary with * is made of such "
            "categories."
        )
    if show_skipped:
        console.print(f"[yellow]skipped:[/] {SKIPPED_NOTE.removeprefix('skipped: ')}")
    console.print(FORMULA_NOTE)


def skip_mark(count: int) -> str:
    """` †k` beside a score with k cases skipped (not judged, not in it); nothing for none."""
    return f" †{count}" if count else ""


def _cell(score: CategoryScore | None, skipped: int = 0) -> str:
    if score is None or not score.evaluated or score.total == 0:
        return "N/A"  # not run, or every case skipped
    return _percent(score.accuracy) + ("*" if rule.is_partial(score, skipped) else "")


def summary_cell(value: float | None, partial: bool, gap: Completeness | None = None) -> str:
    """The number (`*`: made of partial categories; `‡`: incomplete, `gap` says what is
    missing), or `—` when nothing under the summary was run."""
    if gap is not None and gap.nothing_run:
        return NOTHING_RUN
    mark = INCOMPLETE_MARK if gap is not None else ""
    return _percent(value) + ("*" if partial and value is not None else "") + mark


def _percent(value: float | None) -> str:
    return format_percent(value).rstrip("%")
