"""Custom datasets: a folder with a manifest (`fcbench.json`, see `custom_spec.py`) whose
categories are read wherever an official category is.

Registering a dataset adds each of its categories to the registry (a `Category` row with
release `custom`, its checker and group), binds the category to the dataset's own files
(`source.bind_source`: loading, sizes and slim forms read them whatever `--data-dir` or the
release say) and names two collections: the dataset's name and `custom` (every custom
category). From then on `run`, `generate`, `evaluate`, `report`, `compare` and the Python
API treat them like any other category; forked evaluation workers inherit the registry.

Simple-format (`.jsonl`) categories are checked once per file version (problems and shapes
kept, not the texts) and converted again a line at a time whenever read, into line-aligned
BFCL question and answer texts served by `CustomSource` under virtual names
(`weather.jsonl#questions`), so loading and validating report the JSONL file's own lines and
a file of a million cases is never held converted.
Multi-turn function docs come from the dataset's `multi_turn_func_doc/` when it has them,
else from the fetched release.

`use_data_dirs` is what every `--data-dir` goes through: several folders may be given; those
with a manifest are registered, and at most one other (laid out like the official `data/`)
is returned as the data root that replaces the release, as `--data-dir` always meant.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from fcbench.core import categories
from fcbench.core.categories import Category, Checker
from fcbench.dataset.custom_spec import (
    AUTO_CHECKERS,
    NO_ANSWERS,
    RESERVED,
    CategorySpec,
    DatasetSpec,
    OutsideFolder,
    inside,
    read_spec,
)
from fcbench.dataset.fetch import DataError, dataset_identity
from fcbench.dataset.naming import Naming
from fcbench.dataset.simple_format import Converted, convert_jsonl, converted_lines, file_lines
from fcbench.dataset.source import Source, bind_source, json_lines, source
from fcbench.layout import CUSTOM_DATASET_MANIFEST

__all__ = [
    "CustomCategory",
    "CustomDataset",
    "CustomSource",
    "DataDirs",
    "datasets_in",
    "is_custom",
    "read_category",
    "read_dataset",
    "registered",
    "run_identity",
    "unregister_all",
    "use_data_dirs",
]

DataDirs = str | Path | Sequence[str | Path] | None
"""What `--data-dir` / `data_dir=` takes: nothing, one folder, or several."""
RELEASE_TAG = "custom"
"""The `Category.release` of every custom category."""
_FUNC_DOCS = "multi_turn_func_doc/"


@dataclass(frozen=True)
class CustomNaming(Naming):
    """File names as the manifest gives them (category name -> question, answer file)."""

    files: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def question_file(self, category: Category) -> str:
        return self.files[category.name][0]

    def answer_file(self, category: Category) -> str:
        return self.files[category.name][1]


@dataclass(frozen=True)
class Virtual:
    """A converted text: which side (0 questions, 1 answers) of which JSONL file."""

    path: Path
    """The JSONL file as the manifest names it (what findings and stamps show)."""
    real: Path
    """The same file with links resolved and checked inside the folder (what is opened)."""
    side: int
    category: str
    checker: str
    broken: frozenset[int] = frozenset()
    """The lines whose conversion failed when the dataset was read (blank when read)."""


@dataclass
class CustomSource(Source):
    """A dataset folder, plus converted JSONL texts under virtual names, plus the release's
    multi-turn docs where the folder has none."""

    virtual: Mapping[str, Virtual] = field(default_factory=dict)
    """Virtual name -> the converted text it stands for."""

    def _official(self, rel: str) -> bool:
        assert self.root is not None
        return rel.startswith(_FUNC_DOCS) and not (self.root / rel).is_file()

    def has(self, relpath: str) -> bool:
        if relpath in self.virtual:
            return True
        if self._official(relpath):
            return source(self.release, None).has(relpath)
        return super().has(relpath)

    def label(self, relpath: str) -> str:
        if relpath in self.virtual:
            return str(self.virtual[relpath].path)
        return relpath if self._official(relpath) else super().label(relpath)

    def read(self, relpath: str) -> bytes:
        if relpath in self.virtual:
            return "\n".join(self._lines(relpath)).encode("utf-8", "surrogatepass")
        if self._official(relpath):
            return source(self.release, None).read(relpath)
        assert self.root is not None
        try:
            inside(self.root, relpath)
        except OutsideFolder as exc:
            raise DataError(str(exc)) from None
        return super().read(relpath)

    def stamp(self, relpath: str) -> tuple[str, int, int]:
        if relpath in self.virtual:
            path = self.virtual[relpath].path
            assert self.root is not None
            return super().stamp(str(path.relative_to(self.root)))
        return super().stamp(relpath)

    def stream(self, relpath: str) -> Iterator[str]:
        if relpath in self.virtual:
            return self._lines(relpath)
        return super().stream(relpath)

    def stream_pair(self, first: str, second: str) -> tuple[Iterator[str], Iterator[str]]:
        one, two = self.virtual.get(first), self.virtual.get(second)
        if one is None or two is None or one.real != two.real or one.side == two.side:
            return super().stream_pair(first, second)
        shared = _Shared(self._pairs(first))
        return (shared.side(one.side, lambda: self._lines(first)),
                shared.side(two.side, lambda: self._lines(second)))

    def _pairs(self, relpath: str) -> Iterator[tuple[str, str]]:
        virtual = self.virtual[relpath]
        try:
            with virtual.real.open("rb") as handle:
                yield from converted_lines(file_lines(handle), virtual.category,
                                           virtual.checker, broken=virtual.broken)
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(f"{virtual.path}: unreadable ({exc})") from None

    def _lines(self, relpath: str) -> Iterator[str]:
        """A converted text's lines; DataError when the file went or is no longer UTF-8."""
        side = self.virtual[relpath].side
        for pair in self._pairs(relpath):
            yield pair[side]


_AHEAD = 10_000
"""Lines one reader of a shared conversion may run ahead of the other before the slower one
is cut loose (it then converts the file again on its own: memory stays bounded)."""


class _Shared:
    """One line-at-a-time conversion of a JSONL file read by its question reader and its
    answer reader (validation reads them a line of each in turn): the file is converted once
    for both, and what one reader is ahead by is queued for the other."""

    def __init__(self, pairs: Iterator[tuple[str, str]]) -> None:
        self.pairs = pairs
        self.queues: tuple[deque[str], deque[str]] = (deque(), deque())
        self.cut = [False, False]

    def side(self, index: int, alone: Callable[[], Iterator[str]]) -> Iterator[str]:
        """The lines of one side (0 questions, 1 answers); `alone` converts them afresh."""
        given = 0
        while not self.cut[index]:
            queue = self.queues[index]
            if queue:
                line = queue.popleft()
            else:
                pair = next(self.pairs, None)
                if pair is None:
                    return
                line = pair[index]
                self._queue(1 - index, pair[1 - index])
            given += 1
            yield line
        yield from islice(alone(), given, None)

    def _queue(self, index: int, line: str) -> None:
        if self.cut[index]:
            return
        self.queues[index].append(line)
        if len(self.queues[index]) > _AHEAD:
            self.cut[index] = True
            self.queues[index].clear()


@dataclass
class CustomCategory:
    spec: CategorySpec
    row: Category
    question_file: str
    answer_file: str
    converted: Converted | None = None
    """The JSONL file's conversion (None for BFCL files)."""


@dataclass(eq=False)
class CustomDataset:
    """One read of a dataset folder (compared and hashed by identity)."""

    spec: DatasetSpec
    categories: list[CustomCategory]
    _sources: dict[str, CustomSource] = field(default_factory=dict, init=False, repr=False)
    """One source per release: the converted JSONL texts are built once, not per lookup."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def folder(self) -> Path:
        return self.spec.folder

    def source(self, release: str) -> CustomSource:
        if release not in self._sources:
            self._sources[release] = self._new_source(release)
        return self._sources[release]

    def _new_source(self, release: str) -> CustomSource:
        files = {c.row.name: (c.question_file, c.answer_file) for c in self.categories}
        virtual: dict[str, Virtual] = {}
        for c in self.categories:
            if c.converted is not None and c.spec.file is not None:
                path, real = self.folder / c.spec.file, inside(self.folder, c.spec.file)
                broken = frozenset(line for line, _, _ in c.converted.problems)
                for side, name in enumerate((c.question_file, c.answer_file)):
                    virtual[name] = Virtual(path, real, side, c.spec.name, c.spec.checker,
                                            broken)
        return CustomSource(release, self.folder, _naming=CustomNaming(files=files),
                            virtual=virtual)

    def identity(self) -> dict[str, Any]:
        """What a run manifest records: name, folder and the checksum of its files."""
        found = dataset_identity(None, self.folder)
        return {"name": self.name, "data_dir": found["data_dir"], "checksum": found["checksum"]}


# --------------------------------------------------------------------------- reading


def read_dataset(folder: Path, problems: list[str]) -> CustomDataset | None:
    """The dataset in `folder` with every problem appended (its manifest's, its JSONL files'
    conversion, missing files); None when the manifest is unreadable."""
    spec = read_spec(Path(folder), problems)
    if spec is None:
        return None
    found = [c for c in (read_category(spec, s, problems) for s in spec.categories) if c]
    return CustomDataset(spec, found)


def read_category(
    spec: DatasetSpec, cat: CategorySpec, problems: list[str]
) -> CustomCategory | None:
    """One category of the dataset (its JSONL file converted; problems appended), or None
    when its file is missing or unreadable."""
    if cat.file is not None:
        converted = _convert(spec.folder, cat, problems)
        if converted is None:
            return None
        checker = _resolved(cat.checker, converted.max_functions, converted.max_calls)
        answer = f"{cat.file}#answers" if checker not in NO_ANSWERS else ""
        return CustomCategory(cat, _row(cat, checker), f"{cat.file}#questions", answer,
                              converted)
    assert cat.questions is not None
    path = spec.folder / cat.questions
    if not path.is_file():
        problems.append(f"{path}: the question file of {cat.name} does not exist")
        return None
    checker = cat.checker
    if checker in AUTO_CHECKERS:
        checker = _resolved(checker, *_shapes(spec.folder, cat))
    return CustomCategory(cat, _row(cat, checker), cat.questions, cat.answers or "")


def _convert(folder: Path, cat: CategorySpec, problems: list[str]) -> Converted | None:
    assert cat.file is not None
    path = folder / cat.file
    try:  # read a line at a time: a file of a million cases is never held whole
        real = inside(folder, cat.file)
        stat = real.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns, cat.name, cat.checker)
        converted = _CONVERTED.get(key)
        if converted is None:
            with real.open("rb") as handle:
                converted = convert_jsonl(file_lines(handle), cat.name, cat.checker,
                                          keep=False)
            _CONVERTED[key] = converted
    except FileNotFoundError:
        problems.append(f"{path}: the file of {cat.name} does not exist")
        return None
    except OutsideFolder as exc:
        problems.append(str(exc))
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: unreadable ({exc})")
        return None
    problems.extend(f"{path}, line {line}: {case_id or '?'}: {message}"
                    for line, case_id, message in converted.problems)
    return converted


_CONVERTED: dict[tuple[str, int, int, str, str], Converted] = {}
"""(file, size, modification time, category, checker) -> its conversion."""


def _resolved(checker: str, max_functions: int, max_calls: int) -> str:
    """`ast` / `exec` decided by the cases: several calls -> parallel, several functions ->
    multiple, else simple."""
    if checker not in AUTO_CHECKERS:
        return checker
    family = "ast" if checker == "ast" else "exec"
    kind = "parallel" if max_calls > 1 else "multiple" if max_functions > 1 else "simple"
    return f"{family}_{kind}"


def _shapes(folder: Path, cat: CategorySpec) -> tuple[int, int]:
    """(most functions in a case, most expected calls) of BFCL files; 0 for what is
    unreadable (loading or validating reports it)."""
    def widest(rel: str | None, key: str) -> int:
        try:
            text = inside(folder, rel).read_text(encoding="utf-8") if rel else ""
        except (OSError, UnicodeDecodeError, OutsideFolder):
            return 0
        values = (v.get(key) for _, v, e in json_lines(text) if e is None and isinstance(v, dict))
        return max((len(v) for v in values if isinstance(v, list)), default=0)

    return widest(cat.questions, "function"), widest(cat.answers, "ground_truth")


def _row(cat: CategorySpec, checker: str) -> Category:
    return Category(cat.name, cat.group, RELEASE_TAG, cat.language, checker,
                    answers=checker not in (*NO_ANSWERS, Checker.NONE))


# --------------------------------------------------------------------------- registering


_DATASETS: dict[str, tuple[tuple[Any, ...], CustomDataset]] = {}
"""Resolved folder -> (the stamps it was read at, the dataset)."""


def open_dataset(folder: Path) -> CustomDataset:
    """The dataset in `folder`, read again only when a file changed; DataError at the first
    problem (`fcbench data validate FOLDER` lists them all)."""
    key = str(Path(folder).resolve())
    stamps = _stamps(Path(folder))
    known = _DATASETS.get(key)
    if known is not None and known[0] == stamps:
        return known[1]
    problems: list[str] = []
    dataset = read_dataset(Path(folder), problems)
    if problems or dataset is None:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise DataError(f"{problems[0]}{more}; `fcbench data validate {folder}` lists every "
                        "problem")
    _DATASETS[key] = (stamps, dataset)
    return dataset


def _stamps(folder: Path) -> tuple[Any, ...]:
    """Size and modification time of every file (dot-files aside): a change re-reads."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                st = os.stat(os.path.join(root, name))
                found.append((root, name, st.st_size, st.st_mtime_ns))
    return tuple(found)


_REGISTERED: dict[str, CustomDataset] = {}
"""Category name -> the dataset registered for it."""


def register_dataset(dataset: CustomDataset) -> None:
    """Make the dataset's categories known (replacing those of an earlier read of it, or of
    another dataset that used the same names in this process)."""
    if dataset.name in _REGISTERED and _REGISTERED[dataset.name].folder != dataset.folder:
        raise DataError(f"{dataset.folder}: the dataset name {dataset.name!r} is a category "
                        "of another dataset")
    for cat in dataset.categories:
        try:
            categories.register(cat.row, replace=True)
        except ValueError as exc:
            raise DataError(f"{dataset.folder}: {exc}") from None
        _REGISTERED[cat.row.name] = dataset
        bind_source(cat.row.name, dataset.source)
    categories.register_collection(dataset.name, [c.row.name for c in dataset.categories])
    categories.register_collection(RESERVED, sorted(_REGISTERED))


def use_data_dirs(value: DataDirs) -> Path | None:
    """Register the custom datasets among the folders; return the official-layout one.

    A folder with `fcbench.json` is a custom dataset; any other is a folder laid out like
    the official `data/` (at most one: it replaces the release's files)."""
    folders = _folders(value)
    plain = [f for f in folders if not (f / CUSTOM_DATASET_MANIFEST).is_file()]
    if len(plain) > 1:
        shown = ", ".join(map(str, plain))
        raise DataError(f"at most one --data-dir may be laid out like the official data/ "
                        f"(without {CUSTOM_DATASET_MANIFEST}); got {shown}")
    custom = [open_dataset(f) for f in folders if f not in plain]
    _refuse_clashes(custom)
    for dataset in custom:
        register_dataset(dataset)
    return plain[0] if plain else None


def datasets_in(value: DataDirs) -> list[CustomDataset]:
    """The custom datasets among the folders (read, not registered)."""
    return [open_dataset(f) for f in _folders(value) if (f / CUSTOM_DATASET_MANIFEST).is_file()]


def _folders(value: DataDirs) -> list[Path]:
    if value is None:
        return []
    items = [value] if isinstance(value, (str, Path)) else list(value)
    folders = [Path(v) for v in items]
    for folder in folders:
        if not folder.is_dir():
            raise DataError(f"--data-dir {folder}: no such folder")
    return folders


def _refuse_clashes(datasets: Iterable[CustomDataset]) -> None:
    """Two datasets given together may not define the same category or dataset name."""
    owner: dict[str, Path] = {}
    for dataset in datasets:
        for name in [dataset.name, *(c.row.name for c in dataset.categories)]:
            if name in owner and owner[name] != dataset.folder:
                raise DataError(f"{name!r} is defined by both {owner[name]} and {dataset.folder}")
            owner[name] = dataset.folder


def unregister_all() -> None:
    """Forget every registered custom dataset: its categories, collections and sources
    (tests; a long-lived process switching datasets)."""
    for dataset in registered():
        categories.unregister(dataset.name)
    for name in list(_REGISTERED):
        categories.unregister(name)
        bind_source(name, None)
        del _REGISTERED[name]
    categories.unregister(RESERVED)


def registered() -> list[CustomDataset]:
    """The datasets registered in this process, in registration order."""
    return list(dict.fromkeys(_REGISTERED.values()))


def is_custom(category: Category | str) -> bool:
    """Whether a category (or name) belongs to a registered custom dataset."""
    return (category.name if isinstance(category, Category) else category) in _REGISTERED


def run_identity(release: str, data_dir: Path | None, names: Iterable[str]) -> dict[str, Any]:
    """The dataset identity a run records: the release's (or data folder's), plus each
    custom dataset whose categories it asks."""
    identity = dataset_identity(release, data_dir)
    used = list(dict.fromkeys(_REGISTERED[n] for n in names if n in _REGISTERED))
    if used:
        identity["custom"] = [dataset.identity() for dataset in used]
    return identity
