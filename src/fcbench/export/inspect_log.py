"""Inspect eval logs: one per model and category, so `inspect view` shows fcbench runs.

Why the `.json` log format: it is one JSON document (`EvalLog` as inspect_ai's pydantic
models serialise it, `version` 2) that every inspect_ai 0.3.x reads with `read_eval_log`
and lists in `inspect view`; the `.eval` zip's inner layout (header, per-sample files,
summaries, journal) has changed across 0.3 releases. The log is written here field by
field: inspect_ai is not a dependency of the export (the tests read the logs back with it,
the `inspect` test extra). Files are named `<timestamp>_<task>_<id>.json` under a folder per
model, the name pattern inspect's log listing parses.

Per sample: the question's messages as input, the conversation (the model's answer per
turn) as messages, the raw answer as output, the possible answer as target, the verdict as
a `bfcl_checker` score (`C` or `I`, the score file's error as explanation) and the
category, error type and offered functions as metadata.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from fcbench.export import Document, ExportError, runs
from fcbench.export.cases import (
    Case,
    CaseSource,
    answer_turns,
    conversation,
    file_text,
    text_of,
    turns_of,
    usage_totals,
)

DESCRIPTION = "Inspect eval logs (.json, one per model and category) for `inspect view`"
FILES_ONLY = True
LOG_VERSION = 2
SCORER = "bfcl_checker"
_ALPHABET = string.ascii_letters + string.digits


def export(document: Document, model: str | None) -> dict[str, Any]:
    """Inspect logs are files, one per category: there is no one-document form."""
    raise ExportError("--format inspect writes one log per model and category: give a "
                      "folder with -o DIR")


def files(document: Document, model: str | None, source: CaseSource) -> dict[str, str]:
    """`<run folder>/<timestamp>_bfcl-<category>_<id>.json` -> the log, for `model` or for
    every run of the scores. A repeated run (`--repeats`: folders `F.repeat-<i>`) is one log
    per category under F, each repeat an epoch (Inspect's own word for a sample asked again)."""
    now = datetime.now(timezone.utc)
    run_id = _short_id()
    stamp = now.strftime("%Y-%m-%dT%H-%M-%S+00-00")
    written: dict[str, str] = {}
    for folder, repeats in runs(document, model):
        by_category: dict[str, list[tuple[int, list[Case]]]] = {}
        for epoch, record in repeats:
            for category, cases in source.cases(str(record["model"])).items():
                by_category.setdefault(category, []).append((epoch, cases))
        record = repeats[0][1]
        for category, epochs in by_category.items():
            task_id = _short_id()
            log = _log(document, record, category, epochs, now, run_id, task_id)
            name = f"{folder}/{stamp}_bfcl-{category.replace('_', '-')}_{task_id}.json"
            written[name] = file_text(log) + "\n"  # compact: offered functions repeat per sample
    return written


def _short_id() -> str:
    """An id in Inspect's style (22 letters and digits)."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(22))


def _model_name(record: Mapping[str, Any]) -> str:
    """`provider/model` as Inspect names models: the backend fcbench used, when known."""
    configuration = record.get("configuration") or {}
    backend = configuration.get("backend") if isinstance(configuration, Mapping) else None
    return f"{backend or 'fcbench'}/{record['name']}"


def _log(document: Document, record: Mapping[str, Any], category: str,
         epochs: list[tuple[int, list[Case]]], now: datetime, run_id: str, task_id: str
         ) -> dict[str, Any]:
    """One category's log; `epochs`: (repeat index, its cases) per repeat run."""
    created = now.isoformat(timespec="seconds")
    model = _model_name(record)
    order = {case_id: n for n, case_id in enumerate(
        dict.fromkeys(case.id for _, cases in epochs for case in cases))}
    samples = sorted(((epoch, case) for epoch, cases in epochs for case in cases),
                     key=lambda pair: (order[pair[1].id], pair[0]))
    correct = sum(case.valid for _, case in samples)
    score = record["categories"].get(category) or {}
    config: dict[str, Any] = {}
    if len(epochs) > 1:
        config = {"epochs": len(epochs), "epochs_reducer": ["mean"]}
    return {
        "version": LOG_VERSION,
        "status": "success",
        "eval": {
            "eval_id": _short_id(), "run_id": run_id, "created": created,
            "task": f"bfcl_{category}", "task_id": task_id, "task_version": 0,
            "dataset": {"name": f"BFCL {category}", "location": str(document["release"]),
                        "samples": len(order), "sample_ids": list(order),
                        "shuffled": False},
            "model": model,
            "config": config,
            "packages": {"fcbench": str(document["fcbench_version"])},
            "metadata": {
                "reimplements": str(document["reimplements"]),
                "category": category,
                "category_size": score.get("dataset_size"),
                "partial": bool(score.get("partial", False)),
                "corrections_profile": str(record["corrections"]["profile"]),
                "repeats": [epoch for epoch, _ in epochs],
                "configuration": record.get("configuration") or {},
            },
        },
        "plan": {"name": "plan", "steps": [], "config": {}},
        "results": {
            "total_samples": len(samples), "completed_samples": len(samples),
            "scores": [{"name": SCORER, "scorer": SCORER, "params": {}, "metrics": {
                "accuracy": {"name": "accuracy",
                             "value": correct / len(samples) if samples else 0.0,
                             "params": {}}}, **({"reducer": "mean"} if config else {})}],
        },
        "stats": {"started_at": created, "completed_at": created, "model_usage": {}},
        "samples": [_sample(case, model, epoch) for epoch, case in samples],
    }


def _sample(case: Case, model: str, epoch: int) -> dict[str, Any]:
    answers = answer_turns(case)
    answer = "\n".join(answers)
    explanation = "valid" if case.valid else text_of(
        case.error if case.error is not None else case.error_type or "invalid")
    metadata: dict[str, Any] = {"category": case.category, "functions": case.functions or []}
    if not case.valid:
        metadata["error_type"] = case.error_type or "unknown"
    sample: dict[str, Any] = {
        "id": case.id,
        "epoch": epoch,
        "input": [_message(str(m.get("role", "user")), text_of(m.get("content", "")))
                  for turn in turns_of(case.question) for m in turn],
        "target": "" if case.expected is None else text_of(case.expected),
        "messages": [_message(role, text) for role, text in conversation(case, answers)],
        "output": {"model": model, "choices": [{
            "message": _message("assistant", answer), "stop_reason": "stop"}],
            "completion": answer},
        "scores": {SCORER: {"value": "C" if case.valid else "I", "answer": answer,
                            "explanation": explanation,
                            "metadata": {"error_type": case.error_type}}},
        "metadata": metadata,
    }
    tokens_in, tokens_out, latency = usage_totals(case)
    if tokens_in is not None and tokens_out is not None:
        sample["model_usage"] = {model: {"input_tokens": tokens_in, "output_tokens": tokens_out,
                                         "total_tokens": tokens_in + tokens_out}}
    if latency is not None:
        sample["total_time"] = latency
    return sample


def _message(role: str, content: str) -> dict[str, Any]:
    """A chat message as Inspect's ChatMessage models read it (roles it does not know are
    shown as user messages, their role kept in the text)."""
    if role not in ("system", "user", "assistant", "tool"):
        return {"role": "user", "content": f"[{role}] {content}"}
    if role == "tool":
        return {"role": "tool", "content": content, "function": ""}
    return {"role": role, "content": content}
