"""The format-sensitivity kind (spec §7.3, §3.1): AST judging under each case's prompt format.

A case's id names the configuration it was asked under and the item it repeats
(`format_sensitivity_<k>:<config>:<original id>`). Its answer is decoded with that
configuration's return format and tool-call tag (Python values whatever the item's category),
and checked by the checker the original id's name picks: `parallel` in it -> the parallel
checker, else `multiple` -> the multiple checker, else the simple one. That routing is the
official evaluator's since the fix of its issue #1215 (until then every item went through the
simple checker, failing every multiple and parallel answer); 2026.3.23 has the fix.

The score file's header adds each configuration's accuracy and the spreads across them
(`check/sensitivity.py`); its records have the AST shape under the category name
`format_sensitivity`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fcbench.check.kinds.ast import AstKind, AstSession
from fcbench.check.records import prompt_of
from fcbench.check.registry import CheckSession, JudgeSettings
from fcbench.check.sensitivity import count_by_config, header_fields
from fcbench.check.single_turn import judge
from fcbench.core.categories import Category, Checker
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.format_sensitivity import source_files, split_id
from fcbench.dataset.slim import SlimCategory, load_slim_cached
from fcbench.decode.encoding import Encoding
from fcbench.decode.python_calls import ReturnFormat

NOT_FORMAT_SENSITIVITY = "fcbench:not_format_sensitivity_id"


def checker_for(original_id: str) -> str:
    """The AST checker an item is judged by, from its original id (official routing)."""
    if "parallel" in original_id:
        return Checker.AST_PARALLEL
    if "multiple" in original_id:
        return Checker.AST_MULTIPLE
    return Checker.AST_SIMPLE


class FormatSensitivitySession(AstSession):
    def __init__(self, category: Category) -> None:
        super().__init__(category)
        self._routes = {
            name: replace(category, checker=name)
            for name in (Checker.AST_SIMPLE, Checker.AST_MULTIPLE, Checker.AST_PARALLEL)
        }
        self._encodings: dict[tuple[Encoding, str, bool], Encoding] = {}

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        named = split_id(case.id)
        if named is None:  # only a user's own rows can get here
            return Verdict.fail(NOT_FORMAT_SENSITIVITY,
                                f"{case.id} does not name a prompt configuration")
        config, original_id = named
        key = (encoding, config.return_format, config.tool_call_tag)
        asked = self._encodings.get(key)
        if asked is None:
            asked = self._encodings[key] = replace(
                encoding, return_format=ReturnFormat(config.return_format),
                tool_call_tag=config.tool_call_tag,
            )
        return judge(case, self._routes[checker_for(original_id)], raw, asked, self.memo)

    def header_fields(
        self, result_file: Path, judged: Sequence[tuple[TestCase, Verdict]]
    ) -> dict[str, Any]:
        outcomes = []
        for case, verdict in judged:
            named = split_id(case.id)
            if named is not None:
                outcomes.append((str(named[0]), verdict.valid))
        return header_fields(count_by_config(outcomes))


class FormatSensitivityKind(AstKind):
    """Python-syntax answers mostly, judged like the AST categories they come from."""

    modes = frozenset({"prompt"})
    """The return format is the prompt's question: FC models skip it (N/A, as upstream)."""

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        sources = None if settings.data_root is not None else source_files(settings.release)
        return load_slim_cached(category, settings.release, settings.data_root, prompt_of,
                                sources=sources)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return FormatSensitivitySession(category)


FORMAT_SENSITIVITY = FormatSensitivityKind("format_sensitivity")
