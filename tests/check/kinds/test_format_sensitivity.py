"""The format-sensitivity kind on hand-made cases: each answer decoded in its case's format,
routed by the original id, the per-configuration header; the official agreement on the real
cases is measured in tests/conformance/test_format_sensitivity_official.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.check import registry
from fcbench.check.kinds.format_sensitivity import (
    FORMAT_SENSITIVITY,
    NOT_FORMAT_SENSITIVITY,
    checker_for,
)
from fcbench.check.registry import JudgeSettings
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.format_sensitivity import CONFIGS, PromptConfig, case_id
from fcbench.decode.encoding import Encoding

CATEGORY = categories.get("format_sensitivity")
DOCS = [{"name": "area", "parameters": {"type": "dict", "properties": {
    "w": {"type": "integer"}, "unit": {"type": "string"}}, "required": ["w"]}}]
TRUTH = [{"area": {"w": [2], "unit": ["m", ""]}}, {"area": {"w": [3], "unit": [""]}}]
JSON_TAG = PromptConfig("json", True, "xml")
CONCISE = PromptConfig("concise_xml", False, "python")


def fs_case(config: PromptConfig, original: str, truth: Any = TRUTH) -> TestCase:
    return TestCase(case_id(0, config, original), "format_sensitivity", [[]], DOCS, truth)


def judge(case: TestCase, raw: Any, encoding: Encoding | None = None) -> tuple[bool, str | None]:
    session = FORMAT_SENSITIVITY.session(CATEGORY, JudgeSettings("2026.3.23"))
    try:
        verdict = session.judge(case, raw, encoding or Encoding(), "m")
    finally:
        session.close()
    return verdict.valid, verdict.error_type


TWO_CALLS_JSON = ('<TOOLCALL>[{"function": "area", "parameters": {"w": 3}}, '
                  '{"function": "area", "parameters": {"w": 2, "unit": "m"}}]</TOOLCALL>')


def test_the_row_names_the_kind() -> None:
    assert CATEGORY.checker == "format_sensitivity"
    assert registry.get(CATEGORY.checker) is FORMAT_SENSITIVITY


@pytest.mark.parametrize("original, checker", [
    ("simple_python_3", "ast_simple"), ("live_simple_1-1-0", "ast_simple"),
    ("multiple_7", "ast_multiple"), ("live_multiple_9-3-1", "ast_multiple"),
    ("parallel_2", "ast_parallel"), ("parallel_multiple_4", "ast_parallel"),
    ("live_parallel_0-0-0", "ast_parallel"), ("live_parallel_multiple_1-1-0", "ast_parallel"),
])
def test_routing_by_the_original_id(original: str, checker: str) -> None:
    assert checker_for(original) == checker


def test_an_answer_is_decoded_in_its_cases_format() -> None:
    parallel = fs_case(JSON_TAG, "parallel_5")
    assert judge(parallel, TWO_CALLS_JSON) == (True, None)  # any order: the parallel checker
    untagged = TWO_CALLS_JSON.removeprefix("<TOOLCALL>").removesuffix("</TOOLCALL>")
    assert judge(parallel, untagged) == (False, "ast_decoder:decoder_failed")
    python = "<TOOLCALL>[area(w=3), area(w=2, unit='m')]</TOOLCALL>"
    # unreadable JSON decodes to no call at all (official rule), so the count is wrong
    assert judge(parallel, python) == (False, "parallel_function_checker_no_order:wrong_count")
    concise = fs_case(CONCISE, "simple_python_1", TRUTH[:1])
    xml = ('<functions><function name="area"><param name="w" type="integer">2</param>'
           "</function></functions>")
    assert judge(concise, xml) == (True, None)
    assert judge(concise, xml.replace("integer", "string")) == (False, "type_error:simple")
    assert judge(concise, "[area(w=2)]") == (False, "ast_decoder:decoder_failed")


def test_the_original_id_picks_the_checker() -> None:
    """The same two calls: the parallel checker takes them, the simple one counts them."""
    assert judge(fs_case(JSON_TAG, "simple_python_5"), TWO_CALLS_JSON) == (
        False, "simple_function_checker:wrong_count")
    assert judge(fs_case(JSON_TAG, "multiple_5", TRUTH[:1]), TWO_CALLS_JSON) == (
        False, "multiple_function_checker:wrong_count")


def test_fc_results_and_odd_ids() -> None:
    fc = Encoding("fc", "underscore", "json_string")
    assert judge(fs_case(CONCISE, "simple_python_1", TRUTH[:1]),
                 [{"area": json.dumps({"w": 2})}], fc) == (True, None)
    odd = TestCase("format_sensitivity_0", "format_sensitivity", [[]], DOCS, TRUTH)
    assert judge(odd, "[area(w=2)]") == (False, NOT_FORMAT_SENSITIVITY)


def test_the_header_statistics_per_configuration() -> None:
    session = FORMAT_SENSITIVITY.session(CATEGORY, JudgeSettings("2026.3.23"))
    judged = []
    for k, (config, passed) in enumerate([(CONFIGS[3], True), (CONFIGS[0], False),
                                          (CONFIGS[3], False), (CONFIGS[0], False)]):
        case = TestCase(case_id(k, config, "simple_python_0"), "format_sensitivity", [[]],
                        DOCS, TRUTH[:1])
        verdict = session.judge(case, "[area(w=2)]" if passed else "nope", Encoding(), "m")
        judged.append((case, verdict))
    fields = session.header_fields(Path("unused_result.json"), judged)
    session.close()
    assert list(fields) == ["accuracy_max_delta", "accuracy_variance", "accuracy_std",
                            str(CONFIGS[3]), str(CONFIGS[0])]
    assert fields[str(CONFIGS[3])] == {"accuracy": 0.5, "correct_count": 1, "total_count": 2}
    assert fields[str(CONFIGS[0])] == {"accuracy": 0.0, "correct_count": 0, "total_count": 2}
    assert (fields["accuracy_max_delta"], fields["accuracy_std"]) == (50.0, 35.36)


def test_scored_through_evaluate(fetched_home: Path, tmp_path: Path) -> None:
    """A partial result file: the cases present are judged, the header counts them."""
    import fcbench
    from fcbench.dataset.load import load_category
    from fcbench.ground_truth.backend import answer

    cases = load_category("format_sensitivity")[:52]  # two items, every configuration
    folder = tmp_path / "result" / "gt" / "format_sensitivity"
    folder.mkdir(parents=True)
    (tmp_path / "result" / "gt" / "model.json").write_text('{"mode": "prompt"}')
    rows = [{"id": c.id, "result": answer(c, "prompt") if i % 3 else "no"}
            for i, c in enumerate(cases)]
    (folder / "BFCL_v4_format_sensitivity_result.json").write_text(
        "".join(json.dumps(r) + "\n" for r in rows))
    report = fcbench.evaluate(tmp_path / "result", score_dir=tmp_path / "score", workers=1)
    scored = report.models["gt"].categories["format_sensitivity"]
    assert (scored.correct, scored.total) == (34, 52)
    score_file = tmp_path / "score/gt/format_sensitivity/BFCL_v4_format_sensitivity_score.json"
    header = json.loads(score_file.read_text().splitlines()[0])
    assert (header["correct_count"], header["total_count"]) == (34, 52)
    assert sum(header[str(c)]["total_count"] for c in CONFIGS) == 52
    assert sum(header[str(c)]["correct_count"] for c in CONFIGS) == 34
