"""Hostile model answers: each must end fast, small, and as a recorded failure.

Each entry names an answer (built when used: some are 10 MB) and the decoder that reads it:
`python`, `json`, `verbose_xml`, `concise_xml`, `toolcall` (Python inside `<TOOLCALL>`),
`java`, `javascript`, `fc` (JSON-string FC arguments), `execute` (multi-turn's prompt-mode
decoding), or `family:NAME` (an open-model family's decoder; `execute:NAME` for its
`decode_execute`); outside decoding, `java_value:TYPE` / `javascript_value:TYPE` (the AST
checker's value conversion), `parse:NAME` (a family's generation-time `parse`), `hermes`
(the model layer's `<tool_call>` parser) and `exec_ground_truth` (the exec ground truth's
call reader). Add an input by adding a line to `HOSTILE`; `tests/decode/test_hostile.py` and
`benchmarks/bench_hostile.py` pick it up.

Run as a script (`python tests/hostile/decoding.py NAME`), it decodes one entry and prints
what happened as one JSON line; the test and the benchmark do that in a fresh process per
entry so that each one's time and peak memory are its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Hostile:
    name: str
    route: str
    build: Callable[[], Any]
    refused: bool = True
    """Decoding fails (the rest decode to something the checker then fails: no call, or a
    call whose value is nested text)."""


def _json_bomb(n: int) -> str:
    return "[" + ",".join(["{}"] * n) + " x]"


HOSTILE: list[Hostile] = [
    Hostile("nested_repeat", "python",
            lambda: "[calculate_triangle_area(base=[[[0]*1000]*1000]*1000, height=5)]"),
    Hostile("concat_repeat", "python",
            lambda: "[f(a=" + " + ".join(["[0]*1000000"] * 100) + ")]"),
    Hostile("many_small_repeats", "python",
            lambda: "[f(" + ", ".join(f"a{i}=[0]*900000" for i in range(100)) + ")]"),
    Hostile("string_repeat", "python", lambda: "[f(a='x'*1000000*1000)]"),
    Hostile("string_concat", "python", lambda: "[f(a=" + "+".join(["'y'*1000000"] * 50) + ")]"),
    Hostile("plus_chain_quadratic", "python",
            lambda: "[f(a=" + "+".join(["[0]"] * 30000) + ")]"),
    Hostile("huge_exponent", "python", lambda: "[f(a=10**10**10)]"),
    Hostile("exponent_tower", "python", lambda: "[f(a=2**2**2**2**2**2)]"),
    Hostile("huge_shift", "python", lambda: "[f(a=1<<10**9)]"),
    Hostile("int_product_chain", "python",
            lambda: "[f(a=" + "*".join(["(10**3000)"] * 200) + ")]"),
    Hostile("exponential_tree", "python", lambda: "[f(a=" + "[" * 40 + "0" + "]*2" * 40 + ")]"),
    Hostile("dict_repeat", "python", lambda: "[f(a=[{'k': 'v'*100000}]*1000)]"),
    Hostile("deep_brackets", "python", lambda: "[f(a=" + "[" * 60000 + "]" * 60000 + ")]"),
    Hostile("deep_unary", "python", lambda: "[f(a=" + "-" * 100000 + "1)]"),
    Hostile("long_plus_chain", "python", lambda: "[f(a=" + "+".join(["1"] * 60000) + ")]"),
    Hostile("string_10mb", "python", lambda: "[f(a='" + "x" * 10_000_000 + "')]"),
    Hostile("dense_1mb", "python", lambda: "[f(a=[" + "0," * 500_000 + "])]"),
    Hostile("dense_under_budget", "python",
            lambda: "[f(a=[" + "0," * 65_000 + "])]", refused=False),
    Hostile("arithmetic_under_budget", "python",
            lambda: "[f(a=[" + "1+1," * 32_000 + "])]", refused=False),
    Hostile("calls_under_budget", "python", lambda: "[" + "f(a=1)," * 18_000 + "]",
            refused=False),
    Hostile("json_bomb_28", "json", lambda: _json_bomb(28), refused=False),
    Hostile("json_bomb_5000", "json", lambda: _json_bomb(5000), refused=False),
    Hostile("open_brackets", "json", lambda: "[" * 120_000),
    Hostile("functions_tags_verbose", "verbose_xml", lambda: "<functions>" * 11000),
    Hostile("functions_tags_concise", "concise_xml", lambda: "<functions>" * 11000),
    Hostile("xml_array_repeat", "verbose_xml",
            lambda: '<functions><function name="f"><params><param name="a" type="array" '
                    'value="[[[0]*1000]*1000]*1000"/></params></function></functions>'),
    Hostile("toolcall_tags", "toolcall", lambda: "<TOOLCALL>" * 12000),
    Hostile("java_toolcall_tags", "java_toolcall", lambda: "<TOOLCALL>" * 12000),
    Hostile("java_deep", "java", lambda: "f(a=" + "(" * 50000 + "1" + ")" * 50000 + ")"),
    # tree-sitter's own timeout is not checked in this recovery: it grew past 24 GB
    Hostile("java_path_calls", "java", lambda: "/a/b/c.d(" * 14_555),
    Hostile("javascript_deep", "javascript",
            lambda: "f(a=" + "[" * 50000 + "]" * 50000 + ")", refused=False),
    Hostile("fc_deep_json", "fc",
            lambda: [{"f": '{"a": ' + "[" * 60000 + "]" * 60000 + "}"}]),
    Hostile("fc_10mb_arguments", "fc", lambda: [{"f": '{"a": "' + "x" * 10_000_000 + '"}'}]),
    Hostile("execute_nested_repeat", "execute",
            lambda: "[f(a=[[[0]*1000]*1000]*1000)]"),
    Hostile("execute_concat_repeat", "execute",
            lambda: "[f(a=" + " + ".join(["[0]*1000000"] * 100) + ")]"),
    Hostile("execute_json_10mb", "execute", lambda: "[" + '{"a": 1},' * 1_200_000 + "]"),
    Hostile("llama_literal_repeat", "family:llama-3.1", lambda: "[[[0]*1000]*1000]*1000"),
    Hostile("llama_execute_repeat", "execute:llama-3.1",
            lambda: '{"name": "f", "parameters": {"a": [[0]*1000]*1000}}' + "*1000"),
    Hostile("minicpm_repeat", "family:minicpm-fc",
            lambda: "<|tool_call_start|>```python\nf(a=[[[0]*1000]*1000]*1000)\n```"
                    "<|tool_call_end|>"),
    Hostile("qwen_open_tags", "family:qwen-fc", lambda: "<tool_call>\n" * 10000, refused=False),
    Hostile("functiongemma_open_tags", "family:functiongemma",
            lambda: "<start_function_call>" * 6000, refused=False),
    Hostile("functiongemma_deep", "family:functiongemma",
            lambda: "<start_function_call>call:f{" + "{" * 120_000 + "<end_function_call>",
            refused=False),
    Hostile("java_arraylist_adds", "java_value:ArrayList",
            lambda: "new ArrayList<>() {{" * 10_000, refused=False),
    Hostile("java_add_calls", "java_value:ArrayList",
            lambda: "new ArrayList<>() {{ " + "add(" * 30_000 + "}}", refused=False),
    Hostile("java_array_open", "java_value:Array", lambda: "new int[]{" * 12_000, refused=False),
    Hostile("java_hashmap_puts", "java_value:HashMap",
            lambda: "new HashMap<>() {{ " + 'put("a", ' * 12_000 + "}}", refused=False),
    Hostile("java_hashmap_open", "java_value:HashMap",
            lambda: "new HashMap<" * 10_000, refused=False),
    Hostile("java_as_list_open", "java_value:ArrayList",
            lambda: "new ArrayList<>(Arrays.asList(" * 4_000, refused=False),
    Hostile("javascript_object_no_colon", "javascript_value:dict",
            lambda: "{" + "a" * 120_000 + "}", refused=False),
    Hostile("javascript_object_commas", "javascript_value:dict",
            lambda: "{" + ",a" * 60_000 + "}", refused=False),
    Hostile("phi_open_tags", "parse:phi-fc", lambda: "<|tool_call|>" * 10_000, refused=False),
    Hostile("hermes_long_spaces", "hermes", lambda: "<tool_call>x" + " " * 120_000 + "y",
            refused=False),
    Hostile("exec_ground_truth_repeat", "exec_ground_truth",
            lambda: "f(x=[[[0]*1000]*1000]*1000)", refused=False),
    Hostile("power_4400_digits", "python",
            lambda: "[calculate_triangle_area(base=10**4400, height=5)]", refused=False),
    Hostile("hex_3700_digits", "python",
            lambda: "[math.factorial(number=0x" + "f" * 3700 + ")]", refused=False),
    Hostile("decimal_5000_digits", "python", lambda: "[f(a=" + "9" * 5000 + ")]"),
    Hostile("json_decimal_5000_digits", "json",
            lambda: '[{"name": "f", "arguments": {"a": ' + "9" * 5000 + "}}]"),
]

NORMAL = Hostile("normal", "python", lambda: "[calculate_triangle_area(base=10, height=5)]")
"""The baseline: a normal answer decoded the same way, in the same kind of process."""

BY_NAME = {entry.name: entry for entry in [*HOSTILE, NORMAL]}


def decode(route: str, raw: Any) -> Any:
    """Decode `raw` the way `route` says; returns the decoded calls (raises DecodeError)."""
    from fcbench.core.categories import Language
    from fcbench.decode.encoding import Encoding, decode_ast
    from fcbench.decode.execute import decode_execute
    from fcbench.decode.python_calls import ReturnFormat

    kind, _, family = route.partition(":")
    if kind in ("java_value", "javascript_value", "hermes", "exec_ground_truth", "parse"):
        return _model_layer_or_checker(kind, family, raw)
    if kind == "family":
        return decode_ast(raw, Encoding(family=family))
    if kind == "execute":
        return decode_execute(raw, Encoding(family=family or None))
    if kind == "fc":
        return decode_ast(raw, Encoding("fc", "underscore", "json_string"))
    if kind in ("java", "javascript", "java_toolcall"):
        language = Language.JAVASCRIPT if kind == "javascript" else Language.JAVA
        return decode_ast(raw, Encoding(tool_call_tag=kind == "java_toolcall"), language)
    if kind == "toolcall":
        return decode_ast(raw, Encoding(tool_call_tag=True))
    return decode_ast(raw, Encoding(return_format=ReturnFormat(kind)))


def _model_layer_or_checker(kind: str, value_type: str, raw: str) -> list[Any]:
    """Readers of model text outside decoding: the checker's value conversion (one "call":
    the converted value), the model layer's parsers, the exec ground truth's reader."""
    if kind == "parse":
        from fcbench.models import families

        result = families.get(value_type).parse(raw).result
        return result if isinstance(result, list) else []
    if kind == "hermes":
        from fcbench.decode.tool_call_formats import parse_hermes

        return parse_hermes(raw) or []
    if kind == "exec_ground_truth":
        from fcbench.ground_truth.executable import GroundTruthCallError, read_call

        try:
            return [read_call(raw, [])]
        except GroundTruthCallError as exc:
            return [str(exc)]
    if kind == "java_value":
        from fcbench.check.ast.java_types import convert_java_value as convert
    else:
        from fcbench.check.ast.js_types import convert_js_value as convert
    return [convert(raw, value_type, "integer" if value_type != "dict" else None)]


def outcome(entry: Hostile) -> dict[str, Any]:
    """What decoding `entry` gave: the failure recorded for it, or how many calls."""
    from fcbench.decode.errors import DecodeError

    raw = entry.build()
    started = time.perf_counter()
    try:
        calls = decode(entry.route, raw)
    except DecodeError as exc:
        result: dict[str, Any] = {"failure": exc.error_type, "reason": str(exc)[:200]}
    else:
        result = {"calls": len(calls)}
    result["seconds"] = time.perf_counter() - started
    return result


@dataclass(frozen=True)
class Measured:
    """One entry decoded in a process of its own."""

    outcome: dict[str, Any]
    seconds: float
    """Wall time of the whole process (start-up and imports included)."""
    peak_mb: float
    """The process's peak resident memory (`ru_maxrss` of the waited child)."""


def measure(name: str, timeout: float = 60.0) -> Measured:
    """Decode entry `name` in a fresh interpreter with this one's path; its time and its
    peak memory, as `getrusage` reports it for that child alone (`os.wait4`)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        pid = subprocess.Popen([sys.executable, __file__, name], stdout=out, stderr=err,
                               env=env).pid
        status, usage = _wait(pid, started + timeout)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        printed, complaint = out.read().decode(), err.read().decode(errors="replace")
    if usage is None:
        return Measured({"timeout": timeout}, seconds, 0.0)
    peak_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    if status != 0:
        return Measured({"crash": complaint[-300:]}, seconds, peak_mb)
    return Measured(json.loads(printed), seconds, peak_mb)


def _wait(pid: int, deadline: float) -> tuple[int, Any]:
    """(exit status, resource usage) of child `pid`; killed, (-9, None) past the deadline."""
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), usage
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            return -9, None
        time.sleep(0.01)


if __name__ == "__main__":
    print(json.dumps(outcome(BY_NAME[sys.argv[1]])))
