"""Results other tools read: exporters by name.

Why a registry: every format is derived from one document, fcbench's own results JSON
(`export.results`, schema `schema/results-v1.json`), so a new format is one module with an
`export(document, model)` function plus one line here, and no format reads score files itself.
Formats with samples (per-case records) also have `files(document, model, source)`, which
reads the cases through `export.cases.CaseSource` and returns path -> text for `-o DIR`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol, cast

EXPORTERS: dict[str, str] = {
    # name: module (its `export(document, model) -> dict` and one-line `DESCRIPTION`)
    "fcbench": "fcbench.export.native",
    "every-eval-ever": "fcbench.export.every_eval_ever",
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
    return hasattr(module, "files") and output != "-" and not output.endswith(".json")


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
