"""A model folder's manifest, `model.json`: how its outputs are encoded (what `evaluate` reads
to decode them), and what produced them: backend, endpoints, sampling, fcbench's version, the
dataset's release and checksum, and every run's start, end and counts.

Every generation writes it, whoever starts it (the CLI, `fcbench.generate`, a test), so a
folder of results can always be scored as it was produced. It is written atomically: a crash
never leaves half a manifest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fcbench.layout import manifest_path
from fcbench.models.base import Backend, Mode, layout_of
from fcbench.runner.store import write_json_atomic


class ManifestError(ValueError):
    """The folder holds results that cannot be mixed with this run's."""


def encoding_fields(mode: Mode, backend: Backend) -> dict[str, Any]:
    """The keys `Encoding.from_file` reads: FC names are sent with underscores (every API
    fcbench speaks requires it) and arguments stored as the backend stores them; a backend
    with its own layout (open-model prompt formats) names its output format (`family`)."""
    layout = layout_of(backend)
    if layout is not None:
        encoding = layout.output_encoding
        return {"mode": "prompt", "fc_names": encoding.fc_names, "fc_args": None,
                "family": encoding.family}
    if mode == "fc":
        return {"mode": "fc", "fc_names": "underscore",
                "fc_args": getattr(backend, "fc_args", "json_string")}
    return {"mode": "prompt", "fc_names": "dot", "fc_args": None}


def read_manifest(model_dir: Path) -> dict[str, Any]:
    """The folder's manifest, or {} when there is none (or it is unreadable)."""
    try:
        data = json.loads(manifest_path(model_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def start_manifest(
    model_dir: Path,
    *,
    model: str,
    mode: Mode,
    backend: Backend,
    dataset: dict[str, Any],
    categories: Sequence[str],
    started_at: str,
) -> dict[str, Any]:
    """Write the manifest at the start of a run (the run history of earlier runs kept)."""
    from fcbench import __version__

    old = read_manifest(model_dir)
    if old.get("mode") not in (None, mode):
        raise ManifestError(
            f"{model_dir} holds {old['mode']} results; use another run name or result folder "
            f"for a {mode} run"
        )
    manifest: dict[str, Any] = {
        **encoding_fields(mode, backend),
        "model": model,
        **backend.describe(),
        "fcbench_version": __version__,
        "dataset": dataset,
        "categories": sorted(set(old.get("categories", [])) | set(categories)),
        "started_at": started_at,
        "finished_at": None,
        "runs": list(old.get("runs", [])),
    }
    write_json_atomic(manifest_path(model_dir), manifest)
    return manifest


def finish_manifest(model_dir: Path, manifest: dict[str, Any], summary: dict[str, Any]) -> None:
    """Record the run's end and counts."""
    manifest["finished_at"] = summary.get("finished_at")
    manifest["runs"].append(summary)
    write_json_atomic(manifest_path(model_dir), manifest)
