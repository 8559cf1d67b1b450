"""What the Java and JavaScript decoders share: the tree-sitter parsers, the official error
test, and the text the official hands to its grammars."""

from __future__ import annotations

import faulthandler
import os
import signal
import time
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from fcbench.core.model import Call
from fcbench.decode.budget import OverBudget, parse_seconds
from fcbench.decode.errors import DecodeError
from fcbench.decode.python_calls import bracketed, tool_call_body

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

POSITIONAL_KEY = "None"
"""Where a positional argument is stored (the official stores it under Python's None)."""


@cache
def parser(language: str) -> Parser:
    """The parser for `java` or `javascript`, built on first use (importing fcbench stays cheap)."""
    return load_parser(f"tree_sitter_{language}", language)


def load_parser(grammar_module: str, grammar_name: str) -> Parser:
    """A tree-sitter parser for an installed grammar package, under either binding API.

    The official pins tree-sitter 0.21, whose Language also takes the grammar's name and whose
    Parser gets its language by `set_language`; later bindings take the language directly.
    """
    import importlib

    bindings: Any = importlib.import_module("tree_sitter")
    pointer = importlib.import_module(grammar_module).language()
    try:
        parser = bindings.Parser(bindings.Language(pointer))
    except TypeError:
        parser = bindings.Parser()
        parser.set_language(bindings.Language(pointer, grammar_name))
    return cast("Parser", parser)


def parse_bounded(language: str, source: str) -> Tree:
    """The tree of `source`, or OverBudget when tree-sitter takes longer than the decoding
    budget allows (`budget.parse_seconds`: linear in the text)."""
    grammar = parser(language)
    encoded = source.encode("utf-8")  # UnicodeEncodeError (a lone surrogate): a decode failure
    seconds = parse_seconds(len(source))
    _set_timeout(grammar, int(seconds * 1_000_000))
    tree = None
    if len(source) <= PROBED_CHARS or _finishes_within(grammar, encoded, seconds):
        try:
            tree = grammar.parse(encoded)
        except ValueError:  # "Parsing failed": the timeout (0.21 bindings)
            tree = None
    if tree is None:
        grammar.reset()  # else the next parse resumes this one
        raise OverBudget(f"the {language} grammar took more than {seconds:.1f} s (or "
                         f"{PROBE_MEMORY >> 20} MB) on {len(source):,} characters (decoding "
                         "budget)")
    return tree


PROBED_CHARS = 16_384
"""Sources longer than this are first parsed in a forked child that is killed at the deadline
(`_finishes_within`): tree-sitter checks its own timeout only between some steps of its error
recovery, so 131 kB of `/work/main/src/fcbench/decode/java.pyf(` repeated took 46 s in Java
under a 1.8 s timeout, and of `/a/b/c.d(` grew past 24 GB until the kernel killed it. Real
answers are a few hundred characters, so the fork is paid only by long ones; the child's
memory dies with it."""


def _finishes_within(grammar: Parser, encoded: bytes, seconds: float) -> bool:
    """Whether tree-sitter parses `encoded` within `seconds` of wall time, tried in a child
    process killed at the deadline (a parse in this process cannot be interrupted). Where
    there is no fork, the grammar's own timeout is all there is."""
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
        return True
    pid = os.fork()
    if pid == 0:  # the child: parse, then leave without running any of the parent's clean-up
        status = 1
        try:
            quiet = os.open(os.devnull, os.O_WRONLY)  # tree-sitter prints a failed allocation
            os.dup2(quiet, 2)
            faulthandler.disable()  # its abort at the memory cap is the answer, not a crash
            _limit_memory(PROBE_MEMORY)
            grammar.parse(encoded)
            status = 0
        finally:
            os._exit(status)
    deadline = time.monotonic() + seconds
    pause = 0.001
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) == 0
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


PROBE_MEMORY = 256 * 1024 * 1024
"""Bytes of address space the probing child may add to what it inherits: the input that
grows past 24 GB reaches 1.3 GB within the 1.8 s of the deadline, while a parse that
finishes in time (130 kB of valid calls, or of repeated tags) peaks near 20 MB."""


def _limit_memory(extra: int) -> None:
    """Cap this process's address space at its present size plus `extra` bytes, and write no
    core file if a failed allocation aborts it."""
    import resource

    with open("/proc/self/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    wanted = size + extra
    resource.setrlimit(resource.RLIMIT_AS, (wanted if hard == resource.RLIM_INFINITY
                                            else min(wanted, hard), hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _set_timeout(grammar: Parser, micros: int) -> None:
    """The parse deadline under either binding API (none where a binding has neither)."""
    setter = getattr(grammar, "set_timeout_micros", None)
    if callable(setter):
        setter(micros)
    elif hasattr(grammar, "timeout_micros"):  # 0.22-0.24 bindings: a property
        setattr(grammar, "timeout_micros", micros)  # noqa: B010 (typed read-only in 0.21)


def reports_error(root: Node) -> bool:
    """The official's error test (`ERROR` anywhere in the tree's S-expression), without printing.

    A missing token prints as MISSING and is tolerated, like in the official. Printing the whole
    tree costs more than the rest of the decoding, so only the subtrees tree-sitter marks with
    `has_error` are searched: a node printed as ERROR carries a recovery cost that marks it and
    all its ancestors, while a tree with no such node and no MISSING node is not marked at all.
    """
    if not root.has_error:  # the common case for JavaScript and for Java ending with `;`
        return False
    pending = [root]
    while pending:
        node = pending.pop()
        if node.type == "ERROR" and _prints_as_error(node):
            return True
        for child in node.children:
            if child.has_error:
                pending.append(child)
    return False


def _prints_as_error(error_node: Node) -> bool:
    """Whether an ERROR node shows as `ERROR` in the S-expression.

    A childless error leaf with text (one skipped character) prints as `(UNEXPECTED 'c')`
    instead, so the official does not see it; only such leaves need printing to tell.
    """
    return error_node.child_count > 0 or "ERROR" in _sexp(error_node)


def _sexp(node: Node) -> str:
    """The node's S-expression under either binding API."""
    sexp = getattr(node, "sexp", None)  # tree-sitter 0.21; later bindings print it via str()
    return str(sexp() if callable(sexp) else node)


def decode_prompt_text(
    text: str, tool_call_tag: bool, read: Callable[[str], list[Call]]
) -> list[Call]:
    """`read` on the text the official hands to its grammar (see `prompt_call_body`); any
    failure while reading is a decode failure, as the official catches everything (deep
    nesting gives a RecursionError, unencodable surrogates a UnicodeEncodeError)."""
    source = prompt_call_body(text, tool_call_tag)
    try:
        return read(source)
    except DecodeError:
        raise
    except Exception as exc:
        raise DecodeError(str(exc)) from None  # checkers add the official prefix


def prompt_call_body(text: str, tool_call_tag: bool = False) -> str:
    """The text the official hands to its Java/JS grammar: bracket-wrapped, then unwrapped.

    The wrapping happens on the whole answer; with a tool-call tag the tag's body is then taken
    and its first and last characters are dropped whatever they are.
    """
    wrapped = bracketed(text)
    if tool_call_tag:
        wrapped = tool_call_body(wrapped).strip()
    return wrapped[1:-1]
