"""Finding and reading result files in the official layouts, tolerating damage.

Layouts read: `<dir>/<model>/[<group>/...]BFCL_v4_<category>_result.json` (today's),
`BFCL_v3_<category>_result.json` (v3, 2024 names such as `simple`, `java`) and
`gorilla_openfunctions_v1_test_<name>_result.json` (the original 2024 release). Ids of the
older layouts (`simple_0`, `relevance_3`) are renamed to today's (`simple_python_0`,
`irrelevance_3`). A broken line or a duplicate id is reported as a problem and skipped; the
rest of the file is still read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.dataset import categories

_RESULT_FILE = re.compile(
    r"^(?:BFCL_v[0-9]+_|gorilla_openfunctions_v1_test_)(?P<category>.+?)_result\.jsonl?$"
)


@dataclass(frozen=True)
class ResultFile:
    path: Path
    category: str
    """Today's category name."""
    file_category: str
    """The name as it appears in the file name (a 2024 name for older layouts)."""


@dataclass
class ResultSet:
    """The parsed entries of one result file, keyed by today's test id, plus its problems."""

    file: ResultFile
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def category_of_file(path: Path) -> tuple[str, str] | None:
    """(today's category, name in the file) for a result file name, None if it is not one."""
    match = _RESULT_FILE.match(path.name)
    if not match:
        return None
    name = match.group("category")
    try:
        return categories.get(name).name, name
    except categories.UnknownCategoryError:
        return None


def find_result_files(model_dir: Path) -> Iterator[ResultFile]:
    """Every result file under a model's folder (any depth), sorted by path."""
    for path in sorted(model_dir.rglob("*_result.json*")):
        found = category_of_file(path)
        if found and path.is_file():
            yield ResultFile(path, *found)


def find_model_dirs(result_dir: Path) -> dict[str, Path]:
    """Model name -> folder. A folder that holds result files itself is one model's folder."""
    if any(path.is_file() and category_of_file(path) for path in result_dir.iterdir()):
        return {result_dir.name: result_dir}
    models = {}
    for child in sorted(result_dir.iterdir()):
        if child.is_dir() and next(find_result_files(child), None) is not None:
            models[child.name] = child
    return models


def today_id(raw_id: str, file: ResultFile) -> str:
    """Rename a 2024 id (`simple_3` in a `simple` file) to today's (`simple_python_3`)."""
    old, new = file.file_category, file.category
    if old != new and raw_id.startswith(old + "_"):
        return new + raw_id[len(old) :]
    return raw_id


def read_result_file(file: ResultFile) -> ResultSet:
    """Parse a JSON Lines result file; damage becomes a one-line problem, never an exception."""
    found = ResultSet(file)
    try:
        text = file.path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        found.problems.append(f"{file.path}: cannot read ({exc.strerror})")
        return found
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    parsed = _parse_all(line for _, line in numbered)
    if parsed is not None and len(parsed) == len(numbered):
        for (number, _), entry in zip(numbered, parsed, strict=True):
            _add_entry(found, number, entry)
        return found
    for number, line in numbered:  # some line is damaged: parse one by one to say which
        _add_line(found, number, line)
    return found


def _parse_all(lines: Iterable[str]) -> list[Any] | None:
    """Every line at once as one JSON array (one C call instead of one per line), or None."""
    try:
        parsed = json.loads("[" + ",".join(lines) + "]")
    except (json.JSONDecodeError, RecursionError):
        return None
    return parsed if isinstance(parsed, list) else None


def _add_line(found: ResultSet, number: int, line: str) -> None:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        found.problems.append(
            f"{found.file.path}:{number}: malformed JSON line skipped ({exc.msg})"
        )
        return
    _add_entry(found, number, entry)


def _add_entry(found: ResultSet, number: int, entry: Any) -> None:
    where = f"{found.file.path}:{number}"
    if not isinstance(entry, dict) or "result" not in entry:
        found.problems.append(f"{where}: not a result entry (needs 'id' and 'result'); skipped")
        return
    raw_id = entry.get("id", entry.get("idx"))
    if isinstance(raw_id, int):
        raw_id = f"{found.file.file_category}_{raw_id}"
    if not isinstance(raw_id, str):
        found.problems.append(f"{where}: entry without an 'id'; skipped")
        return
    test_id = today_id(raw_id, found.file)
    if test_id in found.entries:
        found.problems.append(f"{where}: duplicate id {test_id!r}; the first one is kept")
        return
    found.entries[test_id] = entry
