"""`data_custom.csv`: the custom datasets' categories, which the official CSVs have no
columns for.

Written next to the official CSVs only when some model has a score for a custom category, so
a score folder of official categories gets exactly the official files. Same cell conventions
as the official tables (`NN.NN%`, `N/A` for a category not run, no quoting). Columns: Rank,
Model, Custom Overall (the share of every custom case passed, a category not run counting 0),
one `<group> (custom)` summary per group (`score.custom_groups`), then each category. Ranked by
Custom Overall.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.core.model import UNENCODABLE
from fcbench.score.aggregate import CategoryScore
from fcbench.score.custom_groups import custom_groups, custom_summaries
from fcbench.score.formulas import format_percent

__all__ = ["FILE_NAME", "custom_lines", "write_custom_csv"]

FILE_NAME = "data_custom.csv"


class Scored(Protocol):
    """What this table reads of a leaderboard entry (`csv_files.ModelEntry`, which writes
    this table with the official ones and so sits above it)."""

    @property
    def model(self) -> str: ...
    @property
    def scores(self) -> Mapping[str, CategoryScore]: ...


def custom_lines(entries: Sequence[Scored]) -> list[str] | None:
    """The CSV's lines; None when no entry has a custom category's score."""
    scored = [n for e in entries for n, s in e.scores.items() if s.evaluated]
    groups = custom_groups(dict.fromkeys(scored))
    if not groups:
        return None
    names = [n for members in groups.values() for n in members]
    sizes = _sizes(entries, names)
    rows = []
    for entry in entries:
        evaluated = {n: s for n, s in entry.scores.items() if s.evaluated}
        overall = _pass_rate(evaluated, names, sizes)
        summaries = custom_summaries(evaluated, sizes, names)
        cells = [overall, *(summaries.get(f"{g} (custom)") for g in groups),
                 *(_accuracy(evaluated.get(n)) for n in names)]
        rows.append((entry.model, cells))
    rows.sort(key=lambda row: row[1][0] if row[1][0] is not None else -1.0, reverse=True)
    header = ["Rank", "Model", "Custom Overall", *(f"{g} (custom)" for g in groups), *names]
    lines = [",".join(header)]
    for rank, (model, cells) in enumerate(rows, start=1):
        lines.append(",".join([str(rank), model, *(_cell(c) for c in cells)]))
    return lines


def _sizes(entries: Sequence[Scored], names: Sequence[str]) -> dict[str, int]:
    """Each category's size: the registered dataset's, else the largest a score file gives."""
    from fcbench.dataset.custom import is_custom
    from fcbench.dataset.load import dataset_size

    sizes = {}
    for name in names:
        if is_custom(name):
            sizes[name] = dataset_size(name)
        else:
            sizes[name] = max(e.scores[name].dataset_size for e in entries if name in e.scores)
    return sizes


def _pass_rate(
    evaluated: Mapping[str, CategoryScore], names: Sequence[str], sizes: Mapping[str, int]
) -> float | None:
    if not any(n in evaluated for n in names):
        return None
    correct = sum(evaluated[n].correct for n in names if n in evaluated)
    total = sum(evaluated[n].total if n in evaluated else sizes[n] for n in names)
    return correct / total if total else 0.0


def _accuracy(score: CategoryScore | None) -> float | None:
    return score.accuracy if score is not None else None


def _cell(value: float | None) -> str:
    return "N/A" if value is None else format_percent(value)


def write_custom_csv(entries: Sequence[Scored], out_dir: Path) -> Path | None:
    """Write `data_custom.csv` when there is something to write; its path, or None."""
    lines = custom_lines(sorted(entries, key=lambda e: e.model))
    if lines is None:
        return None
    path = Path(out_dir) / FILE_NAME
    replace_text(path, redact.values("\n".join(lines)), errors=UNENCODABLE, newline="\n")
    return path
