"""Prompt-mode Java decoding; expected values were checked against the official decoder."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fcbench.core.model import Call
from fcbench.decode._treesitter import prompt_call_body
from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT, DecodeError
from fcbench.decode.java import decode_java


def one(text: str) -> Call:
    calls = decode_java(text)
    assert len(calls) == 1
    return calls[0]


def failure(text: str) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode_java(text)
    return info.value


def test_named_arguments_are_source_text_with_top_level_quotes_removed() -> None:
    assert one('[Foo.bar(a="x", b=1)]') == Call("Foo.bar", {"a": "x", "b": "1"})
    assert one("f(a='c', b=1L, c=2.5f)") == Call("f", {"a": "c", "b": "1L", "c": "2.5f"})


def test_escapes_inside_a_string_literal_are_kept() -> None:
    assert one(r'f(a="say \"hi\"", b=1)').args["a"] == r"say \"hi\""


def test_a_short_lone_call_is_a_grammar_error_but_a_longer_one_is_not() -> None:
    # Without a `;`, tree-sitter either inserts a MISSING `;` (tolerated) or wraps the call in
    # an ERROR node; its recovery costs depend on token lengths, so short calls fail.
    assert failure("[f(a=1)]").error_type == DECODER_FAILED
    assert one("[calculate(number=42)]") == Call("calculate", {"number": "42"})
    assert one("[f(a=1, b=2)]") == Call("f", {"a": "1", "b": "2"})


def test_nested_values_are_rebuilt_without_spaces() -> None:
    args = one('f(a=new String[]{"x", "y"}, b=1 + 2, c=new int[][]{{1, 2}, {3, 4}})').args
    assert args == {"a": 'new String[]{"x","y"}', "b": "1+2", "c": "new int[]{{1,2},{3,4}}"}


def test_anonymous_class_bodies_are_dropped() -> None:
    text = 'f(a=new HashMap<String, Integer>() {{ put("k", 1); }}, b=new Object() { int x; })'
    assert one(text).args == {"a": "new HashMap<String,Integer>()", "b": "new Object()"}


def test_invocations_inside_values_are_copied_verbatim() -> None:
    text = 'f(a=new ArrayList<>(Arrays.asList("a",  "b")), b=g(x=1,  y=2))'
    assert one(text).args == {"a": 'new ArrayList<>(Arrays.asList("a",  "b"))', "b": "g(x=1,  y=2)"}


def test_array_creation_without_initializer_fails() -> None:
    assert failure("f(a=new int[5], b=1)").error_type == DECODER_FAILED


def test_only_the_first_invocation_is_decoded() -> None:
    assert decode_java("f(a=1, b=2); g(c=3, d=4)") == [Call("f", {"a": "1", "b": "2"})]
    assert decode_java("f(a=x, b=y)\nf(a=z, b=w)") == [Call("f", {"a": "x", "b": "y"})]


def test_receiver_text_prefixes_the_method_name() -> None:
    assert one("new Foo().bar(a=1, b=2)").name == "new Foo().bar"


def test_positional_class_literal_goes_under_none_and_literals_are_dropped() -> None:
    assert one("f(Foo.class, b=1)").args == {"None": "Foo.class", "b": "1"}
    assert one("f(a=Foo.class, b=-1)").args == {"a": "Foo.class", "b": "-1"}


def test_repeated_positional_or_named_arguments_fail() -> None:
    assert failure("f(x, y, b=1)").error_type == DECODER_FAILED
    assert failure("f(a=1, a=2)").error_type == DECODER_FAILED


def test_assignment_children_are_read_by_position() -> None:
    # A comment before `=` shifts the value to the `=` token; `+=` is read like `=`.
    assert one("f(a /* c */ = 1, b=2)").args == {"a": "=", "b": "2"}
    assert one("f(a+=1, b=2)").args == {"a": "1", "b": "2"}


def test_node_text_is_cut_with_byte_offsets() -> None:
    assert one('f(a="é", b="xy")').args == {"a": 'é"', "=": 'y"'}


def test_text_without_invocation_is_a_wrong_format_empty_dict() -> None:
    error = failure("int x = 1;")
    assert error.error_type == WRONG_OUTPUT_FORMAT
    assert error.decoded == {}


def test_plain_fence_is_stripped_but_tagged_fence_and_trailing_text_fail() -> None:
    assert one("```\n[f(a=1, b=2)]\n```") == Call("f", {"a": "1", "b": "2"})
    assert failure("```java\n[f(a=1, b=2)]\n```").error_type == DECODER_FAILED
    assert failure("[f(a=1, b=2)] extra").error_type == DECODER_FAILED


def test_prompt_body_drops_whatever_wraps_the_answer() -> None:
    assert prompt_call_body(" f(a=1) \n") == "f(a=1)"
    assert prompt_call_body("[f(a=1)] done") == "f(a=1)] done"
    assert prompt_call_body("x <TOOLCALL>[f(a=1)]</TOOLCALL>", tool_call_tag=True) == "f(a=1)"


def test_tool_call_tag_is_required_when_asked_for() -> None:
    text = "<TOOLCALL>[f(a=1, b=2)]</TOOLCALL>"
    assert decode_java(text, tool_call_tag=True) == [Call("f", {"a": "1", "b": "2"})]
    with pytest.raises(DecodeError):
        decode_java("[f(a=1, b=2)]", tool_call_tag=True)


def test_deep_nesting_is_a_decode_failure_not_a_crash() -> None:
    text = "f(a=" + "(" * 3000 + "1" + ")" * 3000 + ", b=1)"
    assert failure(text).error_type == DECODER_FAILED


def test_importing_the_decoder_does_not_load_tree_sitter() -> None:
    code = "import sys, fcbench.decode.java; print('tree_sitter' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"
