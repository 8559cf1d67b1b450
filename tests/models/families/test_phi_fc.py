"""Phi-4-mini's tool-call reading: the handler's two patterns (kept here as oracles) against
the linear finders that replace them."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.decode.spans import tagged_bodies
from fcbench.models.families import phi_fc

CLOSED = re.compile(r"<\|tool_call\|>(.*?)<\|/tool_call\|>", re.DOTALL)
OPEN = re.compile(r"<\|tool_call\|>(.*?)(?:<\|/tool_call\|>)?$", re.DOTALL)

PHI_TEXT = st.lists(
    st.sampled_from(["<|tool_call|>", "<|/tool_call|>", "[", "]", " ", "\n", "x", "<|"]),
    max_size=12,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(PHI_TEXT)
def test_finders_match_the_handlers_patterns(text: str) -> None:
    assert tagged_bodies(text, "<|tool_call|>", "<|/tool_call|>") == CLOSED.findall(text)
    assert phi_fc.open_body(text) == OPEN.findall(text)


def test_parse_reads_closed_and_open_blocks() -> None:
    closed = phi_fc.parse('<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]<|/tool_call|>')
    assert closed.result == [{"f": {"a": 1}}]
    unclosed = phi_fc.parse('<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]\n')
    assert unclosed.result == [{"f": {"a": 1}}]


def test_repeated_tags_parse_in_linear_time() -> None:
    """`"<|tool_call|>" * 20000`: both patterns rescan the rest of the text from every tag."""
    text = "<|tool_call|>" * 20000
    started = time.perf_counter()
    assert phi_fc.parse(text).result == text
    assert time.perf_counter() - started < 5.0  # the patterns took 122 s
