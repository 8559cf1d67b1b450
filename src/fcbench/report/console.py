"""Diagnostics for a person at a terminal: warnings grouped, the top error types last.

Why: a run over 14 models printed sixty near-identical warning lines before the table, and
nothing that said why cases failed. Warnings that differ only in the model, the category and
their numbers become one line with a count (and the numbers added up); the run ends with the
commonest error types of each category, which is where a reader starts looking. Everything
here goes to the console it is given: the CLI gives a stderr console.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fcbench._json import int_digits
from fcbench.core import categories

if TYPE_CHECKING:
    from rich.console import Console

def console_for(*, stderr: bool = False, piped_width: int = 200) -> Console:
    """A console on stdout (or stderr): at a terminal its own width; piped, tables laid out
    in `$COLUMNS` (else `piped_width`) columns and text never wrapped, so that a note reaches
    a file or a `grep` as one whole line instead of being broken mid-sentence at the table's
    width."""
    import sys

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    return Console(stderr=stderr, width=None if terminal else _columns() or piped_width,
                   soft_wrap=not terminal)


def _columns() -> int | None:
    """`$COLUMNS` when it is a width (a user's `COLUMNS=200 fcbench ... | cat` asks for a
    wider layout; it was ignored when piped), else None."""
    import os

    value = os.environ.get("COLUMNS", "").strip()
    return int(value) if value.isdigit() and 20 <= int(value) <= 10_000 else None


_SUBJECT = re.compile(r"^((?:[^\s:]+: )+)")
"""The leading `model: category: ` (or `path: `) of a problem: names without spaces."""
_NUMBER = re.compile(r"(?<![\w.-])\d+(?![\w-]|\.\d)")
"""A count in a message: digits standing alone, not part of a name (`community-2026`,
`gpt-3.5`, `v2`), whose digits must be printed as given, never summed."""


@dataclass
class ProblemGroup:
    """Problems that say the same thing about different subjects."""

    message: str
    """The common text with each number replaced by `N`."""
    subjects: list[str] = field(default_factory=list)
    numbers: list[list[int]] = field(default_factory=list)
    first: str = ""

    @property
    def count(self) -> int:
        return len(self.subjects)

    def line(self) -> str:
        if self.count == 1:
            return self.first
        text, note = self.message, f"{self.count} similar warnings"
        sums = [sum(col) for col in zip(*self.numbers, strict=True)] if self.numbers else []
        if len(sums) == 1:  # one number per problem (a count): show the total in its place
            with int_digits():
                total = f"{sums[0]:,}"
            text, note = text.replace("N", total, 1), note + ", counts added up"
        return f"{text} [{note}: {_summarise(self.subjects)}]"


def group_problems(problems: Iterable[str]) -> list[ProblemGroup]:
    """Problems grouped by their text once subjects and numbers are set aside, first seen
    first."""
    groups: dict[str, ProblemGroup] = {}
    for problem in problems:
        match = _SUBJECT.match(problem)
        subject = match.group(1).rstrip(": ") if match else ""
        rest = problem[match.end():] if match else problem
        message = _NUMBER.sub("N", rest)
        group = groups.setdefault(message, ProblemGroup(message, first=problem))
        group.subjects.append(subject)
        with int_digits():  # a problem may quote a result line's 5,000-digit id
            numbers = [int(n) for n in _NUMBER.findall(rest)]
        if group.numbers and len(group.numbers[0]) != len(numbers):  # pragma: no cover
            numbers = group.numbers[0]
        group.numbers.append(numbers)
    return list(groups.values())


def _summarise(subjects: Sequence[str]) -> str:
    """The subjects column by column (`a: x`, `b: y` -> `a, b; x, y`), long lists cut to 4."""
    parts = [s.split(": ") for s in subjects]
    columns = [sorted({p[i] for p in parts if len(p) > i}) for i in range(max(map(len, parts)))]
    shown = []
    for values in columns:
        if not values or values == [""]:
            continue
        listed = ", ".join(values[:4]) + (f", … ({len(values)} in all)" if len(values) > 4 else "")
        shown.append(listed)
    return "; ".join(shown) or "no subject"


def print_problems(problems: Iterable[str], console: Console) -> None:
    """One `warning:` line per group of similar problems (see `group_problems`)."""
    for group in group_problems(problems):
        console.print(f"[yellow]warning:[/] {group.line()}", highlight=False, soft_wrap=True)


def print_top_errors(
    errors: Mapping[str, Mapping[str, Counter[str]]], console: Console, top: int = 3
) -> None:
    """The `top` commonest error types of each category, over every model (`errors`: model
    -> category -> error type -> cases)."""
    by_category: dict[str, Counter[str]] = {}
    for per_category in errors.values():
        for category, counts in per_category.items():
            by_category.setdefault(category, Counter()).update(counts)
    order = {c.name: i for i, c in enumerate(categories.all_categories())}
    rows = sorted(((c, counts) for c, counts in by_category.items() if counts),
                  key=lambda row: (order.get(row[0], len(order)), row[0]))
    if not rows:
        return
    console.print("[bold]Top error types[/] (failed cases, all models):", highlight=False)
    for category, counts in rows:
        listed = ", ".join(f"{kind} {n}" for kind, n in counts.most_common(top))
        console.print(f"  {category}: {listed}", highlight=False, soft_wrap=True)
