"""Prompt-mode decoding of JavaScript-style call text, as the official evaluator does it.

The text is prepared as for Java (strip, bracket-wrap, drop the first and last character) and
parsed with tree-sitter JavaScript. Only top-level expression statements are looked at, and the
first whose direct child is a call expression gives the one decoded call. Its `name=value`
assignments become arguments with the value's source text, minus one pair of surrounding
quotes when the text both starts and ends with the same quote character.

Quirks reproduced on purpose:

* the error test is a substring test for `ERROR` on the tree's S-expression (answered
  without printing it, see `_treesitter.reports_error`);
* `f(a=1), g(b=2)` is a sequence expression, not a call, so nothing is found and the official
  returns None (a wrong-format output), as it does for any text without a top-level call;
* quotes are stripped from any value text that starts and ends with them, so `"a" + "b"`
  becomes `a" + "b`;
* a bare identifier or `true` argument (but not `false`) is kept under the key `"None"` (the
  official uses Python's `None`); two of them, or two assignments to one name, fail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fcbench.core.model import Call
from fcbench.decode._treesitter import (
    POSITIONAL_KEY,
    decode_prompt_text,
    parse_bounded,
    reports_error,
)
from fcbench.decode.errors import WRONG_OUTPUT_FORMAT, DecodeError

if TYPE_CHECKING:
    from tree_sitter import Node

_POSITIONAL_NODES = frozenset({"identifier", "true"})


def decode_javascript(text: str, *, tool_call_tag: bool = False) -> list[Call]:
    """Decode one prompt-mode JavaScript answer into at most one call (the first one written).

    Raises DecodeError (decoder_failed) when the grammar reports an error, the call repeats an
    argument or reading fails in any way, and DecodeError (wrong output format, decoded None)
    when there is no top-level call.
    """
    return decode_prompt_text(text, tool_call_tag, _decode_source)


def _decode_source(source: str) -> list[Call]:
    """Parse the unwrapped text and read the first top-level call statement."""
    root = parse_bounded("javascript", source).root_node
    if reports_error(root):
        raise DecodeError("Error js parsing the source code.")
    call = _first_statement_call(root)
    if call is None:
        raise DecodeError("No top-level JavaScript call found.", WRONG_OUTPUT_FORMAT, decoded=None)
    # The official reads the callee and the arguments by position, not by field.
    callee, argument_list = call.children[0], call.children[1]
    return [Call(_text(callee), _arguments(argument_list))]


def _first_statement_call(root: Node) -> Node | None:
    """The first call expression sitting directly in a top-level expression statement."""
    if root.type != "program":
        return None
    for statement in root.children:
        if statement.type != "expression_statement":
            continue
        for expression in statement.children:
            if expression.type == "call_expression":
                return expression
    return None


def _arguments(argument_list: Node) -> dict[str, Any]:
    """Named assignments and at most one positional identifier/`true`; repeats are rejected."""
    args: dict[str, Any] = {}
    named: set[str] = set()
    has_positional = False
    for child in argument_list.children:
        kind = child.type
        if kind == "assignment_expression":
            # The official takes children 0 and 2, whatever sits between them.
            name = _text(child.children[0])
            if name in named:
                raise DecodeError("Error: Multiple arguments with the same name are not supported.")
            named.add(name)
            args[name] = _unquote(_text(child.children[2]))
        elif kind in _POSITIONAL_NODES:
            if has_positional:
                raise DecodeError("Error: Multiple arguments with the same name are not supported.")
            has_positional = True
            args[POSITIONAL_KEY] = _text(child)
    return args


def _unquote(value: str) -> str:
    """Drop one pair of matching outer quotes, whatever lies between them."""
    for quote in ('"', "'"):
        if value.startswith(quote) and value.endswith(quote):
            return value[1:-1]
    return value


def _text(node: Node) -> str:
    """The node's source text (decoded from the UTF-8 bytes, unlike the Java path)."""
    raw: bytes | None = node.text
    return raw.decode("utf-8") if raw is not None else ""
