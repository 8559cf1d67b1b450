"""One leaderboard from one or several score folders: the official CSVs, `data_v1.csv`,
`leaderboard.json` and a ranked terminal table.

Why merging: people score a model's categories in separate runs (single-turn today,
multi-turn tomorrow) or keep one score folder per checkpoint; the board they want is one.
A model found in several folders has its categories put together; the same category scored
twice is an error (which of the two would be the truth is not ours to guess).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.core import categories as reg
from fcbench.core.model import UNENCODABLE
from fcbench.report.corrections import corrections_json, merge_corrections
from fcbench.report.csv_files import (
    ModelEntry,
    ModelInfo,
    load_entries,
    unknown_model,
    write_csvs,
)
from fcbench.report.table import ranked_table
from fcbench.score.aggregate import with_missing
from fcbench.score.completeness import SHOWN, incomplete, is_partial, ranking_summary
from fcbench.score.formulas import Summary, v1_overall
from fcbench.score.per_turn import per_turn_json
from fcbench.score.usage import Usage

if TYPE_CHECKING:
    from rich.table import Table


class LeaderboardError(ValueError):
    """The score folders cannot make one board (unreadable, or scored twice)."""


def read_model_info(
    path: Path, fallback: Callable[[str], ModelInfo] = unknown_model
) -> Callable[[str], ModelInfo]:
    """The registry strings for models fcbench does not know, from a JSON file:
    `{"<model dir>": {"display_name", "url", "organization", "license", "input_price",
    "output_price"}}` (every key optional; prices in USD per million tokens); a model the
    file does not name gets `fallback`'s (the release's official facts)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LeaderboardError(f"{path}: cannot read model info ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise LeaderboardError(f"{path}: expected an object of objects, one per model")
    infos = {name: _model_info(name, fields) for name, fields in data.items()}
    return lambda model: infos.get(model) or fallback(model)


def _model_info(name: str, fields: Mapping[str, Any]) -> ModelInfo:
    def text(key: str) -> str:
        return str(fields.get(key, "N/A"))

    def price(key: str) -> float | None:
        value = fields.get(key)
        return float(value) if isinstance(value, (int, float)) else None

    return ModelInfo(str(fields.get("display_name", name)), text("url"), text("organization"),
                     text("license"), price("input_price"), price("output_price"))


def merge_entries(
    score_dirs: Sequence[Path],
    dataset_sizes: Mapping[str, int],
    *,
    usage: Mapping[str, Usage] | None = None,
    model_info: Callable[[str], ModelInfo] = unknown_model,
    models: Sequence[str] = (),
) -> list[ModelEntry]:
    """Every model of every score folder (only `models` when given), categories merged."""
    merged: dict[str, ModelEntry] = {}
    origin: dict[tuple[str, str], Path] = {}
    for score_dir in score_dirs:
        if not Path(score_dir).is_dir():
            raise LeaderboardError(f"{score_dir}: no such score folder")
        for entry in load_entries(score_dir, dataset_sizes, usage=usage, model_info=model_info):
            if models and entry.model not in models:
                continue
            evaluated = {n: s for n, s in entry.scores.items() if s.evaluated}
            for name in evaluated:
                if (entry.model, name) in origin:
                    raise LeaderboardError(
                        f"{entry.model}: {name} is scored in both {origin[entry.model, name]} "
                        f"and {score_dir}; pass only one of them"
                    )
                origin[entry.model, name] = Path(score_dir)
            merged[entry.model] = _merge(merged.get(entry.model), entry, evaluated,
                                         dataset_sizes)
    if models and not merged:
        raise LeaderboardError(f"no score files for {', '.join(models)} in the folders given")
    return sorted(merged.values(), key=lambda e: e.model)


def _merge(
    earlier: ModelEntry | None,
    entry: ModelEntry,
    evaluated: Mapping[str, Any],
    dataset_sizes: Mapping[str, int],
) -> ModelEntry:
    if earlier is None:
        return entry
    scores = {n: s for n, s in earlier.scores.items() if s.evaluated}
    scores.update(evaluated)
    fs = dict(earlier.format_sensitivity) or dict(entry.format_sensitivity)
    cost = entry.cost if entry.cost.mean is not None else earlier.cost
    return ModelEntry(entry.model, entry.info, with_missing(scores, reg.ALL_SCORING, dataset_sizes),
                      cost, fs, merge_corrections(earlier.corrections, entry.corrections),
                      {**earlier.skipped, **entry.skipped},
                      {**earlier.per_turn, **entry.per_turn})


def usage_of(result_dirs: Sequence[Path]) -> dict[str, Usage]:
    """The usage (tokens, latencies) recorded in the result files under each folder, by model
    directory: the CSVs' cost and latency columns come from it, as in the official tool."""
    from fcbench.results.read import find_model_dirs, find_result_files
    from fcbench.score.usage import usage_from_result_files

    found: dict[str, Usage] = {}
    for result_dir in result_dirs:
        for name, folder in find_model_dirs(Path(result_dir)).items():
            paths = [f.path for f in find_result_files(folder)]
            found.setdefault(name, Usage()).extend_from(usage_from_result_files(paths))
    return found


def write_board(entries: Sequence[ModelEntry], out_dir: Path) -> list[Path]:
    """The seven CSVs and leaderboard.json for these entries, into `out_dir`."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    paths = write_csvs(entries, out_dir)
    paths.append(write_leaderboard_json(entries, Path(out_dir) / "leaderboard.json"))
    return paths


def board_table(
    entries: Sequence[ModelEntry],
    *,
    sort: str | None = None,
    skipped: Mapping[str, int] | None = None,
    v1: bool | None = None,
) -> Table:
    """The ranked terminal table (`table.ranked_table`: by `sort`, N/A last; the cases each
    model skipped in a column when any did)."""
    return ranked_table({e.model: e.scores for e in entries}, sort=sort, skipped=skipped, v1=v1,
                        skipped_in={e.model: e.skipped for e in entries})


def board_order(entries: Sequence[ModelEntry], *, sort: str | None = None,
                v1: bool | None = None) -> list[str]:
    """The models in `board_table`'s row order."""
    from fcbench.report.table import ranked_models

    return ranked_models({e.model: e.scores for e in entries}, sort=sort, v1=v1)


def skipped_counts(score_dirs: Sequence[Path], models: Sequence[str] = ()) -> dict[str, int]:
    """Cases each model's score files list as skipped (not judged), summed over the folders."""
    from fcbench.results.score_files import read_score_headers

    counts: dict[str, int] = {}
    for score_dir in score_dirs:
        for model, headers in read_score_headers(Path(score_dir)).items():
            if models and model not in models:
                continue
            found = sum(len(h.get("skipped") or []) for h in headers.values())
            counts[model] = counts.get(model, 0) + found
    return counts


# -- leaderboard.json -----------------------------------------------------------------------


def _summary_json(summary: Summary) -> dict[str, Any]:
    return {"accuracy": summary.accuracy, "total": summary.total, "na": summary.na}


def entry_json(entry: ModelEntry) -> dict[str, Any]:
    """fcbench's own record of one model: every category score and every aggregate."""
    v1 = v1_overall(entry.scores)
    fs = entry.format_sensitivity
    return {
        "model": entry.model,
        "display_name": entry.info.display_name,
        "url": entry.info.url,
        "organization": entry.info.org,
        "license": entry.info.license,
        "cost": entry.cost.cost,
        "latency": {"mean": entry.cost.mean, "std": entry.cost.std, "p95": entry.cost.p95},
        "categories": {
            name: {
                "accuracy": s.accuracy, "correct": s.correct, "total": s.total,
                "dataset_size": s.dataset_size, "evaluated": s.evaluated, "partial": s.partial,
            }
            for name, s in entry.scores.items()
        },
        "partial": bool(partial_categories(entry)),
        "partial_categories": partial_categories(entry),
        # Beside `partial` and distinct from it: the summaries not every category of which
        # was run (score.completeness, the rule the tables and the report follow too).
        "incomplete": [c.as_json() for c in incomplete(entry.scores)],
        "summaries": {k: _summary_json(s) for k, s in entry.v4.as_dict().items()},
        "v1": {
            "groups": {k: _summary_json(s) for k, s in v1.groups.items()},
            "ast_summary": _summary_json(v1.ast_summary),
            "exec_summary": _summary_json(v1.exec_summary),
            "overall": _summary_json(v1.overall),
        },
        "format_sensitivity": {
            "max_delta": _number(fs.get("accuracy_max_delta")),
            "std": _number(fs.get("accuracy_std")),
        },
        **_custom_json(entry),
        **corrections_json(entry.scores, entry.corrections),
        **per_turn_json(entry.per_turn),
    }


def partial_categories(entry: ModelEntry) -> list[str]:
    """The categories run on fewer cases than they hold (skipped cases do not make one)."""
    return sorted(n for n, s in entry.scores.items() if is_partial(s, entry.skipped.get(n, 0)))


def ranked(entries: Sequence[ModelEntry]) -> tuple[str, list[ModelEntry]]:
    """(the summary the board ranks by, as shown; the entries in rank order): the ranked
    table's order (`completeness.ranking_summary`, N/A last, ties by name), which every file
    of the board follows (leaderboard.json ranked by V4 Overall a 2024 board the table
    ranked by v1 Overall)."""
    from fcbench.report.table import ranked_models

    by = ranking_summary(e.scores for e in entries)
    order = ranked_models({e.model: e.scores for e in entries}, sort=by)
    found = {e.model: e for e in entries}
    return SHOWN.get(by, by), [found[model] for model in order]


def _custom_json(entry: ModelEntry) -> dict[str, Any]:
    """The custom groups' summaries (`score.custom_groups`), when the model has custom scores."""
    from fcbench.score.custom_groups import custom_summaries

    found = custom_summaries({n: s for n, s in entry.scores.items() if s.evaluated},
                             {n: s.dataset_size for n, s in entry.scores.items()})
    return {"custom_summaries": found} if found else {}


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) else None


def write_leaderboard_json(entries: Sequence[ModelEntry], path: Path) -> Path:
    """`leaderboard.json`: the models in the ranked table's order (`ranked`; `ranked_by`
    names the summary), each with `entry_json`."""
    by, order = ranked(entries)
    models = [{"rank": i, **entry_json(e)} for i, e in enumerate(order, start=1)]
    text = json.dumps({"ranked_by": by, "models": models}, indent=2, ensure_ascii=False) + "\n"
    return replace_text(Path(path), redact.values(text), errors=UNENCODABLE)


# -- Entry point ----------------------------------------------------------------------------


def write_leaderboard(
    score_dir: Path,
    dataset_sizes: Mapping[str, int],
    *,
    usage: Mapping[str, Usage] | None = None,
    model_info: Callable[[str], ModelInfo] = unknown_model,
    leaderboard_json: bool = True,
) -> list[Path]:
    """Re-read every score header in `score_dir` and write the leaderboard files there.

    `dataset_sizes` gives each category's number of cases (a missing category counts as 0 over
    that many); `usage` maps model directory names to the usage of the result files evaluated
    in this run.
    """
    entries = load_entries(score_dir, dataset_sizes, usage=usage, model_info=model_info)
    paths = write_csvs(entries, score_dir)
    if leaderboard_json:
        paths.append(write_leaderboard_json(entries, Path(score_dir) / "leaderboard.json"))
    return paths
