"""`data_per_turn.csv`: per-turn accuracy (fcbench metric, `score.per_turn`) of the
multi-turn categories, which the official CSVs have no columns for.

Written next to the official CSVs only when some model has per-turn files (a multi-turn
category was judged), so the official files stay exactly the official ones. Same cell
conventions as the official tables (`NN.NN%`, `N/A` for a category not run, no quoting).
Columns: Rank, Model, `Per-turn accuracy (fcbench metric)` over every turn of the categories
run (turn-weighted), then each multi-turn category, then the turns counted. Ranked by the
first. Never part of any Overall.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.core.model import UNENCODABLE
from fcbench.results.per_turn import read_per_turn_docs
from fcbench.score.formulas import format_percent
from fcbench.score.per_turn import METRIC, PerTurn, from_json, pooled

__all__ = ["COLUMNS", "FILE_NAME", "per_turn_lines", "read_per_turn", "write_per_turn_csv"]

FILE_NAME = "data_per_turn.csv"
CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
              "multi_turn_long_context")
COLUMNS = ("Rank", "Model", METRIC, "Base", "Miss Func", "Miss Param", "Long Context",
           "Turns Counted")


class WithPerTurn(Protocol):
    """What this table reads of a leaderboard entry (`csv_files.ModelEntry`)."""

    @property
    def model(self) -> str: ...
    @property
    def per_turn(self) -> Mapping[str, PerTurn]: ...


def read_per_turn(model_dir: Path, note: Callable[[str], None] | None = None
                  ) -> dict[str, PerTurn]:
    """One model's per-turn files, counted; a malformed one is left out with a line."""
    found: dict[str, PerTurn] = {}
    for category, doc in read_per_turn_docs(model_dir, note).items():
        try:
            found[category] = from_json(doc)
        except (ValueError, TypeError, AttributeError) as exc:
            if note is not None:
                note(f"{model_dir}: {category}: per-turn accuracy left out ({exc})")
    return found


def per_turn_lines(entries: Sequence[WithPerTurn]) -> list[str] | None:
    """The table's lines; None when no entry has per-turn accuracy."""
    rows = []
    for entry in entries:
        found = [entry.per_turn[c] for c in CATEGORIES if c in entry.per_turn]
        everything = pooled(found)
        if everything is None:
            continue
        cells = [format_percent(entry.per_turn[c].accuracy) if c in entry.per_turn else "N/A"
                 for c in CATEGORIES]
        rows.append((everything.accuracy, [entry.model, format_percent(everything.accuracy),
                                           *cells, str(everything.turns)]))
    if not rows:
        return None
    rows.sort(key=lambda row: row[0], reverse=True)  # stable: ties keep the model order
    return [",".join(COLUMNS)] + [",".join([str(rank), *row])
                                  for rank, (_, row) in enumerate(rows, start=1)]


def write_per_turn_csv(entries: Sequence[WithPerTurn], out_dir: Path) -> Path | None:
    lines = per_turn_lines(entries)
    if lines is None:
        return None
    path = Path(out_dir) / FILE_NAME
    replace_text(path, redact.values("\n".join(lines)), errors=UNENCODABLE, newline="\n")
    return path
