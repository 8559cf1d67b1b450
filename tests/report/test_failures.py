"""`fcbench failures`: failed cases with question, expected answer, decoded calls and error;
filters; plain text when piped; texts from the inputs printed as they are."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from fcbench.cli import main
from fcbench.results.score_files import write_category_score
from fcbench.score.aggregate import CategoryScore

MARKUP = "[bold red]x[/] <b>y</b> \x1b[31m"


def score_folder(tmp_path: Path, size: int) -> Path:
    folder = tmp_path / "score"
    write_category_score(folder, "m", CategoryScore("simple_python", size - 2, size, size), [
        {"id": "simple_python_3", "error_type": "value_error:string",
         "error": f"wrong value {MARKUP}", "model_result_decoded": [{"f": {"a": 1}}]},
        {"id": "simple_python_7", "error_type": "type_error:simple", "error": ["int, not str"],
         "model_result_raw": "f(a='1')"},
    ])
    return folder


def test_failed_cases_with_their_question_expected_decoded_and_error(
    fetched_home: Path, tmp_path: Path
) -> None:
    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category

    size = dataset_sizes(DEFAULT_RELEASE, None)["simple_python"]
    folder = score_folder(tmp_path, size)
    case = next(c for c in load_category("simple_python", DEFAULT_RELEASE, None)
                if c.id == "simple_python_3")
    runner = CliRunner()
    result = runner.invoke(main, ["failures", str(folder)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("simple_python_3  simple_python  value_error:string\n  question: ")
    assert case.question[0][0]["content"][:40] in out  # the data set's question
    assert "  expected: [" in out and '  decoded:  [{"f": {"a": 1}}]' in out
    # Markup printed as it is; the terminal escape character shown, not sent.
    assert "  error:    wrong value [bold red]x[/] <b>y</b> \\x1b[31m\n" in out
    assert "\x1b" not in out
    assert "simple_python_7  simple_python  type_error:simple" in out
    assert "  decoded:  f(a='1')" in out  # no decoded form: the raw output
    only = runner.invoke(main, ["failures", f"{folder}:m", "--error-type", "type_error"])
    assert only.stdout.startswith("simple_python_7") and "simple_python_3" not in only.stdout
    first = runner.invoke(main, ["failures", str(folder), "--limit", "1"]).stdout
    assert "simple_python_7" not in first and "--limit 0 shows all" in first
    none = runner.invoke(main, ["failures", str(folder), "--id", "_99"])
    assert none.exit_code == 0 and none.stdout == "" and "no failed case" in none.stderr
    bad = runner.invoke(main, ["failures", str(folder), "--category", "multiple"])
    assert bad.exit_code == 2 and bad.stderr == (
        "fcbench: error: m has no score file for multiple\n")
