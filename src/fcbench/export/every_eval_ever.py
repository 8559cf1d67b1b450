"""The `every-eval-ever` format: one model's evaluation log in evaleval/every_eval_ever's
schema (`eval.schema.json`, schema version 0.3.0).

Why these metric names: every_eval_ever's BFCL adapter turns the published
`data_overall.csv` into logs with one result per CSV column (`bfcl.overall.overall_accuracy`,
`bfcl.live.live_simple_ast_accuracy`, ...). fcbench's log uses the same evaluation names,
units (percent) and bounds, and gives a result exactly where the CSV has a number, so a
model scored by fcbench lines up with the published ones in that project's store. What the
CSV cannot say goes into `additional_details` (strings, as the schema requires): the
configuration, the corrections profile, partial and skipped marks; under a corrections
profile each result the profile changed carries its upstream score in `score_details`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fcbench.export import Document, one_model

if TYPE_CHECKING:
    pass

DESCRIPTION = "every_eval_ever evaluation log (schema 0.3.0), BFCL adapter metric names"
SCHEMA_VERSION = "0.3.0"
LEADERBOARD_URL = "https://gorilla.cs.berkeley.edu/leaderboard.html"
DATASET_URL = "https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard"

Record = Mapping[str, Any]
Getter = Callable[[Record], Any]
"""A value (a fraction, or points/seconds/dollars for plain metrics) from a model record."""


@dataclass(frozen=True)
class Metric:
    """One data_overall.csv column as the BFCL adapter names it."""

    name: str
    column: str
    title: str
    get: Getter
    kind: str = "accuracy"
    unit: str = "percentage"
    lower_is_better: bool = False
    max_score: float | None = 100.0
    """None: unbounded above (schema 0.3.0's "Infinity"; the adapter's observed maximum
    across a leaderboard means nothing for one model)."""
    category: str | None = None
    """The one category the column scores (its cases' samples link to it)."""

    @property
    def percent(self) -> bool:
        return self.unit == "percentage"


def _summary(key: str) -> Getter:
    return lambda m: m["summaries"][key]["leaderboard_value"]


def _category(name: str) -> Getter:
    def get(m: Record) -> Any:
        score = m["categories"].get(name)
        judged = score and score["evaluated"] and score["total"] > 0  # all skipped: N/A
        return score["accuracy"] if judged else None

    return get


def _accuracy(name: str, column: str, title: str, get: Getter) -> Metric:
    return Metric(name, column, title, get)


def _own(name: str, column: str, title: str, category: str) -> Metric:
    """A column scoring one category: its cases' samples link to it."""
    return Metric(name, column, title, _category(category), category=category)


def _plain(name: str, column: str, title: str, get: Getter, kind: str, unit: str,
           max_score: float | None = None) -> Metric:
    return Metric(name, column, title, get, kind, unit, True, max_score)


METRICS: tuple[Metric, ...] = (
    _accuracy("bfcl.overall.overall_accuracy", "Overall Acc", "Overall accuracy",
              _summary("overall")),
    _plain("bfcl.overall.total_cost_usd", "Total Cost ($)", "Total cost",
           lambda m: m["cost"], "cost", "usd"),
    _plain("bfcl.overall.latency_mean_s", "Latency Mean (s)", "Latency mean",
           lambda m: m["latency"]["mean"], "latency", "seconds"),
    _plain("bfcl.overall.latency_std_s", "Latency Standard Deviation (s)",
           "Latency standard deviation", lambda m: m["latency"]["std"], "latency", "seconds"),
    _plain("bfcl.overall.latency_p95_s", "Latency 95th Percentile (s)",
           "Latency 95th percentile", lambda m: m["latency"]["p95"], "latency", "seconds"),
    _accuracy("bfcl.non_live.ast_accuracy", "Non-Live AST Acc", "Non-live AST accuracy",
              _summary("non_live")),
    _accuracy("bfcl.non_live.simple_ast_accuracy", "Non-Live Simple AST",
              "Non-live simple AST accuracy", _summary("simple_ast_nonlive")),
    _own("bfcl.non_live.multiple_ast_accuracy", "Non-Live Multiple AST",
         "Non-live multiple AST accuracy", "multiple"),
    _own("bfcl.non_live.parallel_ast_accuracy", "Non-Live Parallel AST",
         "Non-live parallel AST accuracy", "parallel"),
    _own("bfcl.non_live.parallel_multiple_ast_accuracy", "Non-Live Parallel Multiple AST",
         "Non-live parallel multiple AST accuracy", "parallel_multiple"),
    _accuracy("bfcl.live.live_accuracy", "Live Acc", "Live accuracy", _summary("live")),
    _own("bfcl.live.live_simple_ast_accuracy", "Live Simple AST",
         "Live simple AST accuracy", "live_simple"),
    _own("bfcl.live.live_multiple_ast_accuracy", "Live Multiple AST",
         "Live multiple AST accuracy", "live_multiple"),
    _own("bfcl.live.live_parallel_ast_accuracy", "Live Parallel AST",
         "Live parallel AST accuracy", "live_parallel"),
    _own("bfcl.live.live_parallel_multiple_ast_accuracy", "Live Parallel Multiple AST",
         "Live parallel multiple AST accuracy", "live_parallel_multiple"),
    _accuracy("bfcl.multi_turn.accuracy", "Multi Turn Acc", "Multi-turn accuracy",
              _summary("multi_turn")),
    _own("bfcl.multi_turn.base_accuracy", "Multi Turn Base",
         "Multi-turn base accuracy", "multi_turn_base"),
    _own("bfcl.multi_turn.miss_function_accuracy", "Multi Turn Miss Func",
         "Multi-turn missing function accuracy", "multi_turn_miss_func"),
    _own("bfcl.multi_turn.miss_parameter_accuracy", "Multi Turn Miss Param",
         "Multi-turn missing parameter accuracy", "multi_turn_miss_param"),
    _own("bfcl.multi_turn.long_context_accuracy", "Multi Turn Long Context",
         "Multi-turn long-context accuracy", "multi_turn_long_context"),
    _accuracy("bfcl.web_search.accuracy", "Web Search Acc", "Web-search accuracy",
              _summary("web_search")),
    _own("bfcl.web_search.base_accuracy", "Web Search Base",
         "Web-search base accuracy", "web_search_base"),
    _own("bfcl.web_search.no_snippet_accuracy", "Web Search No Snippet",
         "Web-search no-snippet accuracy", "web_search_no_snippet"),
    _accuracy("bfcl.memory.accuracy", "Memory Acc", "Memory accuracy", _summary("memory")),
    _own("bfcl.memory.kv_accuracy", "Memory KV", "Memory KV accuracy", "memory_kv"),
    _own("bfcl.memory.vector_accuracy", "Memory Vector", "Memory vector accuracy", "memory_vector"),
    _own("bfcl.memory.recursive_summarization_accuracy", "Memory Recursive Summarization",
         "Memory recursive summarization accuracy", "memory_rec_sum"),
    _accuracy("bfcl.relevance.relevance_detection_accuracy", "Relevance Detection",
              "Relevance detection accuracy", _summary("relevance")),
    _accuracy("bfcl.relevance.irrelevance_detection_accuracy", "Irrelevance Detection",
              "Irrelevance detection accuracy", _summary("irrelevance")),
    _plain("bfcl.format_sensitivity.max_delta", "Format Sensitivity Max Delta",
           "Format sensitivity max delta", lambda m: m["format_sensitivity"]["max_delta"],
           "difference", "percentage_points", 100.0),
    _plain("bfcl.format_sensitivity.stddev", "Format Sensitivity Standard Deviation",
           "Format sensitivity standard deviation", lambda m: m["format_sensitivity"]["std"],
           "difference", "percentage_points", 100.0),
)
"""data_overall.csv's columns in its order, without Rank (a rank among the models of one
export is not the leaderboard's) and the text columns (in `model_info`)."""


def export(document: Document, model: str | None) -> dict[str, Any]:
    """The evaluation log of one model (`--model` when the scores hold several)."""
    record = one_model(document, model)
    retrieved = f"{time.time():.3f}"
    name = str(record["name"])
    configuration: Mapping[str, Any] = record["configuration"] or {}
    upstream = _upstream_record(record)
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"bfcl/{name}/{retrieved}",
        "retrieved_timestamp": retrieved,
        "source_metadata": {
            "source_name": "fcbench score folder",
            "source_type": "evaluation_run",
            "source_organization_name": "fcbench",
            "evaluator_relationship": "third_party",
            "additional_details": {"leaderboard_url": LEADERBOARD_URL,
                                   "leaderboard_version": "BFCL V4",
                                   "dataset_release": str(document["release"])},
        },
        "eval_library": {
            "name": "fcbench",
            "version": str(document["fcbench_version"]),
            "additional_details": {
                "reimplements": str(document["reimplements"]),
                "corrections_profile": str(record["corrections"]["profile"]),
                "results_format": f"{document['format']} v{document['schema_version']}",
            },
        },
        "model_info": _model_info(record, configuration),
        "evaluation_results": [result for metric in METRICS
                               if (result := _result(metric, record, upstream)) is not None],
    }


def _model_info(record: Record, configuration: Mapping[str, Any]) -> dict[str, Any]:
    details = {
        "deployment_type": "unknown",
        "model_availability": "unknown",
        "score_folder_name": str(record["model"]),
        "partial_categories": ", ".join(record["partial_categories"]),
        "skipped_cases": str(len(record["skipped"])),
    }
    if configuration:
        details["configuration"] = json.dumps(configuration, sort_keys=True, default=str)
    for key in ("organization", "license", "url"):
        if record[key] != "N/A":
            details[key] = str(record[key])
    info: dict[str, Any] = {"name": str(record["display_name"]), "id": str(record["name"]),
                            "additional_details": details}
    if "backend" in configuration:
        info["inference_platform"] = str(configuration["backend"])
    return info


def _result(metric: Metric, record: Record, upstream: Record | None) -> dict[str, Any] | None:
    value = _value(metric, record)
    if value is None:
        return None
    score: dict[str, Any] = {"score": value}
    before = _value(metric, upstream) if upstream is not None else None
    if upstream is not None and before != value:
        score["details"] = {"upstream_score": "N/A" if before is None else repr(before),
                            "corrections_profile": str(record["corrections"]["profile"])}
    return {
        "evaluation_result_id": f"{metric.name}::{metric.name.rsplit('.', 1)[-1]}",
        "evaluation_name": metric.name,
        "source_data": {"source_type": "url", "dataset_name": "BFCL V4",
                        "url": [DATASET_URL]},
        "metric_config": {
            "metric_id": metric.name,
            "metric_name": metric.title,
            "metric_kind": metric.kind,
            "metric_unit": metric.unit,
            "lower_is_better": metric.lower_is_better,
            "score_type": "continuous",
            "min_score": 0.0,
            "max_score": metric.max_score if metric.max_score is not None else "Infinity",
            "additional_details": {"raw_metric_field": metric.column},
        },
        "score_details": score,
    }


def _value(metric: Metric, record: Record) -> float | None:
    """The CSV cell's number (None where it shows N/A); accuracies in percent."""
    value = metric.get(record)
    if value is None:
        return None
    return float(value) * 100 if metric.percent else float(value)


def _upstream_record(record: Record) -> Record | None:
    """The record as upstream scores it, under a corrections profile that changed a score:
    corrected categories and every summary replaced by their upstream side."""
    block: Mapping[str, Any] = record["corrections"]
    if not block.get("categories"):
        return None
    from fcbench.export.results import V4_FLAVOURS
    from fcbench.score.formulas import Flavour

    categories = {name: {**score, "accuracy": block["categories"][name]["upstream_accuracy"]}
                  if name in block["categories"] else score
                  for name, score in record["categories"].items()}
    summaries = {}
    for key, summary in block["upstream_summaries"].items():
        hidden = summary["na"] and V4_FLAVOURS[key] is Flavour.SUMMARY
        summaries[key] = {**summary, "leaderboard_value": None if hidden else summary["accuracy"]}
    return {**record, "categories": categories, "summaries": summaries}

