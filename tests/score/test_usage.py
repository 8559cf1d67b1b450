"""Token counts and latencies gathered from result entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench.score.usage import Usage, usage_from_result_files

ENTRIES: list[dict[str, Any]] = [
    {"latency": 1.5, "input_token_count": 10, "output_token_count": 0},
    {"latency": 2, "input_token_count": None},
    {"result": "no usage at all"},
    {"latency": [[0.5, 0], [2.0]], "input_token_count": [[1, 2], []]},
    {"latency": "n/a", "output_token_count": True},
    {"latency": [1.0, 2.0], "output_token_count": False},  # a flat list is ignored
    {"latency": 0.0, "input_token_count": 7, "output_token_count": 3},
]


def one_by_one(entries: list[dict[str, Any]]) -> Usage:
    usage = Usage()
    for entry in entries:
        usage.add(entry)
    return usage


def test_extend_is_add_for_each_entry() -> None:
    """Per-field collection keeps each list's order, whatever the mix of entries."""
    for entries in (ENTRIES, ENTRIES[:3], ENTRIES[::-1], [ENTRIES[0], ENTRIES[6]], []):
        usage = Usage()
        usage.extend(iter(entries))  # any iterable, read once
        assert usage == one_by_one(entries)


def test_plain_numbers_skip_zeros_and_missing_values() -> None:
    usage = Usage()
    usage.extend([ENTRIES[0], ENTRIES[1], ENTRIES[2], ENTRIES[6]])
    assert usage.latencies == [1.5, 2]
    assert usage.input_tokens == [10, 7]
    assert usage.output_tokens == [3]


def test_a_number_past_a_floats_range_is_skipped_like_a_non_number(tmp_path: Path) -> None:
    """The aggregates are floats: a 5,000-digit `latency` (read whole by the result reader)
    would overflow them; it is skipped, like "n/a", in every way usage is gathered."""
    big = 10**5000
    entries: list[dict[str, Any]] = [
        {"latency": big, "input_token_count": -big, "output_token_count": 3},
        {"latency": [[big, 2.5]], "input_token_count": 2**1023},
        {"latency": 1.5, "output_token_count": float("inf")},
    ]
    usage = Usage()
    usage.extend(entries)
    assert usage == one_by_one(entries)
    assert usage.latencies == [2.5, 1.5]
    assert usage.input_tokens == [2**1023]
    assert usage.output_tokens == [3, float("inf")]  # a float's own infinity is kept as is
    path = tmp_path / "BFCL_v4_simple_python_result.json"
    lines = [fast_json.dumps(entry) for entry in entries]
    path.write_text("\n".join([lines[0], '{"torn": ', "[1]", lines[2]]) + "\n")
    assert usage_from_result_files([path]) == one_by_one([entries[0], entries[2]])


def test_batched_tokens_are_priced_at_the_batch_price(tmp_path: Path) -> None:
    """A line answered through a batch API (`"batch"`) counts its tokens at half the live
    price; the usage file keeps that through a later evaluation of another model."""
    from fcbench.models.batch import BATCH_PRICE
    from fcbench.score.usage import load_usage, save_usage

    entries: list[dict[str, Any]] = [
        {"input_token_count": 1000, "output_token_count": 100, "latency": 0.0, "batch": "b1"},
        {"input_token_count": 300, "output_token_count": 30, "latency": 1.5},
        {"input_token_count": 50, "output_token_count": 7, "batch": ""},  # not batched
    ]
    usage = Usage()
    usage.extend(entries)
    assert usage == one_by_one(entries)
    assert usage.batched_input_tokens == [1000] and usage.batched_output_tokens == [100]
    assert usage.priced_tokens() == (1350 - (1 - BATCH_PRICE) * 1000,
                                      137 - (1 - BATCH_PRICE) * 100)
    assert BATCH_PRICE == 0.5
    path = tmp_path / "usage.json"
    save_usage(path, usage)
    assert load_usage(path) == usage
    path.write_text('{"input_tokens": [1], "output_tokens": [2], "latencies": [3]}')
    assert load_usage(path) == Usage([1], [2], [3])  # a file of an earlier version


def test_a_backends_own_prices_are_the_cost_column_when_every_request_has_one(
    tmp_path: Path,
) -> None:
    """LiteLLM's `cost` per request (a number, or per turn and step) sums into the column;
    a usage where some request has none falls back to the token or GPU-hour estimate."""
    from fcbench.report.csv_files import cost_latency, unknown_model
    from fcbench.score.usage import load_usage, save_usage

    priced = [{"latency": 1.0, "cost": 0.5},
              {"latency": [[1.0, 2.0], [3.0]], "cost": [[0.25, 0.125], [1.0]]}]
    usage = one_by_one(priced)
    assert usage.costs == [0.5, 0.25, 0.125, 1.0]
    bulk = Usage()
    bulk.extend(priced)
    assert bulk == usage
    assert cost_latency(usage, unknown_model("m")).cost == round(1.875, 2)
    save_usage(tmp_path / "usage.json", usage)
    assert load_usage(tmp_path / "usage.json") == usage
    partly = one_by_one([*priced, {"latency": 3600.0}])
    assert cost_latency(partly, unknown_model("m")).cost != cost_latency(usage, unknown_model(
        "m")).cost
    (tmp_path / "old.json").write_text('{"input_tokens": [], "output_tokens": [], '
                                       '"latencies": [1.0]}')
    old = load_usage(tmp_path / "old.json")
    assert old is not None and old.costs == []
