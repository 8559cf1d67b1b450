"""The official leaderboard CSVs (and fcbench's `leaderboard.json`) for a score directory.

Like bfcl-eval 2026.3.23, every model with a score file in the score dir gets a row, its scores
re-read from the score-file headers; categories without a score count as 0 over their dataset
size and display "N/A" (spec §1.4, §8.4). Rows are ranked by the table's main column, N/A last;
accuracies are written `NN.NN%`, cost, latency and format-sensitivity spread as plain numbers
(`str()` of a value rounded to 2 decimals); cells are joined with "," without quoting and the
file has no trailing newline.

Two things the official tool takes from its model registry (fcbench reads the release's copy
of it: `report.known_models`, from the facts `fcbench data fetch` parsed):

* Model, Model Link, Organization, License come from a `ModelInfo`. For a model the registry
  does not know (`unknown_model`) the Model column is the model directory name and the
  others are "N/A".
* Cost. The official tool prices API models from per-million-token prices and prices every
  model *without* prices as a locally served one: summed latency (hours) × 23.92 USD (an 8×H100
  hour) / 100 (concurrent requests). Unless a `ModelInfo` carries prices a model is costed
  that second way, exactly as the official tool costs a model registered without prices.
  Cost and latency come only from the `Usage` the caller passes (the result files evaluated
  in this run); a model without usage shows "N/A" there.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.core import categories as reg
from fcbench.core.model import UNENCODABLE
from fcbench.dataset.format_sensitivity import config_names
from fcbench.layout import model_dir_name
from fcbench.report.corrections import corrections_of
from fcbench.report.custom_csv import write_custom_csv
from fcbench.report.per_turn_csv import read_per_turn, write_per_turn_csv
from fcbench.results.score_files import iter_score_files, read_score_header
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.formulas import (
    Flavour,
    V4Summary,
    format_percent,
    v1_overall,
    v4_summary,
)
from fcbench.score.per_turn import PerTurn
from fcbench.score.usage import Usage, numpy_round2, percentile

GPU_PRICE_PER_HOUR = 23.92
"""USD per hour of an 8×H100 node (Lambda Cloud on-demand), the official local-model price."""
LOCAL_CONCURRENCY = 100
"""The official tool divides summed latency by its 100 concurrent requests to get GPU time."""

NA = "N/A"
Cell = str | float | None
"""A CSV cell before formatting: text as is, a number (percent or plain), None for "N/A"."""


# -- Model metadata and usage ---------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    """What the official registry knows about a model; prices in USD per million tokens."""

    display_name: str
    url: str = NA
    org: str = NA
    license: str = NA
    input_price: float | None = None
    output_price: float | None = None


def unknown_model(model: str) -> ModelInfo:
    """The metadata of a model fcbench has no registry entry for."""
    return ModelInfo(display_name=model)


@dataclass(frozen=True)
class CostLatency:
    """The four cost/latency columns; None is shown as "N/A"."""

    cost: float | None = None
    mean: float | None = None
    std: float | None = None
    p95: float | None = None


def cost_latency(usage: Usage | None, info: ModelInfo, *, spread: bool = True) -> CostLatency:
    """Total cost and latency statistics, each rounded to 2 decimals as the official does.
    `spread` False leaves the standard deviation out (None): the HTML report does not show
    it, and its exact-fraction sum was a third of the report's statistics time.

    A figure that is not a finite number (a result file's `Infinity` or `NaN` latency, or
    finite ones so large that their sum or scaling overflows) is N/A: upstream prints `inf`
    or stops (its `statistics.stdev` raises on an infinity), and no JSON reader takes one."""
    if usage is None:
        return CostLatency()
    latencies = usage.latencies
    stats: tuple[float | None, ...] = (None, None, None)
    if latencies:
        # A single latency has no sample deviation: the official tool raises, fcbench shows N/A.
        std = (_finite(lambda: round(statistics.stdev(latencies), 2))
               if spread and len(latencies) > 1 else None)
        p95 = _finite(lambda: numpy_round2(percentile(latencies, 95)))
        stats = (_finite(lambda: round(statistics.mean(latencies), 2)), std, p95)
    return CostLatency(_finite(lambda: _cost(usage, info)), *stats)


def _finite(figure: Callable[[], float | None]) -> float | None:
    """The figure, or None when it is not a finite number or cannot be computed (statistics
    raise on an infinity among the values; an integer past a float's range, as a hand-made
    usage file may hold, overflows)."""
    try:
        value = figure()
        return value if value is None or math.isfinite(value) else None
    except (ArithmeticError, ValueError, AttributeError):
        return None


def _cost(usage: Usage, info: ModelInfo) -> float | None:
    """The backend's own prices when every request has one (LiteLLM's: one `cost` per
    latency), else tokens at the model's prices, else GPU hours."""
    if usage.costs and len(usage.costs) == len(usage.latencies):
        return round(sum(usage.costs), 2)
    if info.input_price is not None and info.output_price is not None:
        if not (usage.input_tokens and usage.output_tokens):
            return None
        priced_input, priced_output = usage.priced_tokens()  # batched cases at half price
        dollars = (
            priced_input * info.input_price / 1_000_000
            + priced_output * info.output_price / 1_000_000
        )
        return round(dollars, 2)
    if not usage.latencies:
        return None
    gpu_hours = sum(usage.latencies) / 3600
    return round(gpu_hours * GPU_PRICE_PER_HOUR / LOCAL_CONCURRENCY, 2)


# -- One model's leaderboard entry ----------------------------------------------------------


@dataclass(frozen=True)
class ModelEntry:
    """Everything one model contributes to the leaderboard files."""

    model: str
    info: ModelInfo
    scores: Mapping[str, CategoryScore]
    cost: CostLatency = CostLatency()
    format_sensitivity: Mapping[str, Any] = field(default_factory=dict)
    corrections: Mapping[str, Any] = field(default_factory=dict)
    """The score headers' corrections profile and upstream sides (`report.corrections`);
    empty for the default profile."""
    skipped: Mapping[str, int] = field(default_factory=dict)
    """Cases each category's score header lists as skipped (not judged): a category with
    them is not partial for that (`score.completeness.is_partial`)."""
    per_turn: Mapping[str, PerTurn] = field(default_factory=dict)
    """Multi-turn categories' per-turn accuracy (fcbench metric, `score.per_turn`), from
    the files beside their score files; in no official table."""

    @property
    def v4(self) -> V4Summary:
        return v4_summary(self.scores)

    def category(self, name: str) -> float | None:
        """A category's accuracy; None ("N/A") when not evaluated (or retired and absent)."""
        score = self.scores.get(name)
        return score.accuracy if score is not None and score.evaluated else None


def _warn(line: str) -> None:
    print(f"fcbench: warning: {line}", file=sys.stderr, flush=True)


def load_entries(
    score_dir: Path,
    dataset_sizes: Mapping[str, int],
    *,
    usage: Mapping[str, Usage] | None = None,
    model_info: Callable[[str], ModelInfo] = unknown_model,
    note: Callable[[str], None] = _warn,
) -> list[ModelEntry]:
    """One entry per model directory holding score files, scores re-read from the headers.

    `usage` may be keyed by model name or directory name (`a/b` and `a_b` are the same model).
    A score file whose header cannot be read, or a model whose headers cannot be counted, is
    left out with one line to `note` (default: a warning on stderr): the other models'
    files are still written (issue 30).
    """
    usage_by_dir = {model_dir_name(name): u for name, u in (usage or {}).items()}
    entries = []
    for model, headers in _readable_headers(score_dir, note).items():
        try:
            entries.append(_entry(model, headers, dataset_sizes, usage_by_dir.get(model),
                                  model_info))
            entries[-1] = replace(entries[-1], per_turn=read_per_turn(Path(score_dir) / model,
                                                                      note))
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
            note(f"{Path(score_dir) / model}: left out of the leaderboard files (a score "
                 f"header cannot be counted: {type(exc).__name__}: {exc})")
    return entries


def _entry(model: str, headers: dict[str, Any], dataset_sizes: Mapping[str, int],
           usage: Usage | None, model_info: Callable[[str], ModelInfo]) -> ModelEntry:
    fs_header = headers.pop("format_sensitivity", {})
    scores = {
        category: CategoryScore.from_header(
            category, header, dataset_sizes.get(category, int(header["total_count"]))
        )
        for category, header in headers.items()
    }
    info = model_info(model)
    return ModelEntry(
        model,
        info,
        with_missing(scores, reg.ALL_SCORING, dataset_sizes),
        cost_latency(usage, info),
        fs_header,
        corrections_of(headers),
        {name: len(found) for name, header in headers.items()
         if isinstance(found := header.get("skipped"), list) and found},
    )


def _readable_headers(score_dir: Path, note: Callable[[str], None]
                      ) -> dict[str, dict[str, Any]]:
    """`read_score_headers`, each file on its own: an unreadable one is a line to `note`."""
    headers: dict[str, dict[str, Any]] = {}
    for model, category, path in iter_score_files(score_dir):
        try:
            headers.setdefault(model, {})[category] = read_score_header(path)
        except (OSError, ValueError, UnicodeError) as exc:
            note(f"{path}: left out of the leaderboard files (unreadable header: {exc})")
    return headers


# -- The six tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """One CSV: its columns, the column it ranks by, and which numbers are not percentages."""

    file_name: str
    columns: tuple[str, ...]
    row: Callable[[ModelEntry], list[Cell]]
    sort_column: int
    plain_columns: frozenset[int] = frozenset()


_S, _O = Flavour.SUMMARY, Flavour.OVERALL
_LIVE_AST = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")


def format_sensitivity_configs() -> list[str]:
    """The 26 prompt-format configurations, in the official column order (spec §7.3)."""
    return config_names()


def _fs_stat(entry: ModelEntry, key: str) -> Cell:
    value = entry.format_sensitivity.get(key)
    return value if isinstance(value, (int, float)) else None


def _fs_config(entry: ModelEntry, config: str) -> Cell:
    stats = entry.format_sensitivity.get(config)
    return stats.get("accuracy") if isinstance(stats, Mapping) else None


def _overall_row(e: ModelEntry) -> list[Cell]:
    v4, c = e.v4, e.category
    return [
        v4.overall.value(_O), e.info.display_name, e.info.url,
        e.cost.cost, e.cost.mean, e.cost.std, e.cost.p95,
        v4.non_live.value(_S), v4.simple_ast_nonlive.value(_S),
        c("multiple"), c("parallel"), c("parallel_multiple"),
        v4.live.value(_O), *(c(n) for n in _LIVE_AST),
        v4.multi_turn.value(_O), *(c(n) for n in reg.MULTI_TURN),
        v4.web_search.value(_S), *(c(n) for n in reg.WEB_SEARCH),
        v4.memory.value(_S), *(c(n) for n in reg.MEMORY),
        v4.relevance.value(_S), v4.irrelevance.value(_S),
        _fs_stat(e, "accuracy_max_delta"), _fs_stat(e, "accuracy_std"),
        e.info.org, e.info.license,
    ]


def _non_live_row(e: ModelEntry) -> list[Cell]:
    v4, c = e.v4, e.category
    return [
        e.info.display_name, v4.non_live.value(_O), v4.non_live.value(_S),
        v4.simple_ast_nonlive.value(_S), c("simple_python"), c("simple_java"),
        c("simple_javascript"), c("multiple"), c("parallel"), c("parallel_multiple"),
        c("irrelevance"),
    ]


def _live_row(e: ModelEntry) -> list[Cell]:
    v4, c = e.v4, e.category
    return [
        e.info.display_name, v4.live.value(_O), v4.live.value(_S), *(c(n) for n in _LIVE_AST),
        c("live_irrelevance"), c("live_relevance"),
    ]


def _multi_turn_row(e: ModelEntry) -> list[Cell]:
    return [e.info.display_name, e.v4.multi_turn.value(_O),
            *(e.category(n) for n in reg.MULTI_TURN)]


def _agentic_row(e: ModelEntry) -> list[Cell]:
    v4, c = e.v4, e.category
    return [
        e.info.display_name, v4.agentic.value(_O),
        v4.web_search.value(_S), *(c(n) for n in reg.WEB_SEARCH),
        v4.memory.value(_S), *(c(n) for n in reg.MEMORY),
    ]


def _v1_row(e: ModelEntry) -> list[Cell]:
    """The 2024 leaderboard's row (spec §1.5). fcbench has no 2024 price table: the cost
    column is N/A; latencies are those of the result files evaluated, as in the V4 CSV."""
    v1, c = v1_overall(e.scores), e.category
    g = v1.groups
    return [
        v1.overall.accuracy if v1.scored else None, e.info.display_name, e.info.url,
        e.info.org, e.info.license, v1.ast_summary.value(_S), v1.exec_summary.value(_S),
        g["simple_ast"].value(_S), c("simple_python"), c("simple_java"), c("simple_javascript"),
        c("multiple"), c("parallel"), c("parallel_multiple"),
        g["simple_exec"].value(_S), c("exec_simple"), c("rest"), c("exec_multiple"),
        c("exec_parallel"), c("exec_parallel_multiple"), c("irrelevance"),
        None, e.cost.mean, e.cost.std, e.cost.p95,
    ]


def _format_sensitivity_row(e: ModelEntry) -> list[Cell]:
    return [
        e.info.display_name, _fs_stat(e, "accuracy_max_delta"), _fs_stat(e, "accuracy_std"),
        *(_fs_config(e, cfg) for cfg in format_sensitivity_configs()),
    ]


TABLES: tuple[Table, ...] = (
    Table("data_non_live.csv", (
        "Rank", "Model", "Non-Live Overall Acc", "AST Summary", "Simple AST",
        "Python Simple AST", "Java Simple AST", "JavaScript Simple AST", "Multiple AST",
        "Parallel AST", "Parallel Multiple AST", "Irrelevance Detection",
    ), _non_live_row, sort_column=2),
    Table("data_live.csv", (
        "Rank", "Model", "Live Overall Acc", "AST Summary", "Python Simple AST",
        "Python Multiple AST", "Python Parallel AST", "Python Parallel Multiple AST",
        "Irrelevance Detection", "Relevance Detection",
    ), _live_row, sort_column=2),
    Table("data_multi_turn.csv", (
        "Rank", "Model", "Multi Turn Overall Acc", "Base", "Miss Func", "Miss Param",
        "Long Context",
    ), _multi_turn_row, sort_column=2),
    Table("data_agentic.csv", (
        "Rank", "Model", "Agentic Overall Acc", "Web Search Summary", "Web Search Base",
        "Web Search No Snippet", "Memory Summary", "Memory KV", "Memory Vector",
        "Memory Recursive Summarization",
    ), _agentic_row, sort_column=2),
    Table("data_format_sensitivity.csv", (
        "Rank", "Model", "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation",
        *(f"Config {cfg}" for cfg in format_sensitivity_configs()),
    ), _format_sensitivity_row, sort_column=2, plain_columns=frozenset({2, 3})),
    Table("data_overall.csv", (
        "Rank", "Overall Acc", "Model", "Model Link", "Total Cost ($)", "Latency Mean (s)",
        "Latency Standard Deviation (s)", "Latency 95th Percentile (s)", "Non-Live AST Acc",
        "Non-Live Simple AST", "Non-Live Multiple AST", "Non-Live Parallel AST",
        "Non-Live Parallel Multiple AST", "Live Acc", "Live Simple AST", "Live Multiple AST",
        "Live Parallel AST", "Live Parallel Multiple AST", "Multi Turn Acc", "Multi Turn Base",
        "Multi Turn Miss Func", "Multi Turn Miss Param", "Multi Turn Long Context",
        "Web Search Acc", "Web Search Base", "Web Search No Snippet", "Memory Acc", "Memory KV",
        "Memory Vector", "Memory Recursive Summarization", "Relevance Detection",
        "Irrelevance Detection", "Format Sensitivity Max Delta",
        "Format Sensitivity Standard Deviation", "Organization", "License",
    ), _overall_row, sort_column=1, plain_columns=frozenset({4, 5, 6, 7, 32, 33})),
    Table("data_v1.csv", (
        "Rank", "Overall Acc", "Model", "Model Link", "Organization", "License", "AST Summary",
        "Exec Summary", "Simple Function AST", "Python Simple Function AST",
        "Java Simple Function AST", "JavaScript Simple Function AST", "Multiple Functions AST",
        "Parallel Functions AST", "Parallel Multiple AST", "Simple Function Exec",
        "Python Simple Function Exec", "REST Simple Function Exec", "Multiple Functions Exec",
        "Parallel Functions Exec", "Parallel Multiple Exec", "Relevance Detection",
        "Cost ($ Per 1k Function Calls)", "Latency Mean (s)", "Latency Standard Deviation (s)",
        "Latency 95th Percentile (s)",
    ), _v1_row, sort_column=1, plain_columns=frozenset({22, 23, 24, 25})),
)
"""The six official tables, then `data_v1.csv`: the original benchmark in the columns of the
2024 leaderboard (Overall, AST and Exec summaries, the nine groups and their parts)."""


def _rank_key(sort_column: int) -> Callable[[list[Cell]], float]:
    """Accuracies lie in [0, 1], so N/A sorts last as -1 in a descending sort."""

    def key(row: list[Cell]) -> float:
        value = row[sort_column]
        return value if isinstance(value, (int, float)) else -1.0

    return key


def table_lines(table: Table, entries: Sequence[ModelEntry]) -> list[str]:
    """The CSV lines of one table: header, then rows ranked by the table's main column.

    Ties keep the input order (a stable sort), and the input is sorted by model directory.
    """
    rows: list[list[Cell]] = [[None, *table.row(e)] for e in entries]
    rows.sort(key=_rank_key(table.sort_column), reverse=True)
    lines = [",".join(table.columns)]
    for rank, row in enumerate(rows, start=1):
        cells = [str(rank)] + [
            _format_cell(cell, i in table.plain_columns) for i, cell in enumerate(row) if i
        ]
        lines.append(",".join(cells))
    return lines


def _format_cell(cell: Cell, plain: bool) -> str:
    if cell is None:
        return NA
    if isinstance(cell, str):
        return cell
    return str(cell) if plain else format_percent(cell)


def write_csvs(entries: Sequence[ModelEntry], out_dir: Path) -> list[Path]:
    """Write the six official CSVs and `data_v1.csv` into `out_dir` (and `data_custom.csv`
    when custom categories were scored, `data_per_turn.csv` when multi-turn ones were);
    return their paths."""
    ordered = sorted(entries, key=lambda e: e.model)
    paths = []
    for table in TABLES:
        path = Path(out_dir) / table.file_name
        text = redact.values("\n".join(table_lines(table, ordered)))
        replace_text(path, text, errors=UNENCODABLE, newline="\n")
        paths.append(path)
    extra = [write_custom_csv(ordered, Path(out_dir)), write_per_turn_csv(ordered, Path(out_dir))]
    return [*paths, *(path for path in extra if path is not None)]
