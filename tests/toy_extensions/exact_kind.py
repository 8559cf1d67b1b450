"""A toy checker kind: an answer passes when its text is the case's possible answer."""

from __future__ import annotations

from typing import Any

from fcbench.check.registry import CheckerKind, CheckSession, JudgeSettings, RecordBuilder
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim
from fcbench.decode.encoding import Encoding


class ExactSession(CheckSession):
    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        if isinstance(raw, str) and raw.strip().lower() == str(case.possible_answer).lower():
            return Verdict.ok()
        return Verdict.fail("toy:wrong_answer", f"expected {case.possible_answer!r}")

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        def record(case: TestCase, entry: dict[str, Any], verdict: Verdict, prompt: Any) -> Any:
            return {"id": case.id, "error_type": verdict.error_type, "answer": entry["result"]}

        return record


class ExactKind(CheckerKind):
    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        return load_slim(category, settings.release, settings.data_root,
                         lambda case: {"id": case.id}, slim_functions=False)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return ExactSession()


KIND = ExactKind("toy_exact")
