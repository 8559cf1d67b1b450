"""Token counts and latencies recorded in result files: the CSVs' cost and latency columns."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench._json import loads_numbers


@dataclass
class Usage:
    """Token counts and per-call latencies gathered from a model's result files."""

    input_tokens: list[float] = field(default_factory=list)
    output_tokens: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    batched_input_tokens: list[float] = field(default_factory=list)
    """Of `input_tokens`, those of cases asked through a batch API (`"batch"` in the line),
    priced at `models.batch.BATCH_PRICE` of the live price."""
    batched_output_tokens: list[float] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    """Dollars per request as the backend priced it (`cost`: LiteLLM's table), when it did."""

    def add(self, entry: Mapping[str, Any]) -> None:
        """Take one result-file entry's `input_token_count`, `output_token_count`, `latency`,
        `cost`."""
        _collect(entry.get("input_token_count"), self.input_tokens)
        _collect(entry.get("output_token_count"), self.output_tokens)
        _collect(entry.get("latency"), self.latencies)
        if entry.get("batch"):
            _collect(entry.get("input_token_count"), self.batched_input_tokens)
            _collect(entry.get("output_token_count"), self.batched_output_tokens)
        _collect(entry.get("cost"), self.costs)

    def extend_from(self, other: Usage) -> None:
        """Add another usage's figures (per-category usages summed into a model's)."""
        self.input_tokens.extend(other.input_tokens)
        self.output_tokens.extend(other.output_tokens)
        self.latencies.extend(other.latencies)
        self.batched_input_tokens.extend(other.batched_input_tokens)
        self.batched_output_tokens.extend(other.batched_output_tokens)
        self.costs.extend(other.costs)

    def priced_tokens(self) -> tuple[float, float]:
        """(input, output) tokens as the price applies to them: a batched token counts
        `BATCH_PRICE` of a live one."""
        from fcbench.models.batch import BATCH_PRICE

        off = 1 - BATCH_PRICE
        return (sum(self.input_tokens) - off * sum(self.batched_input_tokens),
                sum(self.output_tokens) - off * sum(self.batched_output_tokens))

    def extend(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """`add` for each entry, one field at a time (each list gets the same values in the
        same order), so that a file of plain numbers is taken in one comprehension per field."""
        entries = list(entries)
        for key, into in (
            ("input_token_count", self.input_tokens),
            ("output_token_count", self.output_tokens),
            ("latency", self.latencies),
            ("cost", self.costs),
        ):
            _collect_all([entry.get(key) for entry in entries], into)
        for entry in entries:
            if entry.get("batch"):
                _collect(entry.get("input_token_count"), self.batched_input_tokens)
                _collect(entry.get("output_token_count"), self.batched_output_tokens)


_NUMBER_OR_NONE = frozenset((int, float, type(None)))
_FLOAT_MAX = sys.float_info.max


def _collect_all(values: list[Any], into: list[float]) -> None:
    """`_collect` for each value; plain numbers and absent values (single-turn files) in one
    step: zeros and None are skipped as `_collect` skips them."""
    if set(map(type, values)) <= _NUMBER_OR_NONE:
        into.extend([value for value in values if value and _fits_a_float(value)])
        return
    for value in values:
        _collect(value, into)


def _collect(value: Any, into: list[float]) -> None:
    """A number (single-turn) or a list of per-turn lists (multi-turn, flattened one level).

    Zeros and non-numbers are skipped, as the official does: a 0 means "not measured".
    """
    if type(value) in (int, float):  # the single-turn case, by far the most frequent
        if value and _fits_a_float(value):
            into.append(value)
        return
    if isinstance(value, list) and all(isinstance(item, list) for item in value):
        items = [item for turn in value for item in turn]
    else:
        items = [value]
    into.extend(x for x in items if isinstance(x, (int, float)) and x != 0 and _fits_a_float(x))


def _fits_a_float(value: float) -> bool:
    """False for an integer past a float's range (a 5,000-digit `latency`): the aggregates
    are floats, so it is skipped like a non-number (upstream stops at reading its line)."""
    return type(value) is not int or -_FLOAT_MAX <= value <= _FLOAT_MAX


def usage_from_result_files(paths: Iterable[Path]) -> Usage:
    """The usage recorded in result files (JSON Lines, one entry per test case)."""
    usage = Usage()
    for path in paths:
        with Path(path).open(encoding="utf-8", errors="replace") as f:
            usage.extend(entry for entry in map(_entry, f) if entry is not None)
    return usage


def _entry(line: str) -> dict[str, Any] | None:
    """One result line as an entry; None for a blank, unreadable or non-object line (the
    evaluation that scored the file has reported it)."""
    if not line.strip():
        return None
    try:
        entry = loads_numbers(line)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def numpy_round2(value: float) -> float:
    """Round to 2 decimals the way numpy rounds its floats (scale, round half-even, unscale).

    The official 95th percentile is a numpy float, and numpy's rounding differs from Python's
    correctly rounded `round(x, 2)` on values such as 3.145.
    """
    return round(value * 100) / 100


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation, computed as numpy's default does.

    numpy interpolates from the nearer end (b − Δ·(1−t) when t ≥ 0.5), which can differ from
    a + Δ·t in the last bit; matching it keeps the rounded column identical.
    """
    ordered = sorted(float(v) for v in values)
    position = (len(ordered) - 1) * (q / 100)
    if position >= len(ordered) - 1:
        return ordered[-1]
    low = math.floor(position)
    a, b, t = ordered[low], ordered[low + 1], position - low
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def save_usage(path: Path, usage: Usage) -> None:
    """Keep a model's usage next to its score files (atomically), so that a later
    evaluation of *another* model into the same score folder can still show this one's
    cost and latency (the official tool shows N/A for every model it did not just read)."""
    from fcbench._atomic import replace_file
    from fcbench._json import dumps_total

    data = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "latencies": usage.latencies, "batched_input_tokens": usage.batched_input_tokens,
            "batched_output_tokens": usage.batched_output_tokens, "costs": usage.costs}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    text = dumps_total(data, separators=(",", ":"))  # any number a result line held
    replace_file(Path(path), text.encode())


def load_usage(path: Path) -> Usage | None:
    """The usage `save_usage` kept (None when absent or unreadable)."""
    try:
        data = loads_numbers(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    numbers: list[list[float]] = []
    for key in ("input_tokens", "output_tokens", "latencies"):
        values = data.get(key)
        if not isinstance(values, list):
            return None
        numbers.append([x for x in values if type(x) in (int, float)])
    optional = [data.get(key) for key in ("batched_input_tokens", "batched_output_tokens",
                                          "costs")]
    numbers += [[x for x in values if type(x) in (int, float)] if isinstance(values, list)
                else [] for values in optional]  # absent in files of earlier versions
    return Usage(*numbers)
