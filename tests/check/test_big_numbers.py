"""Integers past Python's 4,300-digit limit in answers (issue 30): the verdict upstream gives
where it gives one, and where upstream crashes (quoting the value in its message), the
checker's own verdict with the value quoted whole (docs/conformance.md)."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from fcbench import _json as fast_json
from fcbench.check.single_turn import CheckMemo, judge
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.decode.python_calls import ReturnFormat

PROMPT = Encoding("prompt")
JSON_PROMPT = Encoding("prompt", return_format=ReturnFormat.JSON)
FC = Encoding("fc", "underscore", "json_string")
SIMPLE = categories.get("simple_python")

CASE = TestCase(
    "simple_python_0", "simple_python", [[{"role": "user", "content": "?"}]],
    [{"name": "calculate_triangle_area", "description": "Area.",
      "parameters": {"type": "dict", "required": ["base", "height"], "properties": {
          "base": {"type": "integer", "description": "b"},
          "height": {"type": "integer", "description": "h"}}}}],
    [{"calculate_triangle_area": {"base": [10], "height": [5]}}],
)
DIGITS_5000 = "1" * 5000


def _text(value: int) -> str:
    with fast_json.int_digits():
        return str(value)


@pytest.mark.parametrize(("argument", "value"), [
    ("10**4400", 10**4400),
    ("0x" + "f" * 3700, 16**3700 - 1),
    ("-0x" + "f" * 3700, -(16**3700 - 1)),
], ids=["power", "hex", "negative_hex"])
@pytest.mark.parametrize("memo", [None, CheckMemo()], ids=["alone", "memo"])
def test_a_long_integer_decoding_lets_through_is_a_wrong_value_quoted_whole(
    argument: str, value: int, memo: CheckMemo | None
) -> None:
    """Upstream decodes these (its `eval` of `10**4400`, `ast.parse` of a hex literal) and
    then stops on `repr(value)` in its message; here the message quotes the value whole."""
    raw = f"[calculate_triangle_area(base={argument}, height=5)]"
    verdict = judge(CASE, SIMPLE, raw, PROMPT, memo)
    assert (verdict.valid, verdict.error_type) == (False, "value_error:others")
    assert verdict.errors == [
        f"Invalid value for parameter 'base': {_text(value)}. Expected one of [10]."
    ]
    assert verdict.extras["decoded"] == [{"calculate_triangle_area": {"base": value,
                                                                       "height": 5}}]
    assert sys.get_int_max_str_digits() == 4300


def test_a_long_integer_that_does_not_decide_the_verdict_changes_nothing() -> None:
    raw = "[calculate_triangle_area(base=10, height=5, extra=10**4400)]"
    verdict = judge(CASE, SIMPLE, raw, PROMPT)
    assert not verdict.valid
    assert verdict.error_type == "simple_function_checker:unexpected_param"
    good = judge(CASE, SIMPLE, "[calculate_triangle_area(base=10, height=5)]", PROMPT)
    assert good.valid


@pytest.mark.parametrize(("encoding", "raw"), [
    (PROMPT, f"[calculate_triangle_area(base={DIGITS_5000}, height=5)]"),
    (PROMPT, f"[calculate_triangle_area(base=-{DIGITS_5000}, height=5)]"),
    (JSON_PROMPT, '[{"name": "calculate_triangle_area", "arguments": {"base": '
                  + DIGITS_5000 + ', "height": 5}}]'),
    (FC, [{"calculate_triangle_area": '{"base": ' + DIGITS_5000 + ', "height": 5}'}]),
], ids=["python", "negative_python", "json", "fc"])
def test_a_long_decimal_literal_fails_to_decode_as_upstream(encoding: Encoding, raw: Any) -> None:
    """Upstream's `ast.parse` and `json.loads` meet the default limit: the case fails to
    decode. fcbench's decoders run under the same limit (it is lifted only to read and write
    data files and to finish a check the limit stopped), so the verdict is the same."""
    verdict = judge(CASE, SIMPLE, raw, encoding)
    assert (verdict.valid, verdict.error_type) == (False, "ast_decoder:decoder_failed")
    assert "4300 digits" in verdict.errors[0]


def test_the_records_of_such_cases_are_written_and_read_back(tmp_path: Any) -> None:
    from fcbench.results.score_files import read_score_file, score_header, write_score_file

    raw = "[calculate_triangle_area(base=10**4400, height=5)]"
    verdict = judge(CASE, SIMPLE, raw, PROMPT)
    record = {"id": CASE.id, "error": verdict.errors, "error_type": verdict.error_type,
              "model_result_raw": raw, "model_result_decoded": verdict.extras["decoded"]}
    path = tmp_path / "BFCL_v4_simple_python_score.json"
    write_score_file(path, score_header(0, 1), [record])
    assert path.read_text(encoding="utf-8").count("1" + "0" * 4400 + ",") == 1
    header, records = read_score_file(path)
    assert header["total_count"] == 1
    assert records == [record]


def test_a_multi_turn_result_holding_a_long_integer_has_a_memo_key_or_none() -> None:
    """The multi-turn memo keys a result by its JSON text: a 5,000-digit integer in a result
    line's structure (read whole by the reader) stopped the whole evaluation there."""
    from fcbench.check.kinds.multi_turn import MultiTurnSession
    from fcbench.check.registry import JudgeSettings

    session = MultiTurnSession(JudgeSettings("2026.3.23"))
    case = TestCase("multi_turn_base_0", "multi_turn_base", [[]], [], [["ls()"]])
    big = [[10**5000, "[ls()]"]]
    key = session.memo_key(case, big, PROMPT, "m")
    assert key is not None and key == session.memo_key(case, [[10**5000, "[ls()]"]], PROMPT, "m")
    assert key != session.memo_key(case, [[10**5000 + 1, "[ls()]"]], PROMPT, "m")
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert session.memo_key(case, deep, PROMPT, "m") is None
    assert sys.get_int_max_str_digits() == 4300
