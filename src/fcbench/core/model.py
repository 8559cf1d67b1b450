"""The typed records that flow through fcbench: test cases, decoded calls and verdicts.

Function docs and ground truth stay plain JSON values (dicts and lists) because their shape is
defined by the official data files, and the checkers follow that shape rule by rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON = Any
"""A value as read from a JSON file."""

UNENCODABLE = "backslashreplace"
"""How files of JSON text are encoded to UTF-8. A string read from JSON can hold a lone
surrogate (`"\\ud800"`), which UTF-8 cannot encode; `backslashreplace` writes it as exactly
that JSON escape, so the file stays valid JSON and reads back the same."""


@dataclass(frozen=True)
class TestCase:
    """One entry of a question file, joined with its possible answer when there is one."""

    id: str
    category: str
    question: list[Any]
    functions: list[dict[str, Any]]
    possible_answer: JSON = None
    extras: dict[str, Any] = field(default_factory=dict)

    __test__ = False  # not a pytest test class


@dataclass(frozen=True)
class Call:
    """One decoded function call: a name and its keyword arguments, in the model's order.

    Argument values are literals: Python values for Python-format output, source text (str) for
    Java and JavaScript output, which the type converters turn into values later.
    """

    name: str
    args: dict[str, Any]

    def as_official(self) -> dict[str, Any]:
        """The official decoded form `{name: {param: value}}`, used in score files."""
        return {self.name: self.args}


@dataclass(frozen=True)
class Verdict:
    """The checker's decision on one case.

    `error_type` is the official error string (e.g. `type_error:simple`) and `errors` the
    human-readable messages, both empty when `valid` is true.
    """

    valid: bool
    error_type: str | None = None
    errors: list[Any] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(cls, **extras: Any) -> Verdict:
        """A pass; without extras the shared instance (checkers create millions of passes)."""
        return cls(True, None, [], dict(extras)) if extras else _PASS

    @classmethod
    def fail(cls, error_type: str, *errors: Any, **extras: Any) -> Verdict:
        return cls(False, error_type, list(errors), dict(extras))


_PASS = Verdict(True)


def id_order(test_id: str) -> tuple[str, int, str]:
    """The official order of test ids: by category, then by the integer index (a live id's
    first number; a format-sensitivity id by its running index before the first `:`)."""
    head = test_id.split(":")[0]
    category, _, index = head.rpartition("_")
    number = index.split("-")[0]
    return (category, int(number) if number.isdigit() else -1, test_id)
