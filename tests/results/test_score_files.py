"""Score files: official paths, JSON Lines format, and reading them back (spec §8.1, §8.3)."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.results.score_files import (
    RawJSON,
    _dumps,
    iter_score_files,
    read_score_file,
    read_score_header,
    read_score_headers,
    score_header,
    write_category_score,
    write_score_file,
)
from fcbench.score.aggregate import CategoryScore


def test_header_shape() -> None:
    assert score_header(1, 4) == {"accuracy": 0.25, "correct_count": 1, "total_count": 4}
    assert score_header(0, 0)["accuracy"] == 0.0
    assert score_header(1, 2, {"accuracy_std": 1.5})["accuracy_std"] == 1.5


def test_written_like_the_official_tool(tmp_path: Path) -> None:
    """One compact json.dumps per line, non-ASCII kept, newline after every line."""
    path = tmp_path / "a" / "b.json"
    record = {"id": "simple_python_3", "valid": False, "error": ["wrong value: 'café'"],
              "model_result_decoded": [{"f": {"x": (1, 2)}}]}
    write_score_file(path, score_header(1, 2), [record])
    text = path.read_text(encoding="utf-8")
    assert text == (
        '{"accuracy": 0.5, "correct_count": 1, "total_count": 2}\n'
        '{"id": "simple_python_3", "valid": false, "error": ["wrong value: \'café\'"], '
        '"model_result_decoded": [{"f": {"x": [1, 2]}}]}\n'
    )


def test_unserialisable_leaves_become_strings(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    error = ValueError("bad")
    write_score_file(path, score_header(0, 1), [{"id": "x", "error": [error], "n": {"s": {1}}}])
    _, records = read_score_file(path)
    assert records == [{"id": "x", "error": ["bad"], "n": {"s": "{1}"}}]


def test_round_trip(tmp_path: Path) -> None:
    failures = [{"id": f"parallel_{i}", "valid": False} for i in range(3)]
    score = CategoryScore("parallel", 197, 200, 200)
    path = write_category_score(tmp_path, "some/model", score, failures)
    assert path == tmp_path / "some_model" / "non_live" / "BFCL_v4_parallel_score.json"
    header, records = read_score_file(path)
    assert header == {"accuracy": 0.985, "correct_count": 197, "total_count": 200}
    assert records == failures
    assert read_score_header(path) == header


def test_extra_header_fields(tmp_path: Path) -> None:
    score = CategoryScore("format_sensitivity", 1, 2, 5200)
    extra = {"accuracy_max_delta": 12.5, "cfg": {"accuracy": 0.5}}
    path = write_category_score(tmp_path, "m", score, [], extra)
    assert read_score_header(path)["cfg"] == {"accuracy": 0.5}
    assert path.parent == tmp_path / "m" / "format_sensitivity"


def test_empty_score_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_multiple_score.json"
    path.write_text("")
    with pytest.raises(ValueError):
        read_score_file(path)


def test_read_headers_of_a_score_dir(tmp_path: Path) -> None:
    write_category_score(tmp_path, "b", CategoryScore("memory_kv", 1, 155, 155), [])
    write_category_score(tmp_path, "a", CategoryScore("multiple", 2, 200, 200), [{"id": "x"}])
    write_category_score(tmp_path, "a", CategoryScore("live_simple", 3, 258, 258), [])
    (tmp_path / "empty_model").mkdir()
    (tmp_path / "data_overall.csv").write_text("x")
    (tmp_path / "a" / "notes.json").write_text(json.dumps({"x": 1}))
    found = [(m, c) for m, c, _ in iter_score_files(tmp_path)]
    assert found == [("a", "live_simple"), ("a", "multiple"), ("b", "memory_kv")]
    headers = read_score_headers(tmp_path)
    assert set(headers) == {"a", "b"}
    assert headers["a"]["multiple"]["correct_count"] == 2
    assert headers["b"]["memory_kv"]["total_count"] == 155


# -- Records carrying JSON text (RawJSON) ------------------------------------------------------


def test_raw_json_values_are_written_verbatim_in_key_order(tmp_path: Path) -> None:
    """A RawJSON value, wherever it sits, reads back as the value it encodes."""
    prompt = {"id": "simple_python_3", "question": [[{"role": "user", "content": "café"}]]}
    record = {
        "first": RawJSON(json.dumps([1, {"a": None}])),
        "id": "simple_python_3",
        "prompt": RawJSON(json.dumps(prompt, ensure_ascii=False)),
        "model_result_raw": "[f(x=1)]",
        "possible_answer": RawJSON(json.dumps([{"f": {"x": [1]}}])),
    }
    path = tmp_path / "s.json"
    write_score_file(path, score_header(0, 1), [record])
    line = path.read_text(encoding="utf-8").splitlines()[1]
    expected = {key: json.loads(value) if isinstance(value, RawJSON) else value
                for key, value in record.items()}
    assert line == json.dumps(expected, ensure_ascii=False)


def test_raw_json_with_odd_leaves_and_placeholder_lookalikes() -> None:
    """Values equal to the internal placeholder (or ending in it) and values json cannot
    encode still come out as `json.dumps(..., default=str)` with the raw text spliced in."""
    raw = RawJSON('{"q": 1}')
    for record in (
        {"a": "\x00", "prompt": raw, "b": 'x"\x00'},
        {"\x00": 1, "prompt": raw},
        {"prompt": raw, "error": [ValueError("bad")], "s": {1}},
        {"prompt": raw, "other": raw, "tail": "\x00prompt\x00"},
    ):
        expected = json.dumps(raw_parsed(record), ensure_ascii=False, default=str)
        assert _dumps(record) == expected, record


def test_records_may_be_any_mapping(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    record = MappingProxyType({"id": "x", "prompt": RawJSON("[1, 2]")})
    write_score_file(path, score_header(0, 1), [record])
    assert read_score_file(path)[1] == [{"id": "x", "prompt": [1, 2]}]


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
    st.text(alphabet=st.sampled_from(['\x00', '"', "\\", "a", "é", ":", ",", " "]), max_size=4),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8,
)


def raw_parsed(record: dict[str, object]) -> dict[str, object]:
    return {k: (json.loads(v) if isinstance(v, RawJSON) else v) for k, v in record.items()}


# recursive values are slow to draw on a loaded machine: that is no failure of the rule
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(
    st.one_of(st.text(alphabet=st.sampled_from(["\x00", "a", "b", '"']), max_size=3),
              st.integers(), st.none()),
    st.one_of(_VALUES, _VALUES.map(lambda v: RawJSON(json.dumps(v, ensure_ascii=False)))),
    max_size=6,
))
def test_raw_json_splice_equals_encoding_the_parsed_values(record: dict[str, object]) -> None:
    """Whatever the keys and values (placeholder look-alikes included), the line is the plain
    `json.dumps` of the record with each RawJSON replaced by the value it encodes."""
    expected = json.dumps(raw_parsed(record), ensure_ascii=False, default=str)
    assert _dumps(record) == expected
