"""The numeric flags of `run`, `generate` and `evaluate` are checked when parsed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli import main

BAD_VALUES = [
    ("--timeout", "0"), ("--timeout", "-5"),
    ("--max-rps", "0"),
    ("--temperature", "-1"),
    ("--top-p", "0"), ("--top-p", "7"),
    ("--max-tokens", "0"), ("--max-tokens", "-1"),
    ("--concurrency", "0"),
    ("--max-attempts", "0"),
    ("--serpapi-max-wait", "-1"),
    ("--max-retry-wait", "-1"),
    ("--stop-after", "-1"),
    ("--serve-timeout", "0"),
]


@pytest.mark.parametrize("command", ["run", "generate"])
@pytest.mark.parametrize(("flag", "value"), BAD_VALUES)
def test_an_out_of_range_value_is_one_line_before_anything_is_asked(
    command: str, flag: str, value: str, tmp_path: Path
) -> None:
    results = tmp_path / "r"
    outcome = CliRunner().invoke(
        main, [command, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
               "--result-dir", str(results), flag, value],
        prog_name="fcbench",
    )
    assert outcome.exit_code == 2
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith(f"fcbench: error: Invalid value for '{flag}': ")
    assert "is not in the range" in lines[0]
    assert not results.exists()


@pytest.mark.parametrize(("flag", "value"), [
    ("--temperature", "0"), ("--top-p", "1"), ("--max-rps", "0.5"), ("--max-tokens", "1"),
    ("--serpapi-max-wait", "0"),
])
def test_the_edges_of_each_range_are_accepted(flag: str, value: str) -> None:
    """Parsed without complaint: the run then fails on its unknown category, not the flag."""
    outcome = CliRunner().invoke(
        main, ["generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
              "--categories", "no_such_category", flag, value],
        prog_name="fcbench",
    )
    assert "Invalid value" not in outcome.stderr
    assert "no_such_category" in outcome.stderr


# Choices built from the registries (issue 21 item 3).
REGISTRY_FLAGS = [
    # (command, flag, a registered name, the registry's module)
    ("run", "--backend", "anthropic", "fcbench.models.registry"),
    ("run", "--tool-call-format", "mistral", "fcbench.decode.tool_call_formats"),
    ("run", "--prompt-format", "qwen", "fcbench.models.families"),
    ("run", "--web-provider", "ddgs", "fcbench.envs.web_search.services"),
    ("run", "--exec-backend", "replay", "fcbench.envs.exec_functions.backends"),
    ("run", "--serve", "sglang", "fcbench.runner.serve"),
    ("run", "--corrections", "community-2026", "fcbench.corrections"),
    ("evaluate", "--output-format", "llama-3.1", "fcbench.decode.families"),
    ("evaluate", "--exec-backend", "live", "fcbench.envs.exec_functions.backends"),
]


def test_the_help_imports_no_registry() -> None:
    """`fcbench --help` stays fast: fails when a choice reads its registry at import."""
    import subprocess
    import sys

    modules = sorted({module for _, _, _, module in REGISTRY_FLAGS})
    probe = ("import sys; from fcbench.cli import main\n"
             "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             f"print([m for m in {modules!r} if m in sys.modules])")
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, timeout=120)
    assert shown.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(("command", "flag", "name", "module"), REGISTRY_FLAGS)
def test_each_registry_flag_offers_its_registry_names(
    command: str, flag: str, name: str, module: str
) -> None:
    """An unknown name is one usage line listing the registry's names; fails when a flag
    lists names of its own."""
    outcome = CliRunner().invoke(main, [command, flag, "no-such-name"], prog_name="fcbench")
    assert outcome.exit_code == 2
    assert f"'{name}'" in outcome.stderr and "no-such-name" in outcome.stderr


def test_a_name_registered_after_the_flags_were_built_is_accepted(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.cli.flags import RegistryChoice
    from fcbench.decode import tool_call_formats as text_formats

    choice = RegistryChoice("fcbench.decode.tool_call_formats:names")
    assert "late" not in choice.choices
    monkeypatch.setattr(text_formats.PARSERS, "_entries", dict(text_formats.PARSERS._entries))
    text_formats.register("late", lambda text: None)
    assert choice.convert("late", None, None) == "late"
    assert RegistryChoice("fcbench.corrections:PROFILES", sort=True).choices == (
        "community-2026", "lenient-defaults", "none")


def test_a_grouped_command_lists_required_flags_first_then_its_sections_in_order() -> None:
    import click

    from fcbench.cli.flags import GroupedCommand, grouped

    @click.command(cls=GroupedCommand, groups=("Second", "First"))
    @grouped("First")("--alpha", help="a")
    @click.option("--loose", help="no section")
    @grouped("Second")("--beta", help="b")
    @grouped("First")("--needed", required=True, help="n")
    @grouped("Nowhere")("--stray", help="a section the command does not list")
    def toy(**_: object) -> None:
        """A toy."""

    text = CliRunner().invoke(toy, ["--help"]).output
    titles = [line for line in text.splitlines() if line.endswith(":") and line[0] != " "]
    assert titles == ["Required:", "Second:", "First:", "Other options:"]
    order = [text.index(flag) for flag in ("--needed", "--beta", "--alpha", "--loose")]
    assert order == sorted(order)
    assert text.index("--stray") > text.index("Other options:")
