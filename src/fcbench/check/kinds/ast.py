"""The AST kinds (spec §3): `ast_simple`, `ast_multiple`, `ast_parallel`.

An answer is decoded into calls and checked against the case's possible answer. Models often
write the same calls in different text, so a session shares one prepared checker per case and
one verdict per decoded answer across every model (`CheckMemo`). Judging allocates many
short-lived, acyclic objects, which reference counting frees; the cycle collector's passes over
everything alive would cost about a tenth of the run and find nothing, so it is paused while a
session runs.
"""

from __future__ import annotations

import gc
from typing import Any

from fcbench.check.records import prompt_of, single_turn_records
from fcbench.check.registry import CheckerKind, CheckSession, JudgeSettings, RecordBuilder
from fcbench.check.single_turn import CheckMemo, judge
from fcbench.core.categories import Category, Language
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim_cached
from fcbench.decode.encoding import Encoding

TREE_SITTER_COST = 2.0
"""Java and JavaScript answers go through tree-sitter: about twice Python's cost per byte."""


class PausedCollector:
    """Turns the cycle collector off for a session's life (back on at `close`)."""

    def __init__(self) -> None:
        self._paused = gc.isenabled()
        if self._paused:
            gc.disable()

    def close(self) -> None:
        if self._paused:
            gc.enable()
            self._paused = False


class AstSession(CheckSession):
    def __init__(self, category: Category, relevance: bool = False) -> None:
        self.category = category
        self.relevance = relevance
        self.memo = CheckMemo()
        self._collector = PausedCollector()

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        return judge(case, self.category, raw, encoding, self.memo)

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        return single_turn_records(model, category, cases, relevance=self.relevance)

    def close(self) -> None:
        self._collector.close()


class AstKind(CheckerKind):
    cost_per_byte = 1.0

    def cost(self, category: Category) -> float:
        language = 1.0 if category.language is Language.PYTHON else TREE_SITTER_COST
        return self.cost_per_byte * language

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        return load_slim_cached(category, settings.release, settings.data_root, prompt_of)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return AstSession(category)


SIMPLE = AstKind("ast_simple")
MULTIPLE = AstKind("ast_multiple")
PARALLEL = AstKind("ast_parallel")
