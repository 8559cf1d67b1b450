"""The `fcbench` format: fcbench's results document itself (schema `results-v1.json`).

`--model` keeps one model's record; without it every model is exported."""

from __future__ import annotations

from typing import Any

from fcbench.export import Document, one_model

DESCRIPTION = "fcbench's versioned results JSON (every score, the configuration, corrections)"


def export(document: Document, model: str | None) -> dict[str, Any]:
    """The document as is, or with only `model`'s record."""
    if model is None:
        return dict(document)
    return {**document, "models": [dict(one_model(document, model))]}
