"""How much one decoding may read and build: the bounds that keep hostile model text cheap.

A model's answer is untrusted. A few hundred bytes of arithmetic (`[[[0]*1000]*1000]*1000`,
a hundred `[0]*1000000` joined with `+`, `10**10**10`) describe values of billions of
elements, and a megabyte of dense text costs Python's parser half a gigabyte. The official
evaluator hands such arithmetic to `eval`, so it either computes for minutes and gigabytes
or dies of `MemoryError`, which its decoder catches like any other exception: the case fails
as `ast_decoder:decoder_failed`. fcbench gives that verdict at once: past these bounds a
decoding raises `OverBudget`, a `DecodeError` of the same type, with the reason as its
message. Normal answers are far inside them (the real-model corpus's longest single answer is
under 8,000 characters, and no answer there builds more than a few hundred elements).
"""

from __future__ import annotations

from typing import Any

from fcbench.decode.errors import DecodeError

MAX_TEXT_CHARS = 131_072
"""Characters of model text one decoding reads (for a structured FC result: the characters of
its strings plus one per item): 16 times the longest answer of the real-model corpus. Parsing
and reading are linear in this, but dense call syntax costs Python's parser about 0.5 KB and
10 microseconds per character, so the bound keeps one decoding near 100 MB and 1-3 s (on a
busy machine) whatever the text."""

MAX_REPLY_CHARS = 8 * MAX_TEXT_CHARS
"""Characters of a reply a text parser or family handler reads at generation (1,048,576).
Larger than the decoding budget on purpose: a family handler strips reasoning (`<think>`
blocks) before the answer is stored, and the official handlers score the answer of a reply
whose reasoning alone passes 131,072 characters; every such parser is linear (the property
tests check it), so a reply at this bound is read in well under a second. A longer one is
read by none and kept as it came, so scoring finds it over the decoding budget."""

MAX_ELEMENTS = 2_000_000
"""Elements one decoding may build by arithmetic: every value a `+`, `*`, `**`, ... produces
is charged its size (container items counted through nesting and shared repetition, string
and bytes characters, integer bytes), and so are its intermediate results. This bounds both
the memory of the decoded answer and the work of computing it (`[0]+[0]+...` copies its
growing list at every `+`)."""

MAX_INT_BITS = 100_000
"""The largest integer (in bits) arithmetic may produce; `**`, `<<` and `*` are refused
before computing anything larger."""

MAX_EXPONENT = 10_000
"""The largest integer exponent of a base other than 0, 1 and -1."""

PARSE_SECONDS = 0.5
PARSE_SECONDS_PER_CHAR = 10e-6
"""The time tree-sitter may take on one Java or JavaScript answer: `PARSE_SECONDS` plus this
per character (1.8 s at `MAX_TEXT_CHARS`). Its error recovery is superlinear on repeated
markup (120 kB of `"` took 10 s in Java, of `'` 237 s in JavaScript; the official evaluator
parses with the same library and waits), while a valid answer of 130 kB parses in
under 50 ms: past the bound the decoding is refused as `OverBudget`, the verdict the
official gives a text whose tree holds an ERROR node (a deviation only for a text that
parses without one after that long, none known)."""


class OverBudget(DecodeError, ValueError):
    """A decoding that would read or build more than the bounds above allow.

    Raised as `ast_decoder:decoder_failed`, the official verdict when its `eval` runs out of
    memory; the message names the bound."""


class Budget:
    """What one decoding may still build (`MAX_ELEMENTS` at the start); charged as values are
    computed, so that many small computations in one answer add up."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int = MAX_ELEMENTS) -> None:
        self.limit = self.left = limit

    def charge(self, size: int, what: str) -> None:
        """Take `size` elements for `what`, or refuse when they are not left."""
        if size > self.left:
            raise OverBudget(
                f"{what} would build more than the {self.limit:,} elements of the decoding "
                "budget"
            )
        self.left -= size


def parse_seconds(chars: int) -> float:
    """How long a grammar may parse a text of `chars` characters (see `PARSE_SECONDS`)."""
    return PARSE_SECONDS + PARSE_SECONDS_PER_CHAR * chars


def check_raw(raw: Any) -> None:
    """Refuse a model answer longer than `MAX_TEXT_CHARS` before any parsing."""
    if isinstance(raw, str):
        if len(raw) > MAX_TEXT_CHARS:
            raise OverBudget(_too_long(len(raw)))
        return
    if isinstance(raw, (list, tuple, dict)):
        _check_structure(raw)


def _check_structure(raw: list[Any] | tuple[Any, ...] | dict[Any, Any]) -> None:
    """The text size of a structured answer (FC calls): strings' characters, one per item;
    walked without recursion and stopped as soon as the bound is passed."""
    total = 0
    pending: list[Any] = [raw]
    while pending:
        value = pending.pop()
        if isinstance(value, (str, bytes)):
            total += len(value)
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, (list, tuple)):
            pending.extend(value)
        total += 1
        if total > MAX_TEXT_CHARS:
            raise OverBudget(_too_long(total, structured=True))


def check_reply(text: str) -> None:
    """Refuse a reply longer than `MAX_REPLY_CHARS` before any parser reads it at generation."""
    if len(text) > MAX_REPLY_CHARS:
        raise OverBudget(f"the reply has {len(text):,} characters, over the {MAX_REPLY_CHARS:,} "
                         "a parser reads at generation (the decoding budget is "
                         f"{MAX_TEXT_CHARS:,})")


def _too_long(size: int, structured: bool = False) -> str:
    counted = "at least " if structured else ""
    return (
        f"the answer has {counted}{size:,} characters, "
        f"over the decoding budget of {MAX_TEXT_CHARS:,}"
    )
