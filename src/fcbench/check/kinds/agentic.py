"""The agentic kind (spec §7.1, §7.2): web search and memory questions.

The final message of the one turn (its last step that is not a call) must contain one of the
acceptable answers, after the official normalisation, between word boundaries. The verdict
depends on the answer text and the case only, so identical answers share it across models.
Records show the entry as the official evaluator loads it: the question with the
answer-format system message, and for memory questions the ids of the prerequisite
conversations they depend on.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from fcbench._json import RawJSON
from fcbench.check.registry import (
    CheckerKind,
    CheckSession,
    JudgeSettings,
    Record,
    RecordBuilder,
)
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim
from fcbench.decode.encoding import Encoding


class AgenticSession(CheckSession):
    def header_fields(
        self, result_file: Path, judged: Sequence[tuple[TestCase, Verdict]]
    ) -> dict[str, Any]:
        """Web search: who answered the searches (only SerpAPI's answers are comparable with
        the leaderboard's), as the run's manifest records it."""
        described = _web_search_of(result_file)
        if not described:
            return {}
        return {"web_search_provider": described.get("provider"),
                "web_search_comparable": described.get("comparable")}

    def notes(self, model: str, category: Category, result_file: Path) -> list[str]:
        described = _web_search_of(result_file)
        if not described or described.get("comparable", True):
            return []
        failed = described.get("failed_cases")
        if failed:
            return [f"{model}: {category.name}: {failed} case(s) errored by a failed web "
                    "search or page fetch: not comparable until the next run asks them again"]
        return [f"{model}: {category.name}: searches answered by "
                f"{described.get('provider')}, not SerpAPI: not comparable with the leaderboard"]

    def memo_key(
        self, case: TestCase, raw: Any, encoding: Encoding, model: str
    ) -> Hashable | None:
        return (case.id, raw, encoding) if isinstance(raw, str) else None

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        from fcbench.check.agentic import judge_agentic

        return judge_agentic(case, raw, encoding)

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        from fcbench.check.agentic import failure_record

        def record(
            case: TestCase, entry: dict[str, Any], verdict: Verdict, prompt: RawJSON | None
        ) -> Record:
            return failure_record(model, case, entry["result"], verdict, prompt or {},
                                  entry.get("inference_log", ""))

        return record


def _web_search_of(result_file: Path) -> dict[str, Any]:
    """The manifest's `web_search` description of the run that wrote a web-search file."""
    from fcbench.results.manifest import read_manifest

    if "web_search" not in result_file.name:
        return {}
    for folder in result_file.parents:
        manifest = read_manifest(folder)
        if manifest:
            found = manifest.get("web_search")
            return found if isinstance(found, dict) else {}
    return {}


class AgenticKind(CheckerKind):
    cost_per_byte = 1.0

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        from fcbench.dataset.agentic import eval_prompt, memory_dependencies
        from fcbench.dataset.prompt_texts import load_texts

        prompts = load_texts(settings.release).prompts
        depends = (
            memory_dependencies(category.name, settings.release, settings.data_root)
            if category.name.startswith("memory_") else {}
        )

        def prompt_of(case: TestCase) -> dict[str, Any]:
            scenario = str(case.extras.get("scenario"))
            return eval_prompt(case, prompts, depends.get(scenario))

        return load_slim(category, settings.release, settings.data_root, prompt_of,
                         slim_functions=False, functions=False)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return AgenticSession()


AGENTIC = AgenticKind("agentic")
