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

_SPACES = re.compile(r"\s*")  # anchored, no alternatives: linear
_JSON_MARKS = re.compile(r"[\[\]{},]")


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


def outer_brackets(text: str) -> tuple[int, int] | None:
    """(start, end) of `re.search(r"\\[.*\\]", text, re.DOTALL)`: first `[` to last `]`."""
    start, last = text.find("["), text.rfind("]")
    return (start, last + 1) if 0 <= start < last else None


def json_call_list(text: str) -> tuple[int, int] | None:
    """(start, end) of the official JSON call-list pattern's first match in `text`.

    The pattern is `[`, `{`, anything lazily up to a `}`, then any number of `, {...}`, then
    `]`, with whitespace around the items. From a position after an item, the text it matches
    next depends on that position only, so one pass from the right settles every position:
    `after[q]` is where the match ends when the rest is tried from the `,` or `]` at `q`, and
    `nearest` is the end reached through the nearest `}` (to the right) that leads anywhere,
    which is what a lazy `{.*?}` picks. The leftmost `[` that reaches an end is the match.
    """
    marks = [m.start() for m in _JSON_MARKS.finditer(text)]
    after: dict[int, int] = {}
    nearest: int | None = None
    found: tuple[int, int] | None = None
    for position in reversed(marks):
        char = text[position]
        if char == "]":
            after[position] = position + 1
        elif char == "}":
            end = after.get(_skip_spaces(text, position + 1))
            if end is not None:
                nearest = end
        elif char != "{" and nearest is not None and _item_opens(text, position + 1):
            if char == ",":
                after[position] = nearest
            elif char == "[":
                found = (position, nearest)
    return found


def _skip_spaces(text: str, position: int) -> int:
    match = _SPACES.match(text, position)
    return match.end() if match else position


def _item_opens(text: str, position: int) -> bool:
    """Whether whitespace and then `{` follow (the pattern's `\\s*{`)."""
    brace = _skip_spaces(text, position)
    return brace < len(text) and text[brace] == "{"
