"""The relevance kinds (spec §3.10): `irrelevance` (pass when the answer holds no call) and
`relevance` (pass when it holds any call). Decoding alone decides, so a byte costs about half
an AST check; the records have the relevance shape (`model_result`, `decoded_result`)."""

from __future__ import annotations

from fcbench.check.kinds.ast import AstKind, AstSession
from fcbench.check.registry import CheckSession, JudgeSettings
from fcbench.core.categories import Category


class RelevanceKind(AstKind):
    cost_per_byte = 0.5

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return AstSession(category, relevance=True)


IRRELEVANCE = RelevanceKind("irrelevance")
RELEVANCE = RelevanceKind("relevance")
