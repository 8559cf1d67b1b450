"""A plugin's import is guarded against every BaseException except a real Ctrl-C (issue 30):
SystemExit, a KeyboardInterrupt the plugin raises itself, GeneratorExit and odd
BaseExceptions become one warning line; a SIGINT that arrives during the import still stops
fcbench."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import fcbench
from fcbench import plugins
from toy_extensions import fake_distribution

TESTS = Path(__file__).resolve().parent
GROUP = "fcbench.test_guard"
ENTRY_POINTS = f"""\
[{GROUP}]
exits = toy_extensions.exits_on_import:X
interrupts = toy_extensions.interrupts_on_import:X
odd = toy_extensions.odd_base_exception_on_import:X
closed = toy_extensions.generator_exit_on_import:X
fine = toy_extensions.pipes_parser:parse

[fcbench.test_sigint]
sigint = toy_extensions.sigint_on_import:X

[fcbench.backends]
exits = toy_extensions.exits_on_import:X
"""


def installed(folder: Path) -> Path:
    return fake_distribution(folder, "guard-plugins", ENTRY_POINTS)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = installed(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    plugins.forget()
    yield folder
    plugins.forget()
    for name in [m for m in sys.modules if m.startswith("toy_extensions.")
                 and m.endswith("_on_import")]:
        del sys.modules[name]


def test_every_base_exception_of_a_plugin_is_one_warning(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = plugins.load(GROUP)
    assert [name for name, _ in loaded] == ["fine"]
    warnings = capsys.readouterr().err.splitlines()
    assert warnings == [
        f"fcbench: warning: plugin 'closed' ({GROUP}) left out: cannot load "
        "toy_extensions.generator_exit_on_import:X: GeneratorExit: closed",
        f"fcbench: warning: plugin 'exits' ({GROUP}) left out: cannot load "
        "toy_extensions.exits_on_import:X: SystemExit: 3",
        f"fcbench: warning: plugin 'interrupts' ({GROUP}) left out: cannot load "
        "toy_extensions.interrupts_on_import:X: KeyboardInterrupt: raised by the plugin, not "
        "by a signal (no Ctrl-C was pressed)",
        f"fcbench: warning: plugin 'odd' ({GROUP}) left out: cannot load "
        "toy_extensions.odd_base_exception_on_import:X: Odd: odd",
    ]


def test_a_real_ctrl_c_during_the_import_still_stops(site: Path) -> None:
    import signal

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        plugins.load("fcbench.test_sigint")
    assert signal.getsignal(signal.SIGINT) is before  # the watch is undone


def test_a_ground_truth_run_survives_a_plugin_that_exits(
    site: Path, fetched_home: Path, tmp_path: Path
) -> None:
    """Once every run, even `--model ground-truth`, ended with the plugin's exit status."""
    source = Path(fcbench.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(TESTS), str(source)])}
    ran = subprocess.run(
        [sys.executable, "-m", "fcbench.cli", "run", "--model", "ground-truth",
         "--categories", "simple_python", "--limit", "2", "--result-dir", str(tmp_path / "r"),
         "--score-dir", str(tmp_path / "s"), "--no-report", "--quiet"],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert [line for line in ran.stderr.splitlines() if "warning: plugin" in line] == [
        "fcbench: warning: plugin 'exits' (fcbench.backends) left out: cannot load "
        "toy_extensions.exits_on_import:X: SystemExit: 3"]
