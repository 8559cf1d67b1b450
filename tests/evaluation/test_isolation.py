"""One odd case never costs the others (issue 30): a state no writer expected, a checker,
failure record or report detail that raises on one case; and the files `evaluate` writes are
never written through a symlink planted in the output folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.evaluation import evaluate
from fcbench.results.score_files import error_type_of, read_score_file

GROUND_TRUTH = {
    "multi_turn_base_1": [
        ["ls(a=True)"], ["cd(folder='workspace')", "mv(source='log.txt',destination='archive')"],
        ["cd(folder='archive')", "grep(file_name='log.txt',pattern='Error')"],
        ["tail(file_name='log.txt',lines=20)"],
    ],
    # TradingBot's initial orders are keyed by str ('12345', and the official data's stray
    # 'order_type'); place_order adds an int id: a state with mixed key types.
    "multi_turn_base_102": [
        ["place_order(order_type='Buy',symbol='TSLA',price=700,amount=50)"],
        ["get_order_details(order_id=12446)"], ["cancel_order(order_id=12446)"],
        ["get_account_info()"],
        ["create_ticket(title='Account Information Error',description='x')"],
    ],
}
ODD = "multi_turn_base_102"


def multi_turn_results(root: Path, model: str = "my-model",
                       edits: dict[str, str] | None = None) -> Path:
    """A prompt-mode multi-turn result file: a ground-truth answer and one that ends in a
    TradingBot state whose `orders` mixes int and str keys (`edits`: text replaced in the
    calls)."""
    folder = root / model
    (folder / "multi_turn").mkdir(parents=True)
    (folder / "model.json").write_text(json.dumps({"mode": "prompt"}))
    lines = [json.dumps({"id": case_id, "result": [
        [_edited(f"[{', '.join(calls)}]", edits or {})] for calls in turns]})
        for case_id, turns in GROUND_TRUTH.items()]
    (folder / "multi_turn" / "BFCL_v4_multi_turn_base_result.json").write_text("\n".join(lines))
    return folder


def _edited(text: str, edits: dict[str, str]) -> str:
    for old, new in edits.items():
        text = text.replace(old, new)
    return text


def verdicts(report: Any, model: str = "my-model") -> dict[str, tuple[bool, str | None]]:
    scored = report.models[model].categories["multi_turn_base"]
    return {c.id: (c.verdict.valid, c.verdict.error_type) for c in scored.cases}


EXPECTED = {"multi_turn_base_1": (True, None),
            ODD: (False, "multi_turn:instance_state_mismatch")}


def test_evaluate_with_the_report_scores_an_odd_state(fetched_home: Path, tmp_path: Path) -> None:
    """`fcbench evaluate` as a user runs it (report on, the default) on the state that took
    it down: exit 0, the score file, the CSVs and the report written, the diff in it."""
    multi_turn_results(tmp_path / "result")
    # the right order, then a ticket whose title holds a line separator and an emoji: the
    # TicketAPI state differs, and its record keeps U+2028 raw
    multi_turn_results(tmp_path / "result", "unicode-model", {
        "amount=50": "amount=100",
        "title='Account Information Error'": "title='Fehler\u2028im Konto \U0001f642'"})
    outcome = CliRunner().invoke(main, ["evaluate", "--result-dir", str(tmp_path / "result")])
    assert outcome.exit_code == 0, outcome.output
    score = tmp_path / "score"
    for model in ("my-model", "unicode-model"):
        header, record = (json.loads(line) for line in (
            score / model / "multi_turn" / "BFCL_v4_multi_turn_base_score.json"
        ).read_text().split("\n") if line)
        assert (header["correct_count"], header["total_count"]) == (1, 2)
        assert record["id"] == ODD
        assert error_type_of(record) == "multi_turn:instance_state_mismatch"
    assert "Model instance for TicketAPI" in record["error"]["error_message"]
    assert "\u2028" in json.dumps(record["error"]["details"], ensure_ascii=False)
    assert (score / "data_overall.csv").is_file() and (score / "leaderboard.json").is_file()
    assert (score / "report.html").stat().st_size > 10_000
    assert "no HTML report" not in outcome.output
    again = CliRunner().invoke(main, ["report", str(score), "-o", str(tmp_path / "again.html")])
    assert again.exit_code == 0, again.output
    for model in ("my-model", "unicode-model"):  # as `fcbench report` reads them back
        _, records = read_score_file(score / model / "multi_turn" /
                                     "BFCL_v4_multi_turn_base_score.json")
        assert [r["id"] for r in records] == [ODD]


# -- Per-case isolation -----------------------------------------------------------------------


def _raise_on(case_id: str, real: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if any(getattr(a, "id", None) == case_id for a in args) or any(
                isinstance(a, dict) and a.get("id") == case_id for a in args):
            raise RuntimeError(f"injected fault on {case_id}")
        return real(*args, **kwargs)
    return wrapped


@pytest.mark.parametrize("workers", [1, 2])
def test_a_checker_that_raises_fails_only_its_case(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    from fcbench.check import multi_turn as checker

    multi_turn_results(tmp_path / "result")
    (tmp_path / "result" / "my-model" / "multi_turn" / "BFCL_v4_multi_turn_long_context_result.json"
     ).write_text("")  # a second job, so that two workers run
    monkeypatch.setattr(checker, "judge_multi_turn", _raise_on("multi_turn_base_1",
                                                               checker.judge_multi_turn))
    report = evaluate(tmp_path / "result", score_dir=tmp_path / "score", workers=workers)
    assert "multi_turn_long_context" in report.models["my-model"].categories  # two jobs
    assert verdicts(report) == {**EXPECTED,
                                "multi_turn_base_1": (False, "fcbench:internal_error")}
    problems = report.models["my-model"].problems
    [line] = [p for p in problems if "multi_turn_base_1" in p]
    assert "RuntimeError: injected fault on multi_turn_base_1" in line and "\n" not in line
    records = (tmp_path / "score" / "my-model" / "multi_turn" /
               "BFCL_v4_multi_turn_base_score.json").read_text().splitlines()
    internal = json.loads(records[1])
    assert internal["id"] == "multi_turn_base_1"
    assert error_type_of(internal) == "fcbench:internal_error"
    assert "injected fault" in json.dumps(internal["error"])


def test_an_answer_that_cannot_be_memo_keyed_is_judged_all_the_same(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memo key is a cache: a key that raises (an answer too deep or too big to write)
    means no sharing, not a failure."""
    from fcbench.check.kinds.multi_turn import MultiTurnSession

    def unkeyable(*args: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(MultiTurnSession, "memo_key", unkeyable)
    multi_turn_results(tmp_path / "result")
    report = evaluate(tmp_path / "result", workers=1)
    assert verdicts(report) == EXPECTED
    assert report.models["my-model"].problems == []


def test_a_failure_record_that_raises_is_recorded_and_the_file_written(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.check.kinds import multi_turn as kind

    multi_turn_results(tmp_path / "result")
    monkeypatch.setattr(kind, "multi_turn_record", _raise_on(ODD, kind.multi_turn_record))
    report = evaluate(tmp_path / "result", score_dir=tmp_path / "score", workers=1)
    assert verdicts(report) == EXPECTED  # the verdict stands; only its record is replaced
    [line] = [p for p in report.models["my-model"].problems if ODD in p]
    assert "failure record" in line and "injected fault" in line
    _, record = (json.loads(x) for x in (tmp_path / "score" / "my-model" / "multi_turn" /
                                         "BFCL_v4_multi_turn_base_score.json").read_text()
                 .splitlines())
    assert record["id"] == ODD
    assert error_type_of(record) == "multi_turn:instance_state_mismatch"
    assert "injected fault" in json.dumps(record)


def test_a_report_detail_that_raises_becomes_a_note(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.report.html import cases

    multi_turn_results(tmp_path / "result")
    real = cases.multi_turn_detail
    monkeypatch.setattr(cases, "multi_turn_detail", lambda entry, failure: (
        (_ for _ in ()).throw(RuntimeError("injected fault")) if (entry or {}).get("id") == ODD
        else real(entry, failure)))
    from fcbench import api

    report = api.evaluate(tmp_path / "result", score_dir=tmp_path / "score", workers=1,
                          report_cases=True)
    assert verdicts(report) == EXPECTED
    run = report.models["my-model"].categories["multi_turn_base"].report_run
    assert run is not None
    detail = run.details[ODD]
    assert "injected fault" in detail["error"]
    assert any(ODD in p and "report" in p for p in report.models["my-model"].problems)


# -- Writers never follow a planted symlink ---------------------------------------------------


def _plant(folder: Path, names: list[str], targets: Path) -> dict[Path, Path]:
    """A symlink at each name (and at its old fixed temporary name, `<name>.tmp`) to a file
    outside the folder; {link: target}."""
    planted = {}
    for index, name in enumerate(names):
        for suffix in ("", ".tmp"):
            link = folder / f"{name}{suffix}"
            target = targets / f"{index}{suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("precious")
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target)
            planted[link] = target
    return planted


def test_no_writer_follows_a_planted_symlink(fetched_home: Path, tmp_path: Path) -> None:
    """Every file `evaluate` and `report` write into a score folder (score files, usage
    files, the CSVs, leaderboard.json, report.html, a Markdown summary), each found by a
    first run, is planted as a symlink before a second: the links are replaced by files, their
    targets keep their bytes."""
    multi_turn_results(tmp_path / "result")
    first = tmp_path / "first"
    runner = CliRunner()
    outcome = runner.invoke(main, ["evaluate", "--result-dir", str(tmp_path / "result"),
                                   "--score-dir", str(first)])
    assert outcome.exit_code == 0, outcome.output
    names = sorted(str(p.relative_to(first)) for p in first.rglob("*") if p.is_file())
    assert {"data_overall.csv", "data_non_live.csv", "leaderboard.json", "report.html",
            "my-model/multi_turn/BFCL_v4_multi_turn_base_score.json"} <= set(names)
    second = tmp_path / "second"
    planted = _plant(second, [*names, "summary.md"], tmp_path / "targets")
    outcome = runner.invoke(main, ["evaluate", "--result-dir", str(tmp_path / "result"),
                                   "--score-dir", str(second)])
    assert outcome.exit_code == 0, outcome.output
    outcome = runner.invoke(main, ["report", str(second), "-o", str(second / "report.html"),
                                   "--markdown", str(second / "summary.md")])
    assert outcome.exit_code == 0, outcome.output
    assert {str(t): t.read_text() for t in planted.values()} == {
        str(t): "precious" for t in planted.values()}
    for name in [*names, "summary.md"]:
        assert (second / name).is_file() and not (second / name).is_symlink(), name


def test_result_and_model_json_rewrites_follow_no_planted_temporary(tmp_path: Path) -> None:
    from fcbench.results.store import CategoryStore, write_json_atomic

    target = tmp_path / "outside"
    target.write_text("precious")
    (tmp_path / "model.json.tmp").symlink_to(target)
    write_json_atomic(tmp_path / "model.json", {"mode": "fc"})
    store = CategoryStore(tmp_path / "BFCL_v4_simple_python_result.json")
    store.open()
    store.append({"id": "simple_python_0", "result": "[]"})
    store.append({"id": "simple_python_1", "result": "[]"})
    (tmp_path / "BFCL_v4_simple_python_result.json.tmp").symlink_to(target)
    store.drop(["simple_python_0"])
    store.close()
    assert target.read_text() == "precious"
    assert json.loads((tmp_path / "model.json").read_text()) == {"mode": "fc"}
    assert "simple_python_0" not in store.path.read_text()


# -- The report is an output of its own; an internal fault is one line naming its log ---------


def test_a_report_that_cannot_be_built_leaves_the_scores_and_exit_0(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.report.html import collect

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("'<' not supported between instances of 'str' and 'int'")

    monkeypatch.setattr(collect, "collect", broken)
    multi_turn_results(tmp_path / "result")
    outcome = CliRunner().invoke(main, ["evaluate", "--result-dir", str(tmp_path / "result")])
    assert outcome.exit_code == 0, outcome.output
    score = tmp_path / "score"
    assert (score / "my-model" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json").is_file()
    assert (score / "data_overall.csv").is_file() and (score / "leaderboard.json").is_file()
    assert not (score / "report.html").exists()
    [line] = [x for x in outcome.output.splitlines() if "no HTML report" in x]
    assert "TypeError" in line and str(score / "report_error.log") in line
    assert ", in broken" in (score / "report_error.log").read_text()
    assert "Traceback" not in outcome.output


def test_an_internal_fault_is_one_line_naming_its_traceback(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault of fcbench's outside any case (here: in the job itself, in a worker process)
    ends the command with one line; the log it names holds the worker's traceback."""
    from fcbench.evaluation import jobs

    def broken_job(job: Any, request: Any) -> Any:
        raise RuntimeError("a fault in the job")

    monkeypatch.setattr(jobs, "run_job", broken_job)
    multi_turn_results(tmp_path / "result")
    (tmp_path / "result" / "my-model" / "multi_turn" / "BFCL_v4_multi_turn_long_context_result.json"
     ).write_text("")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    outcome = CliRunner().invoke(main, ["evaluate", "--result-dir", str(tmp_path / "result")])
    assert outcome.exit_code == 1
    [line] = outcome.output.strip().splitlines()
    assert line.startswith("fcbench: error: internal error (RuntimeError: a fault in the job")
    log = Path(line.rsplit("traceback in ", 1)[1].rstrip(")"))
    text = log.read_text()
    log.unlink()
    assert "Raised in a worker process" in text and "broken_job" in text


def test_a_detail_that_raises_when_the_report_reads_the_files_back_becomes_a_note(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fcbench report` on a score folder (the details made from the score files): one case
    whose detail raises is a note in the page and a problem line; the report is written."""
    from fcbench.report.html import collect, write_report

    multi_turn_results(tmp_path / "result")
    evaluate(tmp_path / "result", score_dir=tmp_path / "score", workers=1)
    real_detail, real_collect = collect.failure_detail, collect.collect
    monkeypatch.setattr(collect, "failure_detail", lambda category, entry, failure: (
        (_ for _ in ()).throw(RuntimeError("injected fault")) if failure.get("id") == ODD
        else real_detail(category, entry, failure)))
    documents: list[Any] = []
    monkeypatch.setattr(collect, "collect", lambda *a, **k: documents.append(
        real_collect(*a, **k)) or documents[-1])
    out = tmp_path / "report.html"
    assert write_report([tmp_path / "score"], None, out) == [out]
    [document] = documents
    assert any("injected fault" in d["error"] for d in document["details"])
    [line] = [p for p in document["problems"] if ODD in p]
    assert "the report's case detail failed (RuntimeError: injected fault)" in line
