"""`fcbench data validate DIR` for a custom dataset (a folder with `fcbench.json`).

Everything `official.py` checks in official data, per category of the manifest, plus what is
particular to custom data; each finding names its file (relative to the dataset folder), line
and case id, the simple format's included (its findings point at the JSONL lines):

* the manifest: JSON, known fields, names that are free, known checkers and languages, files
  inside the folder (`manifest`);
* files the manifest names but the folder lacks (`missing-file`), JSONL lines that do not
  convert (`simple-format`: a field misspelt, a tool schema with a union type, ...);
* executable answers whose `execution_result_type` does not list one match kind per call;
* files no category reads (warning).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fcbench.dataset.custom import CustomCategory, CustomDataset, read_category
from fcbench.dataset.custom_spec import (
    CategorySpec,
    DatasetSpec,
    OutsideFolder,
    inside,
    read_spec,
)
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.source import json_lines
from fcbench.layout import CUSTOM_DATASET_MANIFEST
from fcbench.validate.findings import Finding, Place, Recorder, Report
from fcbench.validate.official import validate_categories

__all__ = ["validate_custom"]

MATCH_KINDS = frozenset({"exact_match", "real_time_match", "structural_match"})


def validate_custom(folder: Path, release: str | None = None) -> Report:
    """Every finding in the custom dataset at `folder` (multi-turn docs the folder lacks are
    the release's: it must be fetched)."""
    folder = Path(folder)
    rec = Recorder()
    problems: list[str] = []
    spec = read_spec(folder, problems)
    prefix = f"{folder / CUSTOM_DATASET_MANIFEST}: "
    for problem in problems:
        rec.error("manifest", Place(CUSTOM_DATASET_MANIFEST), problem.removeprefix(prefix))
    if spec is None:
        return Report(str(folder), "custom", rec.findings, 1, 0)
    dataset = CustomDataset(spec, [])
    for wanted in spec.categories:
        found = _category(spec, wanted, folder, rec)
        if found is not None:
            dataset.categories.append(found)
    findings, files, cases = validate_categories(dataset.source(release or DEFAULT_RELEASE),
                                                 [c.row for c in dataset.categories])
    rec.findings.extend(_shown(f, folder) for f in findings)
    for category in dataset.categories:
        _exec_kinds(category, folder, rec)
    _unclaimed(folder, dataset.categories, rec)
    # a JSONL file was read as two converted texts: count it once (plus the manifest)
    twice = sum(1 for c in dataset.categories if c.converted is not None and c.answer_file)
    return Report(str(folder), "custom", rec.findings, files - twice + 1, cases)


def _category(
    spec: DatasetSpec, category: CategorySpec, folder: Path, rec: Recorder
) -> CustomCategory | None:
    problems: list[str] = []
    found = read_category(spec, category, problems)
    if found is None:
        rel = category.file or category.questions or "?"
        for problem in problems:
            rec.error("missing-file", Place(rel), problem.removeprefix(f"{folder / rel}: "))
        return None
    if found.converted is not None and category.file is not None:
        for line, case_id, message in found.converted.problems:
            rec.error("simple-format", Place(category.file, line, case_id), message)
    return found


def _shown(finding: Finding, folder: Path) -> Finding:
    """A finding in a converted JSONL text, placed at the JSONL file itself; paths relative
    to the dataset folder."""
    file = finding.place.file.partition("#")[0]
    if file.startswith(str(folder) + "/"):
        file = file[len(str(folder)) + 1:]
    place = Place(file, finding.place.line, finding.place.case_id)
    return Finding(finding.severity, finding.kind, place, finding.message)


def _exec_kinds(category: CustomCategory, folder: Path, rec: Recorder) -> None:
    """Executable answers: one known match kind per ground-truth call (the checker reads
    them pairwise)."""
    if not category.row.checker.startswith("exec") or category.converted is not None:
        return  # the simple format fills them in (and checks them while converting)
    rel = category.answer_file
    try:
        text = inside(folder, rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, OutsideFolder):
        return  # reported by the common checks
    for number, entry, error in json_lines(text):
        if error is not None or not isinstance(entry, dict):
            continue
        truth, kinds = entry.get("ground_truth"), entry.get("execution_result_type")
        place = Place(rel, number, str(entry.get("id")))
        if not isinstance(kinds, list) or not isinstance(truth, list) or len(kinds) != len(
            truth
        ):
            rec.error("schema", place, "`execution_result_type` must list one match kind per "
                      "ground-truth call")
        elif not set(kinds) <= MATCH_KINDS:
            rec.error("schema", place, f"unknown match kind in {kinds} (one of "
                      f"{', '.join(sorted(MATCH_KINDS))})")


def _unclaimed(folder: Path, found: Iterable[CustomCategory], rec: Recorder) -> None:
    claimed = {CUSTOM_DATASET_MANIFEST}
    for category in found:
        claimed.update(f for f in (category.spec.file, category.spec.questions,
                                   category.spec.answers) if f)
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)
        if path.is_file() and not hidden and rel not in claimed and not rel.startswith(
            "multi_turn_func_doc/"
        ):
            rec.warning("unknown-file", Place(rel),
                        "no category of the manifest reads this file; it was not checked")
