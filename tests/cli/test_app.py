"""`fcbench evaluate` and the command line's error style."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def ground_truth(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A result folder: ground-truth answers to multi_turn_base and multiple."""
    root = tmp_path_factory.mktemp("gt")
    result = cli("generate", "--model", "ground-truth", "--categories",
                 "multi_turn_base,multiple", "--result-dir", str(root / "result"))
    assert result.exit_code == 0, result.output
    return root / "result"


def test_nothing_scored_is_one_line_and_a_failing_status(ground_truth: Path,
                                                         tmp_path: Path) -> None:
    result = cli("evaluate", "--result-dir", str(ground_truth), "--score-dir",
                 str(tmp_path / "score"), "--categories", "simple_python")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1].startswith("fcbench: error: nothing was scored")
    assert "no result file for simple_python" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "score").exists()


def test_a_folder_without_result_files_is_one_line_and_status_1(tmp_path: Path) -> None:
    results = tmp_path / "result"
    (results / "some-model").mkdir(parents=True)
    result = cli("evaluate", "--result-dir", str(results), "--score-dir",
                 str(tmp_path / "score"))
    assert result.exit_code == 1
    assert result.stderr == f"fcbench: error: nothing to score: no result files in {results}\n"
    assert not (tmp_path / "score").exists()


def test_empty_categories_are_refused(ground_truth: Path) -> None:
    result = cli("evaluate", "--result-dir", str(ground_truth), "--categories", "")
    assert result.exit_code == 2
    assert result.stderr == "fcbench: error: --categories names no category (it is empty)\n"


def test_click_errors_take_the_same_style() -> None:
    result = CliRunner().invoke(main, ["evaluate", "--no-such-flag"], prog_name="fcbench")
    assert result.exit_code == 2
    assert result.stderr == ("fcbench: error: No such option '--no-such-flag' "
                             "(see: fcbench evaluate --help)\n")
    assert cli("nope").stderr.startswith("fcbench: error: No such command 'nope'")
    assert cli("--help").exit_code == 0


def test_evaluate_a_smoke_selection_of_a_full_run(ground_truth: Path, tmp_path: Path) -> None:
    result = cli("evaluate", "--result-dir", str(ground_truth), "--score-dir",
                 str(tmp_path / "score"), "--limit", "4")
    assert result.exit_code == 0, result.output
    headers = {p.name: json.loads(p.read_text().splitlines()[0])
               for p in (tmp_path / "score").rglob("*_score.json")}
    assert headers["BFCL_v4_multiple_score.json"]["total_count"] == 4
    assert headers["BFCL_v4_multi_turn_base_score.json"]["total_count"] == 4
    assert "100.00*" in result.stdout and "Smoke run (--limit 4)" in result.stderr
    picked = cli("evaluate", "--result-dir", str(ground_truth), "--no-write",
                 "--ids", "multiple_7,multiple_8")
    assert picked.exit_code == 0 and "multi_turn_base" not in picked.stdout


def test_a_custom_dataset_with_some_categories_scores_what_is_there(
    ground_truth: Path, fetched_home: Path, tmp_path: Path
) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    data = fetched_home / "releases" / DEFAULT_RELEASE / "data"
    custom = tmp_path / "data"
    (custom / "possible_answer").mkdir(parents=True)
    shutil.copy(data / "BFCL_v4_multiple.json", custom)
    shutil.copy(data / "possible_answer" / "BFCL_v4_multiple.json", custom / "possible_answer")
    result = cli("evaluate", "--result-dir", str(ground_truth), "--score-dir",
                 str(tmp_path / "score"), "--data-dir", str(custom))
    assert result.exit_code == 0, result.output
    assert f"not in the dataset folder {custom}, skipped: multi_turn_base" in result.output
    scored = sorted(p.name for p in (tmp_path / "score").rglob("*_score.json"))
    assert scored == ["BFCL_v4_multiple_score.json"]


def test_evaluate_groups_warnings_on_stderr_ends_with_top_errors_and_writes_the_report(
    ground_truth: Path, tmp_path: Path
) -> None:
    results = tmp_path / "result"
    shutil.copytree(ground_truth, results)
    shutil.copytree(results / "ground-truth-FC", results / "other-FC")
    answers = results / "other-FC" / "non_live" / "BFCL_v4_multiple_result.json"
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    for row in rows[:7]:  # wrong function names
        row["result"] = [{"no_such_function": "{}"}]
    for row in rows[7:10]:  # not a call
        row["result"] = "I cannot help"
    answers.write_text("".join(json.dumps(row) + "\n" for row in rows))
    score = tmp_path / "score"
    result = cli("evaluate", "--result-dir", str(results), "--score-dir", str(score),
                 "--categories", "multiple,simple_python")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "2 similar warnings" in warnings[0], result.stderr
    assert "simple_python" in warnings[0] and "warning" not in result.stdout
    records = [json.loads(line) for line in (score / "other-FC" / "non_live" /
               "BFCL_v4_multiple_score.json").read_text().splitlines()[1:]]
    counts: dict[str, int] = {}
    for record in records:
        counts[record["error_type"]] = counts.get(record["error_type"], 0) + 1
    assert sorted(counts.values()) == [3, 7]
    tail = result.stdout.split("Top error types")[1]
    expected = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(),
                                                             key=lambda kv: -kv[1]))
    assert f"multiple: {expected}" in tail
    assert (score / "report.html").is_file() and "report: " in result.stderr
    quiet = cli("evaluate", "--result-dir", str(results), "--score-dir", str(tmp_path / "s2"),
                "--categories", "multiple", "--no-report")
    assert quiet.exit_code == 0 and not (tmp_path / "s2" / "report.html").exists()


def test_one_model_folder_is_scored_as_that_model(fetched_home: Path, tmp_path: Path) -> None:
    """`--result-dir <model folder>` (model.json and group folders inside): scored as the
    model its folder names, with its model.json's encoding; FC ground truth is 100%."""
    results = tmp_path / "r"
    made = cli("generate", "--model", "ground-truth", "--categories", "simple_python",
               "--limit", "20", "--result-dir", str(results))
    assert made.exit_code == 0, made.output
    folder = results / "ground-truth-FC"
    renamed = tmp_path / "gt-copy"  # no -FC in the name: only model.json says it is FC
    shutil.copytree(folder, renamed)
    for one in (folder, renamed):
        score = tmp_path / f"score-{one.name}"
        result = cli("evaluate", "--result-dir", str(one), "--score-dir", str(score),
                     "--categories", "simple_python", "--limit", "20")
        assert result.exit_code == 0, result.output
        files = list(score.rglob("*_score.json"))
        assert [p.relative_to(score).parts[0] for p in files] == [one.name]
        header = json.loads(files[0].read_text().splitlines()[0])
        assert header["accuracy"] == 1.0 and header["total_count"] == 20, header


def test_evaluate_offers_the_defaults_of_the_library_and_of_run() -> None:
    """`fcbench evaluate`, `fcbench.evaluate` and `fcbench run` share one definition of each
    default (`core.defaults`): fails when one of them writes its own."""
    import inspect
    from pathlib import Path

    from fcbench import api
    from fcbench.cli.app import evaluate
    from fcbench.run_config import DEFAULTS

    flags = {param.name: param.default for param in evaluate.params}
    library = inspect.signature(api.evaluate).parameters
    assert flags["exec_backend"] == library["exec_backend"].default == DEFAULTS.exec.backend
    assert Path(flags["result_dir"]) == Path(DEFAULTS.output.result_dir)


CRASH = """
import sys
import fcbench.dataset.install as install

def check_source(source):
    raise MemoryError(f"while copying {source} from http://u:crash-url-pass-1@h/?api_key=x1234567")

install.check_source = check_source
from fcbench.cli import main
sys.argv = ["fcbench", *sys.argv[1:]]
main()
"""


def test_an_uncaught_exception_is_printed_masked_traceback_and_all(tmp_path: Path) -> None:
    """Issue 31 item 2: an error no handler catches (here a MemoryError forced into `data
    fetch --from` a path named after a key) is shown through the redaction, its traceback
    too, with one `fcbench: error:` line naming the log file that holds the traceback, and
    status 1; not Python's raw traceback."""
    import os
    import subprocess
    import sys

    key = "sk-crash-key-0123456789"
    source = tmp_path / key
    source.mkdir()
    env = {**os.environ, "OPENAI_API_KEY": key, "FCBENCH_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-c", CRASH, "data", "fetch", "--from", str(source)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("fcbench: error: internal error (MemoryError: while copying")
    assert f"{tmp_path}/***" in line
    log = Path(line.rsplit("traceback in ", 1)[1])
    traceback = log.read_text()
    log.unlink()
    assert "Traceback" in traceback and "check_source" in traceback
    assert all(s not in proc.stderr + proc.stdout + traceback
               for s in (key, "crash-url-pass-1", "x1234567"))
