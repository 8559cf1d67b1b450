"""The executable kinds (spec §5): `exec_simple`, `exec_multiple`, `exec_parallel`, `rest`.

The model's calls and the ground truth's run in sandboxed worker processes and their results
are compared. Running calls costs several times an AST check per byte; identical answer texts
(common across models) share one verdict. A case whose calls need a web service the chosen
service backend cannot answer is skipped (counted apart, listed in the score-file header).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from fcbench.check.records import prompt_of, single_turn_records
from fcbench.check.registry import CheckerKind, CheckSession, JudgeSettings, RecordBuilder
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim
from fcbench.decode.encoding import Encoding


class ExecSession(CheckSession):
    def __init__(self, category: Category, settings: JudgeSettings) -> None:
        from fcbench.check.exec import shared_runner

        self.category = category
        self.settings = settings
        self.runner = shared_runner(settings.exec_backend, settings.exec_replay_dir)

    def memo_key(
        self, case: TestCase, raw: Any, encoding: Encoding, model: str
    ) -> Hashable | None:
        return (case.id, raw, encoding) if isinstance(raw, str) else None

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        from fcbench.check.exec import judge_exec

        return judge_exec(case, self.category, raw, encoding, self.runner)

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        return single_turn_records(model, category, cases)

    def skipped_note(self, model: str, category: Category, count: int) -> str:
        return (
            f"{model}: {category.name}: {count} case(s) skipped, not scored (they need a web "
            f"service the '{self.settings.exec_backend}' exec backend cannot answer; see "
            "--exec-backend)"
        )

    def close(self) -> None:
        from fcbench.check.exec import close_runners

        close_runners()


class ExecKind(CheckerKind):
    cost_per_byte = 4.0

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        return load_slim(category, settings.release, settings.data_root, prompt_of,
                         keep_extras=True)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return ExecSession(category, settings)


EXEC_SIMPLE = ExecKind("exec_simple")
EXEC_MULTIPLE = ExecKind("exec_multiple")
EXEC_PARALLEL = ExecKind("exec_parallel")
REST = ExecKind("rest", generates=False)
"""Asked only as the original benchmark's retired category (the v1 release rule)."""
