"""`evaluate` on damaged input: every problem is one clear line, everything else is scored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.evaluation import EvaluationError, evaluate
from hostile.files import MODEL_JSONS, RESULT_LINES


def write_model(root: Path, lines: list[str], mode: str = "prompt") -> Path:
    folder = root / "my-model"
    (folder / "non_live").mkdir(parents=True)
    (folder / "model.json").write_text(json.dumps({"mode": mode}))
    (folder / "non_live" / "BFCL_v4_simple_python_result.json").write_text("\n".join(lines))
    return folder


GOOD = json.dumps(
    {"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"}
)


def test_damage_is_reported_and_the_rest_scored(fetched_home: Path, tmp_path: Path) -> None:
    write_model(
        tmp_path,
        [
            GOOD,
            '{"id": "simple_python_1", "result": ',  # torn line
            json.dumps({"id": "simple_python_9999", "result": "[f()]"}),  # unknown id
            json.dumps({"id": "simple_python_0", "result": "[]"}),  # duplicate id
            json.dumps({"id": "simple_python_2"}),  # no result
            json.dumps({"id": "simple_python_3", "result": "not a call"}),
        ],
    )
    report = evaluate(tmp_path)
    model = report.models["my-model"]
    scored = model.categories["simple_python"]
    assert [c.id for c in scored.cases] == ["simple_python_0", "simple_python_3"]
    assert [c.verdict.valid for c in scored.cases] == [True, False]
    assert scored.cases[1].verdict.error_type == "ast_decoder:decoder_failed"
    assert scored.partial and scored.dataset_size == 400
    problems = "\n".join(model.problems)
    assert ":2: malformed JSON line skipped" in problems
    assert "simple_python_9999" in problems
    assert "duplicate id 'simple_python_0'" in problems
    assert ":5: not a result entry" in problems
    assert all("\n" not in p for p in model.problems)


def test_missing_category_file_is_reported(fetched_home: Path, tmp_path: Path) -> None:
    write_model(tmp_path, [GOOD])
    report = evaluate(tmp_path, category_names=["simple_python,multiple"])
    assert any("no result file for multiple" in p for p in report.models["my-model"].problems)


def test_sql_and_chatable_are_kept_not_scored_and_never_missing(
    fetched_home: Path, tmp_path: Path
) -> None:
    folder = write_model(tmp_path, [GOOD])
    (folder / "non_live" / "BFCL_v4_sql_result.json").write_text(
        json.dumps({"id": "sql_0", "result": "[sql.execute(sql_keyword='SELECT')]"}))
    report = evaluate(tmp_path, category_names=["v1"])
    model = report.models["my-model"]
    assert model.not_scored == ["sql"] and "sql" not in model.categories
    problems = "\n".join(model.problems)
    assert "not scored (the official tool never scored them either), results kept: sql" in (
        problems)
    missing = next(p for p in model.problems if "no result file" in p)
    assert "exec_simple" in missing and "chatable" not in missing and "sql" not in missing


def test_unknown_model_and_folder(fetched_home: Path, tmp_path: Path) -> None:
    write_model(tmp_path, [GOOD])
    with pytest.raises(EvaluationError, match="no results for model"):
        evaluate(tmp_path, models=["other"])
    with pytest.raises(EvaluationError, match="not found"):
        evaluate(tmp_path / "nope")


def test_cli_writes_official_score_files(fetched_home: Path, tmp_path: Path) -> None:
    write_model(tmp_path / "result", [GOOD, json.dumps({"id": "simple_python_1", "result": "[]"})])
    score_dir = tmp_path / "score"
    outcome = CliRunner().invoke(
        main, ["evaluate", "--result-dir", str(tmp_path / "result"), "--score-dir", str(score_dir)]
    )
    assert outcome.exit_code == 0, outcome.output
    lines = (score_dir / "my-model" / "non_live" / "BFCL_v4_simple_python_score.json").read_text()
    header, failure = map(json.loads, lines.splitlines())
    assert header == {"accuracy": 0.5, "correct_count": 1, "total_count": 2}
    assert failure["id"] == "simple_python_1"
    assert failure["error_type"] == "simple_function_checker:wrong_count"
    assert {"valid", "error", "prompt", "model_result_raw", "possible_answer"} <= set(failure)
    assert (score_dir / "data_overall.csv").is_file()
    assert "partial" in outcome.output


def test_cli_bad_category_and_corrupt_data(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_model(tmp_path / "result", [GOOD])
    runner = CliRunner()
    bad = runner.invoke(
        main,
        [
            "evaluate",
            "--result-dir",
            str(tmp_path / "result"),
            "--categories",
            "simple_pyton",
            "--no-write",
        ],
    )
    assert bad.exit_code == 2
    assert "unknown category or collection 'simple_pyton'" in bad.output
    home = tmp_path / "home"
    shutil.copytree(fetched_home, home)
    monkeypatch.setenv("FCBENCH_HOME", str(home))
    data_file = next(home.glob("releases/*/data/BFCL_v4_simple_python.json"))
    data_file.write_text(data_file.read_text().replace("triangle", "triangel", 1))
    corrupt = runner.invoke(
        main, ["evaluate", "--result-dir", str(tmp_path / "result"), "--no-write"]
    )
    assert corrupt.exit_code == 2
    message = corrupt.output.strip().splitlines()
    assert len(message) == 1 and "BFCL_v4_simple_python.json" in message[0]


def test_parallel_jobs_match_sequential_and_carry_errors(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_model(tmp_path, [GOOD, json.dumps({"id": "simple_python_1", "result": "[]"})])
    (folder / "non_live" / "BFCL_v4_irrelevance_result.json").write_text(
        json.dumps({"id": "irrelevance_0", "result": "I cannot answer."})
    )
    scores = {}
    for workers in (1, 2):
        report = evaluate(tmp_path, workers=workers, score_dir=tmp_path / f"score{workers}")
        model = report.models["my-model"]
        scores[workers] = {n: (c.correct, c.total) for n, c in model.categories.items()}
    assert scores[1] == scores[2] == {"simple_python": (1, 2), "irrelevance": (1, 1)}
    first = sorted(p.read_text() for p in (tmp_path / "score1").rglob("*_score.json"))
    second = sorted(p.read_text() for p in (tmp_path / "score2").rglob("*_score.json"))
    assert first == second
    home = tmp_path / "home"
    shutil.copytree(fetched_home, home)
    monkeypatch.setenv("FCBENCH_HOME", str(home))
    data_file = next(home.glob("releases/*/data/BFCL_v4_irrelevance.json"))
    data_file.write_bytes(data_file.read_bytes() + b" ")
    from fcbench.dataset.fetch import CorruptDataError, clear_caches

    clear_caches()
    with pytest.raises(CorruptDataError, match=r"BFCL_v4_irrelevance\.json"):
        evaluate(tmp_path, workers=2)


# -- Score-file lines built directly (FailureLines) against the general record path -------------


def _judged_sample(category: str) -> tuple[list[Any], dict[str, Any]]:
    """Failures of every shape and oddity (plus a pass and a skip), and their prompts."""
    from fcbench.core.model import TestCase, Verdict
    from fcbench.results.score_files import RawJSON

    answer = [{"f": {"x": [1, ""], "y": ["café"]}}]
    rows = [
        ("[f(x=1)]", Verdict.fail("value_error:int", "Wrong 'x'.", decoded=[{"f": {"x": 1}}])),
        ([{"f": '{"x": 1}'}], Verdict.fail("e:dict", "msg", {"Model Result Index 0": {"a": 1}})),
        ("x\x00", Verdict.fail("e:odd", ValueError("bad"), decoded=[{"f": {"s": {1}}}])),
        ("nan", Verdict.fail("e:nan", "m", decoded=[{"f": {"x": float("nan"), 2: None}}])),
        ("ran", Verdict.fail("exec:x", "m", decoded=[], model_executed_output=[{"r": (1,)}])),
        ("odd answer", Verdict.fail("e:answer", "m")),
        ("no prompt", Verdict.fail("e:prompt", "m", error={"error_message": "m"})),
        ("ok", Verdict.ok()),
        ("skip", Verdict(False, None, [], {"skipped": "needs a web service"})),
    ]
    judged, prompts = [], {}
    for index, (raw, verdict) in enumerate(rows):
        case = TestCase(
            f"{category}_{index}",
            category,
            [],
            [],
            [{"f": {"x": {1}}}] if raw == "odd answer" else answer,
        )
        if raw != "no prompt":
            prompts[case.id] = RawJSON(json.dumps({"id": case.id, "question": ["é"]}))
        judged.append((case, {"id": case.id, "result": raw}, verdict))
    return judged, prompts


def _expected_score_file(path: Path, category: Any, judged: list[Any], prompts: Any) -> None:
    """The score file as the general path writes it: dict records (possible answer as JSON
    text), the general encoder."""
    from fcbench.check.kinds.multi_turn import multi_turn_record
    from fcbench.check.records import failure_record
    from fcbench.core.categories import Checker
    from fcbench.dataset.slim import SlimCategory
    from fcbench.results.score_files import score_header, write_score_file

    texts = SlimCategory({c.id: c for c, _, _ in judged}, prompts)
    records = []
    for case, entry, verdict in judged:
        if verdict.valid or "skipped" in verdict.extras:
            continue
        if category.checker == Checker.MULTI_TURN:
            record = multi_turn_record("org/m", category, case, entry["result"], verdict,
                                       prompts.get(case.id), entry.get("inference_log", ""))
        else:
            relevance = category.checker in (Checker.IRRELEVANCE, Checker.RELEVANCE)
            record = failure_record("org/m", category, case, entry["result"], verdict,
                                    prompts.get(case.id), relevance=relevance)
        if "possible_answer" in record and texts.answer_text(case) is not None:
            record["possible_answer"] = texts.answer_text(case)
        records.append(record)
    skipped = [
        {"id": c.id, "reason": v.extras["skipped"]} for c, _, v in judged if "skipped" in v.extras
    ]
    write_score_file(
        path, score_header(1, len(judged) - 1, {"skipped_count": 1, "skipped": skipped}), records
    )


@pytest.mark.parametrize(
    "name", ["simple_python", "parallel", "live_relevance", "exec_simple", "multi_turn_base"]
)
def test_score_files_are_the_general_paths_bytes(tmp_path: Path, name: str) -> None:
    """What the job writes (lines built directly where possible) equals the general path."""
    from fcbench.check import registry
    from fcbench.check.registry import JudgeSettings
    from fcbench.core import categories
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.slim import SlimCategory
    from fcbench.evaluation import CategoryEvaluation
    from fcbench.evaluation.jobs import _write_score_file
    from fcbench.layout import score_path

    category = categories.get(name)
    judged, prompts = _judged_sample(name)
    evaluation = CategoryEvaluation(category, 100, correct=1, total=len(judged) - 1)
    expected = tmp_path / "expected.json"
    _expected_score_file(expected, category, judged, prompts)
    session = registry.get(category.checker).session(category, JudgeSettings(DEFAULT_RELEASE))
    try:
        data = SlimCategory({c.id: c for c, _, _ in judged}, prompts)
        # Written over a longer file first: the old content must not survive past the new end.
        path = score_path(tmp_path / "score", "org/m", name)
        path.parent.mkdir(parents=True)
        path.write_text("x" * 100_000)
        _write_score_file(tmp_path / "score", "org/m", evaluation, judged, data, session)
        assert path.read_bytes() == expected.read_bytes()
        # And into a fresh directory.
        _write_score_file(tmp_path / "fresh", "org/m", evaluation, judged, data, session)
        fresh = score_path(tmp_path / "fresh", "org/m", name)
        assert fresh.read_bytes() == expected.read_bytes()
    finally:
        session.close()


def test_lone_surrogates_in_answers_are_scored_and_written_back_exactly(
    fetched_home: Path, tmp_path: Path
) -> None:
    """JSON can carry a lone surrogate ("\\ud800"), which UTF-8 cannot encode: the score file
    holds it as the same JSON escape instead of the run stopping."""
    odd = "[f(a='\ud800')]"
    write_model(
        tmp_path / "result",
        [
            GOOD,
            json.dumps({"id": "simple_python_1", "result": odd}),
            json.dumps({"id": "simple_python_2", "result": [{"f\udcff": "{}"}]}),
        ],
    )
    evaluate(tmp_path / "result", score_dir=tmp_path / "score")
    (score_file,) = (tmp_path / "score").rglob("BFCL_v4_simple_python_score.json")
    records = [json.loads(line) for line in score_file.read_text(encoding="utf-8").splitlines()]
    assert records[0]["correct_count"] == 1
    assert records[1]["model_result_raw"] == odd
    assert records[2]["model_result_raw"] == [{"f\udcff": "{}"}]


def test_hostile_result_lines_are_warnings_and_the_rest_scored(fetched_home: Path,
                                                               tmp_path: Path) -> None:
    write_model(tmp_path, [GOOD, *RESULT_LINES.values()])
    report = evaluate(tmp_path)
    model = report.models["my-model"]
    scored = model.categories["simple_python"]
    assert scored.cases[0].id == "simple_python_0" and scored.cases[0].verdict.valid
    assert len(model.problems) >= 5 and all("\n" not in p for p in model.problems)
    assert any(":2: JSON line nested too deeply" in p for p in model.problems)


def test_one_hostile_model_json_leaves_only_that_model_out(fetched_home: Path,
                                                          tmp_path: Path) -> None:
    good = write_model(tmp_path, [GOOD])
    for index, text in enumerate(MODEL_JSONS.values()):
        bad = tmp_path / f"bad-{index}"
        shutil.copytree(good, bad)
        (bad / "model.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    report = evaluate(tmp_path)
    assert list(report.models) == ["my-model"]
    assert report.models["my-model"].categories["simple_python"].cases[0].verdict.valid
    assert len(report.problems) == len(MODEL_JSONS)
    for index, problem in enumerate(sorted(report.problems)):
        assert problem.startswith(str(tmp_path / f"bad-{index}" / "model.json"))
        assert "\n" not in problem
