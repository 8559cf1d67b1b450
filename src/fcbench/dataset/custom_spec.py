"""A custom dataset's manifest, `fcbench.json`: the categories a folder holds, how each is
judged and where its files are.

    {"name": "acme",
     "description": "Our booking assistant's tools",
     "categories": [
       {"name": "acme_weather", "checker": "ast", "file": "weather.jsonl"},
       {"name": "acme_lookup", "checker": "ast_multiple", "language": "python",
        "group": "acme_live", "questions": "BFCL_v4_acme_lookup.json",
        "answers": "possible_answer/BFCL_v4_acme_lookup.json"}]}

Per category: `name` (letters, digits, `_`; not an official category or collection name),
`checker` (a checker kind: ast_simple, ast_multiple, ast_parallel, irrelevance, relevance,
exec_simple, exec_multiple, exec_parallel, multi_turn, or one registered at run time; not
agentic, whose machinery is that of the official web_search and memory categories; `ast` /
`exec` pick simple, multiple or parallel from the cases: any case expecting several calls
makes it parallel, else several functions multiple, else simple), `language` (python, java,
javascript; default python), `group` (the summary group and result folder; default the
dataset's name), `description`, and its files: `file` (a `.jsonl` file of the simple format,
`simple_format.py`) or `questions` and `answers` (BFCL files; default `BFCL_v4_<name>.json`
and `possible_answer/BFCL_v4_<name>.json`). The dataset's `name` (default: the folder's name)
is also a collection naming all its categories.

Reading never raises: every problem is a message (`fcbench data validate` lists them all;
registering a dataset refuses it at the first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from fcbench.core import categories
from fcbench.core.categories import Checker, Language
from fcbench.layout import CUSTOM_DATASET_MANIFEST, VERSION_PREFIX

__all__ = ["AUTO_CHECKERS", "CategorySpec", "DatasetSpec", "read_spec"]

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
AUTO_CHECKERS = {"ast": Checker.AST_SIMPLE, "exec": Checker.EXEC_SIMPLE}
"""Checker names resolved from the cases (the value is the family's simple kind)."""
CHECKERS = (
    Checker.AST_SIMPLE, Checker.AST_MULTIPLE, Checker.AST_PARALLEL, Checker.IRRELEVANCE,
    Checker.RELEVANCE, Checker.EXEC_SIMPLE, Checker.EXEC_MULTIPLE, Checker.EXEC_PARALLEL,
    Checker.MULTI_TURN,
)
UNSUPPORTED = {
    Checker.AGENTIC: "agentic categories cannot be custom yet (their first turns, services "
                     "and prerequisites are those of the official web_search and memory "
                     "categories)",
    Checker.NONE: "categories without a checker are not scored",
}
NO_ANSWERS = (Checker.IRRELEVANCE, Checker.RELEVANCE)
RESERVED = "custom"
"""The collection of every custom category."""
_CATEGORY_KEYS = frozenset({"name", "checker", "language", "group", "description", "file",
                            "questions", "answers"})
_DATASET_KEYS = frozenset({"name", "description", "categories", "format"})


@dataclass(frozen=True)
class CategorySpec:
    name: str
    checker: str
    """As written: a kind's name, or `ast` / `exec` (resolved when the data is read)."""
    language: Language
    group: str
    description: str
    file: str | None
    """The simple-format `.jsonl` file, relative to the dataset folder."""
    questions: str | None
    answers: str | None


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    folder: Path
    description: str
    categories: tuple[CategorySpec, ...]


class OutsideFolder(ValueError):
    """A dataset file whose real path (symlinks resolved) is outside the dataset's folder."""


def inside(folder: Path, rel: str) -> Path:
    """`folder / rel` with its symlinks resolved, or OutsideFolder when that leaves the folder.

    Why: a dataset is someone else's folder; a symlink in it (`q.jsonl -> ~/.ssh/id_rsa`)
    would otherwise have a file from elsewhere read and its content sent to an endpoint.
    The manifest's names are checked when read (`_relative`); this checks the disk."""
    root = Path(folder).resolve()
    path = (Path(folder) / rel).resolve()
    if path != root and not path.is_relative_to(root):
        raise OutsideFolder(f"{Path(folder) / rel}: leads outside the dataset folder {root} "
                            f"(to {path}); not read")
    return path


def read_spec(folder: Path, problems: list[str]) -> DatasetSpec | None:
    """The manifest of `folder`, problems appended (None when it cannot be read at all)."""
    path = folder / CUSTOM_DATASET_MANIFEST
    try:
        raw = json.loads(inside(folder, CUSTOM_DATASET_MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{path} does not exist")
        return None
    except OutsideFolder as exc:
        problems.append(str(exc))
        return None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        problems.append(f"{path}: not a readable JSON file ({exc})")
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("categories"), list):
        problems.append(f"{path}: must be a JSON object with a `categories` list")
        return None
    say = _Problems(path, problems)
    for key in sorted(set(raw) - _DATASET_KEYS):
        say(f"unknown field {key!r} (fields: {', '.join(sorted(_DATASET_KEYS))})")
    name = _dataset_name(raw.get("name"), folder, say)
    specs: list[CategorySpec] = []
    for index, entry in enumerate(raw["categories"]):
        spec = _category(entry, index, name, say)
        if spec is None:
            continue
        if spec.name in {s.name for s in specs} or spec.name == name:
            say(f"category {index}: the name {spec.name!r} is used twice in this dataset")
            continue
        specs.append(spec)
    if not raw["categories"]:
        say("`categories` is empty")
    return DatasetSpec(name, folder, str(raw.get("description", "")), tuple(specs))


class _Problems:
    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems

    def __call__(self, message: str) -> None:
        self.problems.append(f"{self.path}: {message}")


def reserved(name: str) -> str | None:
    """Why a name cannot be a custom category's or dataset's (None: it can)."""
    if not NAME.match(name):
        return "use letters, digits and _ (starting with a letter)"
    builtin = {c.name for c in categories.CATEGORIES} | set(categories.LEGACY_NAMES)
    if name in builtin:
        return "it is an official category"
    if name in categories.BUILTIN_COLLECTIONS or name == RESERVED:
        return "it is a built-in collection"
    return None


def _dataset_name(raw: Any, folder: Path, say: _Problems) -> str:
    if raw is None:
        name = re.sub(r"\W", "_", folder.resolve().name) or "dataset"
        return name if NAME.match(name) else f"dataset_{name}"
    if not isinstance(raw, str) or reserved(raw):
        say(f"`name` {raw!r} cannot name a dataset: {reserved(str(raw)) or 'not a string'}")
        return "dataset"
    return raw


def _category(entry: Any, index: int, dataset: str, say: _Problems) -> CategorySpec | None:
    if not isinstance(entry, dict):
        say(f"category {index} is not an object")
        return None
    where = f"category {index} ({entry.get('name', '?')})"
    for key in sorted(set(entry) - _CATEGORY_KEYS):
        say(f"{where}: unknown field {key!r} (fields: {', '.join(sorted(_CATEGORY_KEYS))})")
    name = entry.get("name")
    why = reserved(name) if isinstance(name, str) else "missing or not a string"
    if why:
        say(f"{where}: `name` cannot be {name!r}: {why}")
        return None
    assert isinstance(name, str)
    checker = entry.get("checker")
    if checker in UNSUPPORTED:
        say(f"{where}: {UNSUPPORTED[checker]}")
        return None
    if not isinstance(checker, str) or not _known_checker(checker):
        shown = ", ".join([*CHECKERS, *AUTO_CHECKERS])
        say(f"{where}: unknown checker {checker!r} (one of {shown}, or a kind registered with "
            "fcbench.check.registry)")
        return None
    language = _language(entry.get("language", "python"), where, say)
    group = entry.get("group", dataset)
    if not isinstance(group, str) or not NAME.match(group):
        say(f"{where}: `group` {group!r} is not a name (letters, digits, _)")
        group = dataset
    files = _files(entry, name, checker, where, say)
    if files is None:
        return None
    return CategorySpec(name, checker, language, group, str(entry.get("description", "")),
                        *files)


def _known_checker(name: str) -> bool:
    return name in CHECKERS or name in AUTO_CHECKERS or categories.is_checker_name(name)


def _language(raw: Any, where: str, say: _Problems) -> Language:
    try:
        return Language(raw)
    except ValueError:
        say(f"{where}: `language` {raw!r} is not python, java or javascript")
        return Language.PYTHON


def _files(
    entry: dict[str, Any], name: str, checker: str, where: str, say: _Problems
) -> tuple[str | None, str | None, str | None] | None:
    """(jsonl file, question file, answer file), each checked to stay inside the folder."""
    if "file" in entry:
        if "questions" in entry or "answers" in entry:
            say(f"{where}: give `file` (simple format) or `questions`/`answers`, not both")
            return None
        jsonl = _relative(entry["file"], where, say)
        if jsonl is not None and not jsonl.endswith(".jsonl"):
            say(f"{where}: `file` must be a .jsonl file of the simple format")
            return None
        return (jsonl, None, None) if jsonl else None
    questions = _relative(entry.get("questions", f"{VERSION_PREFIX}_{name}.json"), where, say)
    answers = None
    if checker not in NO_ANSWERS:
        default = f"possible_answer/{VERSION_PREFIX}_{name}.json"
        answers = _relative(entry.get("answers", default), where, say)
        if answers is None:
            return None
    return (None, questions, answers) if questions else None


def _relative(raw: Any, where: str, say: _Problems) -> str | None:
    if not isinstance(raw, str) or not raw:
        say(f"{where}: a file name must be a non-empty string")
        return None
    path = PurePosixPath(raw)
    if path.is_absolute() or ".." in path.parts:
        say(f"{where}: {raw!r} must be a path inside the dataset folder")
        return None
    return path.as_posix()
