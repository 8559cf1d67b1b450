"""Results other tools read: exporters by name.

Why a registry: every format is derived from one document, fcbench's own results JSON
(`export.results`, schema `schema/results-v1.json`), so a new format is one module with an
`export(document, model)` function plus one line here, and no format reads score files itself.
Formats with samples (per-case records) also have `files(document, model, source)`, which
reads the cases through `export.cases.CaseSource` and returns path -> text for `-o DIR`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

from fcbench.layout import repeat_of  # a repeat folder `F.repeat-<i>`: the repeats layout

EXPORTERS: dict[str, str] = {
    # name: module (its `export(document, model) -> dict` and one-line `DESCRIPTION`)
    "fcbench": "fcbench.export.native",
    "every-eval-ever": "fcbench.export.every_eval_ever_samples",  # the log and its samples
    "lm-eval": "fcbench.export.lm_eval_harness",
    "inspect": "fcbench.export.inspect_log",
}

Document = Mapping[str, Any]


class ExportError(ValueError):
    """The scores cannot be exported as asked (one line, for the command's error)."""


class Exporter(Protocol):
    """What a format module provides."""

    DESCRIPTION: str

    def export(self, document: Document, model: str | None) -> dict[str, Any]:
        """The format's document made from fcbench's results document."""
        ...


def writes_files(module: Exporter, output: str) -> bool:
    """Whether the export is a folder of files (`files(document, model, source)`): always
    for a format without a one-document form (`FILES_ONLY`), else when `-o` names a folder
    (anything but `-` and a `.json` file) and the format has files to write."""
    if getattr(module, "FILES_ONLY", False):
        return True
    return hasattr(module, "files") and output != "-" and not output.lower().endswith(".json")


def exporter(name: str) -> Exporter:
    """The module registered under `name`, imported now (formats load only when used)."""
    if name not in EXPORTERS:
        raise ExportError(f"no export format {name!r} (known: {', '.join(sorted(EXPORTERS))})")
    return cast(Exporter, importlib.import_module(EXPORTERS[name]))


def one_model(document: Document, model: str | None) -> Mapping[str, Any]:
    """The model record a one-model format exports: `model` by its name or folder name, or
    the only one; an ExportError naming the choices otherwise."""
    models: list[Mapping[str, Any]] = list(document["models"])
    names = [str(m["model"]) for m in models]
    if model is None:
        if len(models) == 1:
            return models[0]
        raise ExportError(
            f"this format holds one model and the scores hold {len(models)} "
            f"({', '.join(names) or 'none'}): pass --model"
        )
    from fcbench.layout import model_dir_name

    for record in models:
        if model == record.get("name") or record["model"] in (model, model_dir_name(model)):
            return record
    raise ExportError(f"no model {model!r} in the scores (found: {', '.join(names) or 'none'})")


Run = tuple[str, list[tuple[int, Mapping[str, Any]]]]
"""A run's folder name and its (repeat index, model record) pairs: one pair (index 1) for a
run without repeats, one per repeat folder `F.repeat-<i>` (by index) for a repeated run."""


def runs(document: Document, model: str | None) -> list[Run]:
    """The runs to export: `model` (a folder or model name, or the folder of a repeated run
    whose repeats are `F.repeat-<i>`), or every run of the scores, repeats grouped."""
    from fcbench.layout import model_dir_name

    plain: dict[str, Mapping[str, Any]] = {}
    repeated: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for record in document["models"]:
        folder = str(record["model"])
        found = repeat_of(folder)
        if found is None:
            plain[folder] = record
        else:
            repeated.setdefault(found[0], []).append((found[1], record))
    if model is not None and model_dir_name(model) in repeated and \
            model_dir_name(model) not in plain:
        base = model_dir_name(model)
        return [(base, sorted(repeated[base], key=lambda pair: pair[0]))]
    if model is not None:
        record = one_model(document, model)
        folder = str(record["model"])
        return [(folder, [((repeat_of(folder) or (folder, 1))[1], record)])]
    found_runs: list[Run] = [(folder, [(1, record)]) for folder, record in plain.items()]
    found_runs += [(base, sorted(pairs, key=lambda pair: pair[0]))
                   for base, pairs in repeated.items()]
    if not found_runs:
        raise ExportError("no model in the scores")
    return sorted(found_runs, key=lambda run: run[0])


def model_folders(score_dirs: Sequence[Path], model: str | None) -> tuple[str, ...]:
    """The model folders `--model` selects in the score folders: its folder, or, when there
    is none, the repeat folders `F.repeat-<i>` of a repeated run F (empty: every folder)."""
    from fcbench.layout import model_dir_name
    from fcbench.results.score_files import iter_score_files

    if model is None:
        return ()
    folder = model_dir_name(model)
    found = {name for score_dir in score_dirs if Path(score_dir).is_dir()
             for name, _, _ in iter_score_files(Path(score_dir))}
    repeats = sorted(name for name in found if (repeat_of(name) or ("",))[0] == folder)
    return (folder,) if folder in found or not repeats else tuple(repeats)
