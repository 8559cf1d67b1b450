"""The `lm-eval` format: one model's scores as lm-evaluation-harness writes its results JSON
(`lm_eval.result_schema.EvalResults`), so tools built on that file (vLLM's perf and
correctness jobs read `results[task]["<metric>,<filter>"]`) read BFCL scores unchanged.

Why this shape: each evaluated category is a task `bfcl_<category>` with the harness's
metric `acc` (a fraction) and its standard error as the harness computes it for a mean of
0/1 scores; each V4 summary group is a harness group (in `results` and `groups`, as the
harness writes them) nested as the leaderboard nests them, `bfcl` being V4 Overall, with
`acc` the leaderboard's value and no standard error (a weighted mean of unequal parts has
none the harness would compute, so none is written). A group the leaderboard shows as N/A
is left out, as are categories without results. `n-samples` gives each task's dataset size
and cases judged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fcbench.core import categories as reg
from fcbench.export import Document, one_model

DESCRIPTION = "lm-evaluation-harness results JSON (tasks bfcl_<category>, groups per summary)"
METRIC = "acc"
FILTER = "none"
TASK_PREFIX = "bfcl_"

GROUPS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    # summary key: (harness group name, the summaries under it, the categories under it)
    "overall": ("bfcl", ("non_live", "live", "irrelevance", "multi_turn", "agentic"), ()),
    "non_live": ("bfcl_non_live", ("simple_ast_nonlive",),
                 ("multiple", "parallel", "parallel_multiple")),
    "simple_ast_nonlive": ("bfcl_non_live_simple", (),
                           ("simple_python", "simple_java", "simple_javascript")),
    "live": ("bfcl_live", (), ("live_simple", "live_multiple", "live_parallel",
                               "live_parallel_multiple")),
    "irrelevance": ("bfcl_irrelevance_detection", (), ("irrelevance", "live_irrelevance")),
    "multi_turn": ("bfcl_multi_turn", (), reg.MULTI_TURN),
    "agentic": ("bfcl_agentic", ("web_search", "memory"), ()),
    "web_search": ("bfcl_web_search", (), reg.WEB_SEARCH),
    "memory": ("bfcl_memory", (), reg.MEMORY),
}
"""The V4 summaries as harness groups (`relevance` is one category, live_relevance: a task).
Summary keys and category names overlap (`irrelevance`), hence two lists."""
V1_GROUP = "bfcl_v1"
"""The 2024 Overall, a group of its own when a 2024-only category was run."""


def export(document: Document, model: str | None) -> dict[str, Any]:
    """The harness's results document for one model (`--model` when there are several)."""
    record = one_model(document, model)
    # A category every case of which was skipped judged nothing: no task (it has no
    # accuracy; skipped never reads 0.00, `score.completeness`).
    tasks = {name: score for name, score in record["categories"].items()
             if score["evaluated"] and score["total"] > 0}
    groups = _groups(record, tasks)
    names = [*(TASK_PREFIX + n for n in tasks), *groups]
    version = f"{document['format']}-v{document['schema_version']}"
    return {
        "results": {**groups, **{TASK_PREFIX + n: _task(n, s) for n, s in tasks.items()}},
        "groups": groups,
        "group_subtasks": _group_subtasks(groups, tasks),
        "configs": {name: _config(name, document, record) for name in names},
        "versions": dict.fromkeys(names, version),
        "n-shot": dict.fromkeys(names, 0),
        "higher_is_better": {name: {METRIC: True} for name in names},
        "n-samples": {TASK_PREFIX + n: {"original": int(s["dataset_size"]),
                                        "effective": int(s["total"])}
                      for n, s in tasks.items()},
        "config": _run_config(record),
        "model_name": str(record["name"]),
        "model_name_sanitized": str(record["model"]),
        "model_source": "fcbench",
    }


def _task(category: str, score: Mapping[str, Any]) -> dict[str, Any]:
    accuracy, total = float(score["accuracy"]), int(score["total"])
    found = {"name": TASK_PREFIX + category, "alias": category, "sample_len": total,
             f"{METRIC},{FILTER}": accuracy}
    if total > 1:
        found[f"{METRIC}_stderr,{FILTER}"] = _stderr(accuracy, total)
    return found


def _stderr(accuracy: float, total: int) -> float:
    """The harness's `mean_stderr` of `total` (> 1) 0/1 scores whose mean is `accuracy`:
    the sample standard deviation (n - 1) over sqrt(n)."""
    return math.sqrt(accuracy * (1 - accuracy) / (total - 1))


def _groups(record: Mapping[str, Any], tasks: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for key, (name, _, _) in GROUPS.items():
        summary = record["summaries"][key]
        if summary["leaderboard_value"] is not None and _members(key) & set(tasks):
            found[name] = _group(name, summary)
    v1 = record["v1"]["overall"]
    if v1["leaderboard_value"] is not None and (set(reg.V1) - set(reg.ALL_SCORING)) & set(tasks):
        found[V1_GROUP] = _group(V1_GROUP, v1)
    return found


def _group(name: str, summary: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": name, "alias": name, "sample_len": int(summary["total"]),
            f"{METRIC},{FILTER}": float(summary["leaderboard_value"])}


def _members(key: str) -> set[str]:
    """The categories under a summary, through its nested groups."""
    _, summaries, names = GROUPS[key]
    return set(names).union(*(_members(part) for part in summaries))


def _group_subtasks(groups: Mapping[str, Any], tasks: Mapping[str, Any]) -> dict[str, list[str]]:
    """Group -> its shown subtasks; every shown task with no subtasks of its own."""
    tree: dict[str, list[str]] = {}
    for name, summaries, names in GROUPS.values():
        if name in groups:
            tree[name] = [*(g for g in (GROUPS[k][0] for k in summaries) if g in groups),
                          *(TASK_PREFIX + n for n in names if n in tasks)]
    if V1_GROUP in groups:
        tree[V1_GROUP] = []
    tree.update({TASK_PREFIX + n: [] for n in tasks})
    return tree


def _config(name: str, document: Document, record: Mapping[str, Any]) -> dict[str, Any]:
    """A task's config: flat strings, as the harness's schema types them."""
    return {"task": name, "output_type": "generate_until",
            "dataset_path": f"BFCL {document['release']}",
            "description": f"{document['reimplements']}, verdicts by fcbench",
            "corrections": str(record["corrections"]["profile"])}


def _run_config(record: Mapping[str, Any]) -> dict[str, Any]:
    """The harness's `config`: the backend as `model`, the rest of model.json's
    configuration as `model_args`, sampling as `gen_kwargs`."""
    configuration: Mapping[str, Any] = record["configuration"] or {}
    args = {key: value for key, value in configuration.items()
            if isinstance(value, (str, int, float)) and not isinstance(value, bool)}
    found: dict[str, Any] = {"model": str(configuration.get("backend", "unknown")),
                             "model_args": args, "limit": None}
    sampling = configuration.get("sampling")
    if isinstance(sampling, Mapping):
        found["gen_kwargs"] = dict(sampling)
        if isinstance(sampling.get("seed"), int):
            found["random_seed"] = sampling["seed"]
    return found
