"""every_eval_ever's datastore layout: the aggregate log and its instance-level samples.

Why two files in a fixed place: schema 0.3.0 links the aggregate to its samples by a path
(`detailed_evaluation_results.file_path`) that must read
`data/<benchmark>/<developer>/<model>/<uuid4>_samples.jsonl`, and that project's validator
wants the aggregate beside it as `<uuid4>.json`, the samples' `evaluation_id` and `model_id`
equal to the aggregate's and `total_rows` equal to the line count. Each sample follows
`instance_level_eval.schema.json`: one line per judged case, its verdict the score file's
(score 1 or 0, `is_correct`), linked to the narrowest aggregate result holding its category.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from fcbench.export import Document, ExportError, one_model, runs
from fcbench.export.cases import (
    Case,
    CaseSource,
    answer_turns,
    conversation,
    file_text,
    prompt_text,
    text_of,
    turns_of,
    usage_totals,
)
from fcbench.export.every_eval_ever import DESCRIPTION, METRICS, SCHEMA_VERSION, export
from fcbench.layout import repeat_of

__all__ = ["DESCRIPTION", "export", "files"]
"""The registered every-eval-ever format (`export.EXPORTERS`): the one-document log of
`every_eval_ever` and, with `-o DIR`, the datastore files written here."""

BENCHMARK = "bfcl"
EXTRACTION = "bfcl_checker"
"""How a sample's answer was judged: the official checker's rules (fcbench's copy)."""

_OWN_METRIC: dict[str, str] = {
    # categories whose narrowest CSV column is a summary (the rest have one of their own)
    "simple_python": "bfcl.non_live.simple_ast_accuracy",
    "simple_java": "bfcl.non_live.simple_ast_accuracy",
    "simple_javascript": "bfcl.non_live.simple_ast_accuracy",
    "irrelevance": "bfcl.relevance.irrelevance_detection_accuracy",
    "live_irrelevance": "bfcl.relevance.irrelevance_detection_accuracy",
    "live_relevance": "bfcl.relevance.relevance_detection_accuracy",
}
_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f]')


def files(document: Document, model: str | None, source: CaseSource) -> dict[str, str]:
    """Repository-relative path -> text: the aggregate `<uuid>.json` and its
    `<uuid>_samples.jsonl` (referenced from the aggregate). A repeated run (`--repeats`:
    folders `F.repeat-<i>`, `--model F`) is one evaluation per repeat, as every_eval_ever
    counts runs: a pair of files each, the repeat in `evaluation_id` and `model_info`."""
    selected = runs(document, model)
    if len(selected) != 1:
        one_model(document, model)  # raises: this format holds one model, pass --model
    folder, repeats = selected[0]
    repeated = len(repeats) > 1 or repeat_of(folder) is not None
    written: dict[str, str] = {}
    for index, record in repeats:
        written.update(_pair(document, record, source, (index, len(repeats)) if repeated
                             else None))
    return written


def _pair(document: Document, record: Mapping[str, Any], source: CaseSource,
          repeat: tuple[int, int] | None) -> dict[str, str]:
    """One evaluation's aggregate and samples; `repeat`: (index, repeats exported)."""
    log = export(document, str(record["model"]))
    if repeat is not None:
        name, retrieved = log["model_info"]["id"], log["retrieved_timestamp"]
        log["evaluation_id"] = f"bfcl/{name}/repeat-{repeat[0]}/{retrieved}"
        log["model_info"]["additional_details"].update(
            repeat=str(repeat[0]), repeats_exported=str(repeat[1]))
    folder = _folder(log["model_info"]["id"], str(record["organization"]))
    file_id = str(uuid.uuid4())
    cases = source.cases(str(record["model"]))
    results = {r["evaluation_name"]: r["evaluation_result_id"] for r in log["evaluation_results"]}
    lines = [file_text(sample)
             for name in cases for case in cases[name]
             for sample in [_sample(case, log, results)]]
    text = "".join(line + "\n" for line in lines)
    samples_path = f"{folder}/{file_id}_samples.jsonl"
    log["detailed_evaluation_results"] = {
        "format": "jsonl", "file_path": samples_path, "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "total_rows": len(lines),
    }
    return {f"{folder}/{file_id}.json": file_text(log, indent=2) + "\n", samples_path: text}


def _folder(model_id: str, organization: str) -> str:
    """`data/bfcl/<developer>/<model>`, as every_eval_ever places a log: the developer is
    the id's prefix (`org/name`), else the organization (`--model-info`)."""
    parts = model_id.split("/")
    if len(parts) >= 2:
        developer, name = parts[0], "_".join(parts[1:])
    elif organization not in ("", "N/A"):
        developer, name = re.sub(r"\s+", "-", organization.strip().lower()), model_id
    else:
        raise ExportError(
            f"every_eval_ever files a log under its developer: model {model_id!r} names none "
            "(give its organization in --model-info, or export the log alone: -o FILE.json)")
    components = [_component(developer, "developer"), _component(name, "model")]
    return str(PurePosixPath("data", BENCHMARK, *components))


def _component(value: str, what: str) -> str:
    value = value.replace(":", "_")
    if (not value or value in (".", "..", "data") or _UNSAFE.search(value)
            or value.endswith((".", " "))):
        raise ExportError(f"every_eval_ever cannot file a log under {what} {value!r}")
    return value


def _sample(case: Case, log: Mapping[str, Any], results: Mapping[str, str]) -> dict[str, Any]:
    """One case as an instance-level record."""
    metric = _metric_of(case.category)
    raw = prompt_text(case.question)
    reference = [] if case.expected is None else [text_of(case.expected)]
    answers = answer_turns(case)
    sample: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": log["evaluation_id"],
        "model_id": log["model_info"]["id"],
        "evaluation_name": metric if metric in results else f"{BENCHMARK}.{case.category}",
        "sample_id": case.id,
        "sample_hash": hashlib.sha256((raw + "".join(reference)).encode(
            "utf-8", errors="surrogatepass")).hexdigest(),
        "interaction_type": case.interaction,
        "input": {"raw": raw, "reference": reference},
        "answer_attribution": [{
            "turn_idx": 0, "source": "output.raw", "extracted_value": "\n".join(answers),
            "extraction_method": EXTRACTION, "is_terminal": True}],
        "evaluation": {"score": 1.0 if case.valid else 0.0, "is_correct": case.valid},
        "metadata": _metadata(case),
    }
    if metric in results:
        sample["evaluation_result_id"] = results[metric]
    if case.interaction == "single_turn":
        sample["output"] = {"raw": answers}
        sample["messages"] = None
    else:
        messages = _messages(case, answers)
        sample["output"] = None
        sample["messages"] = messages
        sample["evaluation"]["num_turns"] = max(1, len(turns_of(case.question)))
        last = max((m["turn_idx"] for m in messages if m["role"] == "assistant"), default=0)
        sample["answer_attribution"][0].update(
            turn_idx=last, source=f"messages[{last}].content")
    _usage(case, sample)
    return sample


def _metric_of(category: str) -> str:
    """The aggregate result a category's cases count towards most narrowly."""
    if category in _OWN_METRIC:
        return _OWN_METRIC[category]
    return next((m.name for m in METRICS if m.category == category), "")


def _messages(case: Case, answers: list[str]) -> list[dict[str, Any]]:
    """The conversation with `turn_idx` counting messages from 0."""
    return [{"turn_idx": index, "role": role, "content": content}
            for index, (role, content) in enumerate(conversation(case, answers))]


def _metadata(case: Case) -> dict[str, str]:
    metadata = {"category": case.category, "functions": text_of(case.functions or [])}
    if not case.valid:
        metadata["error_type"] = case.error_type or "unknown"
        metadata["checker_error"] = text_of(case.error if case.error is not None else "")
    if case.answer is None:
        metadata["note"] = "no result file holds this case's answer"
    return metadata


def _usage(case: Case, sample: dict[str, Any]) -> None:
    """Token counts and latency where the result file records them."""
    tokens_in, tokens_out, latency = usage_totals(case)
    if tokens_in is not None and tokens_out is not None:
        sample["token_usage"] = {"input_tokens": tokens_in, "output_tokens": tokens_out,
                                 "total_tokens": tokens_in + tokens_out}
    if latency is not None:
        sample["performance"] = {"latency_ms": latency * 1000}
