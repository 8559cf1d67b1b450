"""Official score files: `<score_dir>/<model>/<group>/BFCL_v4_<category>_score.json`.

The layout and format are the official ones so that fcbench's score directories can be read by
the official leaderboard tooling and the other way round. A score file is JSON Lines: a header
`{"accuracy", "correct_count", "total_count", ...}` and then one line per failed case, each a
plain `json.dumps` (no indentation, non-ASCII kept as is, one object per line).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

try:
    from _json import encode_basestring, make_encoder
except ImportError:  # pragma: no cover - Pythons without the C accelerator
    make_encoder = None  # type: ignore[assignment, misc]

from fcbench import layout, redact
from fcbench._atomic import replace_text
from fcbench._json import RawJSON, dumps_total, loads_numbers
from fcbench.core.model import UNENCODABLE
from fcbench.layout import SCORE_FILE_GLOB, category_of_file

__all__ = [
    "SCORE_FILE_GLOB",
    "RawJSON",
    "category_of_file",
    "error_type_of",
    "iter_score_files",
    "read_score_file",
    "read_score_header",
    "read_score_headers",
    "score_file_path",
    "score_header",
    "write_category_score",
    "write_score_file",
]

Header = dict[str, Any]
Record = dict[str, Any]


class Counted(Protocol):
    """What a score file's header is made of: a category's counts (`score.aggregate`'s
    CategoryScore is one; results sit below the scorer, so they name only what they read)."""

    @property
    def category(self) -> str: ...
    @property
    def correct(self) -> int: ...
    @property
    def total(self) -> int: ...


score_file_path = layout.score_path


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
    path: Path, header: Mapping[str, Any], records: Iterable[Mapping[str, Any] | str]
) -> None:
    """Write header + records as JSON Lines, creating the directories as needed.

    A record may come as its JSON line already (a str, e.g. from `records.FailureLines`): it
    is written as is. The other lines share one encoder, and all are written in one call (failure
    records are thousands of lines per run, so per-line costs add up).
    """
    # a record the encoder refuses (an integer past Python's 4,300 digits: `10**4400`
    # decoded; mixed keys) goes to the never-raising writer inside `_dumps`: written whole
    lines = _lines(header, records)
    lines.append("")  # the newline after the last line, without copying the text again
    # no known secret in a score file; a symlink at its name is replaced, not followed
    replace_text(path, redact.values("\n".join(lines)), errors=UNENCODABLE)


def _lines(header: Mapping[str, Any], records: Iterable[Mapping[str, Any] | str]) -> list[str]:
    encode = new_encoder()
    lines = [_dumps(header, encode)]
    lines += [entry if isinstance(entry, str) else _dumps(entry, encode) for entry in records]
    return lines


Encode = Callable[[Any], str]

_PLACEHOLDER = "\x00"
"""Stands for each `RawJSON` value while the rest of a record is encoded."""
_PLACEHOLDER_JSON = json.dumps(_PLACEHOLDER)
"""`"\\u0000"`: in encoder output only a string token ending in NUL can hold it (inside a
string a `"` is escaped), so splitting on it finds the placeholders; if it finds more, some
other string ends that way and the record is encoded item by item."""


def new_encoder() -> Encode:
    """`json.dumps(value, ensure_ascii=False, default=str)` as one reusable callable.

    `json.dumps` with keyword arguments builds a new encoder on every call; one C encoder per
    file saves that on thousands of records. Not shared between files (or threads): its
    circular-reference markers are state.
    """
    fallback = json.JSONEncoder(ensure_ascii=False, default=str).encode
    if make_encoder is None:  # pragma: no cover
        return fallback
    try:  # the private C encoder's signature, as json.JSONEncoder.iterencode calls it
        chunks = make_encoder({}, str, encode_basestring, None, ": ", ", ", False, False, True)
    except TypeError:  # pragma: no cover - a Python whose private API changed
        return fallback
    return lambda value: "".join(chunks(value, 0))


def _dumps(entry: Mapping[str, Any], encode: Encode | None = None) -> str:
    """One JSON line; odd leaves become str() (fast path first, the walk only when needed).

    Top-level `RawJSON` values are written verbatim: the record is encoded once with a
    placeholder in their place and the raw texts are joined in between the pieces around
    the placeholders (no per-record dict of unique placeholders, no `str.replace` scans).
    """
    encode = encode or new_encoder()
    raw_keys = [key for key, value in entry.items() if isinstance(value, RawJSON)]
    masked = {**entry, **dict.fromkeys(raw_keys, _PLACEHOLDER)} if raw_keys else entry
    try:
        text = encode(masked)
    except (TypeError, ValueError, RecursionError):
        text = _dumps_odd(masked)
    if not raw_keys:
        return text
    parts = text.split(_PLACEHOLDER_JSON)
    if len(parts) != len(raw_keys) + 1:  # another string ends like the placeholder
        return _dumps_item_by_item(entry, encode)
    pieces = [parts[0]]
    for key, part in zip(raw_keys, parts[1:], strict=True):
        pieces += (entry[key], part)
    return "".join(pieces)


def _dumps_item_by_item(entry: Mapping[str, Any], encode: Encode) -> str:
    """`_dumps` for a record in which a string other than the placeholders ends in `\\x00`
    (never seen in practice): each item encoded on its own, so nothing can be mistaken."""
    items = []
    for key, value in entry.items():
        if isinstance(value, RawJSON):
            items.append(encode({key: 0})[1:-2] + value)  # '{"key": 0}' -> '"key": '
        else:
            items.append(_dumps({key: value}, encode)[1:-1])
    return "{" + ", ".join(items) + "}"


def write_category_score(
    score_dir: Path,
    model: str,
    score: Counted,
    failures: Iterable[Mapping[str, Any] | str],
    extra_header: Mapping[str, Any] | None = None,
) -> Path:
    """Write one category's score file where the official tool puts it; return its path."""
    path = score_file_path(score_dir, model, score.category)
    write_score_file(path, score_header(score.correct, score.total, extra_header), failures)
    return path


def _dumps_odd(entry: Mapping[str, Any]) -> str:
    """A record the encoder refused: odd leaves as their str() (the official bytes), and
    where even that fails (an integer past the 4,300-digit limit, nesting past the recursion
    limit, a `__str__` that raises, a key json cannot write) the never-raising writer."""
    try:
        return json.dumps(_jsonable(entry), ensure_ascii=False)
    except Exception:  # anything a state holds: the record is still written
        return dumps_total(entry)


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
    text = Path(path).read_text(encoding="utf-8")
    # "\n" only: a record keeps U+2028, U+2029 and U+0085 raw (ensure_ascii=False), and
    # str.splitlines() would cut it there (issue 30: a state holding one broke the report)
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty score file")
    header, *records = (loads_numbers(line) for line in lines)
    return header, records


def read_score_header(path: Path) -> Header:
    """Only the first line: enough for the leaderboard, and cheap on large score files."""
    with Path(path).open(encoding="utf-8") as f:
        header: Header = loads_numbers(f.readline())
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


def error_type_of(record: Record) -> str:
    """A failed case's official error type (multi-turn records keep it inside `error`)."""
    kind = record.get("error_type")
    if kind is None and isinstance(record.get("error"), dict):
        kind = record["error"].get("error_type")
    return str(kind) if kind else "unknown"
