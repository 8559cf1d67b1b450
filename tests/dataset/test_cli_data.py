"""`fcbench data fetch` and `fcbench data list`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from fcbench.cli.data import data
from fcbench.dataset.fetch import DEFAULT_RELEASE


def test_data_is_a_click_group() -> None:
    assert isinstance(data, click.Group)
    assert set(data.commands) == {"fetch", "fetch-embeddings", "list", "releases", "validate",
                                  "diff"}


def test_import_is_cheap() -> None:
    code = (
        "import sys, fcbench.cli.data; "
        "print(sorted(m for m in ('rich', 'fcbench.dataset.fetch', 'fcbench.dataset.load') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_fetch_from_wheel(empty_home: Path, bfcl_wheel: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(data, ["fetch", "--from", str(bfcl_wheel)])
    assert first.exit_code == 0, first.output
    assert f"bfcl-eval {DEFAULT_RELEASE} data installed in {empty_home}" in first.output
    second = runner.invoke(data, ["fetch", "--from", str(bfcl_wheel)])
    assert second.exit_code == 0 and "already present" in second.output
    forced = runner.invoke(data, ["fetch", "--from", str(bfcl_wheel), "--force"])
    assert forced.exit_code == 0 and "installed" in forced.output


def test_fetch_errors_are_one_line(empty_home: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(data, ["fetch", "--from", str(tmp_path / "missing.whl")])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1


def test_fetch_offline(empty_home: Path, offline_pip: None) -> None:
    result = CliRunner().invoke(data, ["fetch"])
    assert result.exit_code == 1
    assert "could not download" in result.output and "--from" in result.output


def test_wrong_release_for_wheel(empty_home: Path, bfcl_wheel: Path) -> None:
    result = CliRunner().invoke(data, ["fetch", "--release", "1.0", "--from", str(bfcl_wheel)])
    assert result.exit_code == 1 and f"--release {DEFAULT_RELEASE}" in result.output


def test_list_with_data(home: Path) -> None:
    result = CliRunner().invoke(data, ["list"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert re.search(r"live_multiple\s+│\s+1053\s+│\s+v2\s+│\s+live\s+│\s+ast_multiple", out)
    assert re.search(r"exec_simple\s+│\s+100\s+│.*│\s+yes", out)
    assert re.search(r"format_sensitivity\s+│\s+5200", out)
    assert "Collections" in out
    assert re.search(r"web_search\s+│\s+web_search_base, web_search_no_snippet", out)


def test_list_without_data(empty_home: Path) -> None:
    result = CliRunner().invoke(data, ["list"])
    assert result.exit_code == 0
    assert "fcbench data fetch" in result.stderr
    assert re.search(r"simple_python\s+│\s+-\s+│", result.stdout)


def test_fetch_from_a_missing_file_fails_even_when_the_data_is_present(
    empty_home: Path, bfcl_wheel: Path, tmp_path: Path
) -> None:
    from fcbench.cli import main

    runner = CliRunner()
    assert runner.invoke(main, ["data", "fetch", "--from", str(bfcl_wheel)]).exit_code == 0
    missing = tmp_path / "missing.whl"
    result = runner.invoke(main, ["data", "fetch", "--from", str(missing)])
    assert result.exit_code == 1 and "already present" not in result.output
    assert result.stderr == f"fcbench: error: --from {missing}: the file or folder does not exist\n"
