"""`fcbench export`: each format written to a file or stdout, bad input as one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from export_fixtures import FOLDER, MODEL, Scored, scored, write_scores
from fcbench.cli import main
from fcbench.export import EXPORTERS

__all__ = ["scored"]  # the fixture, shared with tests/export



def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("name", sorted(set(EXPORTERS) - {"inspect"}))  # files: test_samples
def test_each_format_is_written(scored: Scored, tmp_path: Path, name: str) -> None:
    out = tmp_path / "out" / f"{name}.json"
    result = cli("export", "--format", name, str(scored.score_dir), "--result-dir",
                 str(scored.result_dir), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert MODEL in json.dumps(document)


def test_stdout_by_default_and_the_fcbench_format(scored: Scored) -> None:
    result = cli("export", str(scored.score_dir))
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["format"] == "fcbench-results"
    assert document["models"][0]["model"] == FOLDER


def test_bad_input_is_one_line(scored: Scored, tmp_path: Path) -> None:
    write_scores(scored.score_dir, "other", {"simple_python": (1, 400)}, scored.sizes)
    cases = [
        (("export", str(tmp_path / "nowhere")), "no such score folder"),
        (("export", "--format", "lm-eval", str(scored.score_dir)), "pass --model"),
        (("export", "--model", "nobody", str(scored.score_dir)), "no score files for nobody"),
        (("export", str(scored.score_dir), "-o", str(scored.score_dir)), "cannot write"),
    ]
    for args, message in cases:
        result = cli(*args)
        assert result.exit_code == 2, args
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("fcbench: error:") and message in line, line
        assert "Traceback" not in result.output


def test_one_model_by_name_or_folder(scored: Scored) -> None:
    write_scores(scored.score_dir, "other", {"simple_python": (1, 400)}, scored.sizes)
    for chosen in (MODEL, FOLDER):
        result = cli("export", "--format", "lm-eval", "--model", chosen, str(scored.score_dir),
                     "--result-dir", str(scored.result_dir))
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["model_name"] == MODEL


def test_listed_in_the_help() -> None:
    result = cli("--help")
    assert "export" in result.output
