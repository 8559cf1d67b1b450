"""FunctionGemma: `<start_function_call>call:NAME{key:value,...}<end_function_call>`, strings
wrapped in `<escape>` tokens, bare words read as null/true/false/int/float or text.

The handler reads the braces with a small state machine rather than a grammar: unbalanced or
stray structure is tolerated, a key is the text before `:` (or the previous escaped value),
and a value without a key is held as the next key. `ArgumentReader` follows the same steps so
that every output, well-formed or not, decodes to what the handler produced.
"""

from __future__ import annotations

from typing import Any

from fcbench.decode.families.common import paired
from fcbench.decode.spans import tagged_bodies

ESCAPE = "<escape>"
_CALL_TAGS = ("<start_function_call>", "<end_function_call>")
_PREFIX = "call:"


class ArgumentReader:
    """One call's `{...}` text -> its arguments (the handler's parser, step for step)."""

    def __init__(self) -> None:
        self.root: list[Any] = []
        self.stack: list[Any] = [self.root]
        self.keys: list[str | None] = []
        self.buffer: list[str] = []
        self.pending: Any = None

    def read(self, text: str) -> dict[str, Any]:
        cursor = 0
        while cursor < len(text):
            if text.startswith(ESCAPE, cursor):
                cursor = self._escaped(text, cursor)
                continue
            char = text[cursor]
            if char in "{[:]},":
                self._commit()
                self._structure(char)
            else:
                self.buffer.append(char)
            cursor += 1
        self._commit()
        return self.root[0] if self.root and isinstance(self.root[0], dict) else {}

    def _escaped(self, text: str, start: int) -> int:
        begin = start + len(ESCAPE)
        end = text.find(ESCAPE, begin)
        if end == -1:
            value, cursor = text[start:], len(text)
        else:
            value, cursor = text[begin:end], end + len(ESCAPE)
        if self.buffer:
            self._commit()
        self._add(value)
        return cursor

    def _structure(self, char: str) -> None:
        if char in "{[":
            container: Any = {} if char == "{" else []
            self._add(container)
            self.stack.append(container)
            if char == "{":
                self.keys.append(None)
        elif char in "}]":
            if len(self.stack) > 1:
                self.stack.pop()
                if char == "}" and self.keys:
                    self.keys.pop()
        elif char == ":":
            self._key()
            return
        self.pending = None

    def _key(self) -> None:
        key = None
        if self.buffer:
            key = "".join(self.buffer).strip()
            self.buffer.clear()
        elif self.pending is not None:  # the key was the previous (escaped) value
            key = str(self.pending)
            self.pending = None
        if key is not None and isinstance(self.stack[-1], dict) and self.keys:
            self.keys[-1] = key

    def _commit(self) -> None:
        if not self.buffer:
            return
        raw = "".join(self.buffer).strip()
        self.buffer.clear()
        if raw:
            self._add(_primitive(raw))

    def _add(self, value: Any) -> None:
        container = self.stack[-1]
        if isinstance(container, list):
            container.append(value)
            return
        key = self.keys[-1] if self.keys else None
        if key is not None:
            container[key] = value
            self.keys[-1] = None
        else:
            self.pending = value


def _primitive(text: str) -> Any:
    if text in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[text]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_calls(result: Any) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for match in tagged_bodies(result, *_CALL_TAGS):
        match = match.strip()
        if not match.startswith(_PREFIX):
            continue
        brace = match.find("{")
        if brace < 0:
            calls.append((match[len(_PREFIX):].strip(), {}))
            continue
        calls.append((match[len(_PREFIX):brace].strip(), ArgumentReader().read(match[brace:])))
    return calls


FUNCTIONGEMMA = paired(parse_calls, ", ")
