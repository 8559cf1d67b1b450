"""The agentic checker's rules on small hand-made cases (the official comparison on every
real case is tests/conformance/test_agentic_official.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fcbench.check.agentic import (
    ANSWER_NOT_FOUND,
    CHECKER_CRASH,
    INFERENCE_ERROR,
    NO_LAST_MESSAGE,
    answer_message,
    failure_record,
    ground_truth_message,
    judge_agentic,
    standardize,
)
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding

PROMPT = Encoding()
FC = Encoding("fc", "underscore", "json_string")
SEARCH_PROMPT = "[search_engine_query(keywords='tea')]"
SEARCH_FC = [{"search_engine_query": '{"keywords": "tea"}'}]


def case(*answers: Any, category: str = "web_search_base") -> TestCase:
    question = [[{"role": "user", "content": "Who?"}]]
    return TestCase(f"{category}_0", category, question, [], list(answers),
                    {"involved_classes": ["WebSearchAPI"], "num_hops": 2})


def test_standardize_deletes_the_official_punctuation_and_keeps_spaces() -> None:
    assert standardize("A-b_c.d,e/f*g^h(i)j") == "abcdefghij"
    assert standardize("It's  April 1, 2024\n") == 'it"s  april 1 2024\n'


@pytest.mark.parametrize(
    ("message", "valid"),
    [
        ("{'answer': 'Zhang Yiming', 'context': 'Forbes'}", True),
        ("ZHANG-YIMING", False),  # the hyphen is deleted: zhangyiming
        ("zhang yiming", True),
        ("Zhang Yimings", False),  # no word boundary after the answer
        ("Mr Zhang Yiming.", True),
        ("Zhang  Yiming", False),  # spaces are kept, so two spaces differ
    ],
)
def test_answer_found_between_word_boundaries(message: str, valid: bool) -> None:
    assert judge_agentic(case("Zhang Yiming"), [[message]], PROMPT).valid is valid


def test_an_answer_starting_with_a_non_word_character_needs_a_word_character_before() -> None:
    dollars = case("$222 million")
    assert not judge_agentic(dollars, [["{'answer': '$222 million'}"]], PROMPT).valid
    assert judge_agentic(dollars, [["US$222 million"]], PROMPT).valid  # [quirk]


def test_the_last_text_step_is_the_final_message() -> None:
    answer = case("7", "seven")
    assert judge_agentic(answer, [["wrong", SEARCH_PROMPT, "It is seven."]], PROMPT).valid
    late = judge_agentic(answer, [["It is seven.", "no idea"]], PROMPT)
    assert late.error_type == ANSWER_NOT_FOUND
    assert late.extras["last_message"] == "no idea"
    assert judge_agentic(answer, [[SEARCH_FC, "7 games", SEARCH_FC]], FC).valid


def test_an_empty_last_text_step_means_no_final_message() -> None:
    verdict = judge_agentic(case("7"), [["7", SEARCH_PROMPT, ""]], PROMPT)
    assert verdict.error_type == NO_LAST_MESSAGE
    assert verdict.extras["decoded"] == [["search_engine_query(keywords='tea')"]]
    assert judge_agentic(case("7"), [[SEARCH_FC]], FC).error_type == NO_LAST_MESSAGE


@pytest.mark.parametrize("raw", [[], [["7"], ["7"]], "7", None, {"a": 1}])
def test_not_one_turn_is_an_inference_error(raw: Any) -> None:
    verdict = judge_agentic(case("7"), raw, PROMPT)
    assert verdict.error_type == INFERENCE_ERROR
    assert verdict.extras["error"]["error_message"] == [
        "Error during inference phase. Model did not output a list of model responses."
    ]


def test_lists_and_non_strings_as_messages() -> None:
    assert judge_agentic(case("7"), [[["7 wins", "other"]]], PROMPT).valid
    assert not judge_agentic(case("7"), [[["other", "7 wins"]]], PROMPT).valid
    assert judge_agentic(case("7"), [[7]], PROMPT).valid  # str(7)
    assert judge_agentic(case("true"), [[True]], PROMPT).valid  # "True", lowercased


def test_malformed_turns_and_answers_are_recorded_crashes() -> None:
    assert judge_agentic(case("7"), [5], PROMPT).error_type == CHECKER_CRASH
    assert judge_agentic(case(7), [["7"]], PROMPT).error_type == CHECKER_CRASH
    # a string turn: its characters are the steps, the last one ("x") the final message
    assert judge_agentic(case("7"), ["7x"], PROMPT).error_type == ANSWER_NOT_FOUND
    assert judge_agentic(case("7"), ["x7"], PROMPT).valid


def test_failure_records_have_the_official_shapes() -> None:
    one = case("Zhang Yiming")
    prompt = {"id": one.id, "question": [[{"role": "system", "content": "fmt"}]]}
    raw = [[SEARCH_PROMPT, "nobody"]]
    record = failure_record("m", one, raw, judge_agentic(one, raw, PROMPT), prompt, [1])
    assert list(record) == ["id", "model_name", "test_category", "valid", "error", "prompt",
                            "model_result_raw", "last_non_fc_message", "possible_answer",
                            "inference_log"]
    assert record["prompt"] == prompt["question"]
    assert list(record["error"]) == ["error_message", "error_type", "details"]
    assert record["last_non_fc_message"] == "nobody"

    empty = [[SEARCH_PROMPT]]
    record = failure_record("m", one, empty, judge_agentic(one, empty, PROMPT), prompt)
    assert list(record) == ["id", "model_name", "test_category", "valid", "error", "prompt",
                            "model_result", "model_result_decoded", "possible_answer",
                            "inference_log"]
    assert record["prompt"] == prompt and record["inference_log"] == ""

    record = failure_record("m", one, [], judge_agentic(one, [], PROMPT), prompt)
    assert "model_result_decoded" not in record and record["model_result"] == []


def test_ground_truth_message_skips_answers_the_checker_cannot_match() -> None:
    assert ground_truth_message(case("$222 million", "222 million")) == answer_message(
        "222 million", "From the benchmark's ground truth."
    )
    assert ground_truth_message(case("Paris", "paris")) == answer_message(
        "Paris", "From the benchmark's ground truth."
    )


def test_ground_truth_messages_pass_every_real_case(fetched_home: Path) -> None:
    """The ground-truth model's answer passes every agentic case in both modes, and only
    web_search_51 (both categories) needs an answer other than the first."""
    from fcbench.core import categories
    from fcbench.dataset.load import load_category

    not_first = []
    for name in categories.AGENTIC:
        for real in load_category(name):
            message = ground_truth_message(real)
            for encoding in (PROMPT, FC, Encoding("fc", "underscore", "object")):
                assert judge_agentic(real, [[SEARCH_PROMPT, message]], encoding).valid, real.id
            if message != ground_truth_message(case(real.possible_answer[0])):
                not_first.append(real.id)
    assert not_first == ["web_search_base_51", "web_search_no_snippet_51"]
