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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench.core import categories
from fcbench.core.defaults import RESULT_DIR
from fcbench.layout import manifest_path

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


def result_file_category(path: Path) -> tuple[str, str] | None:
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
        found = result_file_category(path)
        if found and path.is_file():
            yield ResultFile(path, *found)


def sibling_result_dirs(score_dirs: Iterable[Path]) -> list[Path]:
    """Each score folder's sibling result folder, where one exists: the layout `run` makes
    (`./result` beside `./score`), so that readers of a score folder find the answers behind
    it (a partial run's passing cases, tokens, raw outputs) without being told."""
    found = (Path(folder).parent / RESULT_DIR.name for folder in score_dirs)
    return [folder for folder in found if folder.is_dir()]


def find_model_dirs(result_dir: Path) -> dict[str, Path]:
    """Model name -> folder. A folder that is one model's folder (`is_model_dir`) is that
    model, named after the folder; otherwise each child folder holding result files is one."""
    if is_model_dir(result_dir):
        return {result_dir.name: result_dir}
    models = {}
    for child in sorted(result_dir.iterdir()):
        if child.is_dir() and next(find_result_files(child), None) is not None:
            models[child.name] = child
    return models


def is_model_dir(folder: Path) -> bool:
    """Whether a folder is one model's folder rather than a folder of models: it holds a
    `model.json`, result files of its own, or a category group's folder (`non_live`, ...)
    with result files. Why the group folders: a model's folder given as `--result-dir`
    must never have its groups taken for models (they would be scored as models named
    `non_live` with the wrong encoding)."""
    if manifest_path(folder).is_file():
        return True
    groups = {category.group for category in categories.all_categories()}
    for child in folder.iterdir():
        if child.is_file() and result_file_category(child):
            return True
        if child.name in groups and child.is_dir() and next(find_result_files(child), None):
            return True
    return False


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
    lines = text.split("\n")  # read_text made \r\n and \r into \n; other breaks are text
    if lines[-1] == "":
        lines.pop()
    kept = [line for line in lines if line.strip()]
    numbers: Sequence[int] = range(1, len(lines) + 1)
    if len(kept) != len(lines):  # blank lines: number the others as they are in the file
        numbers = [number for number, line in enumerate(lines, start=1) if line.strip()]
    parsed = _parse_all(kept)
    if parsed is not None and len(parsed) == len(kept):
        _add_entries(found, numbers, parsed)
        return found
    for number, line in zip(numbers, kept, strict=True):  # damaged: one by one to say which
        _add_line(found, number, line)
    return found


def _add_entries(found: ResultSet, numbers: Sequence[int], parsed: list[Any]) -> None:
    """`_add_entry` for each entry, with the usual case (a dict with a string id and a result,
    in a file of today's layout, not seen before) done inline: it is nearly every entry."""
    entries = found.entries
    renamed = found.file.file_category != found.file.category
    for number, entry in zip(numbers, parsed, strict=True):
        raw_id = entry.get("id") if type(entry) is dict and "result" in entry else None
        if type(raw_id) is str and not renamed and raw_id not in entries:
            entries[raw_id] = entry
        else:
            _add_entry(found, number, entry)


def _parse_all(lines: Iterable[str]) -> list[Any] | None:
    """Every line's JSON value, or None if any line is not exactly one JSON value.

    A damaged line makes the caller go line by line with `json.loads` to say what is wrong.
    """
    try:
        return [fast_json.loads(line) for line in lines]
    except (ValueError, RecursionError):
        return None


def _add_line(found: ResultSet, number: int, line: str) -> None:
    """One line read on its own: integers past Python's 4,300 digits are read (a result
    line's `latency` may be anything), and what cannot be read is a one-line problem."""
    where = f"{found.file.path}:{number}"
    try:
        entry = fast_json.loads_numbers(line)
    except json.JSONDecodeError as exc:
        found.problems.append(f"{where}: malformed JSON line skipped ({exc.msg})")
        return
    except RecursionError:  # another tool's file, nested past what the parser can follow
        found.problems.append(f"{where}: JSON line nested too deeply to read; skipped")
        return
    except ValueError:  # what else json raises: an integer too long to read
        found.problems.append(
            f"{where}: JSON line holds an integer of more than "
            f"{fast_json.MAX_INT_DIGITS:,} digits; skipped"
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
        with fast_json.int_digits():  # an id past 4,300 digits matches no case: said so
            raw_id = f"{found.file.file_category}_{raw_id}"
    if not isinstance(raw_id, str):
        found.problems.append(f"{where}: entry without an 'id'; skipped")
        return
    test_id = today_id(raw_id, found.file)
    if test_id in found.entries:
        found.problems.append(f"{where}: duplicate id {test_id!r}; the first one is kept")
        return
    found.entries[test_id] = entry
