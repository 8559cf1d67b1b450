"""Relevance and irrelevance, both ways, in both modes (spec §3.9): an irrelevance case passes
exactly when the output holds no call, a relevance case exactly when it holds one; the error
types are the official ones. The conformance corpus stays as the second net.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.check.single_turn import judge
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding

PROMPT = Encoding("prompt")
FC = Encoding("fc", "underscore", "json_string")

CASE = TestCase("irrelevance_0", "irrelevance", [[{"role": "user", "content": "?"}]],
                [{"name": "get_weather", "description": "Weather.",
                  "parameters": {"type": "dict", "properties": {}, "required": []}}], [])

WITH_CALL: list[tuple[Encoding, Any]] = [
    (PROMPT, "[get_weather(city='Paris')]"),
    (PROMPT, "[a(), b(x=1)]"),
    (FC, [{"get_weather": json.dumps({"city": "Paris"})}]),
]
WITHOUT_CALL: list[tuple[Encoding, Any]] = [
    (PROMPT, "I cannot answer that with these tools."),
    (PROMPT, "[]"),
    (PROMPT, ""),
    (PROMPT, "[get_weather(city='Paris'"),  # does not decode
    (FC, []),
    (FC, "There is no tool for this."),
]

IRRELEVANCE = ["irrelevance", "live_irrelevance"]
RELEVANCE = ["live_relevance"]


@pytest.mark.parametrize("category", IRRELEVANCE)
@pytest.mark.parametrize(("encoding", "raw"), WITHOUT_CALL)
def test_irrelevance_passes_without_a_call(category: str, encoding: Encoding, raw: Any) -> None:
    verdict = judge(CASE, categories.get(category), raw, encoding)
    assert verdict.valid, verdict.errors


@pytest.mark.parametrize("category", IRRELEVANCE)
@pytest.mark.parametrize(("encoding", "raw"), WITH_CALL)
def test_irrelevance_fails_with_a_call(category: str, encoding: Encoding, raw: Any) -> None:
    verdict = judge(CASE, categories.get(category), raw, encoding)
    assert (verdict.valid, verdict.error_type) == (False, "irrelevance_error:decoder_success")
    assert verdict.extras["decoded"]


@pytest.mark.parametrize("category", RELEVANCE)
@pytest.mark.parametrize(("encoding", "raw"), WITH_CALL)
def test_relevance_passes_with_any_call(category: str, encoding: Encoding, raw: Any) -> None:
    """Relevance asks for some call, right or wrong: the checker never looks at which."""
    verdict = judge(CASE, categories.get(category), raw, encoding)
    assert verdict.valid, verdict.errors


@pytest.mark.parametrize("category", RELEVANCE)
@pytest.mark.parametrize(("encoding", "raw"), WITHOUT_CALL)
def test_relevance_fails_without_a_call(category: str, encoding: Encoding, raw: Any) -> None:
    verdict = judge(CASE, categories.get(category), raw, encoding)
    assert (verdict.valid, verdict.error_type) == (False, "relevance_error:decoder_failed")
    assert verdict.errors[0].startswith("Invalid syntax. Failed to decode AST when it should")
