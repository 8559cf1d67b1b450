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

from fcbench._json import loads_numbers
from fcbench._version import __version__
from fcbench.layout import manifest_path
from fcbench.models.base import Backend, Mode, layout_of
from fcbench.results.store import write_json_atomic


class ManifestError(ValueError):
    """The folder holds results that cannot be mixed with this run's."""


CONFIGURATION = ("model", "provider", "backend", "served_model", "mode", "fc_names", "fc_args",
                 "family", "prompt_format", "official_handler", "output_format", "sampling",
                 "max_tokens", "family_settings", "device", "corrections", "shard")
"""The manifest fields that decide what a model answers or how its answers are read: a
folder's results are one configuration's, so a run differing in any of them is refused. Not
among them: endpoints (replicas, a local server's port), timeouts, batch sizes, the
categories, fcbench's version; the dataset's release is compared apart (`dataset.release`).
`shard` (`{"index", "count"}` of `--shard K/N`): a shard's folder takes that shard only."""
SHOWN_DIFFERENCES = 3


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
        data = loads_numbers(manifest_path(model_dir).read_text(encoding="utf-8"))
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
    overwrite: bool = False,
    shard: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Write the manifest at the start of a run (the run history of earlier runs kept);
    ManifestError when the folder records another configuration, unless `overwrite` (the
    run discards its categories' results: the manifest takes the new configuration)."""
    old = read_manifest(model_dir)
    fields = planned_fields(model=model, mode=mode, backend=backend, dataset=dataset,
                            shard=shard)
    clash = None if overwrite else configuration_clash(old, fields)
    if clash is not None:
        raise ManifestError(refusal(model_dir, clash))
    manifest: dict[str, Any] = {
        **{name: value for name, value in fields.items() if name != "dataset"},
        "fcbench_version": __version__,
        "dataset": dataset,
        "categories": sorted(set(old.get("categories", [])) | set(categories)),
        "started_at": started_at,
        "finished_at": None,
        "runs": list(old.get("runs", [])),
    }
    if "web_search" in old:  # a run without web search leaves the folder's searches as they were
        manifest["web_search"] = old["web_search"]
    write_json_atomic(manifest_path(model_dir), manifest)
    return manifest


def planned_fields(
    *, model: str, mode: Mode, backend: Backend, dataset: dict[str, Any],
    shard: dict[str, int] | None = None,
) -> dict[str, Any]:
    """What a run's manifest will say of its configuration (before anything is written);
    `shard`: the run asks one shard of the cases (`dataset.shards`)."""
    from fcbench.corrections import active_profile

    return {**encoding_fields(mode, backend), "model": model, **backend.describe(),
            "corrections": active_profile(), "dataset": dataset,
            **({"shard": dict(shard)} if shard is not None else {})}


def check_resumable(
    model_dir: Path, *, model: str, mode: Mode, backend: Backend, dataset: dict[str, Any],
    shard: dict[str, int] | None = None,
) -> None:
    """ManifestError (one line: what differs, the ways out) when the folder's manifest records
    another configuration; called before a run asks or writes anything."""
    fields = planned_fields(model=model, mode=mode, backend=backend, dataset=dataset,
                            shard=shard)
    clash = configuration_clash(read_manifest(model_dir), fields)
    if clash is not None:
        raise ManifestError(refusal(model_dir, clash))


def configuration_clash(old: dict[str, Any], new: dict[str, Any]) -> list[str] | None:
    """`name: old -> new` for each configuration field that differs, or None.

    A field the old manifest lacks is not compared (an older fcbench did not record it)."""
    before, after = _configuration(old), _configuration(_as_json(new))
    differing = [f"{name}: {_shown(before[name])} -> {_shown(after.get(name))}"
                 for name in before if before[name] != after.get(name)]
    return differing or None


def refusal(model_dir: Path, differences: Sequence[str]) -> str:
    """The one-line refusal: what differs (old -> new) and the two ways out."""
    shown = "; ".join(differences[:SHOWN_DIFFERENCES])
    more = len(differences) - SHOWN_DIFFERENCES
    if more > 0:
        shown += f"; and {more} more"
    return (f"{model_dir} holds results of another configuration (old -> new: {shown}): "
            "--overwrite discards them, or --name gives this run its own folder")


def _configuration(manifest: dict[str, Any]) -> dict[str, Any]:
    """The compared fields of a manifest, nested settings flattened (`sampling.temperature`)."""
    found: dict[str, Any] = {}
    for name in CONFIGURATION:
        if name not in manifest:
            continue
        value = manifest[name]
        if isinstance(value, dict) and name in ("sampling", "family_settings"):
            found.update({f"{name}.{key}": item for key, item in value.items()})
            if name == "sampling":  # recorded only when set: a folder without one had none
                found.setdefault("sampling.seed", None)
        else:
            found[name] = value
    dataset = manifest.get("dataset")
    if isinstance(dataset, dict) and "release" in dataset:
        found["release"] = dataset["release"]
    return found


def _as_json(data: dict[str, Any]) -> dict[str, Any]:
    """As read back from model.json (tuples become lists), so that equal settings compare
    equal."""
    loaded: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return loaded


def _shown(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str) if value is not None else "none"


def finish_manifest(model_dir: Path, manifest: dict[str, Any], summary: dict[str, Any]) -> None:
    """Record the run's end and counts."""
    manifest["finished_at"] = summary.get("finished_at")
    manifest["runs"].append(summary)
    write_json_atomic(manifest_path(model_dir), manifest)
