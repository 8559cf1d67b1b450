"""A watchdog that stops a started server when fcbench dies, even by SIGKILL.

fcbench stops the server it started (`runner.serve`) however a run ends, as long as it can
run code: success, errors, Ctrl-C, SIGTERM. A `kill -9` (or the out-of-memory killer) leaves
it no chance, and an engine left running would hold its GPU. So next to the server fcbench
starts this script as a process of its own: it blocks reading a pipe whose only writer is
fcbench; the read returns (end of file) when fcbench closes it or dies, whatever killed it.
Then the server's process group gets SIGTERM, and SIGKILL after a grace period.

Why a pipe and a process rather than Linux's parent-death signal: the pipe works on every
POSIX system, and it reaches the whole process group (an engine's workers), which a signal
to the direct child would not.

The file runs as a script (`python -I watchdog.py PGID GRACE`): standard library only, no
fcbench import, so it starts in milliseconds whatever the environment.
"""

from __future__ import annotations

import os
import signal
import sys
import time

POLL = 0.1


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is left (one we may signal)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(pgid: int, grace: float) -> None:
    """SIGTERM to the group, SIGKILL to what is left after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and group_alive(pgid):
            time.sleep(POLL)
        if not group_alive(pgid):
            return


def main(argv: list[str]) -> int:
    """Wait for end of file on stdin (fcbench gone), then stop process group `argv[0]`."""
    pgid, grace = int(argv[0]), float(argv[1])
    for sig in (signal.SIGINT, signal.SIGHUP):  # the terminal's signals are fcbench's to act on
        signal.signal(sig, signal.SIG_IGN)
    try:
        while sys.stdin.buffer.read(1):
            pass
    except OSError:
        pass
    stop_group(pgid, grace)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
