"""Prompt-mode decoding of Java-style call text, as the official evaluator does it.

The official pipeline treats the model's text like this before it reaches the Java grammar:
strip backticks, newlines and spaces from both ends, make sure the text starts with `[` and
ends with `]`, then drop the first and the last character (assumed to be those brackets) and
parse the rest with tree-sitter Java. From the tree it keeps only the first method invocation
met in a depth-first walk and reads its `name=value` assignments; values stay Java source text.

Quirks reproduced on purpose (they decide verdicts):

* the error test is a substring test for `ERROR` on the tree's S-expression (answered
  without printing it, see `_treesitter.reports_error`), so a missing token (the `;` after
  the call) is tolerated; but tree-sitter's recovery depends on token lengths, and for some
  short calls (`f(a=1)`, `f(x, b=1)`) it builds an ERROR node instead, so those fail to decode;
* node text is cut from the *str* with *byte* offsets, so non-ASCII text before a node shifts
  what is read;
* nested values are rebuilt token by token with no spaces (`new int[]{1,2}`), anonymous class
  bodies are dropped (`new HashMap<>() {{ put(..); }}` becomes `new HashMap<>()`), and only
  top-level string/char literals lose their quotes;
* a bare identifier or class literal among the arguments is kept under the key `"None"`
  (the official uses Python's `None`); two of them, or two assignments to one name, fail;
* no invocation at all yields the official's empty dict, i.e. a wrong-format output.
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

_PUNCTUATION_IN_ARGUMENTS = frozenset({",", "(", ")"})
_VERBATIM_NODES = frozenset({"identifier", "class_literal", "type_identifier", "method_invocation"})
_QUOTED_LITERALS = frozenset({"string_literal", "character_literal"})
_POSITIONAL_NODES = frozenset({"identifier", "class_literal"})


def decode_java(text: str, *, tool_call_tag: bool = False) -> list[Call]:
    """Decode one prompt-mode Java answer into at most one call (the first one written).

    Raises DecodeError (decoder_failed) when the grammar reports an error, the call repeats an
    argument or reading fails in any way (the official counts every exception as a decode
    failure), and DecodeError (wrong output format, decoded `{}`) when there is no call.
    """
    return decode_prompt_text(text, tool_call_tag, _decode_source)


def _decode_source(source: str) -> list[Call]:
    """Parse the unwrapped text and read its first invocation."""
    root = parse_bounded("java", source).root_node
    if reports_error(root):
        raise DecodeError("Error parsing java the source code.")
    found = _first_invocation(root)
    if found is None:
        raise DecodeError("No Java method invocation found.", WRONG_OUTPUT_FORMAT, decoded={})
    invocation, arguments = found
    reader = _SourceReader(source)
    return [Call(reader.call_name(invocation), reader.arguments(arguments))]


def _first_invocation(node: Node) -> tuple[Node, Node] | None:
    """Depth-first, pre-order search for the first method invocation that has an argument list.

    Returns the invocation with its argument list. An invocation without arguments is neither
    returned nor descended into. Recursive, one frame per tree level: how deep a tree may be
    before the walk fails (a decode failure, as upstream) depends on it.
    """
    if node.type == "method_invocation":
        arguments = node.child_by_field_name("arguments")
        return (node, arguments) if arguments is not None else None
    for child in node.children:
        found = _first_invocation(child)
        if found is not None:
            return found
    return None


class _SourceReader:
    """Reads node text the official way: the str sliced with byte offsets."""

    def __init__(self, source: str) -> None:
        self.source = source

    def text(self, node: Node) -> str:
        """The node's text; wrong for non-ASCII input on purpose (the official does the same)."""
        return self.source[node.start_byte : node.end_byte]

    def call_name(self, invocation: Node) -> str:
        """`object.method` when the invocation has a receiver, else just `method`."""
        name_node = invocation.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        receiver = invocation.child_by_field_name("object")
        return f"{self.text(receiver)}.{name}" if receiver is not None else name

    def arguments(self, argument_list: Node) -> dict[str, Any]:
        """Named assignments and at most one positional identifier; repeats are rejected."""
        args: dict[str, Any] = {}
        named: set[str] = set()
        has_positional = False
        for child in argument_list.children:
            kind = child.type
            if kind == "assignment_expression":
                # The official takes children 0 and 2, whatever sits between them.
                name = self.text(child.children[0])
                if name in named:
                    raise DecodeError(
                        "Error: Multiple arguments with the same name are not supported."
                    )
                named.add(name)
                args[name] = self.value(child.children[2], nested=False)
            elif kind in _POSITIONAL_NODES:
                if has_positional:
                    raise DecodeError(
                        "Error: Multiple arguments with the same name are not supported."
                    )
                has_positional = True
                args[POSITIONAL_KEY] = self.value(child, nested=False)
        return args

    def value(self, node: Node | None, nested: bool) -> str:
        """Rebuild a value's source text; only a top-level string or char literal is unquoted."""
        if node is None:
            # The official dereferences the missing field and crashes (e.g. `new int[5]`).
            raise DecodeError("Java value node is missing.")
        kind = node.type
        if kind in _QUOTED_LITERALS:
            literal = self.text(node)
            return literal if nested else literal[1:-1]
        if kind in _VERBATIM_NODES:
            return self.text(node)
        if kind == "array_creation_expression":
            element_type = self.value(node.child_by_field_name("type"), nested=True)
            initializer = self.value(node.child_by_field_name("value"), nested=True)
            return f"new {element_type}[]{initializer}"
        if kind == "object_creation_expression":
            return self.object_creation(node)
        if node.child_count > 0:
            return "".join(self.value(child, nested=True) for child in node.children)
        return self.text(node)

    def object_creation(self, node: Node) -> str:
        """`new T(args)` with args re-joined by `, `; any anonymous class body is dropped."""
        created_type = self.value(node.child_by_field_name("type"), nested=True)
        argument_list = node.child_by_field_name("arguments")
        if argument_list is None:
            return f"new {created_type}()"
        parts = [
            self.value(child, nested=True)
            for child in argument_list.children
            if child.type not in _PUNCTUATION_IN_ARGUMENTS
        ]
        return f"new {created_type}({', '.join(parts)})"
