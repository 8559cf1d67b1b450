"""`runner.watchdog`: a server's process group is stopped when the pipe from fcbench closes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from fcbench.runner.serve import start_watchdog, stop_watchdog
from fcbench.runner.watchdog import group_alive

STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"


def group(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True)


def gone_within(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_group_is_stopped_when_the_pipe_closes_sigkill_for_the_stubborn() -> None:
    server = group(STUBBORN)
    watchdog = start_watchdog(server.pid, grace=0.5)
    assert watchdog is not None and watchdog.stdin is not None
    time.sleep(0.3)
    assert server.poll() is None  # nothing happens while fcbench holds the pipe
    watchdog.stdin.close()  # what the death of fcbench does
    server.wait(10)
    assert watchdog.wait(10) == 0 and gone_within(server.pid, 5)


def test_after_a_normal_stop_the_watchdog_just_exits() -> None:
    server = group("import time; time.sleep(60)")
    watchdog = start_watchdog(server.pid)
    assert watchdog is not None
    os.killpg(server.pid, 9)
    server.wait()
    started = time.monotonic()
    stop_watchdog(watchdog)
    assert watchdog.returncode == 0 and time.monotonic() - started < 5
