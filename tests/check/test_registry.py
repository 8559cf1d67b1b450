"""Checker kinds are plugins: a kind registered at run time scores its own category, with no
other module touched."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from fcbench.check import registry
from fcbench.check.registry import CheckerKind, CheckSession, JudgeSettings, RecordBuilder
from fcbench.core import categories
from fcbench.core.categories import Category, Language
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim
from fcbench.decode.encoding import Encoding


class ExactAnswerSession(CheckSession):
    """Passes when the model's text is the possible answer, case-insensitively."""

    def __init__(self) -> None:
        self.models: list[str] = []
        self.closed = False

    def begin_model(self, model: str) -> None:
        self.models.append(model)

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        if isinstance(raw, str) and raw.strip().lower() == str(case.possible_answer).lower():
            return Verdict.ok()
        return Verdict.fail("toy:wrong_answer", f"expected {case.possible_answer!r}")

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        def record(case: TestCase, entry: dict[str, Any], verdict: Verdict, prompt: Any) -> Any:
            return {"id": case.id, "error_type": verdict.error_type, "answer": entry["result"]}

        return record

    def header_fields(
        self, result_file: Path, judged: Sequence[tuple[TestCase, Verdict]]
    ) -> dict[str, Any]:
        """A kind's own header statistic (format sensitivity adds its per-config ones)."""
        return {"wrong_ids": [case.id for case, verdict in judged if not verdict.valid]}

    def close(self) -> None:
        self.closed = True


class ExactAnswerKind(CheckerKind):
    def __init__(self) -> None:
        super().__init__("toy_exact_answer")
        self.sessions: list[ExactAnswerSession] = []

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        return load_slim(category, settings.release, settings.data_root,
                         lambda case: {"id": case.id}, slim_functions=False)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        self.sessions.append(ExactAnswerSession())
        return self.sessions[-1]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def scratch_registries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test are forgotten after it."""
    monkeypatch.setattr(categories, "BY_NAME", dict(categories.BY_NAME))
    monkeypatch.setattr(categories, "_REGISTERED", list(categories._REGISTERED))
    monkeypatch.setattr(registry, "_LOADED", dict(registry._LOADED))


@pytest.mark.usefixtures("scratch_registries")
def test_a_kind_registered_at_run_time_scores_its_category(tmp_path: Path) -> None:
    import fcbench

    kind = registry.register(ExactAnswerKind())
    category = categories.register(
        Category("toy_capitals", "non_live", "v4", Language.PYTHON, kind.name)
    )
    data = tmp_path / "data"
    questions = [{"id": f"toy_capitals_{i}", "question": [[{"role": "user", "content": q}]],
                  "function": []} for i, q in enumerate(["France?", "Japan?", "Peru?"])]
    write_lines(data / "BFCL_v4_toy_capitals.json", questions)
    write_lines(data / "possible_answer" / "BFCL_v4_toy_capitals.json",
                [{"id": f"toy_capitals_{i}", "ground_truth": a}
                 for i, a in enumerate(["Paris", "Tokyo", "Lima"])])
    for model, answers in {"a": ["paris", "Kyoto", "Lima"], "b": ["Paris", "Tokyo", "x"]}.items():
        write_lines(tmp_path / "result" / model / "non_live" / "BFCL_v4_toy_capitals_result.json",
                    [{"id": f"toy_capitals_{i}", "result": r} for i, r in enumerate(answers)])

    report = fcbench.evaluate(tmp_path / "result", data_dir=data, score_dir=tmp_path / "score",
                              categories=[category.name], workers=1)

    scored = {m: report.models[m].categories["toy_capitals"] for m in ("a", "b")}
    assert [(s.correct, s.total) for s in scored.values()] == [(2, 3), (2, 3)]
    failed = [c.id for c in scored["a"].failures()]
    assert failed == ["toy_capitals_1"]
    score_file = tmp_path / "score" / "a" / "non_live" / "BFCL_v4_toy_capitals_score.json"
    header, record = (json.loads(line) for line in score_file.read_text().splitlines())
    assert header == {"accuracy": 2 / 3, "correct_count": 2, "total_count": 3,
                      "wrong_ids": ["toy_capitals_1"]}
    assert record == {"id": "toy_capitals_1", "error_type": "toy:wrong_answer", "answer": "Kyoto"}
    (session,) = kind.sessions  # one job for the category, over both models
    assert session.models == ["a", "b"] and session.closed


def test_unknown_checker_names_are_refused() -> None:
    assert registry.is_registered("ast_parallel")
    assert not registry.is_registered("no_such_kind")
    with pytest.raises(registry.UnknownCheckerError):
        registry.get("no_such_kind")
    assert registry.get("multi_turn") is registry.get("multi_turn")


@pytest.mark.usefixtures("scratch_registries")
def test_a_category_name_cannot_be_taken_twice() -> None:
    taken = categories.get("simple_python")
    with pytest.raises(ValueError, match="already registered"):
        categories.register(Category(taken.name, "live", "v9", Language.PYTHON, "ast_simple"))
    assert categories.register(taken) is taken
