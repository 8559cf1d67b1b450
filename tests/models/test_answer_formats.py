"""Calls written in each return format decode back to the same values (fcbench's decoder,
which the conformance tests hold to the official one), and what a format cannot say."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.dataset.format_sensitivity import PromptConfig
from fcbench.decode.errors import DecodeError
from fcbench.decode.python_calls import ReturnFormat, decode_prompt
from fcbench.models.answer_formats import in_format

VALUES: dict[str, Any] = {
    "text": 'He said "<hi> & bye"',
    "lines": "a\nb\tc\r\nd",
    "n": -3, "big": 10**20, "x": 2.5, "tiny": 1e-7, "flag": True, "off": False, "none": None,
    "xs": [1, "two", 3.0, [4]], "pair": (1, 2), "d": {"k": [1, 2], "v": {"deep": "yes"}},
    "empty": "", "unicode": "café ☕",
}


def decoded(calls: list[tuple[str, dict[str, Any]]], fmt: str, tag: bool) -> Any:
    text = in_format(calls, PromptConfig(fmt, tag), python_text="[unused()]")
    return [(c.name, c.args) for c in decode_prompt(text, ReturnFormat(fmt), tag)]


@pytest.mark.parametrize("fmt", ["json", "verbose_xml", "concise_xml"])
@pytest.mark.parametrize("tag", [True, False])
def test_values_survive_the_round_trip(fmt: str, tag: bool) -> None:
    calls = [("math.area", dict(VALUES)), ("g", {}), ("math.area", {"n": 1})]
    want = [(name, dict(args)) for name, args in calls]
    if fmt == "json":  # JSON has no tuples
        want[0][1]["pair"] = [1, 2]
    if fmt == "concise_xml":  # the decoder strips an element's text
        want[0][1]["lines"] = want[0][1]["lines"].strip()
    assert decoded(calls, fmt, tag) == want


def test_the_python_text_is_given_and_tagged() -> None:
    tagged = in_format([], PromptConfig("python", True), "[f(a=1)]")
    assert tagged == "<TOOLCALL>[f(a=1)]</TOOLCALL>"
    assert in_format([], PromptConfig("python", False), "[f(a=1)]") == "[f(a=1)]"


def test_what_the_formats_cannot_say() -> None:
    """Concise XML loses surrounding whitespace; a list of objects inside the JSON parameters
    ends the official call-list pattern early, so the JSON decodes to no call."""
    padded = [("f", {"s": "  padded "})]
    assert decoded(padded, "concise_xml", False) == [("f", {"s": "padded"})]
    rows = [("f", {"rows": [{"a": 1}, {"b": 2}]})]
    assert decoded(rows, "json", False) == []
    assert decoded(rows, "verbose_xml", False) == rows


def test_a_tagged_answer_needs_its_tag_read() -> None:
    text = in_format([("f", {"a": 1})], PromptConfig("verbose_xml", True), "")
    assert text.startswith("<TOOLCALL><functions>") and text.endswith("</functions></TOOLCALL>")
    with pytest.raises(DecodeError, match="No tool call tag"):
        decode_prompt(text.removeprefix("<TOOLCALL>"), ReturnFormat.VERBOSE_XML, True)
