"""The string normalisers, character by character (spec §3.8 for the AST checker, §7.1 for the
agentic one): which characters are deleted, which are lowered, which are swapped, and that
every other character survives untouched. A normaliser that stops deleting one character, or
starts deleting another, fails here without the corpus.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.check import agentic
from fcbench.check.ast import values

AST_DELETED = " ,./-_*^"
"""What the AST checker's normaliser deletes (spaces too)."""
AGENTIC_DELETED = ",./-_*^()"
"""What the agentic checker's normaliser deletes (spaces and newlines are kept)."""

ASCII = [chr(code) for code in range(128)]


def expected(char: str, deleted: str) -> str:
    """One character after normalising, by the rule's three clauses."""
    if char in deleted:
        return ""
    if char == "'":
        return '"'
    return char.lower()


@pytest.mark.parametrize("char", ASCII, ids=[f"U+{ord(c):04X}" for c in ASCII])
def test_ast_normaliser_on_each_ascii_character(char: str) -> None:
    assert values.standardize(f"A{char}b") == f"a{expected(char, AST_DELETED)}b"


@pytest.mark.parametrize("char", ASCII, ids=[f"U+{ord(c):04X}" for c in ASCII])
def test_agentic_normaliser_on_each_ascii_character(char: str) -> None:
    assert agentic.standardize(f"A{char}b") == f"a{expected(char, AGENTIC_DELETED)}b"


def test_the_two_normalisers_differ_only_in_spaces_and_parentheses() -> None:
    differing = [c for c in ASCII if values.standardize(c) != agentic.standardize(c)]
    assert differing == [" ", "(", ")"]


@pytest.mark.parametrize("char", ["\t", "\n", "\u00a0", "\u3000", "\u2013", "\uff0c"])
def test_ast_normaliser_deletes_only_the_ascii_space_and_punctuation(char: str) -> None:
    """Tabs, newlines, other spaces and look-alike dashes or commas are kept."""
    assert values.standardize(f"a{char}b") == f"a{char}b"


def test_ast_strings_compare_after_normalising() -> None:
    wanted = values.standardized_strings(["New York, NY"])
    assert values.check_string("p", "new_york/ny", ["New York, NY"], wanted).valid
    refused = values.check_string("p", "New-York NYC", ["New York, NY"], wanted)
    assert (refused.valid, refused.error_type) == (False, "value_error:string")


@given(st.text())
def test_ast_normaliser_is_idempotent_and_leaves_no_deleted_character(text: str) -> None:
    once = values.standardize(text)
    assert values.standardize(once) == once
    assert not set(once) & set(AST_DELETED + "'")


@given(st.text(alphabet=string.ascii_letters + string.digits + AST_DELETED + "'\""))
def test_ast_normaliser_length_drops_by_the_deleted_characters(text: str) -> None:
    deleted = sum(text.count(c) for c in AST_DELETED)
    assert len(values.standardize(text)) == len(text) - deleted
