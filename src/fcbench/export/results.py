"""fcbench's results document: every score of a scored run in one versioned JSON.

Why its own document: the CSVs are the official tool's display (percent strings, "N/A",
ranks, aggregate columns that break parsers) and `leaderboard.json` may grow with the
leaderboard; tools reading fcbench's results need a shape that changes only with a new
`schema_version` (the JSON Schema `schema/results-v1.json`, documented in
docs/results-schema.md). Every exporter (`fcbench.export`) builds on this document, so all
formats carry the same numbers.

Per model it holds each category's counts with its partial and skipped marks, every V4
summary group and the 2024 (v1) groups, both Overalls, with the value the leaderboard shows
(`leaderboard_value`, null where the CSV shows N/A), the configuration recorded in the
result folder's `model.json`, and the corrections profile with the upstream side of the
scores it changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fcbench.core import categories as reg
from fcbench.report.corrections import corrections_json
from fcbench.report.csv_files import ModelEntry, ModelInfo, unknown_model
from fcbench.report.leaderboard import partial_categories
from fcbench.score.aggregate import CategoryScore
from fcbench.score.completeness import SUMMARY_PARTS, incomplete, is_partial
from fcbench.score.formulas import (
    V1_GROUPS,
    V1_GROUPS_AST,
    V1_GROUPS_EXEC,
    Flavour,
    Summary,
    V1Summary,
    v1_overall,
)
from fcbench.score.per_turn import per_turn_json

FORMAT = "fcbench-results"
SCHEMA_VERSION = 1
SCHEMA_FILE = Path(__file__).parent / "schema" / f"results-v{SCHEMA_VERSION}.json"
REIMPLEMENTS = "bfcl-eval 2026.3.23"

_S, _O = Flavour.SUMMARY, Flavour.OVERALL
V4_FLAVOURS: dict[str, Flavour] = {
    # How data_overall.csv shows each V4 summary (`report.csv_files`): with a category under
    # it missing, a SUMMARY is N/A, an OVERALL counts the category as 0.
    "simple_ast_nonlive": _S, "non_live": _S, "live": _O, "irrelevance": _S,
    "relevance": _S, "multi_turn": _O, "web_search": _S, "memory": _S, "agentic": _O,
    "overall": _O,
}
V4_PARTS: dict[str, tuple[str, ...]] = {
    # The categories each V4 summary is made of: it is partial when one of them is.
    "simple_ast_nonlive": ("simple_python", "simple_java", "simple_javascript"),
    "non_live": ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
                 "parallel_multiple"),
    "live": ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"),
    "irrelevance": ("irrelevance", "live_irrelevance"),
    "relevance": ("live_relevance",),
    "multi_turn": reg.MULTI_TURN,
    "web_search": reg.WEB_SEARCH,
    "memory": reg.MEMORY,
    "agentic": reg.AGENTIC,
    "overall": tuple(n for _, names in SUMMARY_PARTS["Overall"] for n in names),
}
CONFIGURATION_FIELDS = ("model", "backend", "served_model", "mode", "fc_names", "fc_args",
                        "family", "prompt_format", "official_handler", "output_format",
                        "sampling", "max_tokens", "family_settings", "device", "corrections",
                        "fcbench_version", "dataset")
"""What the document copies from a result folder's `model.json`: the fields that decide what
a model answered and how it was read (`runner.manifest.CONFIGURATION`), which fcbench made
them and from which dataset. Endpoints, timings and the run log stay out (they name hosts)."""


def build(
    score_dirs: Sequence[Path],
    dataset_sizes: Mapping[str, int],
    *,
    release: str,
    result_dirs: Sequence[Path] = (),
    models: Sequence[str] = (),
    model_info: Callable[[str], ModelInfo] = unknown_model,
) -> dict[str, Any]:
    """The results document of the score folders (several are merged as `leaderboard`
    merges them); `result_dirs` give each model's `model.json` and its usage."""
    from fcbench._version import __version__
    from fcbench.report import leaderboard as board

    usage = board.usage_of(list(result_dirs)) if result_dirs else None
    entries = board.merge_entries(list(score_dirs), dataset_sizes, usage=usage,
                                  model_info=model_info, models=models)
    headers = _headers(score_dirs)
    manifests = _manifests(result_dirs)
    ranked_by, ranked = board.ranked(entries)
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "fcbench_version": __version__,
        "reimplements": REIMPLEMENTS,
        "release": release,
        "ranked_by": ranked_by,
        "models": [model_record(entry, rank, headers.get(entry.model, {}),
                                manifests.get(entry.model))
                   for rank, entry in enumerate(ranked, start=1)],
    }


def model_record(
    entry: ModelEntry,
    rank: int,
    headers: Mapping[str, Mapping[str, Any]],
    manifest: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """One model's record (see the schema's `model` definition)."""
    skipped = _skipped(headers)
    v4 = entry.v4.as_dict()
    v1 = v1_overall(entry.scores)
    configuration = _configuration(manifest)
    return {
        "model": entry.model,
        "name": str(configuration["model"]) if configuration and "model" in configuration
        else entry.info.display_name,
        "rank": rank,
        **_info(entry.info),
        "configuration": configuration,
        "corrections": _corrections(entry),
        "categories": {name: _category(score, entry.skipped.get(name, 0))
                       for name, score in _ordered(entry.scores)},
        "summaries": {key: _summary(s, V4_FLAVOURS[key], _partial(entry, V4_PARTS[key]))
                      for key, s in v4.items()},
        "v1": _v1(entry, v1),
        "partial_categories": partial_categories(entry),
        "incomplete": [c.as_json() for c in incomplete(entry.scores)],
        "skipped": [{"category": name, **case} for name, cases in sorted(skipped.items())
                    for case in cases],
        "format_sensitivity": {
            "max_delta": _number(entry.format_sensitivity.get("accuracy_max_delta")),
            "std": _number(entry.format_sensitivity.get("accuracy_std")),
        },
        "cost": entry.cost.cost,
        "latency": {"mean": entry.cost.mean, "std": entry.cost.std, "p95": entry.cost.p95},
        **per_turn_json(entry.per_turn),
    }



def _info(info: ModelInfo) -> dict[str, str]:
    return {"display_name": info.display_name, "url": info.url,
            "organization": info.org, "license": info.license}


def _ordered(scores: Mapping[str, CategoryScore]) -> list[tuple[str, CategoryScore]]:
    """Categories in the registry's order (the official tables' order), custom ones last."""
    order = {c.name: i for i, c in enumerate(reg.all_categories())}
    return sorted(scores.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def _category(score: CategoryScore, skipped: int) -> dict[str, Any]:
    return {"accuracy": score.accuracy, "correct": score.correct, "total": score.total,
            "dataset_size": score.dataset_size, "evaluated": score.evaluated,
            "partial": is_partial(score, skipped), "skipped": skipped}


def _summary(summary: Summary, flavour: Flavour, partial: bool) -> dict[str, Any]:
    return {"accuracy": summary.accuracy, "total": summary.total, "na": summary.na,
            "partial": partial, "leaderboard_value": summary.value(flavour)}


def _partial(entry: ModelEntry, names: Sequence[str]) -> bool:
    return any(is_partial(entry.scores[n], entry.skipped.get(n, 0))
               for n in names if n in entry.scores)


def _v1(entry: ModelEntry, v1: V1Summary) -> dict[str, Any]:
    """The 2024 leaderboard's groups, summaries and Overall, as data_v1.csv shows them."""
    parts = {key: names for key, _, names in V1_GROUPS}
    groups = {key: _summary(s, _S, _partial(entry, parts[key])) for key, s in v1.groups.items()}
    overall = _summary(v1.overall, _S, _partial(entry, reg.V1))
    overall["leaderboard_value"] = v1.overall.accuracy if v1.scored else None
    return {
        "groups": groups,
        "ast_summary": _summary(v1.ast_summary, _S, any(groups[k]["partial"]
                                                            for k in V1_GROUPS_AST)),
        "exec_summary": _summary(v1.exec_summary, _S, any(groups[k]["partial"]
                                                              for k in V1_GROUPS_EXEC)),
        "overall": overall,
    }


def _corrections(entry: ModelEntry) -> dict[str, Any]:
    """The profile; under a profile, each corrected category both ways and the upstream side
    of every summary (`report.corrections`)."""
    from fcbench.corrections import DEFAULT_PROFILE

    block = corrections_json(entry.scores, entry.corrections).get("corrections")
    return dict(block) if block else {"profile": DEFAULT_PROFILE}


def _configuration(manifest: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not manifest:
        return None
    return {name: manifest[name] for name in CONFIGURATION_FIELDS if name in manifest}


def _skipped(headers: Mapping[str, Mapping[str, Any]]) -> dict[str, list[dict[str, str]]]:
    """category -> the cases its score file lists as not judged (`{"id", "reason"}`)."""
    found: dict[str, list[dict[str, str]]] = {}
    for category, header in headers.items():
        cases = header.get("skipped")
        if isinstance(cases, list):
            found[category] = [{"id": str(c.get("id")), "reason": str(c.get("reason"))}
                               for c in cases if isinstance(c, Mapping)]
    return {name: cases for name, cases in found.items() if cases}


def _headers(score_dirs: Sequence[Path]) -> dict[str, dict[str, dict[str, Any]]]:
    from fcbench.results.score_files import read_score_headers

    merged: dict[str, dict[str, dict[str, Any]]] = {}
    for score_dir in score_dirs:
        for model, headers in read_score_headers(Path(score_dir)).items():
            merged.setdefault(model, {}).update(headers)
    return merged


def _manifests(result_dirs: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """model folder name -> its `model.json` (the first result folder naming it wins)."""
    from fcbench.results.manifest import read_manifest
    from fcbench.results.read import find_model_dirs

    found: dict[str, dict[str, Any]] = {}
    for result_dir in result_dirs:
        if Path(result_dir).is_dir():
            for name, folder in find_model_dirs(Path(result_dir)).items():
                found.setdefault(name, read_manifest(folder))
    return found


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None
