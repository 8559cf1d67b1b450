"""A fast path for the common case of prompt-mode Python decoding.

`python_calls` parses a reply with `ast.parse`, whose `compile()` dominates checking time. Most
replies are a plain list of calls with literal keyword arguments, such as
`[get_weather(city='Paris', days=3), f(x=[1, 2.5], flag=True)]`. `fast_python_calls` decodes
exactly that conservative subset with one regex tokenizer and a small recursive descent, and
returns None ("not sure") for anything else, so the caller falls back to the `ast` path.

The subset, after the same `.strip().strip("'")` as `python_calls`:

* the text is `[]`, `[` call (`,` call)* `,`? `]`, or a single call whose name is directly
  followed by `(`; no leading or trailing whitespace (Python rejects some of it); in the
  list form, elements may also be values (below), which makes it the `ast` path's
  "list element is not a call" failure (upstream's bare `assert`: an empty message);
* a call is a dotted name of ASCII identifiers, none a keyword, then `(` keyword arguments
  `name=value` (`,` allowed after the last) `)`; no positional arguments, no `*`/`**`, no
  repeated keyword names;
* a value is: a decimal int (`0` or no leading zero, at most 30 digits) or a float
  (`digits.digits` or `digits` with an exponent, no `_`, no `j`), either optionally preceded by
  `-` directly (the official unary rule gives `-value`); a string in single or double quotes
  without prefix, backslash, control characters or surrogates, never adjacent to another
  string; `True`/`False`/`None`; a bare identifier that is not a keyword (decoded to its name);
  a list `[...]`, a tuple `(...)` with at least one comma or `()`, a dict `{key: value, ...}`
  whose keys are strings or numbers; nesting at most 30 deep;
* between tokens only spaces, tabs and newlines (all inside brackets, where Python allows them).

Every token not listed (operators, `#`, `\\`, `.5`, `5.`, `1_0`, `01`, `+5`, nested calls,
subscripts, parenthesised values, sets, ...) makes the result None.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

from fcbench.decode.errors import DecodeError

_MAX_DEPTH = 30

_TOKEN = re.compile(
    r"[ \t\n]*("
    r"[\[\](){},:=]"  # punctuation
    r"|'[^'\\\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]*'"  # simple single-quoted string
    r'|"[^"\\\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]*"'  # simple double-quoted string
    r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"  # (dotted) name
    r"|-?[0-9](?:[eE][+-]|[A-Za-z0-9_.])*"  # a number-like run, validated below
    r"|.)",  # anything else: rejected by the parser
    re.DOTALL,
)
# Cheap early exit for replies that cannot be in the subset (prose, JSON, XML, ...).
_START = re.compile(
    r"\[[ \t\n]*(?:\]|[A-Za-z_][A-Za-z0-9_.]*[ \t\n]*\(|[{\[])|[A-Za-z_][A-Za-z0-9_.]*\("
)
_INT = re.compile(r"0|[1-9][0-9]{0,29}")
_FLOAT = re.compile(r"[0-9]{1,30}(?:\.[0-9]{1,30}(?:[eE][+-]?[0-9]{1,4})?|[eE][+-]?[0-9]{1,4})")
_KEYWORDS = frozenset(keyword.kwlist)
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NUMBER_START = frozenset("-0123456789")
_WHITESPACE = frozenset(" \t\n\r\x0b\x0c")
_END = "\x00"  # sentinel token: never valid, so running off the end is a rejection


class _Reject(Exception):
    """The text is outside the fast subset."""


def fast_python_calls(text: str) -> list[dict[Any, Any]] | None:
    """What `python_calls(text)` returns, or None when the text is outside the fast subset.

    A list whose elements are all in the subset but not all calls (JSON-style answers such
    as `[{"name": "f", "arguments": {...}}]`) raises the `ast` path's DecodeError.
    """
    text = text.strip().strip("'")
    if not _START.match(text) or text[-1] in _WHITESPACE:
        return None
    tokens: list[str] = _TOKEN.findall(text)
    count = len(tokens)
    tokens.append(_END)
    try:
        not_a_call = False
        if tokens[0] == "[":
            calls: list[dict[Any, Any]] = []
            i = 1
            if tokens[1] != "]":
                while True:
                    if tokens[i][0] in _NAME_START and tokens[i + 1] == "(":
                        call, i = _call(tokens, i)
                        calls.append(call)
                    else:  # a literal: the answer is valid Python but not a list of calls
                        not_a_call = True
                        _, i = _value(tokens, i, 0)
                    token = tokens[i]
                    if token == ",":
                        i += 1
                        if tokens[i] == "]":
                            break
                    elif token == "]":
                        break
                    else:
                        return None
            i += 1
        else:
            name = tokens[0]
            if text[len(name) : len(name) + 1] != "(":
                return None  # at top level, a newline before `(` is a syntax error
            call, i = _call(tokens, 0)
            calls = [call]
        if i != count:
            return None
    except _Reject:
        return None
    if not_a_call:
        raise DecodeError("")  # as the ast path: upstream's bare `assert`
    return calls




def _call(tokens: list[str], i: int) -> tuple[dict[Any, Any], int]:
    name = tokens[i]
    if name[0] not in _NAME_START or tokens[i + 1] != "(":
        raise _Reject
    if "." in name:
        if any(part in _KEYWORDS for part in name.split(".")):
            raise _Reject
    elif name in _KEYWORDS:
        raise _Reject
    i += 2
    args: dict[Any, Any] = {}
    if tokens[i] == ")":
        return {name: args}, i + 1
    while True:
        arg = tokens[i]
        if (
            arg[0] not in _NAME_START
            or "." in arg
            or arg in _KEYWORDS
            or arg in args
            or tokens[i + 1] != "="
        ):
            raise _Reject
        args[arg], i = _value(tokens, i + 2, 0)
        token = tokens[i]
        if token == ",":
            i += 1
            if tokens[i] == ")":
                return {name: args}, i + 1
        elif token == ")":
            return {name: args}, i + 1
        else:
            raise _Reject


def _value(tokens: list[str], i: int, depth: int) -> tuple[Any, int]:
    token = tokens[i]
    first = token[0]
    if (first == "'" or first == '"') and len(token) > 1:
        return token[1:-1], i + 1
    if first in _NUMBER_START:
        return _number(token), i + 1
    if first in _NAME_START:
        if token in _CONSTANTS:
            return _CONSTANTS[token], i + 1
        if "." in token or token in _KEYWORDS:
            raise _Reject
        return token, i + 1
    if depth >= _MAX_DEPTH:
        raise _Reject
    if first == "[":
        items, i, _ = _items(tokens, i + 1, "]", depth)
        return items, i
    if first == "(":
        items, i, commas = _items(tokens, i + 1, ")", depth)
        if items and not commas:
            raise _Reject  # `(x)` is a parenthesised value, not a tuple
        return tuple(items), i
    if first == "{":
        return _dict(tokens, i + 1, depth)
    raise _Reject


def _items(tokens: list[str], i: int, close: str, depth: int) -> tuple[list[Any], int, bool]:
    items: list[Any] = []
    if tokens[i] == close:
        return items, i + 1, False
    while True:
        item, i = _value(tokens, i, depth + 1)
        items.append(item)
        token = tokens[i]
        if token == ",":
            i += 1
            if tokens[i] == close:
                return items, i + 1, True
        elif token == close:
            return items, i + 1, len(items) > 1
        else:
            raise _Reject


def _dict(tokens: list[str], i: int, depth: int) -> tuple[dict[Any, Any], int]:
    result: dict[Any, Any] = {}
    if tokens[i] == "}":
        return result, i + 1
    while True:
        token = tokens[i]
        first = token[0]
        if (first == "'" or first == '"') and len(token) > 1:
            key: Any = token[1:-1]
        elif first in _NUMBER_START:
            key = _number(token)
        else:
            raise _Reject
        if tokens[i + 1] != ":":
            raise _Reject
        result[key], i = _value(tokens, i + 2, depth + 1)
        token = tokens[i]
        if token == ",":
            i += 1
            if tokens[i] == "}":
                return result, i + 1
        elif token == "}":
            return result, i + 1
        else:
            raise _Reject


def _number(token: str) -> int | float:
    negative = token[0] == "-"
    digits = token[1:] if negative else token
    value: int | float
    if _INT.fullmatch(digits):
        value = int(digits)
    elif _FLOAT.fullmatch(digits):
        value = float(digits)
    else:
        raise _Reject
    return -value if negative else value
