"""Any case becomes a valid sample: whatever a result file, score file or data set holds
(odd types, NaN and infinities, huge integers, lone surrogates, deep nesting, negative or
non-numeric usage), every_eval_ever's record stays valid against the released 0.3.0
instance schema and both formats' text reads back with a strict JSON parser (no NaN or
Infinity literal, which every_eval_ever's validator and other readers refuse)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from fcbench.export.cases import Case, file_text
from fcbench.export.every_eval_ever_samples import _sample as eee_sample
from fcbench.export.inspect_log import _sample as inspect_sample

SCHEMA = Draft7Validator(json.loads(
    (Path(__file__).parent / "every_eval_ever" / "instance_level_eval.schema.json")
    .read_text(encoding="utf-8")))
LOG = {"evaluation_id": "bfcl/m/1", "model_info": {"id": "org/m"}}
RESULTS = {"bfcl.multi_turn.base_accuracy": "bfcl.multi_turn.base_accuracy::base_accuracy"}

texts = st.text(st.characters(codec=None), max_size=30)  # surrogates and NUL included
edges = st.sampled_from([math.nan, math.inf, -math.inf, -1, -0.5, 10**400, -(10**400),
                         1e308, int(1.7e308), "\ud800", "NaN", "Infinity", '"', "\\", "\x00"])
"""Values a strategy otherwise rarely draws, each once the undoing of a writer."""
scalars = (edges | st.none() | st.booleans() | st.floats() | texts
           | st.integers(min_value=-(10**400), max_value=10**400))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(texts, inner, max_size=4), max_leaves=25)
messages = st.lists(st.fixed_dictionaries({"role": texts | values, "content": values}),
                    max_size=3)
questions = values | st.lists(messages, max_size=3)
numbers = (edges | st.floats() | st.integers(min_value=-(10**400), max_value=10**400)
           | st.booleans())
usage_values = numbers | st.lists(st.lists(numbers, max_size=3), max_size=3) | values
"""A result entry's counts: a number, per-turn lists of numbers (multi-turn), or anything."""
usages = st.dictionaries(st.sampled_from(["input_token_count", "output_token_count",
                                          "latency"]), usage_values, max_size=3)
cases = st.builds(
    Case, category=st.sampled_from(["simple_python", "multi_turn_base", "web_search_base",
                                    "memory_kv", "irrelevance"]),
    id=texts, question=questions, functions=values, expected=values, answer=values,
    valid=st.booleans(), error_type=st.none() | texts, error=values, usage=usages)


def strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@settings(max_examples=120, deadline=None)
@given(cases)
def test_every_case_is_a_valid_readable_sample(case: Case) -> None:
    record = eee_sample(case, LOG, RESULTS)
    assert [e.message for e in SCHEMA.iter_errors(record)] == []
    assert strict(file_text(record))["sample_id"] == case.id
    sample = inspect_sample(case, "fcbench/org/m", 1)
    back = strict(file_text(sample))
    assert back["id"] == case.id
    assert back["scores"]["bfcl_checker"]["value"] == ("C" if case.valid else "I")


counts = numbers | st.lists(st.lists(numbers, max_size=3), min_size=1, max_size=3)
"""A result entry's count as result files hold it: a number or per-turn lists of them."""


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({"input_token_count": counts, "output_token_count": counts,
                              "latency": counts}))
@example({"input_token_count": [[int(1.7e308), int(1.7e308)]], "output_token_count": 1,
          "latency": [[1e308, 1e308]]})  # sums past a float: as ints, and as floats
@example({"input_token_count": -3, "output_token_count": math.nan, "latency": -0.5})
@example({"input_token_count": 2, "output_token_count": 3, "latency": 1e306})  # ms overflow
def test_usage_figures_are_finite_and_non_negative_or_left_out(usage: dict[str, Any]) -> None:
    """Token counts and latency reach a sample only as finite non-negative numbers (the
    schema's minimum 0; a NaN is not JSON; seconds past 1.8e305 overflow as milliseconds)."""
    from fcbench.export.cases import usage_totals

    case = Case("simple_python", "simple_python_0", [], [], None, "[]", True, usage=usage)
    tokens_in, tokens_out, latency = usage_totals(case)
    for tokens in (tokens_in, tokens_out):
        assert tokens is None or (isinstance(tokens, int) and tokens >= 0)
    assert latency is None or (latency >= 0 and math.isfinite(latency * 1000))
    record = eee_sample(case, LOG, RESULTS)
    assert [e.message for e in SCHEMA.iter_errors(record)] == []
    strict(file_text(record))
