"""Official score files: `<score_dir>/<model>/<group>/BFCL_v4_<category>_score.json`.

The layout and format are the official ones so that fcbench's score directories can be read by
the official leaderboard tooling and the other way round. A score file is JSON Lines: a header
`{"accuracy", "correct_count", "total_count", ...}` and then one line per failed case, each a
plain `json.dumps` (no indentation, non-ASCII kept as is, one object per line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from fcbench.dataset import categories as reg
from fcbench.score.aggregate import CategoryScore

VERSION_PREFIX = "BFCL_v4"
SCORE_FILE_GLOB = f"{VERSION_PREFIX}_*_score.json"
_CATEGORY_IN_NAME = re.compile(rf"{VERSION_PREFIX}_(\w+?)(?:_score|_result)?\.json$")

Header = dict[str, Any]
Record = dict[str, Any]


class RawJSON(str):
    """A record value that is already JSON text (e.g. a case's prompt, serialised once and
    reused for every model that fails the case); it is written as is."""

    __slots__ = ()


def model_dir_name(model: str) -> str:
    """The directory a model's files live in: its registry name with `/` turned into `_`."""
    return model.replace("/", "_")


def category_dir(category: str) -> Path:
    """Where a category's files go under a model directory.

    The registry group (non_live, live, multi_turn, agentic, format_sensitivity), except memory
    categories, which the official tool files one level deeper per backend:
    `agentic/memory/kv`, `agentic/memory/vector`, `agentic/memory/rec_sum`.
    """
    row = reg.get(category)
    if row.name in reg.MEMORY:
        return Path(row.group, "memory", row.name.removeprefix("memory_"))
    return Path(row.group)


def score_file_path(score_dir: Path, model: str, category: str) -> Path:
    name = reg.get(category).name
    return (
        Path(score_dir) / model_dir_name(model) / category_dir(name)
        / f"{VERSION_PREFIX}_{name}_score.json"
    )


def category_of_file(path: Path | str) -> str | None:
    """The category a `BFCL_v4_<category>[_score|_result].json` file name names, if any."""
    match = _CATEGORY_IN_NAME.search(Path(path).name)
    return match.group(1) if match else None


def score_header(correct: int, total: int, extra: Mapping[str, Any] | None = None) -> Header:
    """The first line of a score file (accuracy is 0 for an empty category, not an error)."""
    header: Header = {
        "accuracy": correct / total if total else 0.0,
        "correct_count": correct,
        "total_count": total,
    }
    header.update(extra or {})
    return header


def write_score_file(
    path: Path, header: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
) -> None:
    """Write header + records as JSON Lines, creating the directories as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for entry in (header, *records):
            out.write(_dumps(entry) + "\n")


def _dumps(entry: Mapping[str, Any]) -> str:
    """One JSON line; odd leaves become str() (fast path first, the walk only when needed).

    Top-level `RawJSON` values are spliced in verbatim through a placeholder.
    """
    raw = {k: v for k, v in entry.items() if isinstance(v, RawJSON)}
    if raw:
        entry = {k: (f"\x00{k}\x00" if k in raw else v) for k, v in entry.items()}
    try:
        text = json.dumps(entry, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = json.dumps(_jsonable(entry), ensure_ascii=False)
    for key, value in raw.items():
        text = text.replace(json.dumps(f"\x00{key}\x00"), value, 1)
    return text


def write_category_score(
    score_dir: Path,
    model: str,
    score: CategoryScore,
    failures: Iterable[Mapping[str, Any]],
    extra_header: Mapping[str, Any] | None = None,
) -> Path:
    """Write one category's score file where the official tool puts it; return its path."""
    path = score_file_path(score_dir, model, score.category)
    write_score_file(path, score_header(score.correct, score.total, extra_header), failures)
    return path


def _jsonable(value: Any) -> Any:
    """Anything json cannot encode becomes its str(), as in official score files.

    Dicts and lists are walked so that one odd leaf (an exception, a set, a handler object in
    a decoded result) does not turn the whole record into a string.
    """
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    try:
        json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)
    return value


def read_score_file(path: Path) -> tuple[Header, list[Record]]:
    """The header and the failed-case records of a score file."""
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty score file")
    header, *records = (json.loads(line) for line in lines)
    return header, records


def read_score_header(path: Path) -> Header:
    """Only the first line: enough for the leaderboard, and cheap on large score files."""
    with Path(path).open(encoding="utf-8") as f:
        header: Header = json.loads(f.readline())
    return header


def iter_score_files(score_dir: Path) -> Iterator[tuple[str, str, Path]]:
    """(model directory, category, path) for every score file, in sorted order.

    Like the official tool, every sub-directory of the score dir is a model and its score files
    are found at any depth.
    """
    for model_dir in sorted(p for p in Path(score_dir).iterdir() if p.is_dir()):
        for path in sorted(model_dir.rglob(SCORE_FILE_GLOB)):
            category = category_of_file(path)
            if category is not None:
                yield model_dir.name, category, path


def read_score_headers(score_dir: Path) -> dict[str, dict[str, Header]]:
    """model directory → category → score-file header, for every model with a score file."""
    headers: dict[str, dict[str, Header]] = {}
    for model, category, path in iter_score_files(score_dir):
        headers.setdefault(model, {})[category] = read_score_header(path)
    return headers
