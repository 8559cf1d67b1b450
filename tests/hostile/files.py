"""Hostile files from others (issue 20, item 4): result lines and `model.json` contents, as
plain data, so the tests and `benchmarks/bench_hostile.py` include the same corpus."""

from __future__ import annotations

import json

DEEP = 200_000
"""How deep the nested JSON goes: far past any parser's recursion limit."""


def deep_json(depth: int = DEEP) -> str:
    """`[[[...]]]` nested `depth` deep: one line, 2 * depth bytes."""
    return "[" * depth + "]" * depth


RESULT_LINES: dict[str, str] = {
    "nested 200,000 deep": deep_json(),
    "nested object 200,000 deep": '{"a":' * DEEP + "1" + "}" * DEEP,
    "result nested 900 deep": json.dumps(
        {"id": "simple_python_1", "result": json.loads(deep_json(900))}),
    "id of the wrong type": json.dumps({"id": ["simple_python_2"], "result": "[f()]"}),
    "usage of the wrong types": json.dumps(
        {"id": "simple_python_3", "result": "[f()]", "latency": "slow",
         "input_token_count": {"n": 1}, "output_token_count": [2]}),
    "result of the wrong type": json.dumps({"id": "simple_python_4", "result": {"a": [None]}}),
    "not an object": "[1, 2, 3]",
    "torn": '{"id": "simple_python_5", "result": ',
    "latency of 5,000 digits": '{"id": "simple_python_6", "result": "[f()]", "latency": '
                               + "1" * 5000 + "}",
    "integer of 160,001 digits": '{"id": "simple_python_7", "result": "[f()]", "x": '
                                 + "9" * 160_001 + "}",
}
"""Lines a result file may hold besides good ones (each must cost one warning or one
failed case, never the file)."""

MODEL_JSONS: dict[str, str] = {
    "nested 200,000 deep": deep_json(),
    "object nested 200,000 deep": '{"mode":' * DEEP + '"fc"' + "}" * DEEP,
    "mode of the wrong type": json.dumps({"mode": 123}),
    "family of the wrong type": json.dumps({"mode": "prompt", "family": [1]}),
    "fc_names unknown": json.dumps({"mode": "fc", "fc_names": "camel"}),
    "not an object": json.dumps(["fc"]),
    "torn": '{"mode": "fc",\n "fc_args": ',
    "not UTF-8": "\udcff",
}
"""model.json contents that must leave that one model out with one warning."""
