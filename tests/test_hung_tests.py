"""A hung test fails naming itself (issue 30 item 7): the per-test time limit of
pyproject.toml, with its method, under xdist, for a test asleep, one waiting on a thread's
event, and one waiting on a child process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HUNG = '''
import subprocess
import threading
import time


def test_asleep():
    time.sleep(120)


def test_waits_on_a_thread():
    threading.Event().wait()


def test_waits_on_a_child():
    subprocess.run(["sleep", "120"], check=False)


def test_fine():
    assert True
'''


def test_the_limit_is_configured() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    section = re.split(r"^\[tool\.pytest\.ini_options\]$", text, maxsplit=1,
                       flags=re.MULTILINE)[1].split("\n[", 1)[0]
    method = re.search(r'^timeout_method = "(\w+)"$', section, re.MULTILINE)
    limit = re.search(r"^timeout = (\d+)$", section, re.MULTILINE)
    assert method is not None and method.group(1) == "signal"
    assert limit is not None and 60 <= int(limit.group(1)) <= 600


def test_a_hung_test_fails_naming_itself_under_xdist(tmp_path: Path) -> None:
    """The project's own configuration (`-c pyproject.toml`), its limit lowered to 3 s."""
    (tmp_path / "test_hung.py").write_text(HUNG)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
         str(tmp_path), "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "1",
         "-o", "timeout=3", "-rf", str(tmp_path / "test_hung.py")],
        capture_output=True, text=True, timeout=100, check=False, cwd=tmp_path)
    out = ran.stdout
    assert ran.returncode == 1, out + ran.stderr
    for name in ("test_asleep", "test_waits_on_a_thread", "test_waits_on_a_child"):
        assert f"FAILED test_hung.py::{name} - Failed: Timeout" in out, out
    assert "1 passed" in out and "3 failed" in out
