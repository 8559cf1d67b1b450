"""`fcbench merge`: the shard folders of one run (`--shard K/N`) put back into the folder an
unsharded run would have written.

Refused (MergeError, one line), before anything is written: a folder that is not a shard's
(no `shard` in its model.json, or no shard.json), a folder given twice, a shard given twice,
shards of different counts, and shards of different configurations: whatever model.json
compares on resume (model, backend, endpoint settings that change answers, mode, sampling,
corrections, release: `manifest.CONFIGURATION`), the dataset's identity, and the run's
categories and selection (shard.json). A shard still being written (its folder lock held) is
refused too: its last lines are not there yet.

Written: each category's result file with every entry of every shard, in the official id
order and the bytes a finished run writes (`store.write_entries`), then the other files the
shards hold (memory snapshots: one scenario is one shard's), the web records joined (the
first answer per request stays the answer, as in one record), and model.json last: the
shards' shared configuration, the union of their categories, every shard's run log, their
web-search counts summed. What the target folder already holds is kept: an entry a shard
also has is replaced by the shard's unless the shard's is an error and the folder's is not,
so merging again after a shard is re-run, or after a resume filled the gaps, loses nothing.
Every file is replaced atomically (`_atomic`).

Reported, not refused (the folder is written, the exit status says it is not complete):
cases missing (in a shard's list, in no result file; and the cases of shards not given,
counted from the run's totals), cases recorded as errors a resume asks again, and
duplicates: an id written by two shards keeps a finished entry over an error, and among
finished ones the entry of the shard that owns it (its shard.json lists it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench._atomic import replace_file
from fcbench.core.model import id_order
from fcbench.layout import (
    MANIFEST,
    SHARD_RECORD,
    manifest_path,
    result_path,
    shard_record_path,
    web_record_dir,
)
from fcbench.results.manifest import SHOWN_DIFFERENCES, _configuration, read_manifest
from fcbench.results.store import (
    CategoryStore,
    FolderLock,
    StoreBusyError,
    is_error,
    to_ask_again,
    write_entries,
    write_json_atomic,
)

SKIPPED_FILES = frozenset({MANIFEST, SHARD_RECORD, ".fcbench.lock", "serve.log"})
"""A shard's own files, not copied: its manifest and record (model.json is written from all
of them), its lock, its server's log."""
RESULT_SUFFIX = "_result.json"


class MergeError(ValueError):
    """Shards that cannot be merged (one line: which, and why)."""


@dataclass
class ShardFolder:
    """One shard's folder, as read before the merge."""

    path: Path
    manifest: dict[str, Any]
    record: dict[str, Any]

    @property
    def index(self) -> int:
        return int(self.record["index"])

    @property
    def count(self) -> int:
        return int(self.record["count"])

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def ids(self) -> dict[str, list[str]]:
        found = self.record.get("ids")
        return found if isinstance(found, dict) else {}


@dataclass
class MergeReport:
    """What a merge wrote and found."""

    into: Path
    shards: list[str]
    count: int
    written: int = 0
    """Entries in the merged result files."""
    missing: list[str] = field(default_factory=list)
    """Ids a given shard was to ask that no result file holds."""
    unlisted: int = 0
    """Cases of the shards not given (from the run's totals)."""
    absent_shards: list[int] = field(default_factory=list)
    errored: list[str] = field(default_factory=list)
    """Ids recorded with an error a resume asks again (a final one is a finished case)."""
    duplicated: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    """Other files two shards hold with different bytes (the first shard's kept)."""

    @property
    def complete(self) -> bool:
        return not (self.missing or self.errored or self.unlisted or self.absent_shards)


def read_shard(path: Path) -> ShardFolder:
    """A shard folder's manifest and record (MergeError when it is not a shard's)."""
    if not path.is_dir():
        raise MergeError(f"{path}: no such folder")
    manifest = read_manifest(path)
    record = _read_json(shard_record_path(path))
    if not manifest or not isinstance(manifest.get("shard"), dict) or record is None:
        raise MergeError(f"{path} is not the folder of a shard (--shard K/N writes "
                         "model.json with its shard, and shard.json)")
    if manifest["shard"] != {"index": record.get("index"), "count": record.get("count")}:
        raise MergeError(f"{path}: model.json and shard.json name different shards")
    return ShardFolder(path, manifest, record)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = fast_json.loads_numbers(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def check_shards(shards: Sequence[ShardFolder]) -> None:
    """MergeError unless the shards are distinct shards of one run's configuration."""
    seen: dict[Path, Path] = {}
    for shard in shards:
        real = shard.path.resolve()
        if real in seen:
            raise MergeError(f"{shard.path} is given twice")
        seen[real] = shard.path
    first = shards[0]
    by_index: dict[int, ShardFolder] = {}
    for shard in shards:
        if shard.count != first.count:
            raise MergeError(f"{shard.path} is shard {shard.label}, {first.path} shard "
                             f"{first.label}: shards of different counts do not fit together")
        if shard.index in by_index:
            raise MergeError(f"shard {shard.label} is given twice: {by_index[shard.index].path} "
                             f"and {shard.path}")
        by_index[shard.index] = shard
        differences = identity_differences(first, shard)
        if differences:
            shown = "; ".join(differences[:SHOWN_DIFFERENCES])
            more = len(differences) - SHOWN_DIFFERENCES
            raise MergeError(f"{shard.path} is not a shard of the same run as {first.path} "
                             f"({shown}{f'; and {more} more' if more > 0 else ''})")


def identity_differences(first: ShardFolder, other: ShardFolder) -> list[str]:
    """`name: first -> other` for each part of the run's identity that differs."""

    def identity(shard: ShardFolder) -> dict[str, Any]:
        found = {k: v for k, v in _configuration(shard.manifest).items() if k != "shard"}
        dataset = shard.manifest.get("dataset")
        found["dataset"] = ({k: v for k, v in dataset.items() if k != "custom"}
                            if isinstance(dataset, dict) else dataset)
        for name in ("categories", "selection", "totals"):
            found[name] = shard.record.get(name)
        return found

    before, after = identity(first), identity(other)
    return [f"{name}: {_short(before.get(name))} -> {_short(after.get(name))}"
            for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]


def _short(value: Any) -> str:
    text = fast_json.dumps(value) if value is not None else "none"
    return text if len(text) <= 80 else text[:77] + "..."


@contextlib.contextmanager
def _locked(folders: Sequence[Path]) -> Iterator[None]:
    """Every folder's lock for the merge (StoreBusyError -> MergeError: still written)."""
    with contextlib.ExitStack() as stack:
        for folder in folders:
            try:
                stack.enter_context(FolderLock(folder))
            except StoreBusyError:
                raise MergeError(f"{folder} is being written by an fcbench run; merge once "
                                 "it has finished") from None
        yield


def merge(folders: Sequence[Path], into: Path) -> MergeReport:
    """Merge the shard folders into `into` (MergeError before anything is written when they
    do not fit together)."""
    if not folders:
        raise MergeError("no shard folder given")
    shards = sorted((read_shard(Path(f)) for f in folders), key=lambda s: s.index)
    check_shards(shards)
    into = Path(into)
    if any(into.resolve() == s.path.resolve() for s in shards):
        raise MergeError(f"--into {into} is one of the shards; name a folder of its own")
    _check_target(into, shards[0])
    report = MergeReport(into, [s.label for s in shards], shards[0].count)
    with _locked([*(s.path for s in shards), into]):
        categories = _categories(shards)
        for category in categories:
            report.written += _merge_category(category, shards, into, report)
        _copy_other_files(shards, into, report)
        _merge_web_records(shards, into)
        write_json_atomic(manifest_path(into), merged_manifest(shards, into))
    given = {s.index for s in shards}
    report.absent_shards = [i for i in range(report.count) if i not in given]
    totals = shards[0].record.get("totals") or {}
    listed = sum(len(ids) for s in shards for ids in s.ids.values())
    report.unlisted = max(0, sum(int(n) for n in totals.values()) - listed)
    return report


def _check_target(into: Path, first: ShardFolder) -> None:
    """The target may be new, or a merge (or whole run) of the same configuration."""
    existing = read_manifest(into)
    if not existing:
        if into.is_dir() and any(into.rglob(f"*{RESULT_SUFFIX}")):
            raise MergeError(f"--into {into} holds result files but no model.json: "
                             "name another folder")
        return
    if isinstance(existing.get("shard"), dict):
        raise MergeError(f"--into {into} is a shard's folder; name a folder of its own")
    old = _configuration(existing)
    new = {k: v for k, v in _configuration(first.manifest).items() if k != "shard"}
    differing = [name for name in old if old[name] != new.get(name)]
    if differing:
        raise MergeError(f"--into {into} holds results of another configuration "
                         f"({', '.join(differing[:SHOWN_DIFFERENCES])} differ): name "
                         "another folder")


def _categories(shards: Sequence[ShardFolder]) -> list[str]:
    names: dict[str, None] = {}
    for shard in shards:
        for name in shard.record.get("categories") or []:
            names[str(name)] = None
    return list(names)


def _merge_category(
    category: str, shards: Sequence[ShardFolder], into: Path, report: MergeReport
) -> int:
    """One category's result file: the folder's entries and every shard's, one per id
    (`chosen`). Returns the number of entries written."""
    target = result_path(into, category)
    merged = CategoryStore(target).entries()
    owner = {test_id: shard.index for shard in shards for test_id in shard.ids.get(category, [])}
    found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for shard in shards:
        for test_id, entry in CategoryStore(result_path(shard.path, category)).entries().items():
            found.setdefault(test_id, []).append((shard.index, entry))
    for test_id, candidates in found.items():
        if len(candidates) > 1:
            report.duplicated.append(test_id)
        merged[test_id] = chosen(candidates, owner.get(test_id), merged.get(test_id))
    expected = set(owner)
    report.missing += sorted(expected - merged.keys(), key=id_order)
    report.errored += sorted((i for i, e in merged.items() if to_ask_again(e)), key=id_order)
    report.duplicated.sort(key=id_order)
    if merged or expected:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_entries(target, merged.values())
    return len(merged)


def chosen(
    candidates: Sequence[tuple[int, dict[str, Any]]], owner: int | None,
    existing: dict[str, Any] | None,
) -> dict[str, Any]:
    """The entry kept for an id the shards (`(shard index, entry)`, in shard order) hold:
    a finished one before an error (a written answer is never lost to an error), among
    those the owning shard's, else the first; the target folder's own entry stays only when
    it is finished and every shard's is an error."""
    finished = [c for c in candidates if not is_error(c[1])]
    pool = finished or list(candidates)
    entry = next((e for index, e in pool if index == owner), pool[0][1])
    if existing is not None and is_error(entry) and not is_error(existing):
        return existing
    return entry


def _other_files(folder: Path) -> Iterator[Path]:
    """A shard's files other than its results, manifest, record, lock, log and web record."""
    record = web_record_dir(folder)
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink() or record in path.parents:
            continue
        name = path.name
        if (name in SKIPPED_FILES and path.parent == folder) or name.endswith(
                (RESULT_SUFFIX, ".tmp")):
            continue
        yield path


def _copy_other_files(shards: Sequence[ShardFolder], into: Path, report: MergeReport) -> None:
    """Memory snapshots and anything else the shards wrote: copied, the first shard's kept
    where two differ (listed as a conflict)."""
    copied: dict[Path, bytes] = {}
    for shard in shards:
        for path in _other_files(shard.path):
            relative = path.relative_to(shard.path)
            data = path.read_bytes()
            if relative in copied:
                if copied[relative] != data:
                    report.conflicts.append(str(relative))
                continue
            copied[relative] = data
            target = into / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            replace_file(target, data)


def _merge_web_records(shards: Sequence[ShardFolder], into: Path) -> None:
    """The shards' web records (in their folders) joined into the target's: every answer
    file, and one index line per request (the first recorded stays)."""
    from fcbench.envs.web_search.record import INDEX

    sources = [web_record_dir(s.path) for s in shards if web_record_dir(s.path).is_dir()]
    if not sources:
        return
    target = web_record_dir(into)
    target.mkdir(parents=True, exist_ok=True)
    keys: set[str] = set()
    lines: list[bytes] = []
    for folder in [target, *sources]:
        for path in sorted(folder.iterdir()):
            if path.name != INDEX and path.is_file() and not path.name.startswith("."):
                destination = target / path.name
                if folder != target and not destination.exists():
                    shutil.copyfile(path, destination.with_name(destination.name + ".part"))
                    os.replace(destination.with_name(destination.name + ".part"), destination)
        lines += _new_index_lines(folder / INDEX, keys)
    replace_file(target / INDEX, b"".join(lines))


def _new_index_lines(index: Path, keys: set[str]) -> list[bytes]:
    """The complete lines of an index whose request is not in `keys` yet (added to it)."""
    try:
        data = index.read_bytes()
    except OSError:
        return []
    found: list[bytes] = []
    for line in data.split(b"\n")[:-1]:  # a last line without its newline is incomplete
        try:
            key = fast_json.loads_numbers(line).get("key")
        except (ValueError, AttributeError, RecursionError):
            continue
        if isinstance(key, str) and key not in keys:
            keys.add(key)
            found.append(line + b"\n")
    return found


def merged_manifest(shards: Sequence[ShardFolder], into: Path) -> dict[str, Any]:
    """The model.json of the merged folder: the first shard's configuration without its
    shard, every category, every run (each labelled with its shard), the web-search
    counts summed, and the shards it came from."""
    first = shards[0].manifest
    existing = read_manifest(into)
    manifest = {k: v for k, v in first.items() if k not in ("shard", "runs", "web_search")}
    manifest["categories"] = sorted({str(c) for m in [existing, *(s.manifest for s in shards)]
                                     for c in m.get("categories", [])} | set(_categories(shards)))
    manifest["dataset"] = _merged_dataset([s.manifest.get("dataset") for s in shards])
    starts = [str(s.manifest.get("started_at") or "") for s in shards]
    ends = [s.manifest.get("finished_at") for s in shards]
    manifest["started_at"] = min(starts)
    manifest["finished_at"] = None if None in ends else max(str(e) for e in ends)
    runs = list(existing.get("runs", []))
    for shard in shards:
        runs += [{**run, "shard": shard.label} for run in shard.manifest.get("runs", [])
                 if isinstance(run, dict)]
    manifest["runs"] = runs
    web = merged_web_search([s.manifest.get("web_search") for s in shards], into)
    if web is not None:
        manifest["web_search"] = web
    manifest["merged_from"] = [{"shard": s.label, "folder": s.path.name} for s in shards]
    return manifest


def _merged_dataset(datasets: Sequence[Any]) -> Any:
    """The shards' dataset identity (equal but for the custom datasets a shard had cases
    of): the first's, with every shard's custom datasets, once each."""
    first = datasets[0]
    if not isinstance(first, dict):
        return first
    custom: list[Any] = []
    for dataset in datasets:
        for item in dataset.get("custom", []) if isinstance(dataset, dict) else []:
            if item not in custom:
                custom.append(item)
    merged = {k: v for k, v in first.items() if k != "custom"}
    return {**merged, "custom": custom} if custom else merged


def merged_web_search(described: Sequence[Any], into: Path) -> dict[str, Any] | None:
    """The shards' `web_search` entries as one run's: counts, failures and recorded
    providers summed, comparable when every shard's was; the record the merged folder's
    when the shards recorded into their own folders."""
    found = [d for d in described if isinstance(d, dict)]
    if not found:
        return None
    merged: dict[str, Any] = dict(found[0])
    for name in ("counts", "failures", "recorded_providers"):
        total: dict[str, int] = {}
        for entry in found:
            for key, value in (entry.get(name) or {}).items():
                total[key] = total.get(key, 0) + int(value)
        merged[name] = total
    merged["failed_cases"] = sum(int(d.get("failed_cases") or 0) for d in found)
    merged["comparable"] = all(bool(d.get("comparable")) for d in found)
    if web_record_dir(into).is_dir():
        merged["record_dir"] = str(web_record_dir(into))
    return merged
