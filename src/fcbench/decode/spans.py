"""The spans the official decoders cut out of model text with regular expressions, found in
linear time.

The official patterns backtrack: `<functions>(.*?)</functions>` rescans the rest of the text
from every opening tag (`"<functions>" * 20000` takes 38 s), and the JSON call-list pattern
`\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]` tries every way of cutting `{...}` items
(exponential: `"[" + "{}," * 27 + " x]"` takes 30 s). Each function here returns exactly the
span the pattern's `search` (or `findall`) returns, by `str.find` or one right-to-left pass;
`tests/decode/test_spans.py` holds the patterns as oracles.
"""

from __future__ import annotations

import re
from bisect import bisect_left

_SPACES = re.compile(r"\s*")  # anchored, no alternatives: linear
_OPENING_BRACKETS = re.compile(r"\[")
_NEW_ARRAY = re.compile(r"new\s+Array\(\s*")  # anchored; `\b` holds before a leading `n`


def tagged(text: str, opening: str, closing: str) -> tuple[int, int] | None:
    """(start, end) of the body of the first `opening(.*?)closing` (DOTALL) in `text`.

    The first opening tag decides: when no closing tag follows it, none follows a later one.
    """
    opened = text.find(opening)
    if opened < 0:
        return None
    start = opened + len(opening)
    end = text.find(closing, start)
    return None if end < 0 else (start, end)


def tagged_bodies(text: str, opening: str, closing: str) -> list[str]:
    """Every body `re.findall(opening + "(.*?)" + closing, text, re.DOTALL)` returns."""
    bodies: list[str] = []
    position = 0
    while True:
        opened = text.find(opening, position)
        if opened < 0:
            return bodies
        start = opened + len(opening)
        end = text.find(closing, start)
        if end < 0:
            return bodies
        bodies.append(text[start:end])
        position = end + len(closing)


def trimmed_tagged_bodies(text: str, opening: str, closing: str) -> list[str]:
    """Every body `re.findall(opening + r"\\s*(.*?)\\s*(?:" + closing + "|$)", text, re.DOTALL)`
    returns: spaces trimmed, and an unclosed last block running to the end of the text."""
    bodies: list[str] = []
    position = 0
    while (opened := text.find(opening, position)) >= 0:
        start = _skip_spaces(text, opened + len(opening))
        end = text.find(closing, start)
        body_end = len(text) if end < 0 else end
        bodies.append(text[start:max(start, _spaces_before(text, body_end))])
        if end < 0:
            return bodies
        position = end + len(closing)
    return bodies


def prefixed_bodies(text: str, opening: str, prefix: str, closing: str) -> list[str]:
    """Every body `re.findall(opening + r"\\s*" + prefix + r"\\s*(.*?)\\s*" + closing, text,
    re.DOTALL)` returns (the three escaped; each starts with a character that is not a space).

    An opening tag not followed by spaces and `prefix` is passed over; the first one that is
    decides, like `tagged`: when no closing tag follows it, none follows a later one.
    """
    bodies: list[str] = []
    position = 0
    while (opened := text.find(opening, position)) >= 0:
        start = _skip_spaces(text, opened + len(opening))
        if not text.startswith(prefix, start):
            position = opened + 1
            continue
        start = _skip_spaces(text, start + len(prefix))
        end = text.find(closing, start)
        if end < 0:
            return bodies
        bodies.append(text[start:max(start, _spaces_before(text, end))])
        position = end + len(closing)
    return bodies


def _spaces_before(text: str, position: int) -> int:
    """Where the run of whitespace that ends at `position` starts."""
    while position > 0 and text[position - 1].isspace():
        position -= 1
    return position


def outer_brackets(text: str) -> tuple[int, int] | None:
    """(start, end) of `re.search(r"\\[.*\\]", text, re.DOTALL)`: first `[` to last `]`."""
    start, last = text.find("["), text.rfind("]")
    return (start, last + 1) if 0 <= start < last else None


def json_call_list(text: str) -> tuple[int, int] | None:
    """(start, end) of the official JSON call-list pattern's first match in `text`:
    `\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]` (DOTALL), searched."""
    ends = _item_list_ends(text, "{", "}", "]", dotall=True)
    for bracket in _OPENING_BRACKETS.finditer(text):
        end = ends.get(_skip_spaces(text, bracket.end()))
        if end is not None:
            return bracket.start(), end
    return None


def grid_end(code: str) -> int | None:
    """Where the JavaScript checker's two-dimensional array pattern, matched at the start of
    `code`, ends: `\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]`, else
    `\\bnew\\s+Array\\(\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\)`
    (no DOTALL); None when neither matches."""
    if code.startswith("["):
        first = _skip_spaces(code, 1)
        end = _item_list_ends(code, "[", "]", "]", dotall=False).get(first)
        if end is not None:
            return end
    constructor = _NEW_ARRAY.match(code)
    if constructor is None:
        return None
    return _item_list_ends(code, "[", "]", ")", dotall=False).get(constructor.end())


def _item_list_ends(
    text: str, item_open: str, item_close: str, close: str, dotall: bool
) -> dict[int, int]:
    """For each `item_open` position, where `O.*?C\\s*(?:,\\s*O.*?C\\s*)*E` matched there
    ends (O, C, E: the three characters; the first match Python's backtracking finds).

    From a position after an item, what the pattern matches next depends on that position
    only, so one pass from the right settles every position: `after[q]` is where the match
    ends when the rest is tried from the `,` or `E` at `q`, and `nearest` is the end reached
    through the nearest `C` to the right that leads anywhere, which is what a lazy `.*?`
    picks for an item opened here. Without DOTALL an item cannot span a newline, so one
    resets `nearest` (whitespace between items may hold newlines: a `,` reads the next
    item's settled end instead).
    """
    marks = re.compile("[" + re.escape(item_open + item_close + close + ",") +
                       ("" if dotall else "\n") + "]")
    after: dict[int, int] = {}
    ends: dict[int, int] = {}
    nearest: int | None = None
    for mark in reversed([m.start() for m in marks.finditer(text)]):
        char = text[mark]
        if char == close:
            after[mark] = mark + 1
        if char == item_close:
            end = after.get(_skip_spaces(text, mark + 1))
            if end is not None:
                nearest = end
        elif char == "\n":
            nearest = None
        elif char == item_open and nearest is not None:
            ends[mark] = nearest
        elif char == ",":
            end = ends.get(_skip_spaces(text, mark + 1))  # the next item, already settled
            if end is not None:
                after[mark] = end
    return ends


def _skip_spaces(text: str, position: int) -> int:
    match = _SPACES.match(text, position)
    return match.end() if match else position


class Occurrences:
    """Where `needle` occurs in `text` (overlapping occurrences included), for the first one at
    or after any position in logarithmic time: a finder that retries a lazy pattern from many
    starts asks this instead of rescanning the rest of the text from each (the checkers' Java
    and JavaScript value patterns)."""

    __slots__ = ("at",)

    def __init__(self, text: str, needle: str) -> None:
        self.at: list[int] = []
        found = text.find(needle)
        while found >= 0:
            self.at.append(found)
            found = text.find(needle, found + 1)

    def next(self, position: int) -> int:
        """The first occurrence at or after `position`, -1 when there is none."""
        index = bisect_left(self.at, position)
        return self.at[index] if index < len(self.at) else -1
