"""The tree-sitter error test searches the tree but must answer like the official's printed test.

The official looks for `ERROR` in the whole tree's S-expression; `reports_error` only walks the
subtrees tree-sitter marks with `has_error`. These tests pin the equivalence, including the
cases where the printed form and the node type disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.decode._treesitter import _sexp, parser, reports_error

if TYPE_CHECKING:
    from tree_sitter import Node

LANGUAGES = ("java", "javascript")


def printed_test(root: Node) -> bool:
    """The official's test, verbatim: `ERROR` in the S-expression of the whole tree."""
    return "ERROR" in _sexp(root)


def root_of(language: str, source: str) -> Node:
    return parser(language).parse(source.encode("utf-8")).root_node


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        ("java", "calculate(number=42)", False),  # a MISSING `;` only: tolerated
        ("java", "f(a=1, b=2);", False),  # no error at all
        ("java", "f(a=1)", True),  # the short call wrapped in an ERROR node
        ("java", "@", True),  # an ERROR node without visible children
        ("java", "\x00", True),  # an UNEXPECTED leaf inside an ERROR node
        ("java", 'f(a="x\x00", b=new int[]{1, 2})', True),  # an error deep inside a value
        ("java", "", False),
        ("javascript", "f(a=1)", False),
        ("javascript", "f(a=\x01)", True),
        ("javascript", 'f(a="x\x00")', True),
        ("javascript", '<tool_call>\n{"arguments": {}}</tool_call>', True),
        ("javascript", "", False),
    ],
)
def test_reports_error_answers_like_the_printed_tree(
    language: str, source: str, expected: bool
) -> None:
    root = root_of(language, source)
    assert printed_test(root) is expected
    assert reports_error(root) is expected


TOKENS = [
    *"fax1(){}[];,=\"'@#`\\\n é\x00\x01<>$?:",
    *("new ", "int", ".class", "=>", "/*", "*/", "//", "->", "true", "class "),
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=30), st.sampled_from(LANGUAGES))
def test_reports_error_matches_the_printed_test_on_random_text(
    tokens: list[str], language: str
) -> None:
    root = root_of(language, "".join(tokens))
    assert reports_error(root) is printed_test(root)


@dataclass
class FakeNode:
    """Just what `reports_error` reads from a node; `printed` is its S-expression."""

    type: str
    printed: str = ""
    has_error: bool = True
    children: list[FakeNode] = field(default_factory=list)

    @property
    def child_count(self) -> int:
        return len(self.children)

    def sexp(self) -> str:
        return self.printed


def fake(node: FakeNode) -> Any:
    return cast("Any", node)


def test_an_error_leaf_printed_as_unexpected_is_not_an_error() -> None:
    leaf = FakeNode("ERROR", "(UNEXPECTED 'x')")
    assert not reports_error(fake(FakeNode("program", children=[leaf])))
    childless = FakeNode("ERROR", "(ERROR)")
    assert reports_error(fake(FakeNode("program", children=[childless])))


def test_a_tree_without_errors_is_answered_without_printing_it() -> None:
    # tree-sitter marks every ERROR node and its ancestors, so an unmarked root has none.
    class Unprintable(FakeNode):
        def sexp(self) -> str:
            raise AssertionError("printed")

    assert not reports_error(fake(Unprintable("program", has_error=False)))


def test_a_parse_past_its_deadline_is_ended_even_where_tree_sitter_does_not_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tree-sitter checks its own timeout only between some steps of its error recovery:
    131 kB of a path-like call repeated took 46 s in Java under a 1.8 s timeout, and this
    one grew past 24 GB until the kernel killed the process. A long source is parsed first
    in a child killed at the deadline (or stopped by its memory cap), so the answer is over
    budget within about the budget's time, and the process is left with no child."""
    import os
    import time

    from fcbench.decode._treesitter import parse_bounded
    from fcbench.decode.budget import OverBudget, parse_seconds

    forked: list[int] = []
    fork = os.fork

    def recorded_fork() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    source = "/a/b/c.d(" * (131_000 // 9)
    start = time.monotonic()
    with pytest.raises(OverBudget, match="the java grammar took more than"):
        parse_bounded("java", source)
    assert time.monotonic() - start < parse_seconds(len(source)) + 1.5
    [probe] = forked
    with pytest.raises(ChildProcessError):
        os.waitpid(probe, os.WNOHANG)  # the probe was reaped
    assert parse_bounded("java", "f(1);").root_node is not None  # the parser is usable again
