"""The Markdown summary: a table people can paste into a pull request."""

from __future__ import annotations

from pathlib import Path

from fcbench.report.markdown import PARTIAL_NOTE, summary_markdown


def test_summary_table_categories_and_top_errors() -> None:
    document = {
        "meta": {"interval": "Wilson score interval, 95%"},
        "categories": ["simple_python", "multiple"],
        "models": [{
            "name": "m",
            "summaries": [["Overall", 0.5, "50.00"], ["Live", None, "N/A"]],
            "scores": {"simple_python": {"accuracy": 0.75, "ci": [0.7, 0.8]}},
            "errors": {"simple_python": {"value_error:string": 2, "type_error:simple": 5}},
        }],
    }
    text = summary_markdown(document)
    assert "| model | V4 Overall | Live |" in text
    assert "| m | 50.00 | N/A |" in text
    assert "| simple_python | 75.00 [70.00–80.00] |" in text
    assert "| multiple | N/A |" in text
    assert "- simple_python: `type_error:simple` 5, `value_error:string` 2" in text


def test_texts_from_inputs_cannot_become_markup_or_cells() -> None:
    from fcbench.report.markdown import code, text

    assert text("<b>x</b> | y\nz") == "&lt;b&gt;x&lt;/b&gt; \\| y z"
    assert text("simple_python") == "simple_python"  # GFM: no emphasis inside a word
    assert text("_a_ *b* [c](d) `e`") == "\\_a\\_ \\*b\\* \\[c\\](d) \\`e\\`"
    assert code("value_error:string") == "`value_error:string`"
    assert code("a``b|c") == "```a``b\u2758c```" and code("`x") == "`` `x ``"


def test_a_limit_run_is_marked_partial_and_no_error_types_leave_no_heading(
        fetched_home: Path, tmp_path: Path) -> None:
    """Through the CLI: a `--limit` run's summaries and category carry `*` with the note
    saying what it means, an incomplete summary `‡` with the line saying what it misses (the
    terminal's); the ground truth makes no errors, so there is no error heading."""
    from click.testing import CliRunner

    from fcbench.cli import main

    result, score = tmp_path / "r", tmp_path / "s"
    ran = CliRunner().invoke(main, ["run", "--model", "ground-truth", "--categories",
                                    "simple_python", "--limit", "5", "--result-dir", str(result),
                                    "--score-dir", str(score)], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    summary = tmp_path / "summary.md"
    made = CliRunner().invoke(main, ["report", str(score), "--result-dir", str(result), "-o",
                                     str(tmp_path / "report.html"), "--markdown", str(summary)],
                              catch_exceptions=False)
    assert made.exit_code == 0, made.output
    text = summary.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| ground-truth-FC |"))
    overall = row.split("|")[2].strip()  # partial (--limit) and incomplete (one category)
    assert overall.endswith("\\*‡") and float(overall.removesuffix("\\*‡")) > 0
    assert "‡ incomplete: V4 Overall: 1 of 5 groups run" in text
    assert "| simple_python | 100.00\\* [" in text
    assert PARTIAL_NOTE in text.splitlines()
    assert "Top error types" not in text


def test_complete_scores_carry_no_partial_mark() -> None:
    document = {
        "meta": {"interval": "Wilson score interval, 95%"},
        "categories": ["simple_python"],
        "models": [{"name": "m", "summaries": [["Overall", 0.5, "50.00", 0]],
                    "scores": {"simple_python": {"accuracy": 0.5, "ci": None, "total": 380,
                                                 "size": 400, "skipped": 20}},
                    "errors": {}}],
    }
    text = summary_markdown(document)
    assert "| m | 50.00 |" in text and "| simple_python | 50.00 †20 skipped |" in text
    assert "\\*" not in text and "Top error types" not in text
