"""The leaderboard CSVs: byte-for-byte against the official tool's, plus the rules behind them."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from fcbench.report.csv_files import (
    TABLES,
    CostLatency,
    ModelInfo,
    cost_latency,
    format_sensitivity_configs,
    load_entries,
    unknown_model,
)
from fcbench.report.leaderboard import write_leaderboard
from fcbench.results.score_files import write_category_score
from fcbench.score.aggregate import CategoryScore, score_verdicts
from fcbench.score.usage import Usage, percentile, usage_from_result_files
from shared_corpus import V4_RUN, needs_corpus

RUN = V4_RUN
CORPUS_MODELS = ("openai_gpt-oss-120b", "openai_gpt-oss-20b")
CSV_NAMES = (
    "data_overall.csv", "data_non_live.csv", "data_live.csv", "data_multi_turn.csv",
    "data_agentic.csv", "data_format_sensitivity.csv",
)

# Spec §1.1 entry counts (the data loader is not needed to know them).
SIZES = {
    "simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200,
    "parallel": 200, "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258,
    "live_multiple": 1053, "live_parallel": 16, "live_parallel_multiple": 24,
    "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
    "multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200,
    "web_search_base": 100, "web_search_no_snippet": 100, "memory_kv": 155,
    "memory_vector": 155, "memory_rec_sum": 155,
}


def official_info(model_dir: str) -> ModelInfo:
    """The four registry strings the official CSVs show for the corpus models."""
    name = model_dir.replace("_", "/", 1)
    return ModelInfo(f"{name} (FC) (vLLM)", f"https://huggingface.co/{name}", "OpenAI",
                     "apache-2.0")


def score_corpus_model(model_dir: str, score_dir: Path) -> Usage:
    """Write score files from the official verdicts; return the result files' usage."""
    valid_by_category: dict[str, list[bool]] = defaultdict(list)
    with (RUN / model_dir / "verdicts.jsonl").open() as f:
        for line in f:
            verdict = json.loads(line)
            valid_by_category[verdict["category"]].append(verdict["valid"])
    for category, valid in valid_by_category.items():
        score = score_verdicts(category, valid, SIZES[category])
        write_category_score(score_dir, model_dir, score, [])
    return usage_from_result_files(sorted((RUN / model_dir).glob("BFCL_v4_*_result.json")))


# -- Against the official CSVs ---------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("model_dir", CORPUS_MODELS)
def test_csvs_are_byte_identical_to_the_official_ones(model_dir: str, tmp_path: Path) -> None:
    usage = score_corpus_model(model_dir, tmp_path)
    write_leaderboard(tmp_path, SIZES, usage={model_dir: usage}, model_info=official_info)
    for name in CSV_NAMES:
        official = (RUN / model_dir / "official_csv" / name).read_bytes()
        assert (tmp_path / name).read_bytes() == official, name


@needs_corpus
def test_unknown_model_keeps_every_score_column(tmp_path: Path) -> None:
    model_dir = CORPUS_MODELS[0]
    score_corpus_model(model_dir, tmp_path)
    write_leaderboard(tmp_path, SIZES)
    ours = (tmp_path / "data_overall.csv").read_text().splitlines()[1].split(",")
    theirs = (RUN / model_dir / "official_csv" / "data_overall.csv").read_text()
    official = theirs.splitlines()[1].split(",")
    assert ours[2:4] == [model_dir, "N/A"]
    assert ours[4:8] == ["N/A"] * 4  # no usage given: no cost, no latency
    assert ours[-2:] == ["N/A", "N/A"]
    assert ours[:2] + ours[8:-2] == official[:2] + official[8:-2]


# -- Table rules -----------------------------------------------------------------------------


def write_scores(score_dir: Path, model: str, counts: dict[str, tuple[int, int]]) -> None:
    for name, (correct, total) in counts.items():
        write_category_score(score_dir, model, CategoryScore(name, correct, total, total), [])


def rows(path: Path) -> list[list[str]]:
    return [line.split(",") for line in path.read_text().split("\n")]


def test_every_model_in_the_score_dir_ranked_by_overall(tmp_path: Path) -> None:
    write_scores(tmp_path, "weak", {"multiple": (20, 200)})
    write_scores(tmp_path, "strong", {"multiple": (200, 200), "memory_kv": (155, 155)})
    write_scores(tmp_path, "tied", {"multiple": (20, 200)})
    write_leaderboard(tmp_path, SIZES)
    overall = rows(tmp_path / "data_overall.csv")
    assert [r[0] for r in overall[1:]] == ["1", "2", "3"]
    # Ties keep model-name order.
    assert [r[2] for r in overall[1:]] == ["strong", "tied", "weak"]
    assert overall[1][1] == "9.17%"  # 0.1·(1/4) + 0.4·((0 + 1/3) / 2)
    assert overall[1][overall[0].index("Memory KV")] == "100.00%"
    assert overall[1][overall[0].index("Memory Acc")] == "N/A"
    assert overall[2][overall[0].index("Memory KV")] == "N/A"


def test_file_shape(tmp_path: Path) -> None:
    write_scores(tmp_path, "m", {"multiple": (1, 2)})
    write_leaderboard(tmp_path, SIZES)
    for table in TABLES:
        text = (tmp_path / table.file_name).read_text()
        assert not text.endswith("\n")
        header, row = text.split("\n")
        assert header.split(",") == list(table.columns)
        assert len(row.split(",")) == len(table.columns)
    overall = next(t for t in TABLES if t.file_name == "data_overall.csv")
    assert len(overall.columns) == 36
    assert (tmp_path / "leaderboard.json").is_file()


def test_na_sorts_last_in_format_sensitivity(tmp_path: Path) -> None:
    configs = format_sensitivity_configs()
    assert len(configs) == 26 and len(set(configs)) == 26
    extra = {"accuracy_max_delta": 12.5, "accuracy_variance": 20.0, "accuracy_std": 4.47,
             configs[0]: {"accuracy": 0.75, "correct_count": 3, "total_count": 4}}
    write_category_score(tmp_path, "b", CategoryScore("format_sensitivity", 3, 4, 4), [], extra)
    write_scores(tmp_path, "a", {"multiple": (1, 2)})
    write_leaderboard(tmp_path, SIZES)
    table = rows(tmp_path / "data_format_sensitivity.csv")
    assert table[1][:5] == ["1", "b", "12.5", "4.47", "75.00%"]
    assert table[1][5:] == ["N/A"] * 25
    assert table[2][:4] == ["2", "a", "N/A", "N/A"]
    overall = rows(tmp_path / "data_overall.csv")
    b_row = next(r for r in overall if r[2] == "b")
    assert b_row[32:34] == ["12.5", "4.47"]


def test_partial_category_weights_and_displays(tmp_path: Path) -> None:
    write_scores(tmp_path, "m", {"live_simple": (10, 10)})
    entries = load_entries(tmp_path, SIZES)
    score = entries[0].scores["live_simple"]
    assert score.partial and score.dataset_size == 258
    write_leaderboard(tmp_path, SIZES)
    live = rows(tmp_path / "data_live.csv")
    assert live[1][2:5] == [f"{10 / 1103 * 100:.2f}%", "N/A", "100.00%"]


def test_leaderboard_json(tmp_path: Path) -> None:
    write_scores(tmp_path, "m", {"multiple": (150, 200), "exec_simple": (50, 100)})
    write_leaderboard(tmp_path, SIZES, usage={"m": Usage(latencies=[1.0, 2.0])})
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    (model,) = data["models"]
    assert model["rank"] == 1 and model["model"] == "m"
    assert model["categories"]["multiple"]["accuracy"] == 0.75
    assert model["categories"]["memory_kv"]["evaluated"] is False
    assert model["summaries"]["overall"]["na"] is True
    # v1: the categories not run count 0 over their 2024 entry counts (1,700 in all).
    assert model["v1"]["overall"]["total"] == 1700
    assert model["v1"]["overall"]["accuracy"] == 200 / 1700
    assert model["latency"] == {"mean": 1.5, "std": 0.71, "p95": 1.95}


def test_usage_keyed_by_model_name(tmp_path: Path) -> None:
    write_scores(tmp_path, "org/model", {"multiple": (1, 2)})
    entries = load_entries(tmp_path, SIZES, usage={"org/model": Usage(latencies=[1.0, 3.0])})
    assert entries[0].model == "org_model"
    assert entries[0].cost.mean == 2.0


def test_unknown_model_metadata() -> None:
    assert unknown_model("my_model") == ModelInfo("my_model", "N/A", "N/A", "N/A", None, None)


# -- Cost and latency ------------------------------------------------------------------------


def test_usage_flattens_multi_turn_lists_and_skips_zeros() -> None:
    usage = Usage()
    usage.extend([
        {"latency": 1.5, "input_token_count": 10, "output_token_count": 0},
        {"latency": [[0.5, 0], [2.0]], "input_token_count": [[1, 2], []]},
        {"latency": "n/a", "result": "Error during inference: x"},
        {"latency": [1.0, 2.0]},  # a flat list is not a per-turn list: ignored
    ])
    assert usage.latencies == [1.5, 0.5, 2.0]
    assert usage.input_tokens == [10, 1, 2]
    assert usage.output_tokens == []


def test_local_cost_is_gpu_time() -> None:
    usage = Usage(latencies=[3600.0] * 10)
    assert cost_latency(usage, unknown_model("m")).cost == round(10 * 23.92 / 100, 2)


def test_api_cost_uses_token_prices() -> None:
    info = ModelInfo("m", input_price=2.0, output_price=8.0)
    usage = Usage([500_000, 500_000], [250_000], [1.0, 3.0])
    result = cost_latency(usage, info)
    assert result == CostLatency(cost=4.0, mean=2.0, std=1.41, p95=2.9)
    assert cost_latency(Usage(latencies=[1.0, 2.0]), info).cost is None
    # The HTML report shows no deviation and asks for none; the rest is the same.
    assert cost_latency(usage, info, spread=False) == CostLatency(cost=4.0, mean=2.0, p95=2.9)


def test_no_usage_and_single_latency() -> None:
    assert cost_latency(None, unknown_model("m")) == CostLatency()
    single = cost_latency(Usage(latencies=[2.0]), unknown_model("m"))
    assert (single.mean, single.std, single.p95) == (2.0, None, 2.0)


def test_percentile_matches_numpy_linear() -> None:
    # numpy.percentile([1, 2, 3, 4], 95) interpolates from the upper end: 3.8499999999999996.
    assert percentile([4, 1, 3, 2], 95) == 3.8499999999999996
    assert percentile([1.0, 2.0], 50) == 1.5
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0, 3.0], 100) == 3.0


def test_p95_is_rounded_the_numpy_way() -> None:
    # round(np.float64(3.145), 2) == 3.14 while Python's round(3.145, 2) == 3.15.
    assert cost_latency(Usage(latencies=[3.145]), unknown_model("m")).p95 == 3.14


# -- data_v1.csv on the 14 models of 2024 ----------------------------------------------------


def _hand_v1(counts: dict[str, tuple[int, int]]) -> dict[str, float]:
    """The 2024 formulas written out: a category not run counts 0 over its 2024 size."""
    size_2024 = {"simple_python": 400, "simple_java": 100, "simple_javascript": 50,
                 "multiple": 200, "parallel": 200, "parallel_multiple": 200,
                 "exec_simple": 100, "rest": 70, "exec_multiple": 50, "exec_parallel": 50,
                 "exec_parallel_multiple": 40, "irrelevance": 240}

    def c(name: str) -> int:
        return counts[name][0] if name in counts else 0

    def t(name: str) -> int:
        return counts[name][1] if name in counts else size_2024[name]

    def acc(name: str) -> float:
        return c(name) / t(name)

    simple_ast = (c("simple_python") + c("simple_java") + c("simple_javascript")) / (
        t("simple_python") + t("simple_java") + t("simple_javascript"))
    simple_exec = (c("exec_simple") + c("rest")) / (t("exec_simple") + t("rest"))
    ast = (simple_ast + acc("multiple") + acc("parallel") + acc("parallel_multiple")) / 4
    exe = (simple_exec + acc("exec_multiple") + acc("exec_parallel")
           + acc("exec_parallel_multiple")) / 4
    overall = sum(c(n) for n in size_2024) / sum(t(n) for n in size_2024)
    return {"Overall Acc": overall, "AST Summary": ast, "Exec Summary": exe,
            "Simple Function AST": simple_ast, "Simple Function Exec": simple_exec,
            "Relevance Detection": acc("irrelevance")}


def test_v1_overall_of_the_2024_corpus_matches_a_hand_computation(v1_scores: Path) -> None:
    from fcbench.results.score_files import read_score_headers

    table = rows(v1_scores / "data_v1.csv")
    header, body = table[0], table[1:]
    assert header[:8] == ["Rank", "Overall Acc", "Model", "Model Link", "Organization",
                          "License", "AST Summary", "Exec Summary"]
    assert len(body) == 14
    headers = read_score_headers(v1_scores)
    # the Model column shows the official registry's display name of a folder it knows
    folders = {m["display_name"]: m["model"] for m in
               json.loads((v1_scores / "leaderboard.json").read_text())["models"]}
    for row in body:
        cells = dict(zip(header, row, strict=True))
        counts = {cat: (h["correct_count"], h["total_count"])
                  for cat, h in headers[folders[cells["Model"]]].items()}
        assert set(counts) == set(V1_SCORED), cells["Model"]  # every v1 category was run
        for column, value in _hand_v1(counts).items():
            assert cells[column] == f"{value * 100:.2f}%", (cells["Model"], column)
        assert cells["REST Simple Function Exec"].endswith("%")
    overall = [float(r[1].rstrip("%")) for r in body]
    assert overall == sorted(overall, reverse=True) and [r[0] for r in body] == [
        str(i) for i in range(1, 15)]


V1_SCORED = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
             "parallel_multiple", "irrelevance", "exec_simple", "exec_multiple",
             "exec_parallel", "exec_parallel_multiple", "rest")


def test_v1_missing_categories_show_na_and_count_zero(tmp_path: Path) -> None:
    write_scores(tmp_path, "m", {"simple_python": (200, 400), "multiple": (100, 200)})
    write_leaderboard(tmp_path, SIZES)
    header, row = rows(tmp_path / "data_v1.csv")
    cells = dict(zip(header, row, strict=True))
    assert cells["Overall Acc"] == f"{300 / 1700 * 100:.2f}%"
    assert cells["Exec Summary"] == "N/A" and cells["Python Simple Function Exec"] == "N/A"
    assert cells["AST Summary"] == "N/A"  # simple_java and simple_javascript were not run
    assert cells["Python Simple Function AST"] == "50.00%"
    assert cells["Cost ($ Per 1k Function Calls)"] == "N/A"


def test_a_model_with_a_damaged_header_is_left_out_and_the_rest_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One model's damaged score files (a torn header, counts that are not numbers) cost
    that model its rows, with one warning line each; the CSVs and leaderboard.json are
    written for the others (issue 30)."""
    write_scores(tmp_path, "good", {"multiple": (20, 200)})
    write_scores(tmp_path, "torn", {"multiple": (20, 200)})
    write_scores(tmp_path, "words", {"multiple": (20, 200)})
    (tmp_path / "torn" / "non_live" / "BFCL_v4_multiple_score.json").write_text('{"accura')
    (tmp_path / "words" / "non_live" / "BFCL_v4_multiple_score.json").write_text(
        json.dumps({"accuracy": 0.1, "correct_count": "many", "total_count": 200}) + "\n")
    write_leaderboard(tmp_path, SIZES)
    assert [r[2] for r in rows(tmp_path / "data_overall.csv")[1:]] == ["good"]
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert [m["model"] for m in board["models"]] == ["good"]
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 2 and all(w.startswith("fcbench: warning: ") for w in warnings)
    assert "torn" in warnings[0] and "words" in warnings[1]


def test_figures_that_are_not_finite_numbers_are_na() -> None:
    """A result file's `Infinity` / `NaN` latency, finite ones whose 95th percentile
    overflows, and integers past a float's range (a hand-made usage file) give N/A, never a
    crash (upstream: `statistics.stdev` raises on an infinity) nor a NaN in the JSON files."""
    from fcbench.report.csv_files import CostLatency, ModelInfo, cost_latency
    from fcbench.score.usage import Usage

    local, priced = ModelInfo("m"), ModelInfo("m", input_price=1.0, output_price=2.0)
    assert cost_latency(Usage([], [], [float("inf")]), local) == CostLatency()
    assert cost_latency(Usage([], [], [float("nan"), 1.0]), local) == CostLatency()
    huge = cost_latency(Usage([], [], [1e307, 1.0]), local)
    assert (huge.mean, huge.p95) == (5e306, None)  # upstream's p95: inf
    assert cost_latency(Usage([10**400], [3], []), priced) == CostLatency()
    assert cost_latency(Usage([], [], [10**400, 2]), local) == CostLatency()
    assert cost_latency(Usage([1e308, 1e308], [1.0], []), priced).cost is None
    assert cost_latency(Usage([], [], [1.5, 2.5, 3.0]), local) == CostLatency(0.0, 2.33, 0.76,
                                                                             2.95)


def test_batched_cases_cost_half() -> None:
    """The cost column prices the tokens of batched lines at the batch price (half)."""
    info = ModelInfo("m", input_price=2.0, output_price=8.0)
    live = Usage([500_000, 500_000], [250_000], [1.0, 3.0])
    batched = Usage([500_000, 500_000], [250_000], [1.0, 3.0],
                    batched_input_tokens=[500_000], batched_output_tokens=[250_000])
    assert cost_latency(live, info).cost == 4.0
    assert cost_latency(batched, info).cost == round(4.0 - 0.5 - 1.0, 2)
